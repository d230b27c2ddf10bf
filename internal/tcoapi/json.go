package tcoapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"gpuquote/internal/tco"
)

// MaxBodyBytes bounds a request body. A full request (twelve lines, a
// hundred reference prices) is about 10 KiB.
const MaxBodyBytes = 64 << 10

// MaxDepth bounds JSON nesting; the API's deepest value is three levels down.
const MaxDepth = 16

type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindObject
	kindArray
)

// node is one parsed JSON value. Numbers keep their literal text so that no
// value ever passes through float64.
type node struct {
	kind kind
	text string // string value, or number literal
	b    bool
	keys []string // object keys in document order
	vals []*node  // object values (parallel to keys) or array elements
}

var (
	errTooDeep = errors.New("too deep")
	errBadJSON = errors.New("bad json")
)

// parseJSON reads exactly one JSON value from body into a tree, reporting
// duplicate object keys as field errors (encoding/json would silently keep
// the last one, and two different answers for one field is not input to
// guess about).
func parseJSON(body []byte) (*node, []tco.FieldError) {
	if len(body) > MaxBodyBytes {
		return nil, []tco.FieldError{tco.NewFieldError("", tco.CodeBodyTooLarge, "Max", strconv.Itoa(MaxBodyBytes))}
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	p := &parser{d: d}
	n, err := p.value("", 0)
	if err == nil {
		// Exactly one value: anything after it but whitespace is an error.
		if _, terr := d.Token(); terr != io.EOF {
			err = errBadJSON
		}
	}
	if err != nil {
		if errors.Is(err, errTooDeep) {
			return nil, []tco.FieldError{tco.NewFieldError("", tco.CodeTooDeep, "Max", strconv.Itoa(MaxDepth))}
		}
		return nil, []tco.FieldError{tco.NewFieldError("", tco.CodeInvalidJSON, "Offset", strconv.FormatInt(d.InputOffset(), 10))}
	}
	return n, p.errs
}

type parser struct {
	d    *json.Decoder
	errs []tco.FieldError
}

func (p *parser) value(path string, depth int) (*node, error) {
	if depth > MaxDepth {
		return nil, errTooDeep
	}
	tok, err := p.d.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &node{kind: kindNull}, nil
	case bool:
		return &node{kind: kindBool, b: t}, nil
	case json.Number:
		return &node{kind: kindNumber, text: string(t)}, nil
	case string:
		return &node{kind: kindString, text: t}, nil
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: kindObject}
			for p.d.More() {
				kt, err := p.d.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, errBadJSON
				}
				child := join(path, key)
				v, err := p.value(child, depth+1)
				if err != nil {
					return nil, err
				}
				dup := false
				for _, k := range n.keys {
					if k == key {
						dup = true
						break
					}
				}
				if dup {
					p.errs = append(p.errs, tco.NewFieldError(child, tco.CodeDuplicateKey))
					continue
				}
				n.keys = append(n.keys, key)
				n.vals = append(n.vals, v)
			}
			if _, err := p.d.Token(); err != nil { // '}'
				return nil, err
			}
			return n, nil
		case '[':
			n := &node{kind: kindArray}
			for i := 0; p.d.More(); i++ {
				v, err := p.value(index(path, i), depth+1)
				if err != nil {
					return nil, err
				}
				n.vals = append(n.vals, v)
			}
			if _, err := p.d.Token(); err != nil { // ']'
				return nil, err
			}
			return n, nil
		}
	}
	return nil, errBadJSON
}

// join appends an object key to a JSON path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// index appends an array index to a JSON path.
func index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}
