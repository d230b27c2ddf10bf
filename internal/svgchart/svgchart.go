// Package svgchart draws small server-rendered line charts of dated
// decimal values as inline SVG: no script, no style attributes (the
// content security policy forbids both), presentation attributes for
// colours so the chart reads without the stylesheet, and CSS classes the
// stylesheet may refine (print). Coordinates are computed with exact
// decimals and rounded to one decimal place only when written out.
package svgchart

import (
	"encoding/xml"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/money"
)

// Point is one value at a date; Title is its tooltip (e.g. "2026-03-01:
// ¥2.60"), shown by browsers without script.
type Point struct {
	At    time.Time
	Value decimal.Decimal
	Title string
}

// Series is one line of a chart, its points in date order.
type Series struct {
	Name   string
	Points []Point
}

// Chart is what to draw. Values must not be negative (they are prices);
// the y axis starts at 0 so a chart never exaggerates a move.
type Chart struct {
	// ID prefixes the ids of the title and description; it must be unique
	// within the page.
	ID string
	// Title and Desc name the chart for screen readers (<title>, <desc>).
	Title string
	Desc  string
	// YLabel is written above the y axis, e.g. "Hourly (CNY)".
	YLabel string
	// From and To fix the date axis (so two charts line up); zero values
	// take the range of the points.
	From, To time.Time
	// Width and Height of the plot with its axes; zero means 640 × 240.
	// With more than one series the legend adds a row per series below,
	// so the view box is taller than Height.
	Width, Height int
	Series        []Series
}

// Layout of the view box: room for y tick labels on the left, the legend
// and axis label on top, date labels below.
const (
	marginLeft   = 72
	marginRight  = 20
	marginTop    = 36
	marginBottom = 40
	yIntervals   = 4
	maxDateTicks = 5
)

// seriesStroke and seriesDash tell series apart in colour and, for print
// in black and white, in dash pattern.
var (
	seriesStroke = []string{"#0f5c4d", "#b3261e", "#8a5a00", "#3b5bdb"}
	seriesDash   = []string{"", "6 3", "2 3", "8 3 2 3"}
)

// NiceScale returns a round step (1, 2 or 5 × 10ⁿ) that divides 0…hi into
// at most intervals parts, and the top of the axis (a multiple of step,
// ≥ hi). A hi of 0 or less gives step 1, top 1.
func NiceScale(hi decimal.Decimal, intervals int) (step, top decimal.Decimal) {
	if hi.Sign() <= 0 || intervals < 1 {
		return decimal.NewFromInt(1), decimal.NewFromInt(1)
	}
	raw := hi.Div(decimal.NewFromInt(int64(intervals)))
	// ⌊log₁₀ raw⌋ from the decimal's own digits: raw = c × 10^e with c > 0,
	// so ⌊log₁₀ raw⌋ = (digits of c) − 1 + e.
	c := raw.Coefficient()
	exp := len(c.String()) - 1 + int(raw.Exponent())
	pow := decimal.New(1, int32(exp))
	step = pow.Mul(decimal.NewFromInt(10))
	for _, m := range []int64{1, 2, 5} {
		if s := pow.Mul(decimal.NewFromInt(m)); s.GreaterThanOrEqual(raw) {
			step = s
			break
		}
	}
	top = hi.Div(step).Ceil().Mul(step)
	return step, top
}

// dayOf is the UTC calendar day of t.
func dayOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// daysBetween counts whole days from a to b.
func daysBetween(a, b time.Time) int64 {
	return int64(dayOf(b).Sub(dayOf(a)) / (24 * time.Hour))
}

// coord writes a coordinate with one decimal place: the only place a
// computed value becomes text.
func coord(d decimal.Decimal) string { return d.StringFixed(1) }

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// Render returns the chart as one <svg> element.
func Render(c Chart) string {
	w, h := c.Width, c.Height
	if w <= 0 || h <= 0 {
		w, h = 640, 240
	}
	left, right := decimal.NewFromInt(marginLeft), decimal.NewFromInt(int64(w-marginRight))
	top, bottom := decimal.NewFromInt(marginTop), decimal.NewFromInt(int64(h-marginBottom))
	plotW, plotH := right.Sub(left), bottom.Sub(top)

	var first, last time.Time
	hi := decimal.Zero
	for _, s := range c.Series {
		for _, p := range s.Points {
			if first.IsZero() || p.At.Before(first) {
				first = p.At
			}
			if last.IsZero() || p.At.After(last) {
				last = p.At
			}
			if p.Value.GreaterThan(hi) {
				hi = p.Value
			}
		}
	}
	from, to := c.From, c.To
	if from.IsZero() {
		from = first
	}
	if to.IsZero() {
		to = last
	}
	span := daysBetween(from, to)
	x := func(t time.Time) decimal.Decimal {
		if span <= 0 {
			return left.Add(plotW.Div(decimal.NewFromInt(2)))
		}
		return left.Add(plotW.Mul(decimal.NewFromInt(daysBetween(from, t))).Div(decimal.NewFromInt(span)))
	}
	step, yTop := NiceScale(hi, yIntervals)
	y := func(v decimal.Decimal) decimal.Decimal {
		if v.Sign() < 0 {
			v = decimal.Zero
		}
		return bottom.Sub(plotH.Mul(v).Div(yTop))
	}

	// The legend's rows below the date labels grow the view box.
	var legend string
	totalH := h
	if len(c.Series) > 1 {
		var lb strings.Builder
		names := make([]string, len(c.Series))
		for i, s := range c.Series {
			names[i] = s.Name
		}
		totalH = legendNames(&lb, names, w, h, func(i, lx, base int) string {
			sw := `<line x1="` + strconv.Itoa(lx) + `" y1="` + strconv.Itoa(base-4) + `" x2="` + strconv.Itoa(lx+24) + `" y2="` + strconv.Itoa(base-4) +
				`" stroke="` + seriesStroke[i%len(seriesStroke)] + `" stroke-width="2"`
			if dash := seriesDash[i%len(seriesDash)]; dash != "" {
				sw += ` stroke-dasharray="` + dash + `"`
			}
			return sw + `/>`
		}) + 4
		legend = lb.String()
	}

	var b strings.Builder
	id := esc(c.ID)
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ` + strconv.Itoa(w) + ` ` + strconv.Itoa(totalH) +
		`" role="img" aria-labelledby="` + id + `-title ` + id + `-desc" font-family="system-ui, sans-serif" font-size="13">`)
	b.WriteString(`<title id="` + id + `-title">` + esc(c.Title) + `</title>`)
	b.WriteString(`<desc id="` + id + `-desc">` + esc(c.Desc) + `</desc>`)

	// Grid and y tick labels.
	b.WriteString(`<g class="chart-grid" stroke="#d9e2df" stroke-width="1">`)
	for v := decimal.Zero; v.LessThanOrEqual(yTop); v = v.Add(step) {
		yy := coord(y(v))
		b.WriteString(`<line x1="` + coord(left) + `" y1="` + yy + `" x2="` + coord(right) + `" y2="` + yy + `"/>`)
	}
	b.WriteString(`</g><g class="chart-label" fill="#4a5a55" text-anchor="end">`)
	for v := decimal.Zero; v.LessThanOrEqual(yTop); v = v.Add(step) {
		b.WriteString(`<text x="` + coord(left.Sub(decimal.NewFromInt(6))) + `" y="` + coord(y(v).Add(decimal.NewFromInt(4))) + `">` +
			esc(money.Group(money.String(v))) + `</text>`)
	}
	b.WriteString(`</g>`)

	// Axes, axis label and date ticks.
	b.WriteString(`<g class="chart-axis" stroke="#4a5a55" stroke-width="1">`)
	b.WriteString(`<line x1="` + coord(left) + `" y1="` + coord(top) + `" x2="` + coord(left) + `" y2="` + coord(bottom) + `"/>`)
	b.WriteString(`<line x1="` + coord(left) + `" y1="` + coord(bottom) + `" x2="` + coord(right) + `" y2="` + coord(bottom) + `"/>`)
	b.WriteString(`</g>`)
	b.WriteString(`<text class="chart-label" x="` + coord(left) + `" y="16" fill="#1b2623" font-weight="600">` + esc(c.YLabel) + `</text>`)
	b.WriteString(`<g class="chart-label" fill="#4a5a55" text-anchor="middle">`)
	ticks := dateTicks(from, to)
	for i, d := range ticks {
		xx := coord(x(d))
		b.WriteString(`<line x1="` + xx + `" y1="` + coord(bottom) + `" x2="` + xx + `" y2="` + coord(bottom.Add(decimal.NewFromInt(4))) + `" stroke="#4a5a55"/>`)
		// The outer labels align with the plot's edges so none is cut off.
		anchor := ""
		switch {
		case len(ticks) > 1 && i == 0:
			anchor = ` text-anchor="start"`
		case len(ticks) > 1 && i == len(ticks)-1:
			anchor = ` text-anchor="end"`
		}
		b.WriteString(`<text x="` + xx + `" y="` + coord(bottom.Add(decimal.NewFromInt(18))) + `"` + anchor + `>` + dayOf(d).Format(time.DateOnly) + `</text>`)
	}
	b.WriteString(`</g>`)

	// Series: a line through the points and a marker per point.
	for i, s := range c.Series {
		stroke, dash := seriesStroke[i%len(seriesStroke)], seriesDash[i%len(seriesDash)]
		b.WriteString(`<g class="chart-series series-` + strconv.Itoa(i%len(seriesStroke)) + `">`)
		if len(s.Points) > 1 {
			pts := make([]string, len(s.Points))
			for j, p := range s.Points {
				pts[j] = coord(x(p.At)) + "," + coord(y(p.Value))
			}
			b.WriteString(`<polyline fill="none" stroke="` + stroke + `" stroke-width="2" stroke-linejoin="round"`)
			if dash != "" {
				b.WriteString(` stroke-dasharray="` + dash + `"`)
			}
			b.WriteString(` points="` + strings.Join(pts, " ") + `"/>`)
		}
		for _, p := range s.Points {
			b.WriteString(`<circle cx="` + coord(x(p.At)) + `" cy="` + coord(y(p.Value)) + `" r="3.5" fill="` + stroke + `">`)
			if p.Title != "" {
				b.WriteString(`<title>` + esc(p.Title) + `</title>`)
			}
			b.WriteString(`</circle>`)
		}
		b.WriteString(`</g>`)
	}

	// Numbers and legend, only when there is more than one line to tell
	// apart: each series' number beside its last point (moved apart where
	// series end close together), and below the plot one row per series
	// with its swatch, number and full name.
	if len(c.Series) > 1 {
		var idx []int
		var ys []decimal.Decimal
		for i, s := range c.Series {
			if len(s.Points) > 0 {
				idx = append(idx, i)
				ys = append(ys, decimal.Max(y(s.Points[len(s.Points)-1].Value).Add(dec(4)), top.Add(dec(11))))
			}
		}
		ys = spread(ys, dec(14), bottom.Sub(dec(3)))
		b.WriteString(`<g class="chart-label series-number" font-size="11" font-weight="600">`)
		for k, i := range idx {
			p := c.Series[i].Points[len(c.Series[i].Points)-1]
			b.WriteString(`<text x="` + coord(x(p.At).Add(dec(6))) + `" y="` + coord(ys[k]) + `" fill="` + seriesStroke[i%len(seriesStroke)] + `">` +
				strconv.Itoa(i+1) + `</text>`)
		}
		b.WriteString(`</g>`)
	}
	if len(legend) > 0 {
		b.WriteString(`<g class="chart-legend" fill="#1b2623">` + legend + `</g>`)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// dateTicks spreads up to maxDateTicks dates evenly from from to to,
// both included; one tick when they are the same day.
func dateTicks(from, to time.Time) []time.Time {
	span := daysBetween(from, to)
	if span <= 0 {
		return []time.Time{dayOf(from)}
	}
	n := int64(maxDateTicks - 1)
	if span < n {
		n = span
	}
	out := make([]time.Time, 0, n+1)
	for i := int64(0); i <= n; i++ {
		out = append(out, dayOf(from).AddDate(0, 0, int(span*i/n)))
	}
	return out
}

// textWidth estimates the width of s at the chart's font size: about 8
// units a Latin character, twice that (16) a wide (CJK) one.
func textWidth(s string) int {
	w := 0
	for _, r := range s {
		if r >= 0x1100 && (r <= 0x115f || r >= 0x2e80 && r <= 0xa4cf || r >= 0xac00 && r <= 0xd7a3 || r >= 0xf900 && r <= 0xfaff ||
			r >= 0xfe30 && r <= 0xfe4f || r >= 0xff00 && r <= 0xff60 || r >= 0xffe0 && r <= 0xffe6) {
			w += 16
		} else {
			w += 8
		}
	}
	return w
}
