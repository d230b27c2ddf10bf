package extract

import (
	"sort"
	"strconv"
	"strings"

	"gpuquote/internal/money"
)

// lines returns the message's lines.
func (d *doc) lines() []span {
	var out []span
	s := 0
	for i, r := range d.n {
		if r == '\n' {
			out = append(out, span{s, i})
			s = i + 1
		}
	}
	return append(out, span{s, len(d.n)})
}

// cells cuts a table row at "|" or tabs, leaving out the empty cells of a
// row that starts or ends with a bar.
func (d *doc) cells(l span) []span {
	var out []span
	s := l.s
	for i := l.s; i <= l.e; i++ {
		if i == l.e || d.n[i] == '|' || d.n[i] == '\t' {
			c := span{s, i}
			for c.s < c.e && isSpace(d.n[c.s]) {
				c.s++
			}
			for c.e > c.s && isSpace(d.n[c.e-1]) {
				c.e--
			}
			out = append(out, c)
			s = i + 1
		}
	}
	if len(out) > 0 && out[0].s == out[0].e {
		out = out[1:]
	}
	if len(out) > 0 && out[len(out)-1].s == out[len(out)-1].e {
		out = out[:len(out)-1]
	}
	return out
}

func (d *doc) tableRow(l span) bool {
	bars, tabs := 0, 0
	for i := l.s; i < l.e; i++ {
		switch d.n[i] {
		case '|':
			bars++
		case '\t':
			tabs++
		}
	}
	return bars >= 2 || tabs >= 2
}

// readTables reads tables whose header names the columns (docs/RULES.md
// §22.1): a bare number under 按量 / Hourly is that price, under GPUs /
// vCPU / RAM / 显存 that figure; a price in a cell with no word of its own
// takes its header's words.
func (d *doc) readTables() {
	ls := d.lines()
	for i := 0; i < len(ls); {
		if !d.tableRow(ls[i]) {
			i++
			continue
		}
		j := i
		for j < len(ls) && d.tableRow(ls[j]) {
			j++
		}
		d.readTable(ls[i:j])
		i = j
	}
	sort.SliceStable(d.money, func(a, b int) bool { return d.money[a].s < d.money[b].s })
}

func (d *doc) readTable(rows []span) {
	if len(rows) < 2 {
		return
	}
	header := rows[0]
	for i := header.s; i < header.e; i++ {
		if isDigit(d.n[i]) {
			return
		}
	}
	hcells := d.cells(header)
	for _, row := range rows[1:] {
		if strings.Trim(string(d.n[row.s:row.e]), "|-: \t") == "" {
			continue
		}
		cs := d.cells(row)
		if len(cs) != len(hcells) {
			continue
		}
		for k, c := range cs {
			h := hcells[k]
			for _, m := range d.money {
				if m.s >= c.s && m.e <= c.e {
					hh := h
					m.hdr = &hh
				}
			}
			d.readCell(c, h)
		}
	}
}

// readCell reads a cell that is one number (or one size) under its header.
func (d *doc) readCell(c, h span) {
	num, ok := d.numAt(c.s)
	if !ok || d.inMoney(c.s) {
		return
	}
	rest := d.skipSpaces(num.e, 1)
	unit := ""
	for _, u := range []string{"gib", "gb", "g", "核", "vcpus", "vcpu"} {
		if e, ok := d.startsWith(rest, u); ok && e == c.e {
			unit, rest = u, e
			break
		}
	}
	if rest != c.e && num.e != c.e {
		return
	}
	for _, hh := range d.hitsIn(h.s, h.e) {
		switch hh.cls {
		case cMode, cDeposit:
			if unit != "" {
				return
			}
			m := &mention{s: c.s, e: c.e, numS: c.s, numE: num.e, amount: num.val, bare: true, label: hh, curS: -1, curE: -1}
			for _, ch := range d.hitsIn(h.s, h.e) {
				if ch.cls == cCurrency {
					m.cur, m.curS, m.curE = ch.arg, ch.s, ch.e
				}
			}
			for i := h.s; i < h.e && m.cur == ""; i++ {
				if d.n[i] == '元' {
					m.cur, m.curS, m.curE = "CNY", i, i+1
				}
			}
			d.money = append(d.money, m)
			return
		case cGPUCount:
			if v, ok := num.int(); ok && unit == "" {
				d.add("gpu_count", strconv.Itoa(v), c, span{hh.s, hh.e})
			}
			return
		case cCPU:
			if v, ok := num.int(); ok && (unit == "" || unit == "核" || strings.HasPrefix(unit, "vcpu")) {
				d.add("cpu_cores", strconv.Itoa(v), c, span{hh.s, hh.e})
			}
			return
		case cRAM, cVRAM:
			if unit == "" || unit == "gb" || unit == "g" || unit == "gib" {
				field := "ram_gb"
				if hh.cls == cVRAM {
					field = "vram_gb"
				}
				d.add(field, money.String(num.val), c, span{hh.s, hh.e})
			}
			return
		}
	}
}

// readLabels turns a number right after a billing mode or deposit label
// into a price ("包月：1299", "Monthly: 690" on its own line), when nothing
// that makes it a count or a size follows it.
func (d *doc) readLabels() {
	n := d.n
	for _, t := range d.nums {
		if t.afterLetter || d.inMoney(t.s) {
			continue
		}
		q := t.s
		for k := 0; k < 4 && q > 0 && (isSpace(n[q-1]) || n[q-1] == '\n' || n[q-1] == ':'); k++ {
			q--
		}
		h, ok := d.hitEndingAt(q)
		if !ok || h.cls != cMode && h.cls != cDeposit {
			continue
		}
		r := d.skipSpaces(t.e, 2)
		if r < len(n) && !strings.ContainsRune("\n。，,;；)）|", n[r]) {
			continue
		}
		d.money = append(d.money, &mention{s: t.s, e: t.e, numS: t.s, numE: t.e, amount: t.val, bare: true, label: h,
			curS: -1, curE: -1})
	}
	sort.SliceStable(d.money, func(a, b int) bool { return d.money[a].s < d.money[b].s })
}
