package svgchart

import (
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/money"
)

// CurveQuote is one quote of a cost-curve chart. Prices are per instance,
// in the report currency, tax included, and must not be negative; a null
// price draws no line.
type CurveQuote struct {
	// Name names the quote in the legend.
	Name string
	// Hourly draws cost(H) = Hourly × H.
	Hourly decimal.NullDecimal
	// Monthly draws a horizontal line: the month costs the same whatever H.
	Monthly decimal.NullDecimal
	// Spot draws cost(H) = Spot × H; it already includes the rework
	// overhead factor (1 + spot_overhead).
	Spot decimal.NullDecimal
	// BreakEvenHours is where the hourly line meets the monthly one
	// (monthly ÷ hourly); it is marked with a dot when 0 < hours ≤ 730 and
	// Monthly is given.
	BreakEvenHours decimal.NullDecimal
	// BreakEvenLabel is written beside the dot, e.g. "148.62 h".
	BreakEvenLabel string
}

// CurveChart is a chart of cost per month against running hours per month
// (0–730) for several quotes.
type CurveChart struct {
	// ID prefixes the ids of the title and description; it must be unique
	// within the page.
	ID string
	// Title and Desc name the chart for screen readers (<title>, <desc>).
	Title string
	Desc  string
	// XLabel is written under the hours axis, e.g. "Running hours per month".
	XLabel string
	// YLabel is written above the cost axis, e.g. "Cost per month (EUR)".
	YLabel string
	// LegendHourly, LegendMonthly, LegendSpot and LegendBreakEven are the
	// legend's words for the three kinds of line and the break-even dot;
	// empty ones read "hourly", "monthly", "spot" and "break-even".
	LegendHourly, LegendMonthly, LegendSpot, LegendBreakEven string
	// Width and Height of the plot with its axes; zero means 640 × 320.
	// The legend adds rows below, so the view box is taller than Height.
	Width, Height int
	// Quotes are drawn in order; each takes a colour and a number (its
	// position, from 1) written at the end of its lines so that quotes
	// stay apart in black-and-white print and beyond ten colours.
	Quotes []CurveQuote
	// Crossings mark where one quote's hourly line meets another quote's
	// monthly line (break-even across offers, docs/RULES.md §4.7).
	Crossings []CurveCrossing
	// Own are own-hardware options, drawn after the quotes (dash-dot), each
	// in the next colour and number (docs/RULES.md §8.6); LegendOwn is the
	// legend's word for their kind of line, empty "own hardware".
	Own       []CurveOwn
	LegendOwn string
	// MarkHours, when valid and in (0, 730], draws a vertical line at the
	// profile's running hours, labelled MarkLabel.
	MarkHours decimal.NullDecimal
	MarkLabel string
}

// CurveOwn is an own-hardware option on a cost-curve chart: a straight
// line from its cost per month at 0 h to that at 730 h (per server, in the
// report currency; negative values are drawn at 0).
type CurveOwn struct {
	Name       string
	At0, At730 decimal.Decimal
}

// CurveCrossing is a break-even across two quotes of a cost-curve chart:
// a dot where the hourly line of one meets the monthly line of the other.
// The hours axis always ends at a full month (730 h), the most hours a
// month has, so a crossing in (0, 730] is drawn and one beyond it is not
// (the hourly quote is then cheaper however many hours run); the cost
// axis already reaches every monthly price.
type CurveCrossing struct {
	// Hourly and Monthly index Quotes: the quote whose hourly line and
	// the quote whose monthly line meet.
	Hourly, Monthly int
	// Hours is where they meet (monthly ÷ hourly), e.g. 148.62.
	Hours decimal.Decimal
	// Title is the dot's tooltip, naming the pair and the hours; empty,
	// it reads "<n> × <m>: <Label>" with the quotes' numbers.
	Title string
	// Label is written beside the dot, e.g. "148.62 h".
	Label string
}

// Layout of a cost-curve chart: y tick labels on the left, quote numbers
// right of the plot, hour labels and the axis label below.
const (
	curveMarginRight  = 28
	curveMarginBottom = 48
	legendRow         = 20
)

// fullMonth is the right end of the hours axis (docs/RULES.md §1.2: 730 h).
var fullMonth = decimal.NewFromInt(730)

// curveStroke gives each quote a colour; the quote's number and the kind's
// dash tell lines apart where colours repeat or print in grey.
var curveStroke = []string{
	"#0f5c4d", "#b3261e", "#8a5a00", "#3b5bdb", "#7b2cbf",
	"#e8590c", "#00838f", "#c2185b", "#5d4037", "#495057",
}

// curveKind is one of the three lines a quote may draw.
type curveKind struct {
	class, dash string
}

// The kinds of line: hourly solid, monthly long dash, spot dotted.
var (
	kindHourly  = curveKind{"curve-hourly", ""}
	kindMonthly = curveKind{"curve-monthly", "10 5"}
	kindSpot    = curveKind{"curve-spot", "2 4"}
	kindOwn     = curveKind{"curve-own", "8 3 2 3"}
)

// dashAttr writes the stroke-dasharray attribute of a dashed kind.
func dashAttr(dash string) string {
	if dash == "" {
		return ""
	}
	return ` stroke-dasharray="` + dash + `"`
}

// dec is n as a decimal.
func dec(n int) decimal.Decimal { return decimal.NewFromInt(int64(n)) }

// svgOpen writes the <svg> element's start with its title and description.
func svgOpen(b *strings.Builder, id, title, desc string, w, h int) {
	id = esc(id)
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ` + strconv.Itoa(w) + ` ` + strconv.Itoa(h) +
		`" role="img" aria-labelledby="` + id + `-title ` + id + `-desc" font-family="system-ui, sans-serif" font-size="13">`)
	b.WriteString(`<title id="` + id + `-title">` + esc(title) + `</title>`)
	b.WriteString(`<desc id="` + id + `-desc">` + esc(desc) + `</desc>`)
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// CostCurves returns the cost-curve chart as one <svg> element: for each
// quote its hourly line (solid), monthly line (long dash) and spot line
// (dotted) in the quote's colour, a dot where hourly meets monthly, and a
// dot for each crossing across quotes in (0, 730] h.
// The hours axis runs 0…730 with ticks every 100 h and at 730; the cost
// axis runs from 0 to a round number above the highest line at 730 h.
// It returns "" when there is no quote or no quote has a price, so the
// page shows its empty state.
func CostCurves(c CurveChart) string {
	quotes := c.Quotes // as many as the comparison holds (compare.MaxSelected)
	hi := decimal.Zero
	var hasHourly, hasMonthly, hasSpot, hasBreakEven bool
	for _, q := range quotes {
		if q.Hourly.Valid {
			hasHourly = true
			hi = decimal.Max(hi, q.Hourly.Decimal.Mul(fullMonth))
		}
		if q.Monthly.Valid {
			hasMonthly = true
			hi = decimal.Max(hi, q.Monthly.Decimal)
		}
		if q.Spot.Valid {
			hasSpot = true
			hi = decimal.Max(hi, q.Spot.Decimal.Mul(fullMonth))
		}
		if breakEvenShown(q) {
			hasBreakEven = true
		}
	}
	for _, o := range c.Own {
		hi = decimal.Max(hi, o.At0, o.At730)
	}
	if !hasHourly && !hasMonthly && !hasSpot && len(c.Own) == 0 {
		return ""
	}
	var crossings []CurveCrossing
	for _, cr := range c.Crossings {
		if crossingShown(quotes, cr) {
			crossings = append(crossings, cr)
			hasBreakEven = true
		}
	}

	w, h := c.Width, c.Height
	if w <= 0 || h <= 0 {
		w, h = 640, 320
	}
	left, right := dec(marginLeft), dec(w-curveMarginRight)
	top, bottom := dec(marginTop), dec(h-curveMarginBottom)
	plotW, plotH := right.Sub(left), bottom.Sub(top)
	// Pixels per hour and per currency unit, divided once: coordinates
	// are written to 0.1 px, far coarser than the 16 digits kept here.
	perHour := plotW.Div(fullMonth)
	x := func(hours decimal.Decimal) decimal.Decimal {
		return left.Add(hours.Mul(perHour))
	}
	step, yTop := NiceScale(hi, yIntervals)
	perUnit := plotH.Div(yTop)
	y := func(v decimal.Decimal) decimal.Decimal {
		if v.Sign() < 0 {
			v = decimal.Zero
		}
		return bottom.Sub(v.Mul(perUnit))
	}

	// The legend: one row of kinds, then one row per quote (more where a
	// long name wraps) with its colour, number and full name.
	var legend strings.Builder
	names := make([]string, len(quotes), len(quotes)+len(c.Own))
	for i, q := range quotes {
		names[i] = q.Name
	}
	for _, o := range c.Own {
		names = append(names, o.Name)
	}
	totalH := legendNames(&legend, names, w, h+legendRow, func(i, lx, base int) string {
		return `<rect x="` + strconv.Itoa(lx) + `" y="` + strconv.Itoa(base-10) + `" width="12" height="12" fill="` + curveStroke[i%len(curveStroke)] + `"/>`
	}) + 4
	// Texts already placed, so that the labels of the dots keep clear of
	// them and of each other.
	var taken placed

	var b strings.Builder
	svgOpen(&b, c.ID, c.Title, c.Desc, w, totalH)

	// Grid: horizontal lines at the cost steps, vertical ones every 100 h.
	b.WriteString(`<g class="chart-grid" stroke="#d9e2df" stroke-width="1">`)
	for v := decimal.Zero; v.LessThanOrEqual(yTop); v = v.Add(step) {
		yy := coord(y(v))
		b.WriteString(`<line x1="` + coord(left) + `" y1="` + yy + `" x2="` + coord(right) + `" y2="` + yy + `"/>`)
	}
	hourTicks := []int{100, 200, 300, 400, 500, 600, 700}
	for _, t := range hourTicks {
		xx := coord(x(dec(t)))
		b.WriteString(`<line x1="` + xx + `" y1="` + coord(top) + `" x2="` + xx + `" y2="` + coord(bottom) + `"/>`)
	}
	b.WriteString(`</g><g class="chart-label" fill="#4a5a55" text-anchor="end">`)
	for v := decimal.Zero; v.LessThanOrEqual(yTop); v = v.Add(step) {
		label := money.Group(money.String(v))
		b.WriteString(`<text x="` + coord(left.Sub(dec(6))) + `" y="` + coord(y(v).Add(dec(4))) + `">` + esc(label) + `</text>`)
		taken = append(taken, textBox(left.Sub(dec(6)), y(v).Add(dec(4)), 13, "end", label))
	}
	b.WriteString(`</g>`)

	// Axes, the axis labels and the hour ticks; 730 (a full month) is
	// always labelled, in bold, and a tick label too close to it is left out.
	b.WriteString(`<g class="chart-axis" stroke="#4a5a55" stroke-width="1">`)
	b.WriteString(`<line x1="` + coord(left) + `" y1="` + coord(top) + `" x2="` + coord(left) + `" y2="` + coord(bottom) + `"/>`)
	b.WriteString(`<line x1="` + coord(left) + `" y1="` + coord(bottom) + `" x2="` + coord(right) + `" y2="` + coord(bottom) + `"/>`)
	b.WriteString(`</g>`)
	b.WriteString(`<text class="chart-label" x="` + coord(left) + `" y="16" fill="#1b2623" font-weight="600">` + esc(c.YLabel) + `</text>`)
	taken = append(taken, textBox(left, dec(16), 13, "start", c.YLabel))
	b.WriteString(`<g class="chart-label" fill="#4a5a55" text-anchor="middle">`)
	endX := x(fullMonth)
	endLabel := "730"
	for _, t := range append([]int{0}, hourTicks...) {
		xx := x(dec(t))
		b.WriteString(`<line x1="` + coord(xx) + `" y1="` + coord(bottom) + `" x2="` + coord(xx) + `" y2="` + coord(bottom.Add(dec(4))) + `" stroke="#4a5a55"/>`)
		label := strconv.Itoa(t)
		room := dec((textWidth(label)+textWidth(endLabel))/2 + 4)
		if endX.Sub(xx).LessThan(room) {
			continue
		}
		b.WriteString(`<text x="` + coord(xx) + `" y="` + coord(bottom.Add(dec(18))) + `">` + label + `</text>`)
		taken = append(taken, textBox(xx, bottom.Add(dec(18)), 13, "middle", label))
	}
	b.WriteString(`<line x1="` + coord(endX) + `" y1="` + coord(bottom) + `" x2="` + coord(endX) + `" y2="` + coord(bottom.Add(dec(6))) + `" stroke="#1b2623" stroke-width="2"/>`)
	b.WriteString(`<text x="` + coord(endX) + `" y="` + coord(bottom.Add(dec(18))) + `" fill="#1b2623" font-weight="600">` + endLabel + `</text>`)
	taken = append(taken, textBox(endX, bottom.Add(dec(18)), 13, "middle", endLabel))
	if c.XLabel != "" {
		b.WriteString(`<text x="` + coord(left.Add(plotW.Div(dec(2)))) + `" y="` + coord(bottom.Add(dec(38))) + `" fill="#1b2623" font-weight="600">` + esc(c.XLabel) + `</text>`)
	}
	b.WriteString(`</g>`)

	// The lines of each quote, its number at their right ends (one label
	// where several of its lines end at the same height; labels moved
	// apart where lines of different quotes end close together), and its
	// break-even dot.
	type endNumber struct {
		quote int
		y     decimal.Decimal
	}
	var ends []endNumber
	for i, q := range quotes {
		var ys []decimal.Decimal
		for k, p := range []decimal.NullDecimal{q.Hourly, q.Monthly, q.Spot} {
			if p.Valid {
				v := p.Decimal
				if k != 1 { // hourly and spot reach price × 730 at the end
					v = v.Mul(fullMonth)
				}
				ey := y(v)
				if !slices.ContainsFunc(ys, func(o decimal.Decimal) bool { return o.Equal(ey) }) {
					ys = append(ys, ey)
					ends = append(ends, endNumber{i, ey.Add(dec(4))})
				}
			}
		}
	}
	for i, o := range c.Own {
		ends = append(ends, endNumber{len(quotes) + i, y(o.At730).Add(dec(4))})
	}
	endYs := make([]decimal.Decimal, len(ends))
	for k, e := range ends {
		endYs[k] = decimal.Max(e.y, top.Add(dec(4)))
	}
	endYs = spread(endYs, dec(14), bottom.Add(dec(1)))
	for k, e := range ends {
		taken = append(taken, textBox(endX.Add(dec(4)), endYs[k], 11, "start", strconv.Itoa(e.quote+1)))
	}
	// label writes a dot's label near (bx, by): above it, else below, in
	// the anchor that keeps it inside the plot near either end, else the
	// others; a label that finds no free place is left to the dot's
	// tooltip, which carries the same words.
	leftAt, endXAt := atBoxPlaces(left), atBoxPlaces(endX) // compared with boxes
	label := func(bx, by decimal.Decimal, hours decimal.Decimal, text string) {
		if text == "" {
			return
		}
		anchors := []string{"middle", "start", "end"}
		switch {
		case hours.LessThan(dec(110)):
			anchors = []string{"start", "middle", "end"}
		case hours.GreaterThan(dec(620)):
			anchors = []string{"end", "middle", "start"}
		}
		ext := extentOf(11, text)
		for _, ly := range []decimal.Decimal{by.Sub(dec(9)), by.Add(dec(18))} {
			y0, y1 := ext.lines(ly)
			for _, a := range anchors {
				tb := ext.boxAt(bx, a, y0, y1)
				if tb.x0.LessThan(leftAt) || tb.x1.GreaterThan(endXAt) || !taken.free(tb, w, h) {
					continue
				}
				taken = append(taken, tb)
				b.WriteString(`<text class="chart-label" x="` + coord(bx) + `" y="` + coord(ly) + `" text-anchor="` + a +
					`" fill="#1b2623" font-size="11">` + esc(text) + `</text>`)
				return
			}
		}
	}
	zero := x(decimal.Zero)
	for i, q := range quotes {
		stroke := curveStroke[i%len(curveStroke)]
		num := strconv.Itoa(i + 1)
		b.WriteString(`<g class="chart-curves quote-` + num + `" stroke="` + stroke + `" stroke-width="2" fill="none">`)
		line := func(k curveKind, y0, y1 decimal.Decimal) {
			b.WriteString(`<line class="` + k.class + `" x1="` + coord(zero) + `" y1="` + coord(y0) + `" x2="` + coord(endX) + `" y2="` + coord(y1) + `"` + dashAttr(k.dash) + `/>`)
		}
		if q.Hourly.Valid {
			line(kindHourly, y(decimal.Zero), y(q.Hourly.Decimal.Mul(fullMonth)))
		}
		if q.Monthly.Valid {
			my := y(q.Monthly.Decimal)
			line(kindMonthly, my, my)
		}
		if q.Spot.Valid {
			line(kindSpot, y(decimal.Zero), y(q.Spot.Decimal.Mul(fullMonth)))
		}
		b.WriteString(`</g>`)
		var numbers []string
		for k, e := range ends {
			if e.quote == i {
				numbers = append(numbers, `<text x="`+coord(endX.Add(dec(4)))+`" y="`+coord(endYs[k])+`">`+num+`</text>`)
			}
		}
		if len(numbers) > 0 {
			b.WriteString(`<g class="chart-label curve-number" fill="` + stroke + `" font-size="11" font-weight="600">` + strings.Join(numbers, "") + `</g>`)
		}
		if breakEvenShown(q) {
			bx, by := x(q.BreakEvenHours.Decimal), y(q.Monthly.Decimal)
			b.WriteString(`<g class="chart-breakeven">`)
			b.WriteString(`<circle cx="` + coord(bx) + `" cy="` + coord(by) + `" r="4.5" fill="` + stroke + `" stroke="#ffffff" stroke-width="1.5">`)
			b.WriteString(`<title>` + esc(strings.TrimSpace(q.Name+": "+q.BreakEvenLabel)) + `</title></circle>`)
			label(bx, by, q.BreakEvenHours.Decimal, q.BreakEvenLabel)
			b.WriteString(`</g>`)
		}
	}

	// The own-hardware options' lines, numbered after the quotes.
	for i, o := range c.Own {
		n := len(quotes) + i
		stroke := curveStroke[n%len(curveStroke)]
		num := strconv.Itoa(n + 1)
		b.WriteString(`<g class="chart-curves own-` + strconv.Itoa(i+1) + `" stroke="` + stroke + `" stroke-width="2.5" fill="none">`)
		b.WriteString(`<line class="` + kindOwn.class + `" x1="` + coord(zero) + `" y1="` + coord(y(o.At0)) + `" x2="` + coord(endX) +
			`" y2="` + coord(y(o.At730)) + `"` + dashAttr(kindOwn.dash) + `><title>` + esc(o.Name) + `</title></line></g>`)
		for k, e := range ends {
			if e.quote == n {
				b.WriteString(`<g class="chart-label curve-number" fill="` + stroke + `" font-size="11" font-weight="600"><text x="` +
					coord(endX.Add(dec(4))) + `" y="` + coord(endYs[k]) + `">` + num + `</text></g>`)
			}
		}
	}
	// The profile's running hours, when asked for.
	if c.MarkHours.Valid && c.MarkHours.Decimal.Sign() > 0 && c.MarkHours.Decimal.LessThanOrEqual(fullMonth) {
		mx := x(c.MarkHours.Decimal)
		b.WriteString(`<g class="chart-mark" data-testid="chart-your-hours" data-hours="` + esc(c.MarkHours.Decimal.String()) + `">`)
		b.WriteString(`<line x1="` + coord(mx) + `" y1="` + coord(top) + `" x2="` + coord(mx) + `" y2="` + coord(bottom) +
			`" stroke="#1b2623" stroke-width="1.5" stroke-dasharray="3 3"><title>` + esc(c.MarkLabel) + `</title></line>`)
		label(mx, top.Add(dec(12)), c.MarkHours.Decimal, c.MarkLabel)
		b.WriteString(`</g>`)
	}

	// The dots of the crossings across quotes, over every line: filled
	// in the colour of the monthly quote whose line they sit on, ringed
	// in that of the hourly one.
	for _, cr := range crossings {
		mq := quotes[cr.Monthly]
		bx, by := x(cr.Hours), y(mq.Monthly.Decimal)
		title := cr.Title
		if title == "" {
			title = strings.TrimSpace(strconv.Itoa(cr.Hourly+1) + " × " + strconv.Itoa(cr.Monthly+1) + ": " + cr.Label)
		}
		b.WriteString(`<g class="chart-crossing" data-testid="chart-crossing"><title>` + esc(title) + `</title>`)
		b.WriteString(`<circle cx="` + coord(bx) + `" cy="` + coord(by) + `" r="5" fill="` + curveStroke[cr.Monthly%len(curveStroke)] +
			`" stroke="` + curveStroke[cr.Hourly%len(curveStroke)] + `" stroke-width="2"/>`)
		label(bx, by, cr.Hours, cr.Label)
		b.WriteString(`</g>`)
	}

	// Legend: the kinds present, in ink, then each quote's colour,
	// number and name.
	b.WriteString(`<g class="chart-legend" fill="#1b2623">`)
	ly := h + legendRow/2
	kx := 12
	kindEntry := func(k curveKind, label string) {
		b.WriteString(`<line class="` + k.class + `" x1="` + strconv.Itoa(kx) + `" y1="` + strconv.Itoa(ly-4) + `" x2="` + strconv.Itoa(kx+24) +
			`" y2="` + strconv.Itoa(ly-4) + `" stroke="#1b2623" stroke-width="2"` + dashAttr(k.dash) + `/>`)
		b.WriteString(`<text x="` + strconv.Itoa(kx+30) + `" y="` + strconv.Itoa(ly) + `">` + esc(label) + `</text>`)
		kx += 30 + textWidth(label) + 20
	}
	if hasHourly {
		kindEntry(kindHourly, orDefault(c.LegendHourly, "hourly"))
	}
	if hasMonthly {
		kindEntry(kindMonthly, orDefault(c.LegendMonthly, "monthly"))
	}
	if hasSpot {
		kindEntry(kindSpot, orDefault(c.LegendSpot, "spot"))
	}
	if len(c.Own) > 0 {
		kindEntry(kindOwn, orDefault(c.LegendOwn, "own hardware"))
	}
	if hasBreakEven {
		b.WriteString(`<circle cx="` + strconv.Itoa(kx+6) + `" cy="` + strconv.Itoa(ly-4) + `" r="4.5" fill="#1b2623"/>`)
		b.WriteString(`<text x="` + strconv.Itoa(kx+16) + `" y="` + strconv.Itoa(ly) + `">` + esc(orDefault(c.LegendBreakEven, "break-even")) + `</text>`)
	}
	b.WriteString(legend.String())
	b.WriteString(`</g></svg>`)
	return b.String()
}

// breakEvenShown reports whether q's break-even dot is drawn: both a
// monthly price and break-even hours in (0, 730].
func breakEvenShown(q CurveQuote) bool {
	return q.Monthly.Valid && q.BreakEvenHours.Valid && q.BreakEvenHours.Decimal.Sign() > 0 &&
		q.BreakEvenHours.Decimal.LessThanOrEqual(fullMonth)
}

// crossingShown reports whether a crossing's dot is drawn: its quotes
// exist, the one draws an hourly line and the other a monthly line, and
// the hours are in (0, 730].
func crossingShown(quotes []CurveQuote, cr CurveCrossing) bool {
	if cr.Hourly < 0 || cr.Hourly >= len(quotes) || cr.Monthly < 0 || cr.Monthly >= len(quotes) {
		return false
	}
	return quotes[cr.Hourly].Hourly.Valid && quotes[cr.Monthly].Monthly.Valid &&
		cr.Hours.Sign() > 0 && cr.Hours.LessThanOrEqual(fullMonth)
}

// Bar is one quote of a stacked-bar chart: its cost split in three parts,
// in the report currency. Amounts must not be negative (a negative one is
// drawn as zero); the texts are the caller's formatted amounts.
type Bar struct {
	// Name is written left of the bar, shortened with an ellipsis when
	// long (the full name is then its tooltip).
	Name string
	// Compute, Hidden and OneOff are the compute total, the monthly hidden
	// costs over the horizon and the one-off costs.
	Compute, Hidden, OneOff decimal.Decimal
	// ComputeText, HiddenText and OneOffText are the segments' tooltips'
	// amounts; TotalText is written at the end of the bar.
	ComputeText, HiddenText, OneOffText, TotalText string
}

// BarChart is a horizontal stacked bar per quote: compute, hidden costs
// and one-off costs.
type BarChart struct {
	// ID prefixes the ids of the title and description; it must be unique
	// within the page.
	ID string
	// Title and Desc name the chart for screen readers (<title>, <desc>).
	Title string
	Desc  string
	// XLabel is written above the chart, e.g. "TCO (EUR)".
	XLabel string
	// LegendCompute, LegendHidden and LegendOneOff are the legend's words
	// for the three parts; empty ones read "compute", "hidden costs" and
	// "one-off".
	LegendCompute, LegendHidden, LegendOneOff string
	// Width of the view box; zero means 640. The height follows from the
	// number of bars.
	Width int
	Bars  []Bar
}

// Layout of a stacked-bar chart.
const (
	barHeight    = 20
	barPitch     = 32
	barTop       = 52
	barMarginEnd = 12
)

// barPart is one of the three parts of a bar: its class and fill. The fills
// differ in lightness as well as hue (dark brand green, light amber, mid
// grey), so they stay apart in greyscale print; a thin dark outline
// separates adjacent segments.
type barPart struct {
	class, fill string
}

var barParts = [3]barPart{
	{"bar-compute", "#0f5c4d"},
	{"bar-hidden", "#f4b942"},
	{"bar-oneoff", "#6b7b76"},
}

// StackedBars returns the chart as one <svg> element: one horizontal bar
// per quote, split into compute, hidden and one-off segments, each with a
// tooltip of its amount, and the total written at the end of the bar. It
// returns "" when there are no bars, so the page shows its empty state.
func StackedBars(c BarChart) string {
	if len(c.Bars) == 0 {
		return ""
	}
	w := c.Width
	if w <= 0 {
		w = 640
	}
	// Left of each bar its number; the legend below names each number in
	// full.
	nameW := 12 + textWidth(strconv.Itoa(len(c.Bars))) + 12
	totalW := 0
	hi := decimal.Zero
	for _, bar := range c.Bars {
		totalW = max(totalW, textWidth(bar.TotalText))
		hi = decimal.Max(hi, nonNeg(bar.Compute).Add(nonNeg(bar.Hidden)).Add(nonNeg(bar.OneOff)))
	}
	left, right := dec(nameW), dec(w-barMarginEnd-totalW-8)
	plotW := right.Sub(left)
	top := dec(barTop)
	bottom := top.Add(dec(len(c.Bars) * barPitch))
	var legend strings.Builder
	names := make([]string, len(c.Bars))
	for i, bar := range c.Bars {
		names[i] = bar.Name
	}
	// The bars have no colour of their own: the number is the key.
	h := legendNames(&legend, names, w, barTop+len(c.Bars)*barPitch+28, func(int, int, int) string { return "" }) + 4
	step, xTop := NiceScale(hi, yIntervals)
	// xr is the x coordinate of an amount, rounded as written, so that
	// adjacent segments share an edge exactly.
	perUnit := plotW.Div(xTop)
	xr := func(v decimal.Decimal) decimal.Decimal {
		return left.Add(v.Mul(perUnit)).Round(1)
	}

	var b strings.Builder
	svgOpen(&b, c.ID, c.Title, c.Desc, w, h)
	if c.XLabel != "" {
		b.WriteString(`<text class="chart-label" x="12" y="16" fill="#1b2623" font-weight="600">` + esc(c.XLabel) + `</text>`)
	}

	// Legend: a swatch and the word for each part.
	labels := [3]string{
		orDefault(c.LegendCompute, "compute"),
		orDefault(c.LegendHidden, "hidden costs"),
		orDefault(c.LegendOneOff, "one-off"),
	}
	b.WriteString(`<g class="chart-legend" fill="#1b2623">`)
	lx := 12
	for i, p := range barParts {
		b.WriteString(`<rect class="` + p.class + `" x="` + strconv.Itoa(lx) + `" y="26" width="12" height="12" fill="` + p.fill + `" stroke="#1b2623" stroke-width="0.5"/>`)
		b.WriteString(`<text x="` + strconv.Itoa(lx+16) + `" y="36">` + esc(labels[i]) + `</text>`)
		lx += 16 + textWidth(labels[i]) + 20
	}
	b.WriteString(`</g>`)

	// Grid and amount ticks below.
	b.WriteString(`<g class="chart-grid" stroke="#d9e2df" stroke-width="1">`)
	for v := decimal.Zero; v.LessThanOrEqual(xTop); v = v.Add(step) {
		xx := coord(xr(v))
		b.WriteString(`<line x1="` + xx + `" y1="` + coord(top) + `" x2="` + xx + `" y2="` + coord(bottom) + `"/>`)
	}
	b.WriteString(`</g><g class="chart-label" fill="#4a5a55" text-anchor="middle">`)
	for v := decimal.Zero; v.LessThanOrEqual(xTop); v = v.Add(step) {
		b.WriteString(`<text x="` + coord(xr(v)) + `" y="` + coord(bottom.Add(dec(18))) + `">` + esc(money.Group(money.String(v))) + `</text>`)
	}
	b.WriteString(`</g>`)
	b.WriteString(`<g class="chart-axis" stroke="#4a5a55" stroke-width="1"><line x1="` + coord(left) + `" y1="` + coord(top) +
		`" x2="` + coord(left) + `" y2="` + coord(bottom) + `"/></g>`)

	// The bars.
	for i, bar := range c.Bars {
		rowTop := top.Add(dec(i*barPitch + (barPitch-barHeight)/2))
		mid := rowTop.Add(dec(barHeight/2 + 4))
		b.WriteString(`<g class="chart-bar">`)
		b.WriteString(`<g><title>` + esc(bar.Name) + `</title>`)
		b.WriteString(`<text class="chart-label bar-number" x="` + coord(left.Sub(dec(8))) + `" y="` + coord(mid) + `" text-anchor="end" fill="#1b2623" font-weight="600">` +
			strconv.Itoa(i+1) + `</text></g>`)
		amounts := [3]decimal.Decimal{nonNeg(bar.Compute), nonNeg(bar.Hidden), nonNeg(bar.OneOff)}
		texts := [3]string{bar.ComputeText, bar.HiddenText, bar.OneOffText}
		sum := decimal.Zero
		for k, amt := range amounts {
			if amt.Sign() == 0 {
				continue
			}
			x0, x1 := xr(sum), xr(sum.Add(amt))
			sum = sum.Add(amt)
			b.WriteString(`<rect class="` + barParts[k].class + `" x="` + coord(x0) + `" y="` + coord(rowTop) + `" width="` + coord(x1.Sub(x0)) +
				`" height="` + strconv.Itoa(barHeight) + `" fill="` + barParts[k].fill + `" stroke="#1b2623" stroke-width="0.5">`)
			b.WriteString(`<title>` + esc(labels[k]+": "+texts[k]) + `</title></rect>`)
		}
		b.WriteString(`<text class="chart-label bar-total" x="` + coord(xr(sum).Add(dec(6))) + `" y="` + coord(mid) + `" fill="#1b2623" font-weight="600">` +
			esc(bar.TotalText) + `</text>`)
		b.WriteString(`</g>`)
	}
	b.WriteString(`<g class="chart-legend" fill="#1b2623">` + legend.String() + `</g></svg>`)
	return b.String()
}

// nonNeg returns d, or zero when d is negative.
func nonNeg(d decimal.Decimal) decimal.Decimal {
	if d.Sign() < 0 {
		return decimal.Zero
	}
	return d
}
