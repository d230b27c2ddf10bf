package svgchart

import (
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Text layout: every label a chart writes is given a box estimated from
// its position, font size, anchor and characters (textWidth, scaled to the
// font size), so that labels can be kept apart and inside the view box.

// box is the estimated extent of one text.
type box struct {
	x0, y0, x1, y1 decimal.Decimal
}

// textBox estimates the box of s written at (x, y) (the baseline) in font
// size fs with the anchor "start", "middle" or "end": an ascent of one
// font size above the baseline, a quarter below.
func textBox(x, y decimal.Decimal, fs int, anchor, s string) box {
	w := dec(textWidth(s)).Mul(dec(fs)).Div(dec(13))
	x0 := x
	switch anchor {
	case "middle":
		x0 = x.Sub(w.Div(dec(2)))
	case "end":
		x0 = x.Sub(w)
	}
	return box{x0: x0, y0: y.Sub(dec(fs)), x1: x0.Add(w), y1: y.Add(dec(fs).Div(dec(4)))}
}

func (a box) overlaps(b box) bool {
	return a.x0.LessThan(b.x1) && b.x0.LessThan(a.x1) && a.y0.LessThan(b.y1) && b.y0.LessThan(a.y1)
}

func (a box) inside(w, h int) bool {
	return a.x0.Sign() >= 0 && a.y0.Sign() >= 0 && a.x1.LessThanOrEqual(dec(w)) && a.y1.LessThanOrEqual(dec(h))
}

// placed are the boxes of the texts written so far.
type placed []box

// free reports whether bx overlaps none of them and stays in w × h.
func (p placed) free(bx box, w, h int) bool {
	if !bx.inside(w, h) {
		return false
	}
	for _, o := range p {
		if o.overlaps(bx) {
			return false
		}
	}
	return true
}

// wrapText splits s into lines whose estimated width is at most max,
// breaking after a space where one is near, else between characters.
func wrapText(s string, max int) []string {
	var out []string
	runes := []rune(s)
	for len(runes) > 0 {
		if textWidth(string(runes)) <= max {
			out = append(out, string(runes))
			break
		}
		n := 1
		for n < len(runes) && textWidth(string(runes[:n+1])) <= max {
			n++
		}
		cut := n
		if sp := strings.LastIndex(string(runes[:n]), " "); sp > 0 {
			if k := len([]rune(string(runes[:n])[:sp])); k > n/2 {
				cut = k + 1
			}
		}
		out = append(out, strings.TrimRight(string(runes[:cut]), " "))
		runes = runes[cut:]
	}
	return out
}

// spread moves the baselines ys (in any order) apart so that any two are
// at least gap apart, each as near its wish as it can, none below maxY;
// it returns the new baselines in the order given.
func spread(ys []decimal.Decimal, gap, maxY decimal.Decimal) []decimal.Decimal {
	idx := make([]int, len(ys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ys[idx[a]].LessThan(ys[idx[b]]) })
	out := make([]decimal.Decimal, len(ys))
	for k, i := range idx {
		out[i] = ys[i]
		if k > 0 && out[i].LessThan(out[idx[k-1]].Add(gap)) {
			out[i] = out[idx[k-1]].Add(gap)
		}
	}
	for k := len(idx) - 1; k >= 0; k-- {
		i := idx[k]
		limit := maxY
		if k < len(idx)-1 {
			limit = decimal.Min(limit, out[idx[k+1]].Sub(gap))
		}
		out[i] = decimal.Min(out[i], limit)
	}
	return out
}

// legendNames writes one legend entry per row from y0 on: a swatch drawn
// by swatch(x, baseline), then the number and the full name, wrapped to
// the width w; it returns the y below the last row. A swatch may be "".
func legendNames(b *strings.Builder, names []string, w, y0 int, swatch func(i, x, baseline int) string) int {
	y := y0
	for i, name := range names {
		lines := wrapText(strconv.Itoa(i+1)+" "+name, w-12-legendIndent)
		for k, l := range lines {
			base := y + legendRow/2 + 4
			if k == 0 {
				b.WriteString(swatch(i, 12, base))
			}
			b.WriteString(`<text x="` + strconv.Itoa(12+legendIndent) + `" y="` + strconv.Itoa(base) + `">` + esc(l) + `</text>`)
			y += legendRow
		}
	}
	return y
}

// legendIndent is the room left of a legend name for its swatch.
const legendIndent = 32
