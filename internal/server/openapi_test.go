package server_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"gpuquote/internal/server"
	"gpuquote/internal/testutil"
)

var echoParam = regexp.MustCompile(`:([a-z_]+)`)

// TestOpenAPIDescribesEveryAPIRoute: every route of the route table under
// /api/ is an operation of the OpenAPI description, with the scope a token
// needs for it, and the description names no operation the server does not
// have (docs/RULES.md §19.1).
func TestOpenAPIDescribesEveryAPIRoute(t *testing.T) {
	t.Parallel()
	doc, err := testutil.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	app := testutil.NewApp(t)
	served := map[string]bool{}
	for _, r := range app.Server.Routes() {
		if !strings.HasPrefix(r.Path, "/api/") {
			continue
		}
		path := echoParam.ReplaceAllString(r.Path, "{$1}")
		served[r.Method+" "+path] = true
		item := doc.Paths.Value(path)
		if item == nil || item.GetOperation(r.Method) == nil {
			t.Errorf("%s %s is in the route table but not in the OpenAPI description", r.Method, path)
			continue
		}
		op := item.GetOperation(r.Method)
		scope, _ := op.Extensions["x-scope"].(string)
		if scope != r.Policy.Scope {
			t.Errorf("%s %s: the description says scope %q, the route needs %q", r.Method, path, scope, r.Policy.Scope)
		}
		public := op.Security != nil && len(*op.Security) == 0
		if public != r.Policy.Public {
			t.Errorf("%s %s: described as public=%v, the route's policy says public=%v", r.Method, path, public, r.Policy.Public)
		}
		if op.OperationID == "" || op.Summary == "" || op.Description == "" {
			t.Errorf("%s %s: an operation needs an operationId, a summary and a description", r.Method, path)
		}
		checkOperationAnswers(t, doc, r, path, op)
	}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !served[method+" "+path] {
				t.Errorf("the OpenAPI description names %s %s, which the server does not have", method, path)
			}
		}
	}
	if len(served) == 0 {
		t.Fatal("no /api/ routes found")
	}
}

// checkOperationAnswers: an operation names, beside its successes, the
// refusals its route can answer (docs/RULES.md §19.6) — 400 (the input
// guard, a bad query) always; 401 and 403 unless it is public; 404 where
// its path names a record; 422 where it takes a body; 429 where the route
// is rate-limited — each in the one error shape. Its security names the
// scope a token needs (the bearer requirement's one role, as OpenAPI 3.1
// allows) or the browser session, and its tags are defined.
func checkOperationAnswers(t *testing.T, doc *openapi3.T, r server.Route, path string, op *openapi3.Operation) {
	t.Helper()
	want := []int{http.StatusBadRequest}
	if !r.Policy.Public {
		want = append(want, http.StatusUnauthorized, http.StatusForbidden)
	}
	if strings.Contains(path, "{") {
		want = append(want, http.StatusNotFound)
	}
	if op.RequestBody != nil {
		want = append(want, http.StatusUnprocessableEntity)
	}
	if r.Limited {
		want = append(want, http.StatusTooManyRequests)
	}
	for _, st := range want {
		res := op.Responses.Status(st)
		if res == nil || res.Value == nil {
			t.Errorf("%s %s does not list its %d answer", r.Method, path, st)
			continue
		}
		if mt := res.Value.Content.Get("application/json"); mt == nil || mt.Schema == nil || mt.Schema.Ref != "#/components/schemas/ErrorBody" {
			t.Errorf("%s %s: its %d answer is not the one error shape", r.Method, path, st)
		}
	}
	if !r.Policy.Public {
		got := ""
		if op.Security != nil {
			for _, req := range *op.Security {
				got += fmt.Sprint(map[string][]string(req))
			}
		}
		if w := fmt.Sprint(map[string][]string{"bearer": {r.Policy.Scope}}) + fmt.Sprint(map[string][]string{"session": {}}); got != w {
			t.Errorf("%s %s: security %s, want %s", r.Method, path, got, w)
		}
	}
	for _, tag := range op.Tags {
		if doc.Tags.Get(tag) == nil {
			t.Errorf("%s %s: tag %s is not defined", r.Method, path, tag)
		}
	}
}
