package api

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/apierror"
	"gpuquote/internal/jsonbody"
	"gpuquote/internal/server"
	"gpuquote/web"
)

// The data API (docs/RULES.md §19): JSON in and out under /api/v1, one
// error shape for every endpoint, decimals as strings, dates as RFC 3339,
// messages in the request's language (Accept-Language, or the language
// cookie), described by the OpenAPI document at /api/v1/openapi.json.

// apiFail answers with status and one error of the whole request: code,
// and the message of catalog entry msgID.
func apiFail(c echo.Context, status int, code, msgID string, args ...any) error {
	return server.APIErrors(c, status, []apierror.Error{{Code: code, Message: server.Translator(c).T(msgID, args...)}})
}

// apiFormErrors answers 422 with the errors of a form reader (field name →
// catalog message), translated, in field order; the code is the message's
// catalog id, as the evaluate API's codes are stable ids too.
func apiFormErrors(c echo.Context, errs web.Errors) error {
	tr := server.Translator(c)
	out := make([]apierror.Error, 0, len(errs))
	for _, k := range slices.Sorted(maps.Keys(errs)) {
		m := errs[k]
		out = append(out, apierror.Error{Field: k, Code: m.ID, Message: tr.T(m.ID, m.Args...)})
	}
	return server.APIErrors(c, http.StatusUnprocessableEntity, out)
}

// bodyError is a request body the JSON doors' one rule refuses
// (docs/RULES.md §19.1): each problem at the JSON path of its field,
// answered 422 by apiReadError.
type bodyError struct{ problems []jsonbody.Problem }

func (e *bodyError) Error() string { return "api: refused JSON body" }

// refused is the bodyError of problems (nil when there are none).
func refused(problems []jsonbody.Problem) error {
	if len(problems) == 0 {
		return nil
	}
	return &bodyError{problems: problems}
}

// apiReadObject reads the request's body as one JSON object by the JSON
// doors' rule (jsonbody.Parse, at most jsonbody.MaxBytes whatever the
// route's limit): the object and the problems found in it (a key given
// twice, text that cannot be stored), which the caller adds its own to and
// refuses together. A body that is not one JSON object, or nests too
// deep, is a *bodyError at once; the caller answers either with
// apiReadError. A body over the route's limit is the limit's 413.
func apiReadObject(c echo.Context) (*jsonbody.Node, []jsonbody.Problem, error) {
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, jsonbody.MaxBytes+1))
	if err != nil {
		return nil, nil, err
	}
	if len(body) > jsonbody.MaxBytes {
		return nil, nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge)
	}
	n, problems := jsonbody.Parse(body)
	switch {
	case n == nil:
		return nil, nil, refused(problems)
	case n.Kind != jsonbody.Object:
		return nil, nil, refused([]jsonbody.Problem{{Kind: jsonbody.Syntax}})
	}
	return n, problems, nil
}

// apiReadJSON decodes the request's JSON body into v (a pointer to the
// endpoint's request type) by the JSON doors' rule: apiReadObject, then
// jsonbody.Decode, which names every field v does not have and every
// value of the wrong type; every problem is refused at once.
func apiReadJSON(c echo.Context, v any) error {
	n, problems, err := apiReadObject(c)
	if err != nil {
		return err
	}
	return refused(append(problems, jsonbody.Decode(n, v)...))
}

// bodyProblemCodes are the catalog messages of a body's problems; a value
// of the wrong type is worded by the type it should have had
// (wrongTypeCodes).
var bodyProblemCodes = map[jsonbody.ProblemKind]string{
	jsonbody.Syntax:     "api.error.json",
	jsonbody.TooDeep:    "api.error.too_deep",
	jsonbody.Duplicate:  "api.error.field_duplicate",
	jsonbody.Unstorable: "api.error.text",
	jsonbody.Unknown:    "api.error.field_unknown",
}

// wrongTypeCodes word a value of the wrong JSON type by the type its
// field takes: text (a decimal too: decimals are strings, never JSON
// numbers), a whole number, true or false, a list, an object.
var wrongTypeCodes = map[jsonbody.Type]string{
	jsonbody.TypeString:  "api.write.error.text",
	jsonbody.TypeInteger: "api.error.type.integer",
	jsonbody.TypeBoolean: "api.write.error.flag",
	jsonbody.TypeArray:   "api.error.type.array",
	jsonbody.TypeObject:  "api.error.type.object",
}

// apiReadError answers a body apiReadJSON (or apiReadObject) refused: 422
// naming each problem's field, in the request's language. Any other error
// (the body limit's 413, a broken connection) goes to the error handler.
func apiReadError(c echo.Context, err error) error {
	var be *bodyError
	if !errors.As(err, &be) {
		return err
	}
	tr := server.Translator(c)
	out := make([]apierror.Error, 0, len(be.problems))
	for _, p := range be.problems {
		code := bodyProblemCodes[p.Kind]
		var args []any
		switch p.Kind {
		case jsonbody.WrongType:
			code = wrongTypeCodes[p.Want]
		case jsonbody.TooDeep:
			args = []any{"Max", jsonbody.MaxDepth}
		}
		out = append(out, apierror.Error{Field: p.Path, Code: code, Message: tr.T(code, args...)})
	}
	return server.APIErrors(c, http.StatusUnprocessableEntity, out)
}

// apiJSON answers status with v as JSON. A 200 answer to a GET (or HEAD)
// carries a strong ETag of its bytes and is 304 to a request whose
// If-None-Match names it, so a client that keeps answers itself fetches
// nothing when nothing changed. No answer is kept by a cache on the way
// or on disk (Cache-Control: no-store, docs/RULES.md §19.1): they are the
// caller's private data, read with its token.
func apiJSON(c echo.Context, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	if m := c.Request().Method; status != http.StatusOK || m != http.MethodGet && m != http.MethodHead {
		h.Set("Cache-Control", "no-store")
		return c.JSONBlob(status, b)
	}
	etag := server.BytesETag(b)
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-store")
	h.Add("Vary", "Accept-Language")
	h.Add("Vary", "Authorization")
	if server.ETagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		return c.NoContent(http.StatusNotModified)
	}
	return c.JSONBlob(http.StatusOK, b)
}

// apiPage is the envelope of a list answer: the items of this page and the
// cursor of the next one ("" on the last page).
type apiPage[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"next_cursor"`
}

// apiKeysetPage is one page of a list read past a position: rows are up to
// limit+1 rows from there, so a row beyond limit says more follow. The page
// holds the first limit rows as items (item maps each), and its next
// cursor is the last one's position (cursor), "" on the last page.
func apiKeysetPage[R, T any](rows []R, limit int, item func(R) T, cursor func(R) string) apiPage[T] {
	p := apiPage[T]{Items: make([]T, 0, min(len(rows), limit))}
	if len(rows) > limit {
		rows = rows[:limit]
		p.NextCursor = cursor(rows[limit-1])
	}
	for _, r := range rows {
		p.Items = append(p.Items, item(r))
	}
	return p
}

// CursorPurpose is the signing purpose of list cursors (docs/RULES.md
// §16.1, §19.1).
const CursorPurpose = "api-cursor"

// encodeCursor writes a list position as an opaque cursor: the URL-safe
// base64 of its JSON, a dot, and its signature under the shared key
// (purpose CursorPurpose), so the server recognises the cursors it wrote,
// in any of its processes, and no other. Each position holds the
// fingerprint of its list and filters (apiMarketFingerprint), which the
// signature covers too. A cursor is a position, not a secret or a grant:
// the list it continues still checks who may read what.
func (s *Handlers) encodeCursor(pos any) string {
	b, err := json.Marshal(pos)
	if err != nil {
		panic(err) // positions are plain structs of numbers and strings
	}
	payload := base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + s.Auth.Signer.Sign(CursorPurpose, payload)
}

// errBadCursor is a cursor this server did not write (or not for this list).
var errBadCursor = errors.New("api: bad cursor")

// decodeCursor reads a cursor written by encodeCursor into pos: one whose
// signature does not verify (edited, made up, or written before cursors
// were signed) is errBadCursor.
func (s *Handlers) decodeCursor(raw string, pos any) error {
	if len(raw) > 512 {
		return errBadCursor
	}
	payload, mac, ok := strings.Cut(raw, ".")
	if !ok || !s.Auth.Signer.Verify(CursorPurpose, payload, mac) {
		return errBadCursor
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return errBadCursor
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(pos); err != nil {
		return errBadCursor
	}
	return nil
}

// apiBadCursor is the 400 of a cursor decodeCursor refused.
func apiBadCursor(c echo.Context) error {
	return server.APIErrors(c, http.StatusBadRequest, []apierror.Error{{Field: "cursor", Code: "api.error.cursor",
		Message: server.Translator(c).T("api.error.cursor")}})
}

// apiLimit reads a list's ?limit= (1 to max, def when absent); ok is false
// for anything else, answered by apiBadLimit.
func apiLimit(c echo.Context, def, max int) (n int, ok bool) {
	raw := c.QueryParam("limit")
	if raw == "" {
		return def, true
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > max {
		return 0, false
	}
	return n, true
}

// apiBadLimit is the 400 of a ?limit= apiLimit refused.
func apiBadLimit(c echo.Context, max int) error {
	return server.APIErrors(c, http.StatusBadRequest, []apierror.Error{{Field: "limit", Code: "api.error.limit",
		Message: server.Translator(c).T("api.error.limit", "Max", max)}})
}
