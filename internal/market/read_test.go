package market

import (
	"net/url"
	"testing"
	"time"

	"gpuquote/internal/form"
)

var day = time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)

func values(kv ...string) *form.Reader {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return form.Values(v)
}

// TestReadPlatform: a name in either language, codes upper-cased, a year
// from 1990 to this one, qualifications yes / no / unknown, granularities
// stored finest first.
func TestReadPlatform(t *testing.T) {
	r := values("name_en", " AutoDL ", "country", "cn", "currency", "cny", "operating_since", "2021",
		"iso27001", "true", "mlps3", "false", "website", "https://autodl.example")
	p := ReadPlatform(r, []string{"hour", "second"}, 2026)
	if !r.OK() || p.NameEN != "AutoDL" || p.Country != "CN" || p.Currency != "CNY" || *p.OperatingSince != 2021 ||
		!*p.ISO27001 || *p.MLPS3 || p.IDCLicence != nil || len(p.BillingGranularities) != 2 || p.BillingGranularities[0] != "second" {
		t.Fatalf("platform %+v, problems %v", p, r.Errs)
	}
	r = values("country", "EU", "currency", "ZZZ", "operating_since", "2027", "website", "ftp://x", "mlps3", "maybe")
	ReadPlatform(r, []string{"fortnight"}, 2026)
	for field, id := range map[string]string{"name_zh": MsgNameRequired, "country": MsgCountry, "currency": "form.error.currency",
		"operating_since": MsgOperatingSince, "website": MsgWebsite, "mlps3": form.MsgChoice, "billing_granularities": form.MsgChoice} {
		if r.Errs.ID(field) != id {
			t.Errorf("%s: %q, want %q", field, r.Errs.ID(field), id)
		}
	}
}

// TestReadGPUModelFigures: an empty row of figures is no figure; a row
// with anything needs its nominal figure and source; a measured figure
// names its benchmark; ranges are in order.
func TestReadGPUModelFigures(t *testing.T) {
	r := values("vendor", "NVIDIA", "name", "H200", "vram_gb", "141", "interconnect", "nvlink",
		"load_power_min_w", "600", "load_power_max_w", "500",
		PerfField("bf16", "nominal"), "989.4", PerfField("bf16", "nominal_source"), "datasheet",
		PerfField("bf16", "measured"), "780", PerfField("fp8", "nominal_source"), "datasheet")
	g := ReadGPUModel(r)
	if len(g.Perf) != 2 || g.Perf[0].Precision != "bf16" || g.Perf[0].MeasuredTFLOPS.Decimal.String() != "780" {
		t.Fatalf("perf %+v", g.Perf)
	}
	for field, id := range map[string]string{"load_power_max_w": MsgRangeOrder, PerfField("bf16", "benchmark"): MsgBenchRequired,
		PerfField("fp8", "nominal"): MsgNominalRequired} {
		if r.Errs.ID(field) != id {
			t.Errorf("%s: %q, want %q", field, r.Errs.ID(field), id)
		}
	}
	if len(r.Errs) != 3 {
		t.Errorf("problems %v", r.Errs)
	}
}

// TestReadDatedSamples: a reference price's unit is one its item allows
// (never a guess); a rate joins two different currencies; dates are not
// after the latest day.
func TestReadDatedSamples(t *testing.T) {
	r := values("item", "egress", "currency", "eur", "unit", "per_hour", "unit_price", "0.05", "as_of", "2026-12-04", "source", "x")
	ReadReferencePrice(r, day)
	if r.Errs.ID("unit") != MsgUnitNotAllowed || r.Errs.ID("as_of") != form.MsgFuture || len(r.Errs) != 2 {
		t.Errorf("reference price problems %v", r.Errs)
	}
	r = values("base", "usd", "quote", "USD", "rate", "0", "as_of", "2026-12-01", "source", "ECB")
	fx := ReadFXRate(r, day)
	if fx.Base != "USD" || r.Errs.ID("quote") != MsgSameCurrency || r.Errs.ID("rate") != form.MsgPositive {
		t.Errorf("rate %+v problems %v", fx, r.Errs)
	}
}

// TestReadTerms: eleven terms in order; "in writing" needs an answer.
func TestReadTerms(t *testing.T) {
	r := values(TermField(TermKindSLA, "availability_definition", "in_writing"), "true",
		TermField(TermKindSLA, "data_loss", "answer"), "数据丢失按月费赔偿", TermField(TermKindSLA, "data_loss", "answered_on"), "2026-11-30")
	terms := ReadTerms(r, day)
	if len(terms) != 11 || terms[0].Kind != TermKindSLA {
		t.Fatalf("%d terms", len(terms))
	}
	if r.Errs.ID(TermField(TermKindSLA, "availability_definition", "in_writing")) != MsgWritingNoAnswer || len(r.Errs) != 1 {
		t.Errorf("problems %v", r.Errs)
	}
}
