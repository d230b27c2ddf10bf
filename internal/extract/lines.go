package extract

import (
	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
)

// lineStatus is a line's status read from words rather than a price: free
// (included) or not applicable.
type lineStatus struct {
	item, status string
	ev           []span
}

// clauseHasMoney reports whether clause c holds a price.
func (d *doc) clauseHasMoney(c span) bool {
	for _, m := range d.money {
		if m.s >= c.s && m.s < c.e {
			return true
		}
	}
	return false
}

// chargedIn reports whether item has a price in sentence s.
func (d *doc) chargedIn(item string, s span) bool {
	for _, c := range d.charges {
		if c.item == item && c.m.s >= s.s && c.m.s < s.e {
			return true
		}
	}
	return false
}

// gbItems are the items whose sizes are GB.
var gbItems = map[string]bool{"system_disk": true, "data_disk": true, "object_storage": true, "snapshot": true,
	"image": true, "egress": true}

// readLines reads the hidden-cost lines' free sizes and their statuses
// stated in words (docs/RULES.md §22.6); priced lines were read with the
// prices.
func (d *doc) readLines() {
	sized := map[span]bool{} // {clause start, item index} of the items that carry a size
	for _, f := range d.figures() {
		c := d.clause(f.s)
		if d.has(c.s, c.e, cMax) || f.unit == "mbps" && d.has(c.s, c.e, cInfra) {
			continue
		}
		h, ok := d.attach(f, func(h hit) bool {
			return h.cls == cItem || h.cls == cBWFigure || h.cls == cVRAM || h.cls == cRAM || h.cls == cModel
		})
		if !ok || h.cls != cItem && h.cls != cBWFigure {
			continue
		}
		item := h.arg
		if h.cls == cBWFigure {
			item = "bandwidth"
		}
		if item == "bandwidth" && f.unit != "mbps" || gbItems[item] && f.unit != "gb" && f.unit != "tb" ||
			item != "bandwidth" && !gbItems[item] {
			continue
		}
		sized[span{c.s, catalog.ItemIndex(catalog.ItemKey(item))}] = true
		if f.unit == "tb" || d.clauseHasMoney(c) {
			// A size in TB is not read (GB or GiB is not said); a size
			// with a price beside it is what that price buys.
			continue
		}
		first := false
		if p := d.back(f.s, 1); p > 0 {
			if hb, ok := d.hitEndingAt(p); ok && hb.cls == cFirst {
				first = true
			}
		}
		d.size(item, f.val, f.s, d.has(c.s, c.e, cFree) || first, span{f.s, f.e}, span{h.s, h.e})
	}
	// "first 100 GB … free" beside one item's price in the sentence.
	for _, h := range d.hits {
		if h.cls != cFirst {
			continue
		}
		q := d.skipSpaces(h.e, 1)
		for _, f := range d.figures() {
			if f.s != q || f.unit != "gb" {
				continue
			}
			if _, ok := d.attach(f, func(h hit) bool { return h.cls == cItem || h.cls == cVRAM || h.cls == cRAM }); ok {
				continue
			}
			s := d.sentence(f.s)
			items := map[string]bool{}
			for _, c := range d.charges {
				if c.m.s >= s.s && c.m.s < s.e {
					items[c.item] = true
				}
			}
			if len(items) == 1 {
				for it := range items {
					d.allowance(it, f.val, span{h.s, f.e})
				}
			}
		}
	}
	// "1 IPv4 address included", "含 1 个公网 IP"
	for _, t := range d.nums {
		v, ok := t.int()
		if !ok || t.afterLetter || t.s > 0 && d.n[t.s-1] == '/' {
			continue
		}
		q := d.skipSpaces(t.e, 1)
		if e, ok := d.startsWith(q, "个"); ok {
			q = d.skipSpaces(e, 1)
		}
		h, ok := d.hitAt(q)
		if !ok || h.cls != cItem || h.arg != "public_ip" {
			continue
		}
		c := d.clause(t.s)
		sized[span{c.s, catalog.ItemIndex(catalog.ItemPublicIP)}] = true
		if d.clauseHasMoney(c) {
			continue
		}
		if d.chargedIn("public_ip", d.sentence(t.s)) || d.has(c.s, c.e, cFree) {
			d.allowance("public_ip", decimal.New(int64(v), 0), span{t.s, h.e})
		}
	}
	d.readStatuses(sized)
}

// size places a free size of an item (docs/RULES.md §22.6): beside a price
// of the same item in its sentence it is that line's free allowance;
// otherwise a disk's or the bandwidth's size is what the instance comes
// with (included_*), and another item's size is its allowance only where
// the message says it is free.
func (d *doc) size(item string, v decimal.Decimal, pos int, free bool, ev ...span) {
	if d.chargedIn(item, d.sentence(pos)) {
		d.allowance(item, v, ev...)
		return
	}
	switch item {
	case "system_disk":
		d.add("included_system_disk_gb", money.String(v), ev...)
	case "data_disk":
		d.add("included_data_disk_gb", money.String(v), ev...)
	case "bandwidth":
		d.add("included_mbps", money.String(v), ev...)
	default:
		if free {
			d.allowance(item, v, ev...)
		}
	}
}

// allowance adds a free allowance of a line; the bundle takes none
// (docs/RULES.md §3.4).
func (d *doc) allowance(item string, v decimal.Decimal, ev ...span) {
	if item == string(catalog.ItemBundledAddon) {
		return
	}
	d.add(item+".free_allowance", money.String(v), ev...)
}

// readStatuses reads statuses said in words, clause by clause: an item
// with 免费 / free / unmetered / not billed and no price, and no size, in
// its clause is included; "no … fees" likewise; an item the message says
// cannot occur (关机即释放, no mandatory add-ons) is not applicable.
func (d *doc) readStatuses(sized map[span]bool) {
	for _, c := range d.clauses {
		hs := d.hitsIn(c.s, c.e)
		var items []hit
		var free, notFree, release *hit
		noAt, feeAt := -1, -1
		for k := range hs {
			h := &hs[k]
			switch h.cls {
			case cItem:
				items = append(items, *h)
			case cFree:
				free = h
			case cNotFree:
				notFree = h
			case cRelease:
				release = h
			case cNo:
				if noAt < 0 {
					noAt = k
				}
			case cFee:
				feeAt = k
			case cNA:
				d.statuses = append(d.statuses, lineStatus{h.arg, string(catalog.StatusNotApplicable), []span{{h.s, h.e}}})
			}
		}
		if d.clauseHasMoney(c) || notFree != nil {
			continue
		}
		if free == nil && noAt >= 0 && feeAt > noAt {
			free = &hit{s: hs[noAt].s, e: hs[feeAt].e}
		}
		// "Unmetered 1 Gbit/s port": the port's traffic is not metered.
		if len(items) == 0 && free != nil && string(d.n[free.s:free.e]) == "unmetered" {
			for _, h := range hs {
				if h.cls == cBWFigure {
					d.statuses = append(d.statuses, lineStatus{string(catalog.ItemEgress), string(catalog.StatusIncluded),
						[]span{{free.s, free.e}, {h.s, h.e}}})
					break
				}
			}
		}
		for _, it := range items {
			switch {
			case release != nil && it.arg == string(catalog.ItemStoppedRetention):
				d.statuses = append(d.statuses, lineStatus{it.arg, string(catalog.StatusNotApplicable),
					[]span{{it.s, it.e}, {release.s, release.e}}})
			case free != nil && !sized[span{c.s, catalog.ItemIndex(catalog.ItemKey(it.arg))}] &&
				!d.chargedIn(it.arg, d.sentence(it.s)):
				// Free beside the item's own price in the sentence is its
				// allowance ("free for the first 50 GB, then $0.03/GB").
				if noAt >= 0 && free.s == hs[noAt].s && !(it.s > free.s && it.e <= free.e) {
					continue
				}
				d.statuses = append(d.statuses, lineStatus{it.arg, string(catalog.StatusIncluded),
					[]span{{it.s, it.e}, {free.s, free.e}}})
			}
		}
	}
}
