package svgchart

import (
	"math/big"
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
	return extentOf(fs, s).box(x, y, anchor)
}

// extent is a text's estimated width in font size fs, and its half (for
// the anchor "middle"), worked out once for the places it is tried at.
type extent struct {
	fs      int
	w, half decimal.Decimal
}

func extentOf(fs int, s string) extent {
	w := dec(textWidth(s)).Mul(dec(fs)).Div(dec(13))
	return extent{fs: fs, w: w, half: w.Div(dec(2))}
}

// box is the text's box at (x, y) with the anchor (textBox).
func (e extent) box(x, y decimal.Decimal, anchor string) box {
	y0, y1 := e.lines(y)
	return e.boxAt(x, anchor, y0, y1)
}

// lines are the top and bottom of the text's box on the baseline y, held
// at boxPlaces.
func (e extent) lines(y decimal.Decimal) (y0, y1 decimal.Decimal) {
	return atBoxPlaces(y.Sub(dec(e.fs))), atBoxPlaces(y.Add(dec(e.fs).Div(dec(4))))
}

// boxAt is the text's box at x with the anchor between lines y0 and y1.
func (e extent) boxAt(x decimal.Decimal, anchor string, y0, y1 decimal.Decimal) box {
	x0 := x
	switch anchor {
	case "middle":
		x0 = x.Sub(e.half)
	case "end":
		x0 = x.Sub(e.w)
	}
	return box{x0: atBoxPlaces(x0), y0: y0, x1: atBoxPlaces(x0.Add(e.w)), y1: y1}
}

// boxPlaces are the decimal places a box's coordinates are held at: one
// exponent for them all, so that comparing two needs no rescaling
// (Decimal.Cmp rescales, allocating, when the exponents differ, and label
// placement compares thousands of times per chart). A coordinate has fewer
// places (a division keeps 16, and a coordinate is a sum of a few
// products of such), so holding it at 24 changes no value; one with more
// would keep its own and still compare exactly, only slower.
const boxPlaces = 24

// unitsAt[k] is 1 written with k places: multiplying by it appends k
// zeros to a coefficient (one multiplication, where Round rescales and
// divides).
var unitsAt = func() (u [boxPlaces + 1]decimal.Decimal) {
	for k := range u {
		u[k] = decimal.NewFromBigInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil), int32(-k))
	}
	return u
}()

// atBoxPlaces is d held at boxPlaces places, the same value.
func atBoxPlaces(d decimal.Decimal) decimal.Decimal {
	switch e := d.Exponent(); {
	case e <= -boxPlaces:
		return d
	case e > 0:
		return d.Round(boxPlaces)
	default:
		return d.Mul(unitsAt[boxPlaces+e])
	}
}

func (a box) overlaps(b box) bool {
	return a.x0.LessThan(b.x1) && b.x0.LessThan(a.x1) && a.y0.LessThan(b.y1) && b.y0.LessThan(a.y1)
}

func (a box) inside(w, h decimal.Decimal) bool {
	return a.x0.Sign() >= 0 && a.y0.Sign() >= 0 && a.x1.LessThanOrEqual(w) && a.y1.LessThanOrEqual(h)
}

// placed are the boxes of the texts written so far.
type placed []box

// free reports whether bx overlaps none of them and stays in w × h.
func (p placed) free(bx box, w, h int) bool {
	if !bx.inside(atBoxPlaces(dec(w)), atBoxPlaces(dec(h))) {
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
