package svgchart

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// textExtent is one <text> of a chart with the box it is estimated to take.
type textExtent struct {
	s              string
	x0, y0, x1, y1 float64
}

// wideRune reports a character that takes about two Latin widths: CJK
// ideographs and punctuation, kana, hangul, full-width forms.
func wideRune(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xff60 || r >= 0xffe0 && r <= 0xffe6
}

// textExtents parses svg and estimates the box of every <text> from its
// x and y, its font size and anchor (inherited from enclosing groups) and
// its characters: 0.6 of the font size a character, CJK characters
// double, one font size above the baseline and a quarter below. It also
// returns the view box's width and height.
func textExtents(t *testing.T, svg string) ([]textExtent, float64, float64) {
	t.Helper()
	type style struct {
		size   float64
		anchor string
	}
	dec := xml.NewDecoder(strings.NewReader(svg))
	stack := []style{{13, "start"}}
	var out []textExtent
	var vw, vh float64
	var cur *textExtent
	var curStyle style
	var x, y float64
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			st := stack[len(stack)-1]
			for _, a := range tk.Attr {
				switch a.Name.Local {
				case "font-size":
					st.size, _ = strconv.ParseFloat(a.Value, 64)
				case "text-anchor":
					st.anchor = a.Value
				case "viewBox":
					f := strings.Fields(a.Value)
					vw, _ = strconv.ParseFloat(f[2], 64)
					vh, _ = strconv.ParseFloat(f[3], 64)
				case "x":
					x, _ = strconv.ParseFloat(a.Value, 64)
				case "y":
					y, _ = strconv.ParseFloat(a.Value, 64)
				}
			}
			stack = append(stack, st)
			if tk.Name.Local == "text" {
				cur, curStyle = &textExtent{x0: x, y0: y}, st
			}
		case xml.CharData:
			if cur != nil {
				cur.s += string(tk)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if tk.Name.Local == "text" && cur != nil {
				w := 0.0
				for _, r := range cur.s {
					if wideRune(r) {
						w += 1.2 * curStyle.size
					} else {
						w += 0.6 * curStyle.size
					}
				}
				tx, ty := cur.x0, cur.y0
				switch curStyle.anchor {
				case "middle":
					tx -= w / 2
				case "end":
					tx -= w
				}
				out = append(out, textExtent{s: cur.s, x0: tx, y0: ty - curStyle.size, x1: tx + w, y1: ty + curStyle.size/4})
				cur = nil
			}
		}
	}
	return out, vw, vh
}

// assertNoOverlap fails when two texts' boxes overlap or one leaves the
// view box.
func assertNoOverlap(t *testing.T, svg string) {
	t.Helper()
	texts, vw, vh := textExtents(t, svg)
	if len(texts) == 0 {
		t.Fatal("no text")
	}
	for i, a := range texts {
		if a.x0 < 0 || a.y0 < 0 || a.x1 > vw || a.y1 > vh {
			t.Errorf("%q at (%.1f, %.1f)–(%.1f, %.1f) leaves the view box %.0f × %.0f", a.s, a.x0, a.y0, a.x1, a.y1, vw, vh)
		}
		for _, b := range texts[i+1:] {
			if a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 {
				t.Errorf("%q (%.1f, %.1f)–(%.1f, %.1f) overlaps %q (%.1f, %.1f)–(%.1f, %.1f)",
					a.s, a.x0, a.y0, a.x1, a.y1, b.s, b.x0, b.y0, b.x1, b.y1)
			}
		}
	}
}

// written reports whether the chart writes s in full, in one text or
// wrapped over consecutive ones.
func written(t *testing.T, svg, s string) bool {
	texts, _, _ := textExtents(t, svg)
	var all []string
	for _, x := range texts {
		all = append(all, x.s)
	}
	return strings.Contains(strings.Join(all, " "), s) || strings.Contains(strings.Join(all, ""), s)
}

// r9700 are four HOSTKEY offers of one GPU whose names differ only at the
// end, as the compare page names them.
var r9700 = []string{
	"HOSTKEY · AMD Radeon AI PRO R9700 ×1 · R9700 按小时档 / hourly tier",
	"HOSTKEY · AMD Radeon AI PRO R9700 ×1 · R9700 GPU VPS 月付套餐 / monthly GPU VPS",
	"HOSTKEY · AMD Radeon AI PRO R9700 ×1 · R9700 预配置服务器 / preconfigured server",
	"HOSTKEY · AMD Radeon AI PRO R9700 ×1 · R9700 定制服务器 / custom server",
}

func TestHistoryChartTextsDoNotOverlap(t *testing.T) {
	c := Chart{ID: "m", Title: "月付价格", YLabel: "月付价格（CNY）"}
	for i, v := range []string{"284", "118", "70"} {
		c.Series = append(c.Series, Series{Name: r9700[i+1] + " (#" + strconv.Itoa(i+12) + ")", Points: []Point{
			{At: at("2026-01-10"), Value: d(v)}, {At: at("2026-06-01"), Value: d(v).Add(d("1"))}}})
	}
	svg := Render(c)
	assertNoOverlap(t, svg)
	// Each series is numbered at its end and named in full in the legend.
	for i, s := range c.Series {
		if !written(t, svg, strconv.Itoa(i+1)+" "+s.Name) {
			t.Errorf("legend misses %d %s", i+1, s.Name)
		}
	}
	if n := strings.Count(svg, `class="chart-label series-number"`); n != 1 {
		t.Errorf("%d number groups", n)
	}
}

func TestCompareChartsTextsDoNotOverlap(t *testing.T) {
	c := CurveChart{ID: "c", Title: "Cost curves", XLabel: "每月运行小时", YLabel: "每月成本（EUR）",
		LegendHourly: "按小时", LegendMonthly: "包月", LegendSpot: "竞价", LegendBreakEven: "盈亏平衡小时数",
		Quotes: []CurveQuote{
			{Name: r9700[0], Hourly: nd("0.471"), Spot: nd("0.33")},
			{Name: r9700[1], Monthly: nd("70")},
			{Name: r9700[2], Monthly: nd("118")},
			{Name: r9700[3], Monthly: nd("284"), Hourly: nd("0.47"), BreakEvenHours: nd("604.26"), BreakEvenLabel: "604.26 小时"},
		}}
	for i, h := range []string{"148.62", "250.53", "602.97"} {
		c.Crossings = append(c.Crossings, CurveCrossing{Hourly: 0, Monthly: i + 1, Hours: d(h), Label: h + " 小时"})
	}
	c.Crossings = append(c.Crossings, CurveCrossing{Hourly: 3, Monthly: 1, Hours: d("148.94"), Label: "148.94 小时"},
		CurveCrossing{Hourly: 3, Monthly: 2, Hours: d("251.06"), Label: "251.06 小时"})
	svg := CostCurves(c)
	assertNoOverlap(t, svg)
	for i, name := range r9700 {
		if !written(t, svg, strconv.Itoa(i+1)+" "+name) {
			t.Errorf("curve legend misses %d %s", i+1, name)
		}
	}

	b := BarChart{ID: "b", Title: "TCO", XLabel: "TCO (EUR)", LegendCompute: "算力", LegendHidden: "隐性成本", LegendOneOff: "一次性"}
	for i, name := range r9700 {
		b.Bars = append(b.Bars, Bar{Name: name, Compute: d("300"), Hidden: d(strconv.Itoa(10 * i)), TotalText: "€3," + strconv.Itoa(i) + "00.00"})
	}
	// A name longer than the chart is wide wraps onto more rows.
	b.Bars = append(b.Bars, Bar{Name: strings.Repeat("很长的供应商名称", 8), Compute: d("1"), TotalText: "€1.00"})
	svg = StackedBars(b)
	assertNoOverlap(t, svg)
	for i, name := range r9700 {
		if !written(t, svg, strconv.Itoa(i+1)+" "+name) {
			t.Errorf("bar legend misses %d %s", i+1, name)
		}
	}
}
