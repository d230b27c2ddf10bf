package svgchart

import (
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func at(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// elements parses svg as XML (failing on anything ill-formed) and counts
// the start elements by local name.
func elements(t *testing.T, svg string) map[string]int {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	count := map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		if se, ok := tok.(xml.StartElement); ok {
			count[se.Name.Local]++
			if se.Name.Local == "svg" && se.Name.Space != "http://www.w3.org/2000/svg" {
				t.Errorf("svg namespace %q", se.Name.Space)
			}
			for _, a := range se.Attr {
				if a.Name.Local == "style" {
					t.Errorf("<%s> has a style attribute; the CSP forbids it", se.Name.Local)
				}
			}
		}
	}
	return count
}

func TestRenderIsWellFormedWithTitleAndEveryPoint(t *testing.T) {
	c := Chart{
		ID: "h-cny", Title: "Hourly price <CNY> & more", Desc: `3 samples, "lowest" 1.5`, YLabel: "Hourly (CNY)",
		Series: []Series{
			{Name: "1 GPU", Points: []Point{
				{At: at("2026-01-10"), Value: d("2.00"), Title: "2026-01-10: ¥2.00"},
				{At: at("2026-03-01"), Value: d("2.60")},
				{At: at("2026-05-01"), Value: d("2.600001")},
			}},
			{Name: "8 GPUs", Points: []Point{{At: at("2026-04-01"), Value: d("16")}}},
		},
	}
	svg := Render(c)
	n := elements(t, svg)
	if n["svg"] != 1 || n["desc"] != 1 || n["polyline"] != 1 {
		t.Errorf("elements %v", n)
	}
	if n["circle"] != 4 {
		t.Errorf("%d point markers, want 4", n["circle"])
	}
	// The chart's own <title> comes first and names the chart; one point
	// has a tooltip.
	if n["title"] != 2 || !strings.Contains(svg, `<title id="h-cny-title">Hourly price &lt;CNY&gt; &amp; more</title>`) {
		t.Errorf("title: %s", svg)
	}
	if !strings.Contains(svg, `aria-labelledby="h-cny-title h-cny-desc"`) || !strings.Contains(svg, `role="img"`) {
		t.Error("the chart is not labelled for screen readers")
	}
	// The polyline has exactly the three points of the first series.
	m := regexp.MustCompile(`points="([^"]*)"`).FindStringSubmatch(svg)
	if m == nil || len(strings.Fields(m[1])) != 3 {
		t.Fatalf("polyline points %v", m)
	}
	// Every coordinate has at most one decimal place.
	for _, num := range regexp.MustCompile(` (?:x|y|x1|x2|y1|y2|cx|cy)="([^"]*)"`).FindAllStringSubmatch(svg, -1) {
		if !regexp.MustCompile(`^-?\d+(\.\d)?$`).MatchString(num[1]) {
			t.Errorf("coordinate %q", num[1])
		}
	}
	// First and last date sit at the plot's edges; the y axis tops at 20
	// (16 → steps of 5), so 16 is at 16/20 of the height.
	first := strings.Split(strings.Fields(m[1])[0], ",")
	if first[0] != "72.0" {
		t.Errorf("first x %s", first[0])
	}
	// y = bottom 200 − plot height 164 × 16 ÷ 20 = 68.8.
	if !strings.Contains(svg, `cy="68.8"`) {
		t.Errorf("16 of 20 not at y 68.8:\n%s", svg)
	}
}

func TestRenderSinglePointAndEmpty(t *testing.T) {
	svg := Render(Chart{ID: "one", Title: "One", Series: []Series{{Name: "x", Points: []Point{{At: at("2026-01-01"), Value: d("0.471")}}}}})
	n := elements(t, svg)
	if n["circle"] != 1 || n["polyline"] != 0 {
		t.Errorf("single point: %v", n)
	}
	// One sample sits in the middle of the plot.
	if !strings.Contains(svg, `cx="346.0"`) {
		t.Errorf("single point not centred:\n%s", svg)
	}
	n = elements(t, Render(Chart{ID: "none", Title: "None"}))
	if n["circle"] != 0 || n["title"] != 1 {
		t.Errorf("empty: %v", n)
	}
}

func TestNiceScale(t *testing.T) {
	for _, c := range []struct{ max, step, top string }{
		{"1690.01", "500", "2000"},
		{"2.600001", "1", "3"},
		{"16", "5", "20"},
		{"0.471", "0.2", "0.6"},
		{"1000", "500", "1000"},
		{"1", "0.5", "1"},
		{"0", "1", "1"},
		{"343.83", "100", "400"},
	} {
		step, top := NiceScale(d(c.max), 4)
		if step.String() != c.step || top.String() != c.top {
			t.Errorf("NiceScale(%s) = %s, %s; want %s, %s", c.max, step, top, c.step, c.top)
		}
	}
}

func TestDateTicks(t *testing.T) {
	ticks := dateTicks(at("2026-01-01"), at("2026-01-03"))
	if len(ticks) != 3 || !ticks[2].Equal(at("2026-01-03")) {
		t.Errorf("short span: %v", ticks)
	}
	ticks = dateTicks(at("2026-01-01"), at("2026-12-31"))
	if len(ticks) != maxDateTicks || !ticks[0].Equal(at("2026-01-01")) || !ticks[4].Equal(at("2026-12-31")) {
		t.Errorf("year: %v", ticks)
	}
}
