package server_test

import (
	"net/http"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// TestListsPastTheirLastPage: a page number past int64 or far past the end
// of any list is an empty page, not a server error.
func TestListsPastTheirLastPage(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	admin, _ := app.AsUser(auth.RoleAdmin)
	for _, path := range []string{"/quotes", "/platforms", "/gpus", "/trials", "/reports", "/admin/users"} {
		for _, page := range []string{"9223372036854775807", "99999999999999999999", "-5"} {
			if r := admin.Get(path + "?page=" + page); r.StatusCode != http.StatusOK {
				t.Errorf("%s?page=%s: %d", path, page, r.StatusCode)
			}
		}
	}
}
