package testutil

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"gpuquote/internal/apispec"
)

// The OpenAPI description is kept true by the tests: every answer a test
// receives from a path under /api/ is validated against it (CheckAPI, which
// Client.Do calls), so an endpoint that answers anything its description
// does not allow fails the test that called it.

var (
	specOnce   sync.Once
	specDoc    *openapi3.T
	specRouter routers.Router
	specErr    error
)

// OpenAPI returns the parsed, validated description.
func OpenAPI() (*openapi3.T, error) {
	specOnce.Do(func() {
		b, err := apispec.Document()
		if err != nil {
			specErr = err
			return
		}
		l := openapi3.NewLoader()
		doc, err := l.LoadFromData(b)
		if err != nil {
			specErr = fmt.Errorf("load OpenAPI document: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			specErr = fmt.Errorf("OpenAPI document is not valid: %w", err)
			return
		}
		// The docs page is described as text/html and the exports as CSV
		// and XLSX files: their bodies are text or bytes.
		openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
		openapi3filter.RegisterBodyDecoder("text/csv", openapi3filter.PlainBodyDecoder)
		openapi3filter.RegisterBodyDecoder("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", openapi3filter.FileBodyDecoder)
		// Match any host: the description's server is "/".
		doc.Servers = openapi3.Servers{{URL: "/"}}
		specDoc = doc
		specRouter, specErr = gorillamux.NewRouter(doc)
	})
	return specDoc, specErr
}

// errorBodySchema is the one error shape, for answers to paths the
// description does not name (an unknown path's 404).
func errorBodySchema(doc *openapi3.T) *openapi3.Schema {
	return doc.Components.Schemas["ErrorBody"].Value
}

// CheckAPI validates one answer of the API against the description: the
// route must be described (an unknown path may only be refused, in the
// error shape), and the status, headers and body must be what its
// description allows. It reports a mismatch as a test error.
func CheckAPI(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	if err := checkAPI(req, status, header, body); err != nil {
		t.Errorf("%s %s → %d does not match the OpenAPI description: %v\nbody: %.600s", req.Method, req.URL.Path, status, err, body)
	}
}

func checkAPI(req *http.Request, status int, header http.Header, body []byte) error {
	doc, err := OpenAPI()
	if err != nil {
		return err
	}
	// The router matches on the path alone; the request as sent may carry
	// a host and a body the validator must not read again.
	u := &url.URL{Path: req.URL.Path, RawQuery: req.URL.RawQuery}
	r, err := http.NewRequest(req.Method, u.String(), nil)
	if err != nil {
		return err
	}
	r.Header = req.Header.Clone()
	route, params, err := specRouter.FindRoute(r)
	if err != nil {
		// Not a described operation: only a refusal in the error shape is
		// acceptable (404 of an unknown path, 405 of a wrong method).
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			return fmt.Errorf("the route is not described (%v)", err)
		}
		return validateErrorBody(doc, header, body)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}},
		Status: status,
		Header: header,
		Body:   io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true,
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
	return openapi3filter.ValidateResponse(context.Background(), in)
}

func validateErrorBody(doc *openapi3.T, header http.Header, body []byte) error {
	if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("content type %q, want application/json", ct)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	return errorBodySchema(doc).VisitJSON(v, openapi3.EnableJSONSchema2020())
}
