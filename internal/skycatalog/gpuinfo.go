package skycatalog

import (
	"errors"
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/money"
)

// The GpuInfo column holds a Python literal (a dict written with single
// quotes, as Python prints it):
//
//	{'Gpus': [{'Name': 'A100', 'Manufacturer': 'NVIDIA', 'Count': 8.0,
//	  'MemoryInfo': {'SizeInMiB': 40960}}], 'TotalGpuMemoryInMiB': 40960}
//
// Some providers write only the GPU's name there instead. Only the memory
// is read from it (docs/RULES.md §7.7): numbers stay the text they were
// written as and become exact decimals, never floats.

// errGpuInfo is a GpuInfo dict that cannot be read.
var errGpuInfo = errors.New("skycatalog: GpuInfo cannot be read")

// maxLiteralDepth bounds the nesting of a GpuInfo literal.
const maxLiteralDepth = 16

// pyValue is one value of a Python literal: a dict, a list, a string, or
// a number (or True, False, None) kept as its text.
type pyValue struct {
	dict map[string]pyValue
	list []pyValue
	text string
	// kind is 'd', 'l', 's' or 'n'.
	kind byte
}

// pyParser reads a Python literal.
type pyParser struct {
	s string
	i int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) value(depth int) (pyValue, error) {
	if depth > maxLiteralDepth {
		return pyValue{}, errGpuInfo
	}
	p.space()
	if p.i >= len(p.s) {
		return pyValue{}, errGpuInfo
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dictValue(depth)
	case c == '[' || c == '(':
		return p.listValue(depth)
	case c == '\'' || c == '"':
		s, err := p.str()
		return pyValue{kind: 's', text: s}, err
	default:
		start := p.i
		for p.i < len(p.s) && strings.IndexByte(",:}]) \t\r\n", p.s[p.i]) < 0 {
			p.i++
		}
		if p.i == start {
			return pyValue{}, errGpuInfo
		}
		return pyValue{kind: 'n', text: p.s[start:p.i]}, nil
	}
}

func (p *pyParser) dictValue(depth int) (pyValue, error) {
	p.i++ // {
	out := pyValue{kind: 'd', dict: map[string]pyValue{}}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		k, err := p.value(depth + 1)
		if err != nil || k.kind == 'd' || k.kind == 'l' {
			return pyValue{}, errGpuInfo
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return pyValue{}, errGpuInfo
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return pyValue{}, err
		}
		out.dict[k.text] = v
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		return pyValue{}, errGpuInfo
	}
}

func (p *pyParser) listValue(depth int) (pyValue, error) {
	closer := byte(']')
	if p.s[p.i] == '(' {
		closer = ')'
	}
	p.i++
	out := pyValue{kind: 'l'}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == closer {
			p.i++
			return out, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return pyValue{}, err
		}
		out.list = append(out.list, v)
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == closer {
			p.i++
			return out, nil
		}
		return pyValue{}, errGpuInfo
	}
}

// str reads a quoted string with Python's simple escapes.
func (p *pyParser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\' && p.i+1 < len(p.s):
			b.WriteByte(p.s[p.i+1])
			p.i += 2
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", errGpuInfo
}

// parsePyLiteral reads s as one Python literal and nothing after it.
func parsePyLiteral(s string) (pyValue, error) {
	p := &pyParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return pyValue{}, err
	}
	p.space()
	if p.i != len(p.s) {
		return pyValue{}, errGpuInfo
	}
	return v, nil
}

// mebibytesPerGiB converts the catalog's MiB into GiB.
var mebibytesPerGiB = decimal.New(1024, 0)

// minVRAMGiB is the least memory taken for a GPU's: some catalogs wrote
// gigabytes into the SizeInMiB field, which would read as a card of 0.08
// GiB. Less than this is taken as not stated (docs/RULES.md §7.7).
var minVRAMGiB = decimal.New(1, 0)

// vramPerGPU reads the memory of one GPU from a GpuInfo cell, in GiB
// rounded to 2 places (memory, not money): every entry of Gpus must agree
// on MemoryInfo.SizeInMiB; without it, TotalGpuMemoryInMiB divided by the
// row's GPU count. A cell that is no dict (a bare name) or states no
// memory gives none; a dict that cannot be read is an error.
func vramPerGPU(cell string, count int) (decimal.NullDecimal, error) {
	cell = strings.TrimSpace(cell)
	if !strings.HasPrefix(cell, "{") {
		return decimal.NullDecimal{}, nil
	}
	v, err := parsePyLiteral(cell)
	if err != nil || v.kind != 'd' {
		return decimal.NullDecimal{}, errGpuInfo
	}
	var mib decimal.NullDecimal
	per := mebibytesPerGiB // what mib is divided by to give one GPU's GiB
	if gpus, ok := v.dict["Gpus"]; ok && gpus.kind == 'l' {
		for _, g := range gpus.list {
			size, ok := g.dict["MemoryInfo"].dict["SizeInMiB"]
			if g.kind != 'd' || !ok {
				continue
			}
			d, err := pyNumber(size)
			if err != nil {
				return decimal.NullDecimal{}, err
			}
			if mib.Valid && !mib.Decimal.Equal(d) {
				// Cards of different sizes in one instance: no one figure.
				return decimal.NullDecimal{}, nil
			}
			mib = decimal.NewNullDecimal(d)
		}
	}
	if !mib.Valid && count > 0 {
		if total, ok := v.dict["TotalGpuMemoryInMiB"]; ok {
			d, err := pyNumber(total)
			if err != nil {
				return decimal.NullDecimal{}, err
			}
			mib, per = decimal.NewNullDecimal(d), mebibytesPerGiB.Mul(decimal.New(int64(count), 0))
		}
	}
	if !mib.Valid {
		return decimal.NullDecimal{}, nil
	}
	gib := mib.Decimal.DivRound(per, 2)
	if gib.LessThan(minVRAMGiB) {
		return decimal.NullDecimal{}, nil
	}
	return decimal.NewNullDecimal(gib), nil
}

// pyNumber is a number of a literal as an exact decimal ("16384",
// "16384.0").
func pyNumber(v pyValue) (decimal.Decimal, error) {
	if v.kind != 'n' {
		return decimal.Decimal{}, errGpuInfo
	}
	d, err := money.ParseDecimal(v.text)
	if err != nil || d.Sign() < 0 {
		return decimal.Decimal{}, errGpuInfo
	}
	return d, nil
}
