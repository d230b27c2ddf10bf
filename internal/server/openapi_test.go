package server_test

import (
	"regexp"
	"strings"
	"testing"

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
		if op.OperationID == "" || op.Summary == "" {
			t.Errorf("%s %s: an operation needs an operationId and a summary", r.Method, path)
		}
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
