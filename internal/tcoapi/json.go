package tcoapi

import (
	"strconv"

	"gpuquote/internal/jsonbody"
	"gpuquote/internal/tco"
)

// MaxBodyBytes bounds a request body: the JSON doors' one bound
// (docs/RULES.md §19.1). A full request (twelve lines, a hundred reference
// prices) is about 10 KiB.
const MaxBodyBytes = jsonbody.MaxBytes

// MaxDepth bounds JSON nesting; the API's deepest value is three levels down.
const MaxDepth = jsonbody.MaxDepth

// node is one parsed JSON value (jsonbody.Node). Numbers keep their
// literal text so that no value ever passes through float64.
type node = jsonbody.Node

const (
	kindNull   = jsonbody.Null
	kindBool   = jsonbody.Bool
	kindNumber = jsonbody.Number
	kindString = jsonbody.String
	kindObject = jsonbody.Object
	kindArray  = jsonbody.Array
)

// parseJSON reads exactly one JSON value from body into a tree by the JSON
// doors' one rule (jsonbody.Parse), its problems as field errors: a key
// given twice (encoding/json would silently keep the last one, and two
// different answers for one field is not input to guess about) and text
// the database could not store, each at its path; a body that is not JSON,
// nests too deep or is too large as one error at the empty path.
func parseJSON(body []byte) (*node, []tco.FieldError) {
	if len(body) > MaxBodyBytes {
		return nil, []tco.FieldError{tco.NewFieldError("", tco.CodeBodyTooLarge, "Max", strconv.Itoa(MaxBodyBytes))}
	}
	n, problems := jsonbody.Parse(body)
	var errs []tco.FieldError
	for _, p := range problems {
		switch p.Kind {
		case jsonbody.TooDeep:
			errs = append(errs, tco.NewFieldError("", tco.CodeTooDeep, "Max", strconv.Itoa(MaxDepth)))
		case jsonbody.Duplicate:
			errs = append(errs, tco.NewFieldError(p.Path, tco.CodeDuplicateKey))
		case jsonbody.Unstorable:
			errs = append(errs, tco.NewFieldError(p.Path, tco.CodeUnstorableText))
		default:
			errs = append(errs, tco.NewFieldError("", tco.CodeInvalidJSON, "Offset", strconv.FormatInt(p.Offset, 10)))
		}
	}
	return n, errs
}

// join appends an object key to a JSON path.
func join(path, key string) string { return jsonbody.Join(path, key) }

// index appends an array index to a JSON path.
func index(path string, i int) string { return jsonbody.Index(path, i) }
