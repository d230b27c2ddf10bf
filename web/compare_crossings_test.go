package web

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"gpuquote/internal/compare"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/tco"
)

// TestCompareShowsCrossingsAcrossOffers: the guide's HOSTKEY R9700 hourly
// tier and its three monthly packages, behind a quote that cannot be
// priced. The section lists each package's break-even against the tier
// with the caution and the differing spec field, and the chart puts each
// dot on the right pair (the unpriced quote draws no line, so the chart's
// numbering skips it).
func TestCompareShowsCrossingsAcrossOffers(t *testing.T) {
	gpu := market.GPUModel{ID: 1, Vendor: "AMD", Name: "Radeon AI PRO R9700", VRAMGB: dec("32")}
	offer := func(id int64, label, hourly, monthly string) compare.Candidate {
		q := hostkey()
		q.ID, q.SeriesID, q.PlatformID, q.GPUModelID, q.Label = id, id, 1, 1, label
		q.Hourly, q.Monthly = decimal.NullDecimal{}, decimal.NullDecimal{}
		if hourly != "" {
			q.Hourly = nd(hourly)
		}
		if monthly != "" {
			q.Monthly = nd(monthly)
		}
		return compare.Candidate{Quote: q, GPU: gpu}
	}
	spot := offer(1, "spot only", "", "")
	spot.Quote.SpotHourly = nd("0.2")
	custom := offer(5, "custom", "", "284")
	cores := 16
	custom.Quote.CPUCores = &cores
	cands := []compare.Candidate{spot, offer(2, "hourly tier", "0.471", ""), offer(3, "GPU VPS", "", "70"), offer(4, "preconfigured", "", "118"), custom}
	in := compare.Input{Profile: tco.Profile{HoursPerMonth: dec("200"), Months: 1, Instances: 1}, ReportCurrency: "EUR", Today: today}
	rows := compare.Run(cands, in)
	if rows[0].Priced {
		t.Fatal("the spot-only quote was priced; the test needs a row without a line")
	}

	for _, lang := range []i18n.Lang{i18n.EN, i18n.ZH} {
		tr := testCatalog.Translator(lang)
		var v CompareView
		CompareTable(tr, &v, rows, in, url.Values{}, compare.SortTCO, false)
		CompareCharts(tr, &v, rows, in)
		v.Page = Page{Title: "Compare"}
		doc := render(t, lang, Compare(v))
		sec := byID(t, doc, "compare-crossings")
		if !strings.Contains(text(byID(t, doc, "crossings-caution")), tr.T("compare.crossings.caution")) {
			t.Errorf("%s: caution missing", lang)
		}
		want := map[string]string{"GPU VPS": "148.62", "preconfigured": "250.53", "custom": "602.97"}
		var got []string
		sec.Find(`tr[data-testid="crossing"]`).Each(func(_ int, tr *goquery.Selection) {
			flexible := text(tr.Find(`[data-testid="crossing-flexible"] a`))
			committed := text(tr.Find(`[data-testid="crossing-committed"] a`))
			hours := text(tr.Find(`[data-testid="crossing-hours"]`))
			if !strings.Contains(text(tr.Find(`[data-testid="crossing-flexible"]`)), "HOSTKEY · AMD Radeon AI PRO R9700 × 1") {
				t.Errorf("%s: the pair's platform and GPU are not named", lang)
			}
			if flexible != "hourly tier" || !strings.Contains(hours, want[committed]) || want[committed] == "" {
				t.Errorf("%s: crossing %q × %q at %q", lang, flexible, committed, hours)
			}
			got = append(got, want[committed])
			specs := text(tr.Find(`[data-testid="crossing-specs"]`))
			if cpu := testCatalog.Translator(lang).T("quote.field.cpu_cores"); strings.Contains(specs, cpu) != (committed == "custom") {
				t.Errorf("%s: %s specs %q", lang, committed, specs)
			}
		})
		if strings.Join(got, ",") != "148.62,250.53,602.97" {
			t.Errorf("%s: crossings %v", lang, got)
		}

		// The chart: quote 1 is the hourly tier (the spot-only row has no
		// line), its dots sit on the packages' monthly lines.
		chart := byID(t, doc, "chart-curves")
		dots := chart.Find(`[data-testid="chart-crossing"]`)
		if dots.Length() != 3 {
			t.Fatalf("%s: %d crossing dots", lang, dots.Length())
		}
		dots.Each(func(i int, g *goquery.Selection) {
			title := g.ChildrenFiltered("title").Text()
			pkg := []string{"GPU VPS", "preconfigured", "custom"}[i]
			if !strings.Contains(title, "hourly tier") || !strings.Contains(title, pkg) || !strings.Contains(title, want[pkg]) {
				t.Errorf("%s: dot %d titled %q", lang, i, title)
			}
			circle := g.Find("circle")
			if fill, _ := circle.Attr("fill"); fill == "" {
				t.Errorf("%s: dot %d without a fill", lang, i)
			}
		})
	}

	// No pair, no section.
	var v CompareView
	tr := testCatalog.Translator(i18n.EN)
	two := compare.Run(cands[:2], in)
	CompareTable(tr, &v, two, in, url.Values{}, compare.SortTCO, false)
	CompareCharts(tr, &v, two, in)
	v.Page = Page{Title: "Compare"}
	if doc := render(t, i18n.EN, Compare(v)); doc.Find(`[data-testid="compare-crossings"]`).Length() != 0 ||
		doc.Find(`[data-testid="chart-crossing"]`).Length() != 0 {
		t.Error("crossings shown without a pair")
	}
}

// TestSavedReportShowsTheSameCrossings: a report frozen from the
// comparison shows the crossings the page showed, from its snapshot alone.
func TestSavedReportShowsTheSameCrossings(t *testing.T) {
	gpu := market.GPUModel{ID: 1, Vendor: "AMD", Name: "Radeon AI PRO R9700", VRAMGB: dec("32")}
	var cands []compare.Candidate
	values := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"}, "report_currency": {"EUR"}}
	for i, p := range []struct{ hourly, monthly string }{{"0.471", ""}, {"", "70"}, {"", "284"}} {
		q := hostkey()
		q.ID, q.SeriesID, q.PlatformID, q.GPUModelID, q.Hourly, q.Monthly = int64(i+1), int64(i+1), 1, 1, decimal.NullDecimal{}, decimal.NullDecimal{}
		if p.hourly != "" {
			q.Hourly = nd(p.hourly)
		}
		if p.monthly != "" {
			q.Monthly = nd(p.monthly)
		}
		cands = append(cands, compare.Candidate{Quote: q, GPU: gpu})
		values.Add("q", strconv.Itoa(i+1))
	}
	in := compare.Input{Profile: tco.Profile{HoursPerMonth: dec("200"), Months: 1, Instances: 1}, ReportCurrency: "EUR", Today: today}
	rows := compare.Run(cands, in)
	compare.Sort(rows, compare.SortTCO, false)
	tr := testCatalog.Translator(i18n.ZH)
	var v CompareView
	CompareTable(tr, &v, rows, in, values, compare.SortTCO, false)
	f := FrozenReportParts(tr, compare.Freeze(&compare.Comparison{Values: values, In: in, Rows: rows, SortKey: compare.SortTCO}, nil))
	if len(v.Crossings) != 2 || !reflect.DeepEqual(f.Crossings, v.Crossings) {
		t.Fatalf("report crossings %+v\npage crossings %+v", f.Crossings, v.Crossings)
	}
	doc := render(t, i18n.ZH, ReportTable(f))
	var got []string
	byID(t, doc, "compare-crossings").Find(`[data-testid="crossing-hours"]`).Each(func(_ int, s *goquery.Selection) { got = append(got, text(s)) })
	if len(got) != 2 || !strings.Contains(got[0], "148.62") || !strings.Contains(got[1], "602.97") {
		t.Errorf("report shows %q", got)
	}
	if doc.Find(`[data-testid="chart-crossing"]`).Length() != 2 {
		t.Errorf("report chart has %d crossing dots", doc.Find(`[data-testid="chart-crossing"]`).Length())
	}
}
