// Package apispec is the OpenAPI 3.1 description of gpuquote's data API
// (docs/API.md, docs/RULES.md §19): openapi.json holds the document's head
// and the shared components, and each file under paths/ the paths and
// components of one part of the API. Document merges them into the one
// document served at /api/v1/openapi.json; the server's tests check that
// it describes every route under /api/ and validate every answer the API
// tests receive against it.
package apispec

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sync"
)

//go:embed openapi.json paths/*.json
var files embed.FS

var (
	once sync.Once
	doc  []byte
	err  error
)

// Document returns the merged OpenAPI document, indented, its object keys
// sorted: the same bytes in every process.
func Document() ([]byte, error) {
	once.Do(func() { doc, err = build() })
	return doc, err
}

// part is the shape of every file: the head file fills the top level, the
// others only paths and components.
type part map[string]json.RawMessage

func build() ([]byte, error) {
	var out map[string]any
	b, err := files.ReadFile("openapi.json")
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	paths := ensureMap(out, "paths")
	components := ensureMap(out, "components")
	names, err := fs.Glob(files, "paths/*.json")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	for _, name := range names {
		b, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var p struct {
			Paths      map[string]any            `json:"paths"`
			Components map[string]map[string]any `json:"components"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("%s: %w", path.Base(name), err)
		}
		// One path may gather operations from several parts (the market's
		// GET and a write's POST); one operation is described once.
		for k, v := range p.Paths {
			ops, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: path %s is not an object", path.Base(name), k)
			}
			have, seen := paths[k].(map[string]any)
			if !seen {
				paths[k] = ops
				continue
			}
			for m, op := range ops {
				if _, twice := have[m]; twice {
					return nil, fmt.Errorf("%s: %s %s is described twice", path.Base(name), m, k)
				}
				have[m] = op
			}
		}
		for kind, entries := range p.Components {
			dst := ensureMap(components, kind)
			for k, v := range entries {
				if _, dup := dst[k]; dup {
					return nil, fmt.Errorf("%s: components.%s.%s is described twice", path.Base(name), kind, k)
				}
				dst[k] = v
			}
		}
	}
	return json.MarshalIndent(out, "", "  ")
}

func ensureMap(m map[string]any, key string) map[string]any {
	if v, ok := m[key].(map[string]any); ok {
		return v
	}
	v := map[string]any{}
	m[key] = v
	return v
}
