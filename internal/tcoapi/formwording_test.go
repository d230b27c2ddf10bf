package tcoapi

import (
	"net/url"
	"strings"
	"testing"

	"gpuquote/internal/form"
	"gpuquote/internal/i18n"
	"gpuquote/internal/tco"
)

// badForm is a calculator post with a number mistyped in every way a
// person types one.
func badForm() url.Values {
	return url.Values{
		"report_currency":                   {"USD"},
		"fx_rate":                           {"0"},
		"quote.currency":                    {"EUR"},
		"quote.gpu_count":                   {"99999999999999"},
		"quote.hourly":                      {"0,471"},
		"quote.monthly":                     {"1,234.5"},
		"quote.yearly":                      {"1e3"},
		"quote.billing_granularity":         {"second"},
		"quote.prices_include_tax":          {"false"},
		"quote.tax_rate":                    {"0.1234567"},
		"quote.commitment_months":           {"６"},
		"quote.lines[1].status":             {"charged"},
		"quote.lines[1].unit":               {"per_gb"},
		"quote.lines[1].unit_price":         {"-1"},
		"quote.lines[3].reference_price":    {"abc"},
		"quote.lines[8].reference_price":    {"-0.5"},
		"profile.hours_per_month":           {"２００"},
		"profile.months":                    {"1.5"},
		"profile.instances":                 {"1,000,000"},
		"profile.starts_per_month":          {"0"},
		"profile.public_ips":                {"-1"},
		"profile.mbps":                      {"-5"},
		"profile.egress_gb_per_month":       {"1,5"},
		"profile.spot_overhead":             {"11"},
		"profile.tokens_per_second_per_gpu": {"0"},
	}
}

type worded struct {
	id   string
	args map[string]any
}

// TestFormProblemsUseTheFormMessages posts mistyped numbers through
// FromForm and Evaluate: each is worded with the project's form message
// that says how to write it, on the form field it came from, with the
// API's code.
func TestFormProblemsUseTheFormMessages(t *testing.T) {
	fr := FromForm(badForm())
	_, errs, err := fr.Evaluate(nil, today)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]worded{}
	for _, e := range errs {
		got[fr.Field(e.Field)] = worded{e.MessageID, e.Args}
	}
	want := map[string]worded{
		"fx_rate":                           {form.MsgPositive, nil},
		"quote.gpu_count":                   {form.MsgRange, map[string]any{"Min": "1", "Max": "1,024"}},
		"quote.hourly":                      {form.MsgCommaDecimal, nil},
		"quote.monthly":                     {form.MsgThousands, nil},
		"quote.yearly":                      {form.MsgNumber, nil},
		"quote.tax_rate":                    {form.MsgPlaces(6), nil},
		"quote.commitment_months":           {form.MsgFullWidth, nil},
		"quote.lines[1].unit_price":         {form.MsgNegative, nil},
		"quote.lines[3].reference_price":    {form.MsgNumber, nil},
		"quote.lines[8].reference_price":    {form.MsgNegative, nil},
		"profile.hours_per_month":           {form.MsgFullWidth, nil},
		"profile.months":                    {form.MsgInteger, nil},
		"profile.instances":                 {form.MsgThousands, nil},
		"profile.starts_per_month":          {form.MsgRange, map[string]any{"Min": "1", "Max": "10,000"}},
		"profile.public_ips":                {form.MsgRange, map[string]any{"Min": "0", "Max": "10,000"}},
		"profile.mbps":                      {form.MsgNegative, nil},
		"profile.egress_gb_per_month":       {form.MsgCommaDecimal, nil},
		"profile.spot_overhead":             {form.MsgRange, map[string]any{"Min": "0", "Max": "10"}},
		"profile.tokens_per_second_per_gpu": {form.MsgPositive, nil},
	}
	for field, w := range want {
		g, ok := got[field]
		if !ok {
			t.Errorf("%s: no problem; got %v", field, got)
			continue
		}
		if g.id != w.id {
			t.Errorf("%s: message %s, want %s", field, g.id, w.id)
		}
		for k, v := range w.args {
			if g.args[k] != v {
				t.Errorf("%s: %s = %v, want %v", field, k, g.args[k], v)
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d: %v", len(got), len(want), got)
	}
	checkWording(t, errs)
}

// checkWording: every message exists in both languages and none tells a
// person typing into a form that a minus sign is allowed or what JSON type
// was expected.
func checkWording(t *testing.T, errs []FieldError) {
	t.Helper()
	c, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		for _, l := range i18n.Langs {
			if !c.Has(l, e.MessageID) {
				t.Errorf("%s: message %s missing in %s", e.Field, e.MessageID, l)
			}
			msg := c.Translator(l).TMap(e.MessageID, e.Args)
			for _, bad := range []string{"负号", "minus", "类型不对", "integer", "JSON"} {
				if strings.Contains(msg, bad) {
					t.Errorf("%s [%s]: %q mentions %q", e.Field, l, msg, bad)
				}
			}
		}
	}
}

// TestProfileFromFormWording: the comparison and questions pages read the
// usage profile through ProfileFromForm, with the same wording.
func TestProfileFromFormWording(t *testing.T) {
	_, errs := ProfileFromForm(url.Values{
		"profile.hours_per_month":           {"２００"},
		"profile.months":                    {"1,5"},
		"profile.instances":                 {"-2"},
		"profile.starts_per_month":          {"twice"},
		"profile.public_ips":                {"1234567890123"},
		"profile.mbps":                      {"-1"},
		"profile.snapshot_gb":               {"1 000"},
		"profile.data_disk_gb":              {"0.1234567"},
		"profile.performance_ratio":         {"0"},
		"profile.tokens_per_second_per_gpu": {"１"},
	})
	want := map[string]string{
		"profile.hours_per_month":           form.MsgFullWidth,
		"profile.months":                    form.MsgInteger,
		"profile.instances":                 form.MsgRange,
		"profile.starts_per_month":          form.MsgInteger,
		"profile.public_ips":                form.MsgRange,
		"profile.mbps":                      form.MsgNegative,
		"profile.snapshot_gb":               form.MsgThousands,
		"profile.data_disk_gb":              form.MsgPlaces(6),
		"profile.performance_ratio":         form.MsgPositive,
		"profile.tokens_per_second_per_gpu": form.MsgFullWidth,
	}
	got := map[string]FieldError{}
	for _, e := range errs {
		got[e.Field] = e
	}
	for f, id := range want {
		if got[f].MessageID != id {
			t.Errorf("%s: %s (%s), want %s", f, got[f].MessageID, got[f].Code, id)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d: %v", len(got), len(want), errs)
	}
	if a := got["profile.instances"].Args; a["Min"] != "1" || a["Max"] != "10,000" {
		t.Errorf("instances range %v", a)
	}
	// The codes stay the API's.
	if got["profile.hours_per_month"].Code != tco.CodeInvalidDecimal || got["profile.months"].Code != tco.CodeNotInteger ||
		got["profile.mbps"].Code != tco.CodeNegative || got["profile.instances"].Code != tco.CodeIntOutOfRange {
		t.Errorf("codes %v", errs)
	}
	checkWording(t, errs)

	// A required field left empty reads like every form's.
	_, errs = ProfileFromForm(url.Values{"profile.hours_per_month": {"100"}, "profile.months": {"1"}})
	if len(errs) != 1 || errs[0].Field != "profile.instances" || errs[0].MessageID != form.MsgRequired {
		t.Errorf("required: %v", errs)
	}
}

// TestJSONKeepsTheAPIWording: the same mistakes sent as JSON get the API's
// messages (err.tco.<code>); only a form's body is worded for a page.
func TestJSONKeepsTheAPIWording(t *testing.T) {
	body := `{"quote": {"currency": "EUR", "gpu_count": "1.5", "hourly": "0,471", "billing_granularity": "second",
	  "prices_include_tax": true}, "profile": {"hours_per_month": "２００", "months": 1, "instances": 1, "mbps": "-5"}}`
	_, errs, err := Evaluate([]byte(body), nil, today)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"profile.hours_per_month:invalid_decimal", "profile.mbps:negative",
		"quote.gpu_count:wrong_type", "quote.hourly:invalid_decimal"}
	if got := errorSet(errs); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("errors %v, want %v", got, want)
	}
	for _, e := range errs {
		if e.MessageID != tco.MessagePrefix+e.Code {
			t.Errorf("%s: message %s", e.Field, e.MessageID)
		}
	}
	// The form's body is the JSON request itself: read as one, it is
	// worded as the API's.
	fr := FromForm(url.Values{"quote.hourly": {"x"}})
	if _, errs := Decode(fr.Body); len(errs) == 0 || errs[0].Code == tco.CodeInvalidJSON {
		t.Errorf("Decode reads the form's body: %v", errs)
	}
	if _, errs, _ := Evaluate(fr.Body, nil, today); len(errs) == 0 || errs[0].MessageID != tco.MessagePrefix+errs[0].Code {
		t.Errorf("the form's body sent as JSON: %+v", errs)
	}
}
