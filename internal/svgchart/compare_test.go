package svgchart

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func nd(s string) decimal.NullDecimal { return decimal.NewNullDecimal(d(s)) }

// starts decodes svg as a whole (failing on anything ill-formed) and
// returns its start elements in document order.
func starts(t *testing.T, svg string) []xml.StartElement {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	var out []xml.StartElement
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		if se, ok := tok.(xml.StartElement); ok {
			out = append(out, se.Copy())
		}
	}
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// withClass returns the elements named name whose class is class.
func withClass(els []xml.StartElement, name, class string) []xml.StartElement {
	var out []xml.StartElement
	for _, se := range els {
		if se.Name.Local == name && attr(se, "class") == class {
			out = append(out, se)
		}
	}
	return out
}

// checkSafeAndLabelled checks what every chart must hold: no style
// attribute or script, a <title> and <desc> with the ids aria-labelledby
// names.
func checkSafeAndLabelled(t *testing.T, svg, id string) {
	t.Helper()
	if strings.Contains(svg, "style=") || strings.Contains(svg, "<script") {
		t.Errorf("style attribute or script in:\n%s", svg)
	}
	els := starts(t, svg)
	if els[0].Name.Local != "svg" || els[0].Name.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("root %v", els[0].Name)
	}
	if got := attr(els[0], "aria-labelledby"); got != id+"-title "+id+"-desc" {
		t.Errorf("aria-labelledby %q", got)
	}
	if els[1].Name.Local != "title" || attr(els[1], "id") != id+"-title" {
		t.Errorf("first child %v id %q, want the title", els[1].Name, attr(els[1], "id"))
	}
	if els[2].Name.Local != "desc" || attr(els[2], "id") != id+"-desc" {
		t.Errorf("second child %v id %q, want the desc", els[2].Name, attr(els[2], "id"))
	}
}

func TestCostCurvesBreakEvenAndLines(t *testing.T) {
	c := CurveChart{
		ID: "curves", Title: "Cost per month <EUR> & hours", Desc: "Three quotes", XLabel: "Hours per month", YLabel: "EUR per month",
		LegendHourly: "hourly", LegendMonthly: "monthly", LegendSpot: "spot", LegendBreakEven: "break-even",
		Width: 640, Height: 320,
		Quotes: []CurveQuote{
			// docs/RULES.md §13.1: €70 ÷ €0.471 = 148.62 h.
			{Name: "HOSTKEY R9700", Hourly: nd("0.471"), Monthly: nd("70"), Spot: nd("0.1728"),
				BreakEvenHours: decimal.NewNullDecimal(d("70").Div(d("0.471"))), BreakEvenLabel: "148.62 h"},
			// Break-even beyond a month: no dot.
			{Name: "B", Hourly: nd("0.1"), Monthly: nd("284"), BreakEvenHours: nd("2840"), BreakEvenLabel: "2,840.00 h"},
			{Name: "Monthly only", Monthly: nd("118")},
		},
	}
	svg := CostCurves(c)
	checkSafeAndLabelled(t, svg, "curves")
	els := starts(t, svg)
	n := elements(t, svg)

	hourly := withClass(els, "line", "curve-hourly")
	monthly := withClass(els, "line", "curve-monthly")
	spot := withClass(els, "line", "curve-spot")
	// Each kind has its lines plus one legend swatch.
	if len(hourly) != 2+1 || len(monthly) != 3+1 || len(spot) != 1+1 {
		t.Errorf("hourly %d, monthly %d, spot %d lines", len(hourly), len(monthly), len(spot))
	}
	for _, l := range hourly {
		if attr(l, "stroke-dasharray") != "" {
			t.Error("hourly line is dashed")
		}
	}
	if attr(monthly[0], "stroke-dasharray") == "" || attr(spot[0], "stroke-dasharray") == "" ||
		attr(monthly[0], "stroke-dasharray") == attr(spot[0], "stroke-dasharray") {
		t.Error("monthly and spot need distinct dashes")
	}
	// One break-even dot (the second quote's is beyond 730 h) plus the
	// legend's dot; three colour swatches.
	if n["circle"] != 2 || n["rect"] != 3 {
		t.Errorf("circles %d, rects %d", n["circle"], n["rect"])
	}
	// Chart title and the dot's tooltip.
	if n["title"] != 2 || n["desc"] != 1 {
		t.Errorf("titles %d, desc %d", n["title"], n["desc"])
	}
	if !strings.Contains(svg, "<title>HOSTKEY R9700: 148.62 h</title>") || !strings.Contains(svg, ">148.62 h</text>") {
		t.Error("break-even tooltip or label missing")
	}
	if !strings.Contains(svg, "Cost per month &lt;EUR&gt; &amp; hours") {
		t.Error("title not escaped")
	}

	// The dot sits at 72 + 540 × (70 ÷ 0.471) ÷ 730 = 181.94… (the plot
	// runs from x 72 to 640 − 28 = 612) and at the monthly price's height:
	// the y axis tops at 400 (343.83 → steps of 100), the plot runs from
	// 36 to 320 − 48 = 272, so 70 is at 272 − 236 × 70 ÷ 400 = 230.7.
	wantX := d("72").Add(d("540").Mul(d("70").Div(d("0.471"))).Div(d("730"))).StringFixed(1)
	if wantX != "181.9" {
		t.Fatalf("hand computation %s", wantX)
	}
	var dot xml.StartElement
	for _, se := range els {
		if se.Name.Local == "circle" && attr(se, "stroke") == "#ffffff" {
			dot = se
		}
	}
	if attr(dot, "cx") != wantX || attr(dot, "cy") != "230.7" {
		t.Errorf("break-even dot at (%s, %s), want (%s, 230.7)", attr(dot, "cx"), attr(dot, "cy"), wantX)
	}
	// The hourly line of the first quote runs from (72, 272) to
	// (612, 272 − 236 × 343.83 ÷ 400 = 69.1).
	h0 := hourly[0]
	if attr(h0, "x1") != "72.0" || attr(h0, "y1") != "272.0" || attr(h0, "x2") != "612.0" || attr(h0, "y2") != "69.1" {
		t.Errorf("hourly line %v", h0.Attr)
	}
	// 730 is labelled; 700 is too close to it on a 640-wide chart.
	if !strings.Contains(svg, `font-weight="600">730</text>`) || strings.Contains(svg, ">700</text>") || !strings.Contains(svg, ">600</text>") {
		t.Error("hour labels")
	}
}

func TestCostCurvesMonthlyOnlyDrawsOneLine(t *testing.T) {
	svg := CostCurves(CurveChart{ID: "m", Title: "M", Quotes: []CurveQuote{{Name: "Monthly only", Monthly: nd("118")}}})
	checkSafeAndLabelled(t, svg, "m")
	els := starts(t, svg)
	var curves int
	for _, se := range els {
		if se.Name.Local == "line" && strings.HasPrefix(attr(se, "class"), "curve-") {
			curves++
		}
	}
	// One monthly line and its legend swatch; no hourly or spot entry.
	if len(withClass(els, "line", "curve-monthly")) != 2 || curves != 2 {
		t.Errorf("curve lines %d", curves)
	}
	if n := elements(t, svg); n["circle"] != 0 {
		t.Errorf("circles %d", n["circle"])
	}
	if strings.Contains(svg, ">hourly<") || !strings.Contains(svg, ">monthly<") {
		t.Error("legend lists a kind that is not drawn, or misses one")
	}
}

func TestCostCurvesEmptyAndMany(t *testing.T) {
	if got := CostCurves(CurveChart{ID: "e", Title: "E"}); got != "" {
		t.Errorf("empty: %q", got)
	}
	if got := CostCurves(CurveChart{ID: "e", Title: "E", Quotes: []CurveQuote{{Name: "no price"}}}); got != "" {
		t.Errorf("no prices: %q", got)
	}
	var qs []CurveQuote
	for i := range 20 {
		qs = append(qs, CurveQuote{Name: "Quote " + strconv.Itoa(i+1) + " with a long name to wrap the legend", Hourly: nd("1." + strconv.Itoa(i))})
	}
	svg := CostCurves(CurveChart{ID: "many", Title: "Many", Quotes: qs})
	els := starts(t, svg)
	if got := len(withClass(els, "line", "curve-hourly")); got != len(qs)+1 {
		t.Errorf("%d hourly lines, want %d and a swatch", got, len(qs))
	}
	if n := elements(t, svg); n["rect"] != len(qs) {
		t.Errorf("%d legend swatches", n["rect"])
	}
	// The legend wraps below the plot: the view box grows past 320.
	vb := strings.Fields(attr(els[0], "viewBox"))
	if h, _ := strconv.Atoi(vb[3]); h <= 320+2*legendRow {
		t.Errorf("view box %v", vb)
	}
	// Every legend entry stays inside the width.
	for _, se := range els {
		if se.Name.Local == "rect" {
			if x, _ := strconv.Atoi(attr(se, "x")); x+12 > 640 {
				t.Errorf("swatch at %d", x)
			}
		}
	}
}

func TestStackedBars(t *testing.T) {
	long := "一个名字非常非常长的算力平台 RTX 4090 八卡包月特惠套餐"
	c := BarChart{
		ID: "bars", Title: "TCO split", Desc: "compute, hidden, one-off", XLabel: "TCO (EUR)",
		LegendCompute: "Compute", LegendHidden: "Hidden", LegendOneOff: "One-off",
		Bars: []Bar{
			{Name: "A", Compute: d("70"), Hidden: d("30"), OneOff: d("0"),
				ComputeText: "€70.00", HiddenText: "€30.00", OneOffText: "€0.00", TotalText: "€100.00"},
			{Name: long, Compute: d("300"), Hidden: d("50.5"), OneOff: d("49.5"),
				ComputeText: "€300.00", HiddenText: "€50.50", OneOffText: "€49.50", TotalText: "€400.00"},
		},
	}
	svg := StackedBars(c)
	checkSafeAndLabelled(t, svg, "bars")
	els := starts(t, svg)
	n := elements(t, svg)
	// Three legend swatches and five non-zero segments.
	if n["rect"] != 3+5 {
		t.Errorf("rects %d", n["rect"])
	}
	// Chart title, five segment tooltips, each bar number's full name.
	if n["title"] != 1+5+2 {
		t.Errorf("titles %d", n["title"])
	}
	for _, want := range []string{"<title>Compute: €70.00</title>", "<title>Hidden: €50.50</title>", "<title>One-off: €49.50</title>",
		"<title>" + long + "</title>", ">€100.00</text>", ">€400.00</text>", ">Compute</text>", ">Hidden</text>", ">One-off</text>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("missing %s", want)
		}
	}
	// Bars are numbered; the legend below names each number in full.
	if !strings.Contains(svg, ">2 "+long+"</text>") || !strings.Contains(svg, ">1 A</text>") || strings.Contains(svg, "…") {
		t.Error("legend does not give the full names")
	}
	// Segments of a bar touch: each starts where the previous ends, and the
	// 400 bar fills the plot (the axis tops at 400). The plot runs from
	// 32 (room for the bar numbers) to 640 − 12 − 56 − 8 = 564 ("€400.00"
	// is 7 × 8 wide).
	segs := [][]xml.StartElement{withClass(els, "rect", "bar-compute"), withClass(els, "rect", "bar-hidden"), withClass(els, "rect", "bar-oneoff")}
	if len(segs[0]) != 3 || len(segs[1]) != 3 || len(segs[2]) != 2 {
		t.Fatalf("segments %d %d %d", len(segs[0]), len(segs[1]), len(segs[2]))
	}
	end := func(se xml.StartElement) decimal.Decimal { return d(attr(se, "x")).Add(d(attr(se, "width"))) }
	if !end(segs[0][2]).Equal(d(attr(segs[1][2], "x"))) || !end(segs[1][2]).Equal(d(attr(segs[2][1], "x"))) {
		t.Error("segments do not touch")
	}
	if attr(segs[0][2], "x") != "32.0" || !end(segs[2][1]).Equal(d("564")) {
		t.Errorf("second bar from %s to %s", attr(segs[0][2], "x"), end(segs[2][1]))
	}
	// 70 of 400 over 532 units: 93.1 wide.
	if attr(segs[0][1], "width") != "93.1" {
		t.Errorf("first compute width %s", attr(segs[0][1], "width"))
	}

	if got := StackedBars(BarChart{ID: "e", Title: "E"}); got != "" {
		t.Errorf("empty: %q", got)
	}
}

// TestCostCurvesCrossingsAcrossQuotes: the guide's HOSTKEY R9700 hourly
// tier against its three monthly packages. Each crossing gets a dot on the
// monthly line, with a tooltip naming the pair and the hours; the largest
// (602.97 h) lies inside the hours axis; one beyond 730 h, or between lines
// that are not drawn, gets none; the legend's break-even dot appears
// because of the crossings alone.
func TestCostCurvesCrossingsAcrossQuotes(t *testing.T) {
	hostkey := CurveChart{ID: "x", Title: "Crossings", LegendBreakEven: "break-even", Width: 640, Height: 320,
		Quotes: []CurveQuote{
			{Name: "hourly tier", Hourly: nd("0.471")},
			{Name: "GPU VPS", Monthly: nd("70")},
			{Name: "preconfigured", Monthly: nd("118")},
			{Name: "custom", Monthly: nd("284")},
		}}
	hours := []string{"148.62", "250.53", "602.97"}
	c := hostkey
	for i, h := range hours {
		c.Crossings = append(c.Crossings, CurveCrossing{Hourly: 0, Monthly: i + 1, Hours: d(h), Label: h + " h",
			Title: c.Quotes[0].Name + " × " + c.Quotes[i+1].Name + ": " + h + " h"})
	}
	c.Crossings = append(c.Crossings,
		CurveCrossing{Hourly: 0, Monthly: 3, Hours: d("730.01"), Label: "beyond"}, // past a full month
		CurveCrossing{Hourly: 1, Monthly: 2, Hours: d("100"), Label: "no hourly line"},
		CurveCrossing{Hourly: 0, Monthly: 9, Hours: d("100"), Label: "no such quote"},
		CurveCrossing{Hourly: 0, Monthly: 1, Hours: d("0"), Label: "zero"},
	)
	svg := CostCurves(c)
	checkSafeAndLabelled(t, svg, "x")
	els := starts(t, svg)

	var dots []xml.StartElement
	for i, se := range els {
		if attr(se, "data-testid") != "chart-crossing" {
			continue
		}
		if se.Name.Local != "g" || els[i+1].Name.Local != "title" || els[i+2].Name.Local != "circle" {
			t.Fatalf("crossing %d: %v, then %v and %v; want a group with its title and dot", len(dots), se.Name, els[i+1].Name, els[i+2].Name)
		}
		dots = append(dots, els[i+2])
	}
	if len(dots) != len(hours) {
		t.Fatalf("%d crossing dots, want %d:\n%s", len(dots), len(hours), svg)
	}
	// The plot runs from x 72 to 612 for 0…730 h, and from y 272 (0) to
	// 36 (400, the axis top above 0.471 × 730 = 343.83).
	for i, h := range hours {
		wantX := d("72").Add(d("540").Mul(d(h)).Div(d("730")))
		wantY := d("272").Sub(d("236").Mul(c.Quotes[i+1].Monthly.Decimal).Div(d("400")))
		if attr(dots[i], "cx") != wantX.StringFixed(1) || attr(dots[i], "cy") != wantY.StringFixed(1) {
			t.Errorf("dot %s h at (%s, %s), want (%s, %s)", h, attr(dots[i], "cx"), attr(dots[i], "cy"), wantX.StringFixed(1), wantY.StringFixed(1))
		}
		if x := d(attr(dots[i], "cx")); x.GreaterThan(d("612")) || x.LessThan(d("72")) {
			t.Errorf("dot %s h outside the plot at x %s", h, x)
		}
		want := "<title>hourly tier × " + c.Quotes[i+1].Name + ": " + h + " h</title>"
		if !strings.Contains(svg, want) || !strings.Contains(svg, ">"+h+" h</text>") {
			t.Errorf("missing tooltip %s or label", want)
		}
		// Filled in the monthly quote's colour, ringed in the hourly one's.
		if attr(dots[i], "fill") != curveStroke[i+1] || attr(dots[i], "stroke") != curveStroke[0] {
			t.Errorf("dot %s h fill %s stroke %s", h, attr(dots[i], "fill"), attr(dots[i], "stroke"))
		}
	}
	for _, gone := range []string{"beyond", "no hourly line", "no such quote", "zero"} {
		if strings.Contains(svg, gone) {
			t.Errorf("crossing %q drawn", gone)
		}
	}
	// Three dots and the legend's.
	if n := elements(t, svg); n["circle"] != len(hours)+1 || !strings.Contains(svg, ">break-even</text>") {
		t.Errorf("circles %d; legend %v", n["circle"], strings.Contains(svg, ">break-even</text>"))
	}

	// Without crossings the same quotes have no dot and no legend entry.
	plain := CostCurves(hostkey)
	if n := elements(t, plain); n["circle"] != 0 || strings.Contains(plain, "break-even") || strings.Contains(plain, "chart-crossing") {
		t.Errorf("no crossings: circles %d\n%s", n["circle"], plain)
	}

	// A crossing without a title is named by the quotes' numbers.
	c.Crossings = []CurveCrossing{{Hourly: 0, Monthly: 2, Hours: d("250.53"), Label: "250.53 h"}}
	if svg := CostCurves(c); !strings.Contains(svg, "<title>1 × 3: 250.53 h</title>") {
		t.Errorf("default title missing:\n%s", svg)
	}
}
