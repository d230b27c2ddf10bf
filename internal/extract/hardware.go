package extract

import (
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/money"
)

// cand is one reading of a field: its value in the form's spelling, where
// it was read, and the price it came from (for money values).
type cand struct {
	field, value string
	ev           []span
	m            *mention
}

func (d *doc) add(field, value string, ev ...span) {
	d.cands = append(d.cands, cand{field: field, value: value, ev: ev})
}

// inMoney reports whether p lies inside a price.
func (d *doc) inMoney(p int) bool {
	for _, m := range d.money {
		if m.s <= p && p < m.e {
			return true
		}
		if m.s > p {
			break
		}
	}
	return false
}

// modelTok is a GPU model named in the message, with the form factor and
// memory written right after it ("H100 SXM5 80GB", "A100 80G").
type modelTok struct {
	s, e, end int
	name      string
	mem       decimal.Decimal
	memAt     span
}

var variants = []struct{ text, canon string }{
	{"sxm5", "SXM5"}, {"sxm4", "SXM4"}, {"sxm", "SXM"}, {"pcie", "PCIe"}, {"nvl", "NVL"},
}

// readModels finds the GPU models the message names (docs/RULES.md
// §22.3). A bare number ("4090") is a model only where it is no price,
// year or amount of something.
func (d *doc) readModels() []modelTok {
	n := d.n
	var out []modelTok
	for _, h := range d.hits {
		if h.cls != cModel {
			continue
		}
		if isDigit(n[h.s]) {
			if d.inMoney(h.s) || h.s > 0 && (n[h.s-1] == '.' || n[h.s-1] == '/' || strings.ContainsRune("¥$€£", n[h.s-1])) ||
				h.s > 1 && n[h.s-1] == ',' && isDigit(n[h.s-2]) {
				continue
			}
			if q := d.skipSpaces(h.e, 1); q < len(n) && strings.ContainsRune("元块年月号%万个刀-./:", n[q]) {
				continue
			}
		}
		t := modelTok{s: h.s, e: h.e, end: h.e}
		variant := ""
		j := h.e
		for steps := 0; steps < 3; steps++ {
			q := j
			for k := 0; k < 2 && q < len(n) && (isSpace(n[q]) || n[q] == '-' || n[q] == '('); k++ {
				q++
			}
			matched := false
			for _, v := range variants {
				if e, ok := d.startsWith(q, v.text); ok && variant == "" && !(e < len(n) && isASCIIAlnum(n[e])) {
					variant, j, matched = v.canon, e, true
					break
				}
			}
			if matched {
				continue
			}
			if q < len(n) && isDigit(n[q]) && t.memAt.e == 0 {
				v, e, _ := readNumber(n, q, false)
				u := d.skipSpaces(e, 1)
				for _, unit := range []string{"gib", "gb", "g"} {
					if ue, ok := d.startsWith(u, unit); ok && !(ue < len(n) && isASCIILetter(n[ue])) {
						j, matched = ue, true
						// "A100 40G/80G": two sizes offered, neither is the quote's.
						if !(ue+1 < len(n) && n[ue] == '/' && isDigit(n[ue+1])) {
							t.mem, t.memAt = v, span{q, ue}
						}
						break
					}
				}
			}
			if !matched {
				break
			}
		}
		t.end = j
		t.name = h.arg
		if variant != "" {
			t.name += " " + variant
		}
		out = append(out, t)
	}
	return out
}

// readHardware reads the card, its count and memory, the vCPUs and the
// memory of the instance (docs/RULES.md §22.3).
func (d *doc) readHardware() {
	models := d.readModels()
	var names []string
	for _, t := range models {
		if !d.comparing(t.s) {
			d.add("gpu_model", t.name, span{t.s, t.end})
			names = append(names, t.name)
		}
	}
	// The memory written with a model is the GPU's only where the message
	// names one model; in a list of several it is one card's among others.
	d.oneModel = len(refineModel(distinctStrings(names))) <= 1
	for _, t := range models {
		if t.memAt.e > 0 {
			d.modelMemory(t.mem, t.memAt)
		}
	}
	d.readCounts(models)
	d.readCPU()
	d.readMemory()
}

// modelMemory reads a size written with a model's name as the GPU's
// memory, where the message names one model.
func (d *doc) modelMemory(v decimal.Decimal, at span) {
	if d.oneModel {
		d.add("vram_gb", money.String(v), at)
	} else {
		d.skip(MsgSkipConflict, "vram_gb", at)
	}
}

func distinctStrings(xs []string) []string {
	var out []string
	for _, x := range xs {
		found := false
		for _, y := range out {
			found = found || x == y
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

// comparing reports whether the sentence at p compares offers ("比
// AutoDL 便宜", "cheaper than"): a name in it is not the offer's.
func (d *doc) comparing(p int) bool {
	s := d.sentence(p)
	return d.has(s.s, s.e, cCompare)
}

// inHit reports whether p lies inside a hit of class c.
func (d *doc) inHit(p int, c class) bool {
	i := sort.Search(len(d.hits), func(i int) bool { return d.hits[i].e > p })
	return i < len(d.hits) && d.hits[i].s <= p && d.hits[i].cls == c
}

func (d *doc) modelAt(p int, models []modelTok) (modelTok, bool) {
	for _, t := range models {
		if t.s == p {
			return t, true
		}
	}
	return modelTok{}, false
}

func (d *doc) insideModel(p int, models []modelTok) bool {
	for _, t := range models {
		if t.s <= p && p < t.e {
			return true
		}
	}
	return false
}

// skipVendor skips a maker's name before a model ("NVIDIA ", "英伟达").
func (d *doc) skipVendor(p int) int {
	for _, v := range []string{"nvidia", "英伟达", "geforce", "amd"} {
		if e, ok := d.startsWith(p, v); ok {
			return d.skipSpaces(e, 1)
		}
	}
	return p
}

// readCounts reads how many GPUs the instance has: "8卡", "单卡", "8张卡",
// "8x H100", "8 × A100", "H100 x8", "8 GPUs", "GPUs: 8".
func (d *doc) readCounts(models []modelTok) {
	n := d.n
	count := func(v, s, e int) {
		c := d.clause(s)
		for _, h := range d.hitsIn(c.s, s) {
			if h.cls == cMax {
				return // "up to 8 GPUs", 最多 8 卡: a limit, not the count
			}
		}
		if h, ok := d.hitAt(s); ok && h.cls == cPerGPU || s > 0 && d.inHit(s, cPerGPU) {
			return
		}
		if q := d.skipSpaces(e, 1); q < len(d.n) && (d.n[q] == '-' || d.n[q] == ' ') {
			e = q
		}
		for _, w := range []string{"cluster", "集群", "gpu cluster"} {
			if _, ok := d.startsWith(d.skipSpaces(e, 1), w); ok {
				return // a cluster's GPUs, not one instance's
			}
		}
		if v >= 1 && v <= 1024 {
			d.add("gpu_count", strconv.Itoa(v), span{s, e})
		}
	}
	for _, t := range d.nums {
		v, ok := t.int()
		if !ok || t.afterLetter || d.insideModel(t.s, models) {
			continue
		}
		if t.s > 0 && (n[t.s-1] == '/' || n[t.s-1] == '×' || n[t.s-1] == '*') {
			continue
		}
		q := d.skipSpaces(t.e, 1)
		if q >= len(n) {
			continue
		}
		switch {
		case n[q] == '卡' && !(q+1 < len(n) && (n[q+1] == '时' || n[q+1] == '·')):
			count(v, t.s, q+1)
		case n[q] == '张' || n[q] == '块':
			r := d.skipSpaces(q+1, 1)
			if _, ok := d.modelAt(d.skipVendor(r), models); ok {
				count(v, t.s, q+1)
			} else if e, ok := d.startsWith(r, "显卡"); ok {
				count(v, t.s, e)
			} else if e, ok := d.startsWith(r, "卡"); ok {
				count(v, t.s, e)
			} else if e, ok := d.startsWith(r, "gpu"); ok {
				count(v, t.s, e)
			}
		case n[q] == 'x' || n[q] == '×' || n[q] == '*':
			r := d.skipVendor(d.skipSpaces(q+1, 1))
			if _, ok := d.modelAt(r, models); ok {
				count(v, t.s, q+1)
			} else if e, ok := d.startsWith(r, "gpu"); ok && !(e < len(n) && isASCIILetter(n[e]) && n[e] != 's') {
				count(v, t.s, q+1)
			}
		default:
			r := q
			if n[r] == '-' {
				r++
			}
			if e, ok := d.startsWith(r, "gpu"); ok {
				if e < len(n) && n[e] == 's' {
					e++
				}
				if !(e < len(n) && isASCIIAlnum(n[e])) {
					count(v, t.s, e)
				}
			}
		}
	}
	// 单卡, 双卡, 八卡
	for i := 1; i < len(n); i++ {
		if n[i] != '卡' || i+1 < len(n) && (n[i+1] == '时' || n[i+1] == '·') {
			continue
		}
		switch n[i-1] {
		case '单':
			count(1, i-1, i+1)
			continue
		case '双':
			count(2, i-1, i+1)
			continue
		}
		s := i
		for s > 0 && i-s < 3 && (cnDigits[n[s-1]] > 0 || n[s-1] == '十') {
			s--
		}
		if s < i {
			if v, e, ok := readChinese(n, s); ok && e == i {
				count(v, s, i+1)
			}
		}
	}
	// H100 x8, V100 32G ×2
	for _, t := range models {
		q := d.skipSpaces(t.end, 1)
		if q < len(n) && (n[q] == 'x' || n[q] == '×' || n[q] == '*') {
			r := d.skipSpaces(q+1, 1)
			if num, ok := d.numAt(r); ok {
				if v, ok := num.int(); ok && !(num.e < len(n) && (isASCIILetter(n[num.e]) || n[num.e] == '.')) {
					count(v, q, num.e)
				}
			}
		}
	}
	// GPUs: 8, 卡数：8
	for _, h := range d.hits {
		if h.cls != cGPUCount {
			continue
		}
		q := d.skipSpaces(h.e, 1)
		if q < len(n) && n[q] == ':' {
			if num, ok := d.numAt(d.skipSpaces(q+1, 2)); ok {
				if v, ok := num.int(); ok {
					count(v, h.s, num.e)
				}
			}
		}
	}
}

// readCPU reads the instance's vCPUs: "16核", "16 vCPU", "24 cores", "vCPU:
// 16". A count after "×" is per socket and is not read.
func (d *doc) readCPU() {
	n := d.n
	for _, t := range d.nums {
		v, ok := t.int()
		if !ok || t.afterLetter || v < 1 || v > 100000 {
			continue
		}
		if p := d.back(t.s, 1); p > 0 && (n[p-1] == '×' || n[p-1] == '*' || n[p-1] == 'x') {
			continue
		}
		q := d.skipSpaces(t.e, 1)
		for _, u := range []string{"核心", "核", "vcpus", "vcpu", "cores", "core", "cpu cores", "cpus"} {
			if e, ok := d.startsWith(q, u); ok && !(e < len(n) && isASCIILetter(n[e])) {
				d.add("cpu_cores", strconv.Itoa(v), span{t.s, e})
				break
			}
		}
	}
	for _, h := range d.hits {
		if h.cls != cCPU {
			continue
		}
		q := d.skipSpaces(h.e, 1)
		if q < len(n) && n[q] == ':' {
			r := d.skipSpaces(q+1, 1)
			if num, ok := d.numAt(r); ok {
				if v, ok := num.int(); ok {
					e := d.skipSpaces(num.e, 1)
					// "CPU: 64核" is read above; "CPU: 16" here.
					if e >= len(n) || strings.ContainsRune("\n,;。，；)）|", n[e]) {
						d.add("cpu_cores", strconv.Itoa(v), span{h.s, num.e})
					}
				}
			}
		}
	}
}

// figure is a size in the message: GB, TB or Mbps.
type figure struct {
	s, e int
	val  decimal.Decimal
	unit string // gb, tb, mbps
}

var sizeUnits = []struct {
	text, unit string
	times      int64
}{
	{"gib", "gb", 1}, {"gb", "gb", 1}, {"g", "gb", 1}, {"tib", "tb", 1}, {"tb", "tb", 1},
	{"mbps", "mbps", 1}, {"mbit/s", "mbps", 1}, {"mbit", "mbps", 1}, {"mb/s", "mbps", 1}, {"m", "mbps", 1},
	{"gbps", "mbps", 1000}, {"gbit/s", "mbps", 1000}, {"gbit", "mbps", 1000},
}

// figures finds the sizes of the message. A size after "×" is a part of
// a product ("4×3.84TB") and is not one.
func (d *doc) figures() []figure {
	if d.figs != nil {
		return *d.figs
	}
	n := d.n
	out := []figure{}
	defer func() { d.figs = &out }()
	for _, t := range d.nums {
		if t.afterLetter {
			continue
		}
		if p := d.back(t.s, 1); p > 0 && (n[p-1] == '×' || n[p-1] == '*' || n[p-1] == 'x') || t.s > 0 && n[t.s-1] == '/' {
			continue
		}
		q := d.skipSpaces(t.e, 1)
		for _, u := range sizeUnits {
			e, ok := d.startsWith(q, u.text)
			if !ok || e < len(n) && isASCIILetter(n[e]) {
				continue
			}
			if e+1 < len(n) && n[e] == '/' && (isDigit(n[e+1]) || n[e+1] == 's') {
				break // "40G/80G": sizes offered, not one size; "1008GB/s": a rate
			}
			out = append(out, figure{s: t.s, e: e, val: t.val.Mul(decimal.New(u.times, 0)), unit: u.unit})
			break
		}
	}
	return out
}

// stopper ends the words a size may belong to.
func stopper(r rune) bool {
	return strings.ContainsRune(",|;。、\n，；!?", r) || isDigit(r)
}

// fillerTo reports whether [s, e) may stand between a size and its word:
// at most 10 runes, none a stopper.
func (d *doc) fillerTo(s, e int) (int, bool) {
	if e < s || e-s > 10 {
		return 0, false
	}
	for i := s; i < e; i++ {
		if stopper(d.n[i]) {
			return 0, false
		}
	}
	return e - s, true
}

// attach finds the word a size belongs to (docs/RULES.md §22.3): the
// nearest word of a class in keep on either side, with only filler
// between; on a tie the word before, when the word after has a size of
// its own after it.
func (d *doc) attach(f figure, keep func(hit) bool) (hit, bool) {
	var left, right hit
	dl, dr := -1, -1
	i := len(d.hits) - 1
	for ; i >= 0 && d.hits[i].e > f.s; i-- {
	}
	for ; i >= 0; i-- {
		h := d.hits[i]
		g, ok := d.fillerTo(h.e, f.s)
		if !ok {
			break
		}
		if keep(h) {
			// A word with a nearer size before it is that size's ("48 GB
			// RAM and 200 GB": RAM is the 48's).
			taken := false
			for _, f2 := range d.figures() {
				if g2, ok := d.fillerTo(f2.e, h.s); ok && f2.e <= h.s && g2 <= g {
					taken = true
				}
			}
			if !taken {
				left, dl = h, g
			}
			break
		}
	}
	for j := sort.Search(len(d.hits), func(j int) bool { return d.hits[j].s >= f.e }); j < len(d.hits); j++ {
		h := d.hits[j]
		g, ok := d.fillerTo(f.e, h.s)
		if !ok {
			break
		}
		if keep(h) {
			right, dr = h, g
			break
		}
	}
	switch {
	case dl < 0 && dr < 0:
		return hit{}, false
	case dr < 0:
		return left, true
	case dl < 0:
		return right, true
	case dl < dr:
		return left, true
	case dr < dl:
		return right, true
	}
	// A tie: the word after belongs to a size after it.
	q := d.skipSpaces(right.e, 2)
	if q < len(d.n) && (d.n[q] == ':' || isDigit(d.n[q])) {
		return left, true
	}
	return right, true
}

// readMemory reads the GPU's memory and the instance's RAM from sizes
// beside 显存 / VRAM / HBM3 or a model, and 内存 / RAM / memory; "16核64G"
// is 64 GB of RAM.
func (d *doc) readMemory() {
	for _, f := range d.figures() {
		if f.unit != "gb" {
			continue
		}
		c := d.clause(f.s)
		if d.has(c.s, c.e, cMax) {
			continue
		}
		if f.s > 0 && d.n[f.s-1] == '核' {
			d.add("ram_gb", money.String(f.val), span{f.s, f.e})
			continue
		}
		h, ok := d.attach(f, func(h hit) bool {
			return h.cls == cVRAM || h.cls == cRAM || h.cls == cModel || h.cls == cItem
		})
		if !ok {
			continue
		}
		switch h.cls {
		case cVRAM:
			d.add("vram_gb", money.String(f.val), span{f.s, f.e}, span{h.s, h.e})
		case cRAM:
			d.add("ram_gb", money.String(f.val), span{f.s, f.e}, span{h.s, h.e})
		case cModel:
			d.modelMemory(f.val, span{f.s, f.e})
		}
	}
}
