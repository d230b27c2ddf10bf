package web

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The docs page (docs/RULES.md §19.6): the OpenAPI description of the data
// API read into a view for people, operations grouped by tag in a fixed
// order, each with its method, path, scope, parameters and the schemas it
// takes and answers with, and every schema as a table of its properties.
// Everything is sorted, so the same document renders the same bytes.
//
// The document's words are English, and stay so at /api/v1/openapi.json
// (clients are generated from its bytes). The page shows each of them in
// the reader's language: every description it shows has a message ID made
// from where it stands in the document (APIDocText), whose English message
// is the document's text and whose Chinese message translates it; a test
// checks both catalogs hold every one (apidocs_text.*.toml).

// APIDocsView is /api/docs's view model.
type APIDocsView struct {
	Page    Page
	Title   string // the document's title
	Version string
	Groups  []APIDocGroup
	Schemas []APIDocSchema
}

// APIDocGroup is the operations of one tag.
type APIDocGroup struct {
	Tag         string
	Description APIDocText // the tag's
	Ops         []APIDocOp
}

// APIDocText is one of the document's descriptions the page shows: the
// catalogs' message ID for it and the document's own (English) text, shown
// only where the catalogs lack the ID. The zero value shows nothing.
type APIDocText struct {
	ID   string
	Text string
}

// The message IDs of the document's descriptions, by where each stands:
//
//	apidoc.text.tag.<tag>                   a tag's description
//	apidoc.text.op.<operationId>            an operation's description
//	apidoc.text.op.<operationId>.body       its request body's
//	apidoc.text.op.<operationId>.param.<p>  a parameter written in the operation
//	apidoc.text.op.<operationId>.<status>   an answer written in the operation
//	apidoc.text.param.<Name>                a parameter of the components
//	apidoc.text.response.<Name>             an answer of the components
//	apidoc.text.schema.<Name>               a schema's description
//	apidoc.text.prop.<Name>.<property>      a property's
const apiDocTextPrefix = "apidoc.text."

// apiDocText is the text at id, or nothing when the document has no text.
func apiDocText(id, text string) APIDocText {
	if text == "" {
		return APIDocText{}
	}
	return APIDocText{ID: apiDocTextPrefix + id, Text: text}
}

// IsZero reports whether there is no text to show.
func (t APIDocText) IsZero() bool { return t.Text == "" }

// APIDocOp is one operation.
type APIDocOp struct {
	ID      string // operationId
	Method  string // upper case
	Path    string
	Summary string // the document's own (English) summary
	// Description is what the operation does, in more words.
	Description APIDocText
	// Scope is the token scope it needs ("" when Public).
	Scope  string
	Public bool
	Params []APIDocParam
	// Request is the request body's schema, "" when there is none;
	// RequestType its media type.
	Request     APIDocType
	RequestType string
	// RequestText is the request body's description.
	RequestText APIDocText
	Responses   []APIDocResponse
}

// APIDocParam is one parameter of an operation.
type APIDocParam struct {
	Name, In    string
	Required    bool
	Type        APIDocType
	Description APIDocText
}

// APIDocResponse is one answer an operation may give.
type APIDocResponse struct {
	Status      string // "200", "304", "default"
	Description APIDocText
	MediaType   string
	Type        APIDocType
}

// APIDocSchema is one named schema of the document's components.
type APIDocSchema struct {
	Name        string
	Description APIDocText
	// Type words a schema that is not an object with properties.
	Type  APIDocType
	Props []APIDocProp
}

// APIDocProp is one property of an object schema.
type APIDocProp struct {
	Name        string
	Required    bool
	Type        APIDocType
	Description APIDocText
}

// APIDocType words a schema's type: plain text, and the names of the
// component schemas it refers to, which the page links to.
type APIDocType struct {
	Text string
	Refs []string
}

// IsZero reports whether there is no type to show.
func (t APIDocType) IsZero() bool { return t.Text == "" && len(t.Refs) == 0 }

// apiDocTagOrder is the order of the groups; a tag not named here comes
// after them, in alphabetical order.
var apiDocTagOrder = []string{"meta", "market", "quotes", "prices", "compare", "reports", "trials", "availability", "tco", "admin"}

// apiDocMethods is the order of an item's operations.
var apiDocMethods = []string{"get", "post", "put", "patch", "delete"}

// oaSchema is the part of a JSON Schema the page shows.
type oaSchema struct {
	Ref         string               `json:"$ref"`
	Type        any                  `json:"type"` // a string or a list of them
	Format      string               `json:"format"`
	Description string               `json:"description"`
	Enum        []any                `json:"enum"`
	Items       *oaSchema            `json:"items"`
	Properties  map[string]*oaSchema `json:"properties"`
	Required    []string             `json:"required"`
	OneOf       []*oaSchema          `json:"oneOf"`
	AnyOf       []*oaSchema          `json:"anyOf"`
}

type oaParam struct {
	Ref         string    `json:"$ref"`
	Name        string    `json:"name"`
	In          string    `json:"in"`
	Required    bool      `json:"required"`
	Description string    `json:"description"`
	Schema      *oaSchema `json:"schema"`
}

type oaContent map[string]struct {
	Schema *oaSchema `json:"schema"`
}

type oaResponse struct {
	Ref         string    `json:"$ref"`
	Description string    `json:"description"`
	Content     oaContent `json:"content"`
}

type oaOperation struct {
	OperationID string    `json:"operationId"`
	Summary     string    `json:"summary"`
	Description string    `json:"description"`
	Tags        []string  `json:"tags"`
	Scope       string    `json:"x-scope"`
	Security    *[]any    `json:"security"`
	Parameters  []oaParam `json:"parameters"`
	RequestBody *struct {
		Description string    `json:"description"`
		Content     oaContent `json:"content"`
	} `json:"requestBody"`
	Responses map[string]oaResponse `json:"responses"`
}

type oaDocument struct {
	Info struct {
		Title   string `json:"title"`
		Version string `json:"version"`
	} `json:"info"`
	Tags []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"tags"`
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Parameters map[string]oaParam    `json:"parameters"`
		Responses  map[string]oaResponse `json:"responses"`
		Schemas    map[string]*oaSchema  `json:"schemas"`
	} `json:"components"`
}

// NewAPIDocsView reads an OpenAPI document into the docs page's view.
func NewAPIDocsView(doc []byte) (APIDocsView, error) {
	var d oaDocument
	if err := json.Unmarshal(doc, &d); err != nil {
		return APIDocsView{}, fmt.Errorf("api docs: %w", err)
	}
	v := APIDocsView{Title: d.Info.Title, Version: d.Info.Version}
	groups := map[string][]APIDocOp{}
	for _, path := range slices.Sorted(maps.Keys(d.Paths)) {
		item := d.Paths[path]
		for _, method := range apiDocMethods {
			raw, ok := item[method]
			if !ok {
				continue
			}
			var o oaOperation
			if err := json.Unmarshal(raw, &o); err != nil {
				return APIDocsView{}, fmt.Errorf("api docs: %s %s: %w", method, path, err)
			}
			op := APIDocOp{ID: o.OperationID, Method: strings.ToUpper(method), Path: path, Summary: o.Summary,
				Description: apiDocText("op."+o.OperationID, o.Description),
				Scope:       o.Scope, Public: o.Security != nil && len(*o.Security) == 0}
			for _, p := range o.Parameters {
				id := "op." + o.OperationID + ".param." + p.Name
				if name, ok := strings.CutPrefix(p.Ref, "#/components/parameters/"); ok {
					p, id = d.Components.Parameters[name], "param."+name
				}
				op.Params = append(op.Params, APIDocParam{Name: p.Name, In: p.In, Required: p.Required,
					Type: schemaType(p.Schema), Description: apiDocText(id, p.Description)})
			}
			if o.RequestBody != nil {
				op.RequestText = apiDocText("op."+o.OperationID+".body", o.RequestBody.Description)
				for _, mt := range slices.Sorted(maps.Keys(o.RequestBody.Content)) {
					op.RequestType, op.Request = mt, schemaType(o.RequestBody.Content[mt].Schema)
					break
				}
			}
			for _, status := range slices.Sorted(maps.Keys(o.Responses)) {
				r := o.Responses[status]
				id := "op." + o.OperationID + "." + status
				if name, ok := strings.CutPrefix(r.Ref, "#/components/responses/"); ok {
					r, id = d.Components.Responses[name], "response."+name
				}
				resp := APIDocResponse{Status: status, Description: apiDocText(id, r.Description)}
				for _, mt := range slices.Sorted(maps.Keys(r.Content)) {
					resp.MediaType, resp.Type = mt, schemaType(r.Content[mt].Schema)
					break
				}
				op.Responses = append(op.Responses, resp)
			}
			tag := "other"
			if len(o.Tags) > 0 {
				tag = o.Tags[0]
			}
			groups[tag] = append(groups[tag], op)
		}
	}
	tags := slices.Collect(maps.Keys(groups))
	slices.SortFunc(tags, func(a, b string) int {
		ia, ib := tagRank(a), tagRank(b)
		if ia != ib {
			return ia - ib
		}
		return strings.Compare(a, b)
	})
	for _, tag := range tags {
		g := APIDocGroup{Tag: tag, Ops: groups[tag]}
		for _, t := range d.Tags {
			if t.Name == tag {
				g.Description = apiDocText("tag."+tag, t.Description)
			}
		}
		v.Groups = append(v.Groups, g)
	}
	for _, name := range slices.Sorted(maps.Keys(d.Components.Schemas)) {
		s := d.Components.Schemas[name]
		if s == nil {
			continue
		}
		sc := APIDocSchema{Name: name, Description: apiDocText("schema."+name, s.Description)}
		if len(s.Properties) == 0 {
			sc.Type = schemaType(s)
		}
		for _, p := range slices.Sorted(maps.Keys(s.Properties)) {
			ps := s.Properties[p]
			desc := ""
			if ps != nil {
				desc = ps.Description
			}
			sc.Props = append(sc.Props, APIDocProp{Name: p, Required: slices.Contains(s.Required, p),
				Type: schemaType(ps), Description: apiDocText("prop."+name+"."+p, desc)})
		}
		v.Schemas = append(v.Schemas, sc)
	}
	return v, nil
}

func tagRank(tag string) int {
	if i := slices.Index(apiDocTagOrder, tag); i >= 0 {
		return i
	}
	return len(apiDocTagOrder)
}

// schemaType words s: a component's name, "array of …", the JSON types
// with a format, an enumeration, or "any".
func schemaType(s *oaSchema) APIDocType {
	var t APIDocType
	var word func(s *oaSchema) string
	word = func(s *oaSchema) string {
		if s == nil {
			return "any"
		}
		if name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/"); ok {
			if !slices.Contains(t.Refs, name) {
				t.Refs = append(t.Refs, name)
			}
			return name
		}
		var alts []*oaSchema
		alts = append(append(alts, s.OneOf...), s.AnyOf...)
		if len(alts) > 0 {
			parts := make([]string, len(alts))
			for i, a := range alts {
				parts[i] = word(a)
			}
			return strings.Join(parts, " | ")
		}
		var types []string
		switch ty := s.Type.(type) {
		case string:
			types = []string{ty}
		case []any:
			for _, x := range ty {
				if str, ok := x.(string); ok {
					types = append(types, str)
				}
			}
		}
		for i, ty := range types {
			if ty == "array" {
				types[i] = "array of " + word(s.Items)
			}
		}
		out := strings.Join(types, " | ")
		if out == "" {
			out = "any"
		}
		if s.Format != "" {
			out += " (" + s.Format + ")"
		}
		if len(s.Enum) > 0 {
			vals := make([]string, len(s.Enum))
			for i, e := range s.Enum {
				b, _ := json.Marshal(e)
				vals[i] = string(b)
			}
			out += ": " + strings.Join(vals, ", ")
		}
		return out
	}
	if s == nil {
		return t
	}
	t.Text = word(s)
	return t
}

// apiDocSummary is an operation's summary in the reader's language; the
// document's own when the catalogs have none.
func apiDocSummary(ctx context.Context, op APIDocOp) string {
	return tOr(ctx, "apidoc.op."+op.ID, op.Summary)
}

// Texts lists every description the page shows, each once, in the
// page's order: tags and their operations, then the schemas.
func (v APIDocsView) Texts() []APIDocText {
	var out []APIDocText
	seen := map[APIDocText]bool{}
	add := func(t APIDocText) {
		if !t.IsZero() && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, g := range v.Groups {
		add(g.Description)
		for _, op := range g.Ops {
			add(op.Description)
			add(op.RequestText)
			for _, p := range op.Params {
				add(p.Description)
			}
			for _, r := range op.Responses {
				add(r.Description)
			}
		}
	}
	for _, s := range v.Schemas {
		add(s.Description)
		for _, p := range s.Props {
			add(p.Description)
		}
	}
	return out
}

// apiDocWords is one of the document's descriptions in the reader's
// language; the document's own words when the catalogs lack it.
func apiDocWords(ctx context.Context, t APIDocText) string {
	return tOr(ctx, t.ID, t.Text)
}

// apiDocTag is a tag's heading in the reader's language, the tag itself
// when the catalogs have none.
func apiDocTag(ctx context.Context, tag string) string {
	return tOr(ctx, "apidoc.tag."+tag, tag)
}

// tOr is catalog message id, or fallback when the catalogs lack it.
func tOr(ctx context.Context, id, fallback string) string {
	if s := T(ctx, id); s != "["+id+"]" {
		return s
	}
	return fallback
}

// apiDocAnchor is the id of an operation's or a schema's place on the page.
func apiDocAnchor(kind, name string) string { return kind + "-" + name }
