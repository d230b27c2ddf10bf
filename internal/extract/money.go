package extract

import (
	"github.com/shopspring/decimal"
)

// mention is a price the message states: an amount with its currency,
// or with a unit of time or quantity after it ("¥1.98/小时", "$0.09 per
// GB", "1150元", "2.3/小时").
type mention struct {
	s, e       int
	numS, numE int
	amount     decimal.Decimal
	// cur is the ISO code of the currency written with it ("" none);
	// curS, curE where it is written. foreign marks a dollar of another
	// country ("A$", "NT$"), which the reader does not read.
	cur        string
	curS, curE int
	foreign    bool
	// period is hour, month, year, day, week, minute or second; measure
	// gb, tb, mbps, gpu, ip, each, instance or event (docs/RULES.md §22.5).
	period, measure string
	unitS, unitE    int
	// from marks 起 after the price; rng a range ("¥1.8–2.2").
	from, rng bool
	// bare marks a number that is a price only by the label before it
	// ("包月：1299"); label is that label.
	bare  bool
	label hit
	// hdr is the table header cell above the price, if any.
	hdr *span
	// outcome: placed (a value came from it) or skipped.
	placed, skipped bool
}

// currencyPrefixes are written before an amount, longest first.
var currencyPrefixes = []struct{ text, code string }{
	{"人民币", "CNY"}, {"us$", "USD"}, {"hk$", "HKD"}, {"cn¥", "CNY"}, {"jp¥", "JPY"},
	{"usd", "USD"}, {"cny", "CNY"}, {"rmb", "CNY"}, {"eur", "EUR"}, {"gbp", "GBP"}, {"hkd", "HKD"},
	{"jpy", "JPY"}, {"sgd", "SGD"}, {"chf", "CHF"},
	{"¥", "CNY"}, {"$", "USD"}, {"€", "EUR"}, {"£", "GBP"},
}

// currencySuffixes are written after an amount, longest first.
var currencySuffixes = []struct{ text, code string }{
	{"人民币", "CNY"}, {"块钱", "CNY"}, {"dollars", "USD"}, {"dollar", "USD"}, {"euros", "EUR"}, {"euro", "EUR"},
	{"bucks", "USD"}, {"美元", "USD"}, {"美金", "USD"}, {"美刀", "USD"}, {"欧元", "EUR"}, {"英镑", "GBP"},
	{"港币", "HKD"}, {"港元", "HKD"}, {"日元", "JPY"},
	{"usd", "USD"}, {"cny", "CNY"}, {"rmb", "CNY"}, {"eur", "EUR"}, {"gbp", "GBP"}, {"hkd", "HKD"}, {"jpy", "JPY"},
	{"sgd", "SGD"}, {"chf", "CHF"},
	{"元", "CNY"}, {"块", "CNY"}, {"刀", "USD"}, {"€", "EUR"}, {"$", "USD"}, {"£", "GBP"}, {"円", "JPY"},
}

// prefixCurrency finds a currency written just before p (one space
// between at most) and returns its code and span; foreign when it is a
// dollar sign glued to letters other than US or HK ("A$", "NT$").
func (d *doc) prefixCurrency(p int) (code string, start, end int, foreign, ok bool) {
	q := d.back(p, 1)
	for _, c := range currencyPrefixes {
		s, found := d.endsWith(q, c.text)
		if !found {
			continue
		}
		if isASCIILetter([]rune(c.text)[0]) && s > 0 && isASCIILetter(d.n[s-1]) {
			continue
		}
		if c.text == "$" && s > 0 && isASCIILetter(d.n[s-1]) {
			for s > 0 && isASCIILetter(d.n[s-1]) {
				s--
			}
			return "", s, q, true, true
		}
		return c.code, s, q, false, true
	}
	return "", p, p, false, false
}

// suffixCurrency finds a currency written just after p and returns its
// code and end. 块 and 刀 are money only where no counted thing follows
// (8块显卡 is eight cards).
func (d *doc) suffixCurrency(p int) (string, int, int, bool) {
	q := d.skipSpaces(p, 1)
	for _, c := range currencySuffixes {
		e, found := d.startsWith(q, c.text)
		if !found {
			continue
		}
		rs := []rune(c.text)
		last := rs[len(rs)-1]
		if isASCIILetter(last) && e < len(d.n) && isASCIILetter(d.n[e]) {
			continue
		}
		if (c.text == "块" || c.text == "刀") && e < len(d.n) {
			next := d.n[e]
			if isASCIILetter(next) || isCJK(next) && next != '一' && next != '每' && next != '钱' && next != '左' &&
				next != '起' && next != '的' && !(next >= 0x3000 && next <= 0x303F) {
				continue
			}
		}
		return c.code, q, e, true
	}
	return "", p, p, false
}

// unitWords are the units a price may be per, after "/", "per", "每",
// "a" or "一".
var unitWords = []struct{ text, period, measure string }{
	{"gpu-hour", "hour", "gpu"}, {"gpu-hr", "hour", "gpu"}, {"gpu hour", "hour", "gpu"}, {"gpu-h", "hour", "gpu"},
	{"gb-month", "month", "gb"}, {"gb-mo", "month", "gb"}, {"gb·月", "month", "gb"},
	{"卡·时", "hour", "gpu"}, {"卡时", "hour", "gpu"}, {"个小时", "hour", ""}, {"小时", "hour", ""}, {"时", "hour", ""},
	{"hours", "hour", ""}, {"hour", "hour", ""}, {"hrs", "hour", ""}, {"hr", "hour", ""}, {"h", "hour", ""},
	{"个月", "month", ""}, {"月", "month", ""}, {"months", "month", ""}, {"month", "month", ""}, {"mth", "month", ""},
	{"mon", "month", ""}, {"mo", "month", ""},
	{"年", "year", ""}, {"years", "year", ""}, {"year", "year", ""}, {"yr", "year", ""}, {"annum", "year", ""},
	{"天", "day", ""}, {"日", "day", ""}, {"days", "day", ""}, {"day", "day", ""},
	{"周", "week", ""}, {"weeks", "week", ""}, {"week", "week", ""}, {"wk", "week", ""},
	{"分钟", "minute", ""}, {"minutes", "minute", ""}, {"minute", "minute", ""}, {"min", "minute", ""},
	{"秒", "second", ""}, {"seconds", "second", ""}, {"second", "second", ""}, {"sec", "second", ""},
	{"gib", "", "gb"}, {"gb", "", "gb"}, {"g", "", "gb"}, {"tib", "", "tb"}, {"tb", "", "tb"},
	{"mbps", "", "mbps"}, {"mbit", "", "mbps"}, {"m", "", "mbps"},
	{"卡", "", "gpu"}, {"gpus", "", "gpu"}, {"gpu", "", "gpu"}, {"cards", "", "gpu"}, {"card", "", "gpu"}, {"张", "", "gpu"},
	{"ipv4", "", "ip"}, {"ip", "", "ip"}, {"个", "", "each"}, {"each", "", "each"},
	{"台", "", "instance"}, {"实例", "", "instance"}, {"instance", "", "instance"}, {"node", "", "instance"},
	{"server", "", "instance"}, {"machine", "", "instance"}, {"节点", "", "instance"}, {"vm", "", "instance"},
	{"pod", "", "instance"},
	{"次", "", "event"}, {"start", "", "event"}, {"boot", "", "event"},
}

// unitSeps join a price to its units.
var unitSeps = []string{"/", "per", "每", "an", "a", "一", "·"}

// readUnits reads the units after a price at p ("/GB/月", " per GPU per
// hour", "每小时", " a month") and returns them with the end; an unknown
// word after a separator ends the units before that separator.
func (d *doc) readUnits(p int) (period, measure string, s, e int) {
	s, e = p, p
	for steps := 0; steps < 4; steps++ {
		q := d.skipSpaces(e, 2)
		sepStart := q
		sepEnd, sep := -1, ""
		for _, x := range unitSeps {
			if end, ok := d.startsWith(q, x); ok {
				if isASCIILetter([]rune(x)[0]) && (end < len(d.n) && isASCIILetter(d.n[end]) || q > 0 && isASCIILetter(d.n[q-1])) {
					continue
				}
				sepEnd, sep = end, x
				break
			}
		}
		if sepEnd < 0 {
			break
		}
		q = d.skipSpaces(sepEnd, 1)
		found := false
		for _, u := range unitWords {
			end, ok := d.startsWith(q, u.text)
			if !ok {
				continue
			}
			if isASCIILetter([]rune(u.text)[len([]rune(u.text))-1]) && end < len(d.n) && isASCIILetter(d.n[end]) {
				continue
			}
			if (sep == "a" || sep == "an" || sep == "一") && u.period == "" {
				break
			}
			if u.period != "" {
				if period != "" {
					break
				}
				period = u.period
			}
			if u.measure != "" {
				if measure != "" && measure != u.measure {
					break
				}
				measure = u.measure
			}
			if e == p {
				s = sepStart
			}
			e = end
			found = true
			break
		}
		if !found {
			break
		}
	}
	return period, measure, s, e
}

// readMention reads a price whose amount starts at i, or says there is
// none: an amount with a currency before or after it, or with units after
// it; with a range ("¥1.8~2.2", "$1.60-$2.00") it is one mention marked
// rng (docs/RULES.md §22.4, §22.5).
func (d *doc) readMention(i int) (*mention, bool) {
	n := d.n
	m := &mention{s: i, numS: i, curS: -1, curE: -1}
	if code, start, end, foreign, ok := d.prefixCurrency(i); ok {
		m.cur, m.curS, m.curE, m.foreign = code, start, end, foreign
		m.s = start
	}
	wide := m.cur != "" || m.foreign
	v, end, ok := readNumber(n, i, true)
	if !ok {
		return nil, false
	}
	if !wide {
		// Spaces and a decimal comma are read only beside a currency.
		if _, _, _, suffix := d.suffixCurrency(end); !suffix {
			v, end, _ = readNumber(n, i, false)
		}
	}
	v, end = multiplier(n, v, end)
	m.amount, m.numE = v, end
	// A range: a second amount after "-", "~", 至, 到 or "to".
	q := d.skipSpaces(end, 1)
	if q < len(n) {
		sepEnd := -1
		switch {
		case n[q] == '-' || n[q] == '~' || n[q] == '至' || n[q] == '到':
			sepEnd = q + 1
		default:
			if e, ok := d.startsWith(q, "to "); ok {
				sepEnd = e
			}
		}
		if sepEnd > 0 {
			r := d.skipSpaces(sepEnd, 1)
			for _, c := range currencyPrefixes {
				if e, ok := d.startsWith(r, c.text); ok && d.skipSpaces(e, 1) < len(n) && isDigit(n[d.skipSpaces(e, 1)]) {
					if m.cur == "" {
						m.cur, m.curS, m.curE = c.code, r, e
					}
					r = d.skipSpaces(e, 1)
					break
				}
			}
			if r < len(n) && isDigit(n[r]) {
				if _, end2, ok := readNumber(n, r, true); ok {
					_, end2 = multiplier(n, decimal.Decimal{}, end2)
					m.rng = true
					end = end2
				}
			}
		}
	}
	e := end
	if code, cs, ce, ok := d.suffixCurrency(end); ok {
		if m.cur == "" {
			m.cur, m.curS, m.curE = code, cs, ce
		}
		e = ce
	}
	m.period, m.measure, m.unitS, m.unitE = d.readUnits(e)
	if m.unitE > e {
		e = m.unitE
	}
	if q := d.skipSpaces(e, 1); q < len(n) && n[q] == '起' {
		m.from = true
		e = q + 1
	}
	m.e = e
	if m.cur == "" && !m.foreign && m.period == "" && m.unitE == m.unitS {
		return nil, false
	}
	return m, true
}

// multiplier applies 万 (10,000), 千 and k (1,000) written right after an
// amount ("1.2万", "$1.2k").
func multiplier(n []rune, v decimal.Decimal, end int) (decimal.Decimal, int) {
	if end >= len(n) {
		return v, end
	}
	switch r := n[end]; {
	case r == '万':
		return v.Mul(decimal.New(10000, 0)), end + 1
	case r == '千' && !(end+1 < len(n) && (n[end+1] == '瓦' || n[end+1] == '兆' || n[end+1] == '米' || n[end+1] == '克')):
		return v.Mul(decimal.New(1000, 0)), end + 1
	case r == 'k' && !(end+1 < len(n) && isASCIILetter(n[end+1])):
		return v.Mul(decimal.New(1000, 0)), end + 1
	}
	return v, end
}
