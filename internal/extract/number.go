package extract

import (
	"cmp"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/money"
)

// readNumber reads the number whose first digit is at i (docs/RULES.md
// §22.4): digits, with thousands grouped by "," ("1,150", "12,000.50") or
// by "." before a decimal comma ("1.150,00"), and one decimal mark. When
// wide (the number stands next to a currency) it also reads groups
// separated by spaces ("1 150") and a decimal comma ("14,90", "0,471").
// A dot alone is always the decimal mark ("1.150" is 1.15). It returns the
// value and the end of the number, or false when i holds no digit.
func readNumber(n []rune, i int, wide bool) (decimal.Decimal, int, bool) {
	j := i
	for j < len(n) && isDigit(n[j]) {
		j++
	}
	if j == i {
		return decimal.Decimal{}, i, false
	}
	groups := [][2]int{{i, j}}
	var seps []rune
	for j < len(n) && len(seps) < 8 {
		sep := n[j]
		if sep != ',' && sep != '.' && !(wide && sep == ' ') {
			break
		}
		k := j + 1
		for k < len(n) && isDigit(n[k]) {
			k++
		}
		if k == j+1 {
			break
		}
		seps = append(seps, sep)
		groups = append(groups, [2]int{j + 1, k})
		j = k
	}
	for m := len(seps); m >= 0; m-- {
		if v, ok := interpret(n, groups[:m+1], seps[:m], wide); ok {
			return v, groups[m][1], true
		}
	}
	return decimal.Decimal{}, i, false
}

// interpret reads digit groups joined by separators as one number, or
// says they do not make one.
func interpret(n []rune, groups [][2]int, seps []rune, wide bool) (decimal.Decimal, bool) {
	g := func(k int) string { return string(n[groups[k][0]:groups[k][1]]) }
	grouped := func(upto int) bool {
		// groups 1..upto-1 have three digits, group 0 one to three
		if l := len(g(0)); l < 1 || l > 3 {
			return false
		}
		for k := 1; k < upto; k++ {
			if len(g(k)) != 3 {
				return false
			}
		}
		return true
	}
	var intPart, frac string
	m := len(seps)
	switch {
	case m == 0:
		intPart = g(0)
	case allSame(seps):
		switch seps[0] {
		case '.':
			if m == 1 {
				intPart, frac = g(0), g(1)
			} else if grouped(m + 1) {
				intPart = joinGroups(n, groups)
			} else {
				return decimal.Decimal{}, false
			}
		case ',':
			switch {
			case grouped(m+1) && g(0) != "0":
				intPart = joinGroups(n, groups)
			case m == 1 && wide && len(g(1)) <= 3:
				intPart, frac = g(0), g(1)
			default:
				return decimal.Decimal{}, false
			}
		default: // spaces, only when wide
			if !grouped(m + 1) {
				return decimal.Decimal{}, false
			}
			intPart = joinGroups(n, groups)
		}
	default:
		last := seps[m-1]
		if last == ' ' || !allSame(seps[:m-1]) || seps[0] == last || !grouped(m) {
			return decimal.Decimal{}, false
		}
		if last == ',' && seps[0] != '.' && !wide {
			return decimal.Decimal{}, false
		}
		intPart, frac = joinGroups(n, groups[:m]), g(m)
	}
	s := intPart
	if frac != "" {
		s += "." + frac
	}
	v, err := money.ParseDecimal(s)
	if err != nil {
		return decimal.Decimal{}, false
	}
	return v, true
}

func allSame(rs []rune) bool {
	for _, r := range rs {
		if r != rs[0] {
			return false
		}
	}
	return true
}

func joinGroups(n []rune, groups [][2]int) string {
	var b strings.Builder
	for _, gr := range groups {
		b.WriteString(string(n[gr[0]:gr[1]]))
	}
	return b.String()
}

// cnDigits are the Chinese numerals the reader reads in counts and terms.
var cnDigits = map[rune]int{'零': 0, '〇': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}

// readChinese reads a Chinese numeral of at most 99 at i ("三", "十二",
// "二十四", "两") and returns its value and end.
func readChinese(n []rune, i int) (int, int, bool) {
	v, j, seen := 0, i, false
	cur := -1
	for j < len(n) && j-i < 4 {
		r := n[j]
		if d, ok := cnDigits[r]; ok {
			if cur >= 0 {
				break
			}
			cur = d
			seen = true
		} else if r == '十' {
			if cur < 0 {
				cur = 1
			}
			v += cur * 10
			cur = -1
			seen = true
		} else {
			break
		}
		j++
	}
	if cur > 0 {
		v += cur
	}
	return v, j, seen
}

// numTok is a number of the message that is not part of a price.
type numTok struct {
	s, e int
	val  decimal.Decimal
	// afterLetter marks a number glued to a letter before it ("x8", "A100").
	afterLetter bool
}

// int returns the number as a whole number, or false.
func (t numTok) int() (int, bool) {
	if !t.val.IsInteger() || t.val.Sign() < 0 || t.val.GreaterThan(decimal.New(1_000_000, 0)) {
		return 0, false
	}
	return int(t.val.IntPart()), true
}

// pctTok is a percentage: a number followed by "%", or by 个点 (a
// percentage point of tax).
type pctTok struct {
	s, e   int
	val    decimal.Decimal
	points bool
	// used marks a percentage read as a field.
	used bool
}

// scanNumbers reads every number of the message, left to right: a price
// where one stands (see readMention), otherwise a plain number or a
// percentage.
func (d *doc) scanNumbers() {
	n := d.n
	for i := 0; i < len(n); {
		if !isDigit(n[i]) {
			i++
			continue
		}
		afterLetter := i > 0 && isASCIILetter(n[i-1])
		if !afterLetter && !(i > 0 && (isDigit(n[i-1]) || n[i-1] == '.')) {
			if m, ok := d.readMention(i); ok {
				d.money = append(d.money, m)
				i = m.e
				continue
			}
		}
		v, e, ok := readNumber(n, i, false)
		if !ok {
			// Too long to be a number of a quote: skip its digits.
			for e = i; e < len(n) && isDigit(n[e]); e++ {
			}
			i = e
			continue
		}
		t := numTok{s: i, e: e, val: v, afterLetter: afterLetter}
		p := d.skipSpaces(e, 1)
		switch {
		case p < len(n) && n[p] == '%':
			d.pcts = append(d.pcts, pctTok{s: i, e: p + 1, val: v})
		case !afterLetter:
			if end, ok := d.startsWith(p, "个点"); ok {
				d.pcts = append(d.pcts, pctTok{s: i, e: end, val: v, points: true})
			} else {
				d.nums = append(d.nums, t)
			}
		default:
			d.nums = append(d.nums, t)
		}
		i = e
		if i < len(n) && (n[i] == '.' || n[i] == ',') {
			i++
		}
	}
}

// numAt returns the plain number starting at p, if any.
func (d *doc) numAt(p int) (numTok, bool) {
	return d.numWhere(p, func(n numTok) int { return n.s })
}

// numEndingAt returns the plain number ending at p, if any.
func (d *doc) numEndingAt(p int) (numTok, bool) {
	return d.numWhere(p, func(n numTok) int { return n.e })
}

// numWhere finds the number whose edge (its start or its end, both in
// text order across d.nums) is at p.
func (d *doc) numWhere(p int, edge func(numTok) int) (numTok, bool) {
	i, ok := slices.BinarySearchFunc(d.nums, p, func(n numTok, p int) int { return cmp.Compare(edge(n), p) })
	if ok {
		return d.nums[i], true
	}
	return numTok{}, false
}
