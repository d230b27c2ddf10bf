package extract

import (
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/money"
)

// monthUnits are the words of a term, with its months.
var monthUnits = []struct {
	text   string
	months int
}{
	{"个月", 1}, {"months", 1}, {"month", 1}, {"月", 1}, {"mo", 1}, {"年", 12}, {"years", 12}, {"year", 12}, {"yr", 12},
}

// termAfter reads a term starting at p ("3 个月", "两个月", "一年",
// "12-month", "1 year") and returns its months and end.
func (d *doc) termAfter(p int) (int, int, bool) {
	n := d.n
	if e, ok := d.startsWith(p, "半年"); ok {
		return 6, e, true
	}
	v, e := 0, p
	if num, ok := d.numAt(p); ok {
		iv, ok := num.int()
		if !ok {
			return 0, p, false
		}
		v, e = iv, num.e
	} else if cv, ce, ok := readChinese(n, p); ok {
		v, e = cv, ce
	} else {
		return 0, p, false
	}
	q := d.skipSpaces(e, 1)
	if q < len(n) && n[q] == '-' {
		q++
	}
	for _, u := range monthUnits {
		if ue, ok := d.startsWith(q, u.text); ok && !(ue < len(n) && isASCIILetter(n[ue])) {
			return v * u.months, ue, true
		}
	}
	return 0, p, false
}

// termBefore reads a term ending at p (before "起租", "minimum", "contract").
func (d *doc) termBefore(p int) (int, int, bool) {
	n := d.n
	q := d.back(p, 2)
	if q > 0 && n[q-1] == '-' {
		q--
	}
	for _, u := range monthUnits {
		s, ok := d.endsWith(q, u.text)
		if !ok || isASCIILetter([]rune(u.text)[0]) && s > 0 && isASCIILetter(n[s-1]) {
			continue
		}
		r := d.back(s, 1)
		if r > 0 && n[r-1] == '-' {
			r--
		}
		if s2, ok := d.endsWith(s, "半"); ok && u.months == 12 {
			return 6, s2, true
		}
		if num, ok := d.numEndingAt(r); ok {
			if v, ok := num.int(); ok {
				return v * u.months, num.s, true
			}
		}
		// A Chinese numeral ending at r.
		k := r
		for k > 0 && r-k < 3 && (cnDigits[n[k-1]] > 0 || n[k-1] == '十' || n[k-1] == '两') {
			k--
		}
		if k < r {
			if v, e, ok := readChinese(n, k); ok && e == r {
				return v * u.months, k, true
			}
		}
		return 0, p, false
	}
	return 0, p, false
}

// readTerms reads the contract terms: minimum term, early termination,
// deposit and balance refunds (docs/RULES.md §22.8).
func (d *doc) readTerms() {
	n := d.n
	for _, st := range d.stmts {
		hs := d.hitsIn(st.s, st.e)
		has := func(cs ...class) bool {
			for _, h := range hs {
				for _, c := range cs {
					if h.cls == c {
						return true
					}
				}
			}
			return false
		}
		// Minimum term; a term under a condition or a discount is not one.
		if !has(cCond, cFrom, cDiscount) {
			for _, h := range hs {
				switch h.cls {
				case cNoDeposit:
					d.add("deposit", "0", span{h.s, h.e})
				case cNoCommit:
					d.add("commitment_months", "0", span{h.s, h.e})
				case cCommitLabel, cCommitSuffix:
					q := h.e
					for k := 0; k < 4 && q < len(n) && (isSpace(n[q]) || n[q] == ':' || n[q] == '为' || n[q] == '是'); k++ {
						q++
					}
					if e, ok := d.startsWith(q, "of "); ok {
						q = e
					}
					if v, e, ok := d.termAfter(q); ok {
						d.add("commitment_months", strconv.Itoa(v), span{h.s, e})
					} else if v, s, ok := d.termBefore(h.s); ok {
						d.add("commitment_months", strconv.Itoa(v), span{s, h.e})
					}
				}
			}
		}
		// Early termination: one percentage, with a fee and no refund.
		if has(cEarlyTerm) && !has(cRefundable) {
			fee := has(cFee)
			var et *hit
			for k := range hs {
				if hs[k].cls == cEarlyTerm {
					et = &hs[k]
					t := string(n[hs[k].s:hs[k].e])
					if strings.Contains(t, "违约金") || strings.Contains(t, "fee") {
						fee = true
					}
				}
			}
			var vals []pctTok
			for _, p := range d.pcts {
				if p.s >= st.s && p.e <= st.e && !p.points {
					vals = append(vals, p)
				}
			}
			if fee && len(vals) > 0 && allSameValue(vals) {
				for _, p := range vals {
					d.add("early_termination_pct", money.String(p.val), span{p.s, p.e}, span{et.s, et.e})
					d.used(p)
				}
			}
		}
		// Deposit refundable or not; balance withdrawable or not: by
		// statement, or by clause where a statement speaks of both.
		if has(cDeposit) && has(cBalance) {
			for _, c := range d.clauses {
				if c.s >= st.s && c.e <= st.e {
					d.refunds(d.hitsIn(c.s, c.e))
				}
			}
			continue
		}
		d.refunds(hs)
	}
}

// refunds reads whether the deposit is refundable or the balance
// withdrawable from the words hs of one statement or clause.
func (d *doc) refunds(hs []hit) {
	has := func(c class) bool {
		for _, h := range hs {
			if h.cls == c {
				return true
			}
		}
		return false
	}
	switch {
	case has(cDeposit) && !has(cBalance):
		for _, h := range hs {
			switch h.cls {
			case cRefundable:
				d.add("deposit_refundable", "true", span{h.s, h.e})
			case cNonRefundable:
				d.add("deposit_refundable", "false", span{h.s, h.e})
			}
		}
	case has(cBalance) && !has(cDeposit):
		for _, h := range hs {
			switch h.cls {
			case cRefundable, cWithdrawable:
				d.add("balance_withdrawable", "true", span{h.s, h.e})
			case cNonRefundable, cNotWithdrawable:
				d.add("balance_withdrawable", "false", span{h.s, h.e})
			}
		}
	}
}

func allSameValue(ps []pctTok) bool {
	for _, p := range ps {
		if !p.val.Equal(ps[0].val) {
			return false
		}
	}
	return true
}

// used marks a percentage read as a field, so it is not taken for a
// discount.
func (d *doc) used(p pctTok) {
	for k := range d.pcts {
		if d.pcts[k].s == p.s {
			d.pcts[k].used = true
		}
	}
}

func (p pctTok) isUsed() bool { return p.used }

var hundred = decimal.New(100, 0)

// readTax reads whether prices include tax, the tax rate (a fraction,
// docs/RULES.md §5.1) and the invoice type (docs/RULES.md §22.8).
func (d *doc) readTax() {
	n := d.n
	for _, h := range d.hits {
		switch h.cls {
		case cTaxIncl:
			d.add("prices_include_tax", "true", span{h.s, h.e})
		case cTaxExcl:
			d.add("prices_include_tax", "false", span{h.s, h.e})
		case cInvoice:
			d.add("invoice_type", h.arg, span{h.s, h.e})
		}
	}
	for _, p := range d.pcts {
		if p.isUsed() {
			continue
		}
		st := d.statement(p.s)
		rate := false
		if p.points {
			t := string(n[st.s:st.e])
			rate = strings.Contains(t, "税") || strings.Contains(t, "票")
		} else {
			q := d.skipSpaces(p.e, 1)
			for _, w := range []string{"增值税", "税", "vat", "sales tax", "tax"} {
				if e, ok := d.startsWith(q, w); ok && !(e < len(n) && isASCIILetter(n[e])) {
					rate = true
					break
				}
			}
			r := d.back(p.s, 1)
			for k := 0; k < 2 && r > 0 && (n[r-1] == '(' || n[r-1] == ':'); k++ {
				r = d.back(r-1, 1)
			}
			for _, w := range []string{"税率", "税点", "增值税", "税", "vat rate", "tax rate", "vat", "tax"} {
				if s, ok := d.endsWith(r, w); ok && !(isASCIILetter([]rune(w)[0]) && s > 0 && isASCIILetter(n[s-1])) {
					rate = true
					break
				}
			}
		}
		if !rate {
			continue
		}
		v := p.val.Div(hundred)
		d.add("tax_rate", money.String(v), span{p.s, p.e})
		d.used(p)
		r := d.back(p.s, 1)
		if r > 0 && n[r-1] == '含' {
			d.add("prices_include_tax", "true", span{r - 1, p.e})
		}
		for _, w := range []string{"不含", "exclude", "excludes", "excluding", "excl.", "ex.", "plus", "+"} {
			if s, ok := d.endsWith(r, w); ok && !(s > 0 && isASCIILetter(n[s-1])) {
				d.add("prices_include_tax", "false", span{s, p.e})
				break
			}
		}
		for _, w := range []string{"including", "include", "includes", "incl.", "inc."} {
			if s, ok := d.endsWith(r, w); ok && !(s > 0 && isASCIILetter(n[s-1])) {
				d.add("prices_include_tax", "true", span{s, p.e})
				break
			}
		}
	}
}

// readOffer reads the rest of the offer: platform, sharing, region, SLA,
// granularity (docs/RULES.md §22.3, §22.8).
func (d *doc) readOffer() {
	n := d.n
	for _, h := range d.hits {
		switch h.cls {
		case cPlatform:
			if !d.comparing(h.s) {
				d.add("platform", h.arg, span{h.s, h.e})
			}
		case cSharing:
			if !d.comparing(h.s) {
				d.add("sharing", h.arg, span{h.s, h.e})
			}
		case cGran:
			d.add("billing_granularity", h.arg, span{h.s, h.e})
		case cRegion:
			q := d.skipSpaces(h.e, 1)
			if q >= len(n) || n[q] != ':' {
				continue
			}
			s := d.skipSpaces(q+1, 2)
			st := d.sentence(h.s)
			e := s
			for e < st.e && d.orig[e] != '，' && d.orig[e] != '；' && d.orig[e] != '、' {
				e++
			}
			for e > s && isSpace(n[e-1]) {
				e--
			}
			if e > s && e-s <= 100 && !d.inMoney(s) {
				d.add("region", d.text(s, e), span{s, e})
			}
		}
	}
	// SLA: a percentage right after SLA / 可用性 / uptime, or before uptime.
	for _, p := range d.pcts {
		if p.isUsed() || p.points {
			continue
		}
		st := d.statement(p.s)
		ok := false
		var at hit
		for _, h := range d.hitsIn(st.s, p.s) {
			if h.cls == cSLA && p.s-h.e <= 12 {
				ok, at = true, h
			}
		}
		if !ok {
			if h, found := d.hitAt(d.skipSpaces(p.e, 1)); found && h.cls == cSLA {
				ok, at = true, h
			}
		}
		if ok && p.val.LessThanOrEqual(hundred) {
			d.add("sla_availability_pct", money.String(p.val), span{p.s, p.e}, span{at.s, at.e})
			d.used(p)
		}
	}
}

// readDiscounts records discounts as skipped (docs/RULES.md §22.7): "8 折",
// "85折", "15% off", a percentage in a sentence about a discount.
func (d *doc) readDiscounts() {
	n := d.n
	for i := 0; i < len(n); i++ {
		if n[i] != '折' || i+1 < len(n) && n[i+1] == '合' {
			continue
		}
		p := d.back(i, 1)
		if num, ok := d.numEndingAt(p); ok {
			d.skip(MsgSkipDiscount, "", span{num.s, i + 1})
		} else if p > 0 && (cnDigits[n[p-1]] > 0 || n[p-1] == '十') {
			s := p - 1
			for s > 0 && cnDigits[n[s-1]] > 0 {
				s--
			}
			d.skip(MsgSkipDiscount, "", span{s, i + 1})
		}
	}
	for _, p := range d.pcts {
		if p.isUsed() || p.points {
			continue
		}
		st := d.statement(p.s)
		off := false
		if h, ok := d.hitAt(d.skipSpaces(p.e, 1)); ok && h.cls == cDiscount {
			off = true
		}
		if off || d.has(st.s, st.e, cDiscount) {
			d.skip(MsgSkipDiscount, "", span{p.s, p.e})
		}
	}
}
