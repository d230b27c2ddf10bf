package extract

import (
	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
)

// subject is what a price is a price of.
type subject struct {
	kind string // "item", "deposit", "block", "mode" or ""
	arg  string
	at   span
}

// window returns the stretch of the price's clause before it (back to the
// previous price of the clause) and after it (up to the next price, cut
// at "plus", "and", 另 …).
func (d *doc) window(k int) (before, after span) {
	m := d.money[k]
	c := d.clause(m.s)
	before = span{c.s, m.s}
	if k > 0 && d.money[k-1].e > c.s && d.money[k-1].e <= m.s {
		before.s = d.money[k-1].e
		// "$0.01/GB for storage and $0.05/GB egress": the words after the
		// previous price, up to "and", are that price's.
		for _, h := range d.hitsIn(before.s, before.e) {
			if h.cls == cCut {
				before.s = h.e
			}
		}
	}
	after = span{m.e, c.e}
	if c.e < m.e {
		after.e = m.e
	}
	if k+1 < len(d.money) && d.money[k+1].s < after.e {
		after.e = d.money[k+1].s
	}
	for _, h := range d.hitsIn(after.s, after.e) {
		if h.cls == cCut {
			after.e = h.s
			break
		}
	}
	return before, after
}

// compatible reports whether a billing mode can be priced per period ("":
// no period written).
func compatible(mode, period string) bool {
	switch mode {
	case "hourly", "spot":
		return period == "" || period == "hour"
	case "monthly":
		return period == "" || period == "month"
	case "yearly":
		return period == "" || period == "year"
	case "sub":
		return period == "month" || period == "year"
	}
	return false
}

// subjectOf finds what the k-th price is for (docs/RULES.md §22.5): the
// nearest hidden-cost item, deposit, other thing or billing mode before it
// in its clause (an item before a mode: 公网 IP：按量 ¥0.02/小时 is the IP's
// price); failing that, the first item or mode after it; failing that,
// for a price per GB, Mbps, IP or start, or after 超出 / beyond, the
// nearest item earlier in its sentence; failing that, its table header.
func (d *doc) subjectOf(k int) subject {
	m := d.money[k]
	if m.bare {
		return subject{kind: kindOf(m.label.cls), arg: m.label.arg, at: span{m.label.s, m.label.e}}
	}
	before, after := d.window(k)
	pick := func(hs []hit, last bool, ok func(hit) bool) (hit, bool) {
		if last {
			for i := len(hs) - 1; i >= 0; i-- {
				if ok(hs[i]) {
					return hs[i], true
				}
			}
			return hit{}, false
		}
		for _, h := range hs {
			if ok(h) {
				return h, true
			}
		}
		return hit{}, false
	}
	of := func(c class) func(hit) bool { return func(h hit) bool { return h.cls == c } }
	bh := d.hitsIn(before.s, before.e)
	if h, ok := pick(bh, true, of(cItem)); ok {
		return subject{"item", h.arg, span{h.s, h.e}}
	}
	if h, ok := pick(bh, true, of(cDeposit)); ok {
		return subject{"deposit", "", span{h.s, h.e}}
	}
	if h, ok := pick(bh, true, func(h hit) bool { return h.cls == cBlock || h.cls == cBalance }); ok {
		return subject{"block", "", span{h.s, h.e}}
	}
	if h, ok := pick(bh, true, of(cMode)); ok {
		return subject{"mode", h.arg, span{h.s, h.e}}
	}
	ah := d.hitsIn(after.s, after.e)
	if h, ok := pick(ah, false, func(h hit) bool {
		return h.cls == cItem || h.cls == cDeposit || h.cls == cMode && (m.period == "" || compatible(h.arg, m.period))
	}); ok {
		return subject{kindOf(h.cls), h.arg, span{h.s, h.e}}
	}
	measured := m.measure == "gb" || m.measure == "tb" || m.measure == "mbps" || m.measure == "ip" ||
		m.measure == "each" || m.measure == "event"
	if measured || d.has(before.s, before.e, cContinue) {
		s := d.sentence(m.s)
		if h, ok := pick(d.hitsIn(s.s, m.s), true, of(cItem)); ok {
			return subject{"item", h.arg, span{h.s, h.e}}
		}
	}
	if m.hdr != nil {
		hh := d.hitsIn(m.hdr.s, m.hdr.e)
		if h, ok := pick(hh, true, func(h hit) bool { return h.cls == cItem || h.cls == cMode || h.cls == cDeposit }); ok {
			return subject{kindOf(h.cls), h.arg, span{h.s, h.e}}
		}
	}
	return subject{}
}

func kindOf(c class) string {
	switch c {
	case cItem:
		return "item"
	case cMode:
		return "mode"
	case cDeposit:
		return "deposit"
	}
	return "block"
}

// lineUnit is the unit of a hidden-cost item a price per period and
// measure is in (docs/RULES.md §22.6), or false when the catalog has no
// such unit for the item.
func lineUnit(item, period, measure string, oneOff bool) (catalog.Unit, bool) {
	per := map[string]catalog.Unit{"month": catalog.UnitPerMonth, "day": catalog.UnitPerDay, "hour": catalog.UnitPerHour}
	var u catalog.Unit
	switch catalog.ItemKey(item) {
	case catalog.ItemBandwidth:
		switch {
		case measure == "mbps":
			u = per[period]
		case measure == "" && period == "month":
			u = catalog.UnitFlatMonth
		}
	case catalog.ItemEgress:
		switch {
		case measure == "gb" && period == "":
			u = catalog.UnitPerGB
		case measure == "" && period == "month":
			u = catalog.UnitFlatMonth
		}
	case catalog.ItemDataMigration:
		switch {
		case measure == "gb" && period == "":
			u = catalog.UnitPerGB
		case measure == "" && period == "" && oneOff:
			u = catalog.UnitOneOff
		}
	case catalog.ItemPublicIP:
		if measure == "" || measure == "ip" || measure == "each" {
			u = per[period]
		}
	case catalog.ItemSystemDisk, catalog.ItemDataDisk, catalog.ItemObjectStorage, catalog.ItemSnapshot, catalog.ItemImage:
		if measure == "gb" {
			u = per[period]
		}
	case catalog.ItemBundledAddon:
		if (measure == "" || measure == "each" || measure == "instance") && period == "month" {
			u = catalog.UnitFlatMonth
		}
	case catalog.ItemStoppedRetention:
		switch {
		case (measure == "" || measure == "instance") && period == "hour":
			u = catalog.UnitPerHour
		case measure == "" && period == "month":
			u = catalog.UnitFlatMonth
		}
	case catalog.ItemStartStopSchedule:
		switch {
		case (measure == "event" || measure == "") && period == "":
			u = catalog.UnitPerEvent
		case measure == "" && period == "month":
			u = catalog.UnitFlatMonth
		}
	}
	if u == "" {
		return "", false
	}
	it, ok := catalog.LookupItem(catalog.ItemKey(item))
	return u, ok && it.Allows(u)
}

// charge is a priced hidden-cost line read from one price.
type charge struct {
	item, unit, price string
	m                 *mention
	at                span // the item's word
}

// measureBefore reads a measure written before a price ("每 Mbps ¥20/月",
// "per GB $0.09").
func (d *doc) measureBefore(p int) string {
	q := d.back(p, 2)
	for _, u := range unitWords {
		if u.measure == "" || u.period != "" {
			continue
		}
		s, ok := d.endsWith(q, u.text)
		if !ok || isASCIILetter([]rune(u.text)[0]) && s > 0 && isASCIILetter(d.n[s-1]) {
			continue
		}
		r := d.back(s, 1)
		if _, ok := d.endsWith(r, "每"); ok {
			return u.measure
		}
		if s2, ok := d.endsWith(r, "per"); ok && !(s2 > 0 && isASCIILetter(d.n[s2-1])) {
			return u.measure
		}
	}
	return ""
}

// digitIn reports whether [s, e) holds a digit.
func (d *doc) digitIn(s, e int) bool {
	for i := s; i < e; i++ {
		if isDigit(d.n[i]) {
			return true
		}
	}
	return false
}

// gapOnly reports whether [s, e) holds only spaces and colons.
func (d *doc) gapOnly(s, e int) bool {
	for i := s; i < e; i++ {
		if !isSpace(d.n[i]) && d.n[i] != ':' {
			return false
		}
	}
	return true
}

// whyNot returns the reason a price is not the price, or "" (docs/RULES.md
// §22.7): a range, another country's dollar, an estimate, an equivalent,
// a "from" price or one under a condition, a former price.
func (d *doc) whyNot(k int) string {
	m := d.money[k]
	if m.rng {
		return MsgSkipRange
	}
	if m.foreign {
		return MsgSkipCurrency
	}
	if m.bare {
		return ""
	}
	before, after := d.window(k)
	bh := d.hitsIn(before.s, before.e)
	ah := d.hitsIn(after.s, after.e)
	if p := d.back(m.s, 1); p > 0 && (d.n[p-1] == '~' || d.n[p-1] == '≈') {
		return MsgSkipApprox
	}
	for _, h := range bh {
		if h.cls == cApprox && d.gapOnly(h.e, m.s) {
			return MsgSkipApprox
		}
	}
	if len(ah) > 0 && ah[0].cls == cApproxAfter && d.gapOnly(m.e, ah[0].s) {
		return MsgSkipApprox
	}
	for _, h := range bh {
		if h.cls == cEquiv {
			return MsgSkipEquivalent
		}
	}
	if len(ah) > 0 && ah[0].cls == cEquiv && d.gapOnly(m.e, ah[0].s) {
		return MsgSkipEquivalent
	}
	if p := d.back(m.s, 1); p > 0 && d.n[p-1] == '=' {
		return MsgSkipEquivalent
	}
	if q := d.skipSpaces(m.e, 1); q < len(d.n) && (d.n[q] == '×' || d.n[q] == '*' || d.n[q] == '=') {
		return MsgSkipEquivalent
	}
	if m.from {
		return MsgSkipConditional
	}
	for _, h := range bh {
		if h.cls == cFrom || h.cls == cCond || h.cls == cMax {
			return MsgSkipConditional
		}
		if h.cls == cFormer {
			return MsgSkipFormer
		}
	}
	// A condition after the price is its own up to the next number: in
	// "13,800 元/卡/月（3 个月以上 12,800）" the condition is the 12,800's.
	for _, h := range ah {
		if h.cls == cCond && !d.digitIn(m.e, h.s) {
			return MsgSkipConditional
		}
	}
	// A mode right after the price that does not fit its period ("$1,500/month
	// billed annually").
	if len(ah) > 0 && ah[0].cls == cMode && m.period != "" && !compatible(ah[0].arg, m.period) && d.gapOnly(m.e, ah[0].s) {
		return MsgSkipPeriod
	}
	// 满 followed by a number: a price for buying at least so much.
	for i := before.s; i < before.e; i++ {
		if d.n[i] == '满' && i+1 < len(d.n) {
			q := d.skipSpaces(i+1, 1)
			if q < len(d.n) && (isDigit(d.n[q]) || cnDigits[d.n[q]] > 0 || d.n[q] == '十') {
				return MsgSkipConditional
			}
		}
	}
	return ""
}

// readPrices places every price of the message (docs/RULES.md §22.5).
func (d *doc) readPrices(gpuCount int, countEv []span) {
	for k, m := range d.money {
		if why := d.whyNot(k); why != "" {
			d.skip(why, "", span{m.s, m.e})
			m.skipped = true
			continue
		}
		if before, _ := d.window(k); m.measure == "" && d.has(before.s, before.e, cPerGPU) {
			m.measure = "gpu"
		} else if m.measure == "" {
			m.measure = d.measureBefore(m.s)
		}
		subj := d.subjectOf(k)
		ms := span{m.s, m.e}
		switch subj.kind {
		case "item":
			oneOff := d.has(d.clause(m.s).s, d.clause(m.s).e, cOneOff)
			u, ok := lineUnit(subj.arg, m.period, m.measure, oneOff)
			if !ok {
				d.skip(MsgSkipUnit, subj.arg+".unit_price", ms)
				m.skipped = true
				continue
			}
			if !validPrice(m.amount) {
				d.skip(MsgSkipBounds, subj.arg+".unit_price", ms)
				m.skipped = true
				continue
			}
			d.charges = append(d.charges, charge{item: subj.arg, unit: string(u), price: money.String(m.amount), m: m, at: subj.at})
		case "deposit":
			if m.period != "" || m.measure != "" {
				d.skip(MsgSkipPeriod, "deposit", ms)
				m.skipped = true
				continue
			}
			d.addMoney("deposit", m.amount, m, nil)
		case "block":
			// A price of something the form does not hold: left unread.
		case "mode":
			field := modeField(subj.arg, m.period)
			if field == "" {
				d.skip(MsgSkipPeriod, "", ms)
				m.skipped = true
				continue
			}
			d.computePrice(field, m, gpuCount, countEv, []span{subj.at})
		default:
			field := map[string]string{"hour": "hourly", "month": "monthly", "year": "yearly"}[m.period]
			if field == "" {
				continue
			}
			d.computePrice(field, m, gpuCount, countEv, nil)
		}
	}
}

// modeField is the form field of a price of mode per period, or "".
func modeField(mode, period string) string {
	if !compatible(mode, period) {
		return ""
	}
	switch mode {
	case "hourly":
		return "hourly"
	case "spot":
		return "spot_hourly"
	case "monthly":
		return "monthly"
	case "yearly":
		return "yearly"
	case "sub":
		if period == "month" {
			return "monthly"
		}
		return "yearly"
	}
	return ""
}

// computePrice places a price of the instance; a price per GPU is
// multiplied by the GPU count the message states (docs/RULES.md §22.5).
func (d *doc) computePrice(field string, m *mention, gpuCount int, countEv []span, ev []span) {
	amount := m.amount
	switch m.measure {
	case "", "instance":
	case "gpu":
		if gpuCount == 0 {
			d.skip(MsgSkipPerGPU, field, span{m.s, m.e})
			m.skipped = true
			return
		}
		amount = amount.Mul(decimal.New(int64(gpuCount), 0))
		ev = append(ev, countEv...)
	default:
		// A price per GB or Mbps of nothing the message names.
		return
	}
	if !validPrice(amount) {
		d.skip(MsgSkipBounds, field, span{m.s, m.e})
		m.skipped = true
		return
	}
	d.addMoney(field, amount, m, ev)
}

// validPrice reports whether an amount fits the form: at most 6 places
// and below 10¹² (docs/RULES.md §2.3).
func validPrice(v decimal.Decimal) bool {
	return v.Sign() >= 0 && money.Places(v) <= 6 && v.LessThan(decimal.New(1, 12))
}

// addMoney adds a candidate money value read from m.
func (d *doc) addMoney(field string, v decimal.Decimal, m *mention, ev []span) {
	all := append([]span{{m.s, m.e}}, ev...)
	d.cands = append(d.cands, cand{field: field, value: money.String(v), ev: all, m: m})
}
