package extract

import (
	"sort"
	"strings"
	"unicode"
)

// span is a stretch of the message in rune offsets, end exclusive.
type span struct{ s, e int }

// doc is one reading of a message: the text as written and folded, its
// sentences, the words, numbers and prices found in it, and what was read.
type doc struct {
	orig []rune
	// n is the folded text: one rune for each rune of orig (so offsets
	// are shared), full-width forms half-width, letters lower case.
	n []rune
	// sents end at 。;；!?, a line break or a sentence's full stop; stmts
	// likewise, but a semicolon does not end one; clauses are sentences
	// cut at commas.
	sents, stmts, clauses []span
	hits                  []hit
	money                 []*mention
	nums                  []numTok
	pcts                  []pctTok
	cands                 []cand
	charges               []charge
	statuses              []lineStatus
	skips                 []Skip
	// figs caches the sizes of the message (figures).
	figs *[]figure
	// oneModel: the message names at most one GPU model.
	oneModel bool
	// declared is a currency the message names on its own ("单位：元",
	// "All prices in USD"), with where.
	declared []hit
}

// fold maps one rune of the message to the rune the reader compares:
// full-width ASCII to ASCII, ￥ to ¥, odd spaces to a space, dashes to
// "-", upper case to lower case (docs/RULES.md §22.4). It is one rune for
// one rune, so offsets into the folded text are offsets into the message.
func fold(r rune) rune {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		r -= 0xFEE0
	case r == 0xFFE5:
		r = '¥'
	case r == 0xFFE1:
		r = '£'
	case r == 0x3000 || r == 0x00A0 || r == 0x2007 || r == 0x2009 || r == 0x202F || r == '\r' || r == '\v' || r == '\f':
		r = ' '
	case r >= 0x2010 && r <= 0x2015 || r == 0x2212:
		r = '-'
	case r == 0x301C:
		r = '~'
	}
	if r < 0x80 {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(r)
}

func newDoc(text string) *doc {
	d := &doc{orig: []rune(text)}
	d.n = make([]rune, len(d.orig))
	for i, r := range d.orig {
		d.n[i] = fold(r)
	}
	d.segment()
	return d
}

func isDigit(r rune) bool       { return r >= '0' && r <= '9' }
func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
func isASCIIAlnum(r rune) bool  { return isDigit(r) || isASCIILetter(r) }
func isSpace(r rune) bool       { return r == ' ' || r == '\t' }

// isCJK reports whether r is a Han character or CJK punctuation.
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || r >= 0x3000 && r <= 0x303F
}

// abbreviations end with a full stop that does not end a sentence.
var abbreviations = map[string]bool{
	"incl": true, "excl": true, "ex": true, "inc": true, "approx": true, "e.g": true, "i.e": true, "etc": true,
	"vs": true, "no": true, "dr": true, "mr": true, "ms": true, "mrs": true, "st": true, "ca": true, "est": true,
	"min": true, "max": true, "avg": true, "corp": true, "co": true, "jr": true, "sr": true, "fig": true, "approx.": true,
}

// sentenceDot reports whether the full stop at i ends a sentence: it is
// followed by a space, a line break, a Chinese character or the end, and
// does not end an abbreviation or a single letter ("N. Virginia").
func (d *doc) sentenceDot(i int) bool {
	n := d.n
	if i+1 < len(n) && !isSpace(n[i+1]) && n[i+1] != '\n' && !isCJK(n[i+1]) {
		return false
	}
	j := i
	for j > 0 && (isASCIILetter(n[j-1]) || n[j-1] == '.') {
		j--
	}
	w := string(n[j:i])
	if abbreviations[w] || len(w) == 1 && isASCIILetter(n[j]) {
		return false
	}
	return true
}

// labelLine reports whether the line [s, e) is a short label ending with a
// colon ("按量：") whose value is on the next line.
func (d *doc) labelLine(s, e int) bool {
	for e > s && isSpace(d.n[e-1]) {
		e--
	}
	for s < e && (isSpace(d.n[s]) || d.n[s] == '-' || d.n[s] == '*' || d.n[s] == '•') {
		s++
	}
	return e > s && d.n[e-1] == ':' && e-s <= 10
}

// segment cuts the message into sentences, statements and clauses
// (docs/RULES.md §22.1).
func (d *doc) segment() {
	n := d.n
	cut := func(semicolon bool) []span {
		var out []span
		start, lineStart := 0, 0
		for i := 0; i < len(n); i++ {
			end := false
			switch n[i] {
			case '。', '!', '?', '…':
				end = true
			case ';':
				end = semicolon
			case '\n':
				end = !d.labelLine(lineStart, i)
				lineStart = i + 1
			case '.':
				end = d.sentenceDot(i)
			}
			if end {
				if i > start {
					out = append(out, span{start, i})
				}
				start = i + 1
			}
		}
		if start < len(n) {
			out = append(out, span{start, len(n)})
		}
		return out
	}
	d.sents = cut(true)
	d.stmts = cut(false)
	for _, s := range d.sents {
		start := s.s
		for i := s.s; i < s.e; i++ {
			if n[i] == ',' && !(i > s.s && i+1 < s.e && isDigit(n[i-1]) && isDigit(n[i+1])) {
				if i > start {
					d.clauses = append(d.clauses, span{start, i})
				}
				start = i + 1
			}
		}
		if start < s.e {
			d.clauses = append(d.clauses, span{start, s.e})
		}
	}
}

// within returns the span of list holding position p, or a zero span and
// false.
func within(list []span, p int) (span, bool) {
	i := sort.Search(len(list), func(i int) bool { return list[i].e > p })
	if i < len(list) && list[i].s <= p {
		return list[i], true
	}
	return span{}, false
}

func (d *doc) sentence(p int) span  { s, _ := within(d.sents, p); return s }
func (d *doc) statement(p int) span { s, _ := within(d.stmts, p); return s }
func (d *doc) clause(p int) span    { s, _ := within(d.clauses, p); return s }

// hitsIn returns the hits lying wholly inside [s, e). Hits are in order
// of start and, since none lies inside another, of end too.
func (d *doc) hitsIn(s, e int) []hit {
	i := sort.Search(len(d.hits), func(i int) bool { return d.hits[i].s >= s })
	j := i
	for j < len(d.hits) && d.hits[j].e <= e {
		j++
	}
	return d.hits[i:j]
}

// has reports whether [s, e) holds a hit of class c.
func (d *doc) has(s, e int, c class) bool {
	for _, h := range d.hitsIn(s, e) {
		if h.cls == c {
			return true
		}
	}
	return false
}

// hitAt returns the hit starting at p, if any.
func (d *doc) hitAt(p int) (hit, bool) {
	i := sort.Search(len(d.hits), func(i int) bool { return d.hits[i].s >= p })
	if i < len(d.hits) && d.hits[i].s == p {
		return d.hits[i], true
	}
	return hit{}, false
}

// hitEndingAt returns the hit ending at p, if any.
func (d *doc) hitEndingAt(p int) (hit, bool) {
	i := sort.Search(len(d.hits), func(i int) bool { return d.hits[i].e >= p })
	if i < len(d.hits) && d.hits[i].e == p {
		return d.hits[i], true
	}
	return hit{}, false
}

// skipSpaces returns the first position from p that is not a space, going
// at most max runes.
func (d *doc) skipSpaces(p, max int) int {
	for k := 0; k < max && p < len(d.n) && isSpace(d.n[p]); k++ {
		p++
	}
	return p
}

// back returns the position before p after skipping at most max spaces
// backwards (the rune at the result − 1 is the first non-space).
func (d *doc) back(p, max int) int {
	for k := 0; k < max && p > 0 && isSpace(d.n[p-1]); k++ {
		p--
	}
	return p
}

// startsWith reports whether the folded text at p starts with s (spaces
// of s matching any run of spaces) and returns its end.
func (d *doc) startsWith(p int, s string) (int, bool) {
	j := p
	for _, r := range s {
		if r == ' ' {
			for j < len(d.n) && isSpace(d.n[j]) {
				j++
			}
			continue
		}
		if j >= len(d.n) || d.n[j] != r {
			return p, false
		}
		j++
	}
	return j, true
}

// endsWith reports whether the folded text before p ends with s and
// returns where s starts.
func (d *doc) endsWith(p int, s string) (int, bool) {
	rs := []rune(s)
	if p-len(rs) < 0 {
		return p, false
	}
	for k := range rs {
		if d.n[p-len(rs)+k] != rs[k] {
			return p, false
		}
	}
	return p - len(rs), true
}

// text returns the message's own text of [s, e).
func (d *doc) text(s, e int) string { return string(d.orig[s:e]) }

// trimmed returns the sentence [s, e) as written, without the spaces,
// bullets and table bars around it.
func (d *doc) trimmed(s span) string {
	return strings.Trim(d.text(s.s, s.e), " \t\n\r\u3000-•*·|")
}
