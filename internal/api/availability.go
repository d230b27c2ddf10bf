package api

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"gpuquote/internal/server"

	"github.com/labstack/echo/v4"
)

// availAPIError is one problem of an API request, in the evaluate API's
// shape.
type availAPIError struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// RecordAvailability is POST /api/v1/availability: a JSON object with the
// form's fields (numbers, strings or booleans); 201 with the stored record,
// or 422 naming every problem in the request's language.
func (s *Handlers) RecordAvailability(c echo.Context) error {
	tr := server.Translator(c)
	c.Response().Header().Set("Cache-Control", "no-store")
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err // the body limit's 413, or a broken connection
	}
	fields, ok := availJSONFields(body)
	if !ok {
		return c.JSON(http.StatusUnprocessableEntity, map[string][]availAPIError{"errors": {{Field: "", Code: "availability.error.json",
			Message: tr.T("availability.error.json")}}})
	}
	in, errs := s.ReadAvailability(fields.Get)
	if len(errs) == 0 {
		rec, ok, err := s.CreateAvailability(c, in, errs)
		if err != nil {
			return err
		}
		if ok {
			return c.JSON(http.StatusCreated, rec)
		}
	}
	out := []availAPIError{}
	for _, k := range slices.Sorted(maps.Keys(errs)) {
		m := errs[k]
		out = append(out, availAPIError{Field: k, Code: m.ID, Message: tr.T(m.ID, m.Args...)})
	}
	return c.JSON(http.StatusUnprocessableEntity, map[string][]availAPIError{"errors": out})
}

// availJSONFields reads a JSON object's members as form values: a string
// as it is, a number as written, a boolean as "true" or "false"; null and
// anything else (arrays, objects) as text no field accepts.
func availJSONFields(body []byte) (url.Values, bool) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil || raw == nil || dec.More() {
		return nil, false
	}
	out := url.Values{}
	for k, v := range raw {
		var str string
		var num json.Number
		var b bool
		switch {
		case bytes.Equal(bytes.TrimSpace(v), []byte("null")):
		case json.Unmarshal(v, &str) == nil:
			out.Set(k, str)
		case json.Unmarshal(v, &num) == nil:
			out.Set(k, num.String())
		case json.Unmarshal(v, &b) == nil:
			out.Set(k, strconv.FormatBool(b))
		default:
			out.Set(k, "\x00")
		}
	}
	return out, true
}
