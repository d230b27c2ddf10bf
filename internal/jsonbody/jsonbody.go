// Package jsonbody reads a JSON request body by the one rule of every JSON
// door (docs/RULES.md §19.1, §16.4): exactly one JSON value of at most
// MaxBytes, nested at most MaxDepth deep, no key twice in one object, and
// only text the database can store (form.StorableText, the form doors'
// guard) — each problem at the JSON path of the value at fault
// ("profile.hours_per_month", "quote.lines[3].note"). Decode then reads
// the tree into a Go value, naming every field the value does not have
// and every value of the wrong JSON type. Numbers keep their literal
// text, never passing through float64.
//
// It knows nothing of HTTP: the data API (internal/api) and the
// evaluation API (internal/tcoapi) word its problems in their own codes.
package jsonbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"

	"gpuquote/internal/form"
)

// MaxBytes bounds a JSON request body (docs/RULES.md §19.1): a quote with
// its twelve lines, a comparison or a report is a few kilobytes. The route
// table gives every JSON door this limit (a larger body is 413); only the
// trial evidence endpoint, which takes pasted text, keeps its own.
const MaxBytes = 256 << 10

// MaxDepth bounds nesting; the deepest value any door takes is three
// levels down.
const MaxDepth = 16

// MaxProblems bounds the problems one body reports: the first ones in
// document order are kept.
const MaxProblems = 100

// Kind is a JSON value's type.
type Kind uint8

// The JSON types.
const (
	Null Kind = iota
	Bool
	Number
	String
	Object
	Array
)

// Node is one parsed JSON value.
type Node struct {
	Kind Kind
	// Text is a string's value or a number's literal.
	Text string
	// Bool is a boolean's value.
	Bool bool
	// Keys are an object's keys in document order (a key given twice
	// once: the first), Vals the values beside them, or an array's
	// elements.
	Keys []string
	Vals []*Node
}

// Get is an object's member key (false when it has none).
func (n *Node) Get(key string) (*Node, bool) {
	for i, k := range n.Keys {
		if k == key {
			return n.Vals[i], true
		}
	}
	return nil, false
}

// Problem is one thing wrong with a body, at the JSON path of the value
// at fault ("" for the body as a whole).
type Problem struct {
	Path string
	Kind ProblemKind
	// Want is the type a WrongType value should have had.
	Want Type
	// Offset is where a Syntax problem was found, in bytes.
	Offset int64
}

// ProblemKind is what is wrong.
type ProblemKind uint8

const (
	// Syntax: not exactly one JSON value (the path is "").
	Syntax ProblemKind = iota
	// TooDeep: nested more than MaxDepth levels (the path is "").
	TooDeep
	// Duplicate: a key given twice in one object; the first is kept.
	Duplicate
	// Unstorable: text the database cannot store — a NUL byte or another
	// control character, or bytes that are not UTF-8 — in a string or a
	// key (a key's problem is its object's, and its member is left out).
	Unstorable
	// Unknown: a field the value read into does not have.
	Unknown
	// WrongType: a value of another JSON type than Want.
	WrongType
)

// Type is the JSON type a Go value reads from.
type Type uint8

// The types Decode reads.
const (
	TypeString Type = iota
	TypeInteger
	TypeBoolean
	TypeArray
	TypeObject
)

// Join appends an object key to a JSON path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Index appends an array index to a JSON path.
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

var (
	errTooDeep = errors.New("jsonbody: too deep")
	errSyntax  = errors.New("jsonbody: bad json")
)

// Parse reads body as exactly one JSON value. A body that is not one (or
// nests too deep) is nil and its one problem, at the empty path; otherwise
// the tree, and every key given twice and every text that cannot be stored
// as problems (at most MaxProblems).
func Parse(body []byte) (*Node, []Problem) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	p := &parser{d: d, body: body}
	n, err := p.value("", 0)
	if err == nil {
		// Exactly one value: anything after it but whitespace is an error.
		if _, terr := d.Token(); terr != io.EOF {
			err = errSyntax
		}
	}
	if err != nil {
		if errors.Is(err, errTooDeep) {
			return nil, []Problem{{Kind: TooDeep}}
		}
		return nil, []Problem{{Kind: Syntax, Offset: d.InputOffset()}}
	}
	return n, p.problems
}

type parser struct {
	d        *json.Decoder
	body     []byte
	problems []Problem
}

func (p *parser) add(pr Problem) {
	if len(p.problems) < MaxProblems {
		p.problems = append(p.problems, pr)
	}
}

// token reads the next token and reports whether, being a string, its
// text as written is UTF-8 and its value storable (encoding/json would
// silently turn bytes that are not UTF-8 into U+FFFD).
func (p *parser) token() (tok json.Token, storable bool, err error) {
	start := p.d.InputOffset()
	tok, err = p.d.Token()
	if err != nil {
		return nil, true, err
	}
	s, ok := tok.(string)
	if !ok {
		return tok, true, nil
	}
	raw := p.body[start:p.d.InputOffset()]
	return tok, utf8.Valid(raw) && form.StorableText(s), nil
}

func (p *parser) value(path string, depth int) (*Node, error) {
	if depth > MaxDepth {
		return nil, errTooDeep
	}
	tok, storable, err := p.token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &Node{Kind: Null}, nil
	case bool:
		return &Node{Kind: Bool, Bool: t}, nil
	case json.Number:
		return &Node{Kind: Number, Text: string(t)}, nil
	case string:
		if !storable {
			p.add(Problem{Path: path, Kind: Unstorable})
		}
		return &Node{Kind: String, Text: t}, nil
	case json.Delim:
		switch t {
		case '{':
			n := &Node{Kind: Object}
			for p.d.More() {
				kt, storable, err := p.token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, errSyntax
				}
				child := Join(path, key)
				if !storable {
					// The key cannot name the field: its object is at
					// fault, and the member is left out of the tree.
					p.add(Problem{Path: path, Kind: Unstorable})
					child = path
				}
				v, err := p.value(child, depth+1)
				if err != nil {
					return nil, err
				}
				if !storable {
					continue
				}
				if _, dup := n.Get(key); dup {
					p.add(Problem{Path: child, Kind: Duplicate})
					continue
				}
				n.Keys = append(n.Keys, key)
				n.Vals = append(n.Vals, v)
			}
			if _, err := p.d.Token(); err != nil { // '}'
				return nil, err
			}
			return n, nil
		case '[':
			n := &Node{Kind: Array}
			for i := 0; p.d.More(); i++ {
				v, err := p.value(Index(path, i), depth+1)
				if err != nil {
					return nil, err
				}
				n.Vals = append(n.Vals, v)
			}
			if _, err := p.d.Token(); err != nil { // ']'
				return nil, err
			}
			return n, nil
		}
	}
	return nil, errSyntax
}
