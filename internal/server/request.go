package server

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
)

// What every handler reads from a request the same way: the id in its
// path, the page of a list, the posted form, and whether the reader may
// take an action.

// pathID parses the :id of a record's page; anything but a positive
// integer is a page that does not exist.
func pathID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.ErrNotFound
	}
	return id, nil
}

// maxPage is the highest page number a list is asked for: beyond it the
// offset (page × page size) would leave what the database counts in, and
// no list here has a million pages.
const maxPage = 1_000_000

// pageParam is the page number a list is asked for (1 when absent or
// nonsense, at most maxPage: past the end, a list shows its empty state).
func pageParam(c echo.Context) int {
	n, err := strconv.Atoi(c.QueryParam("page"))
	if err != nil {
		return 1
	}
	return min(max(n, 1), maxPage)
}

// listURL is a list's URL with its non-empty filters.
func listURL(path string, filters url.Values) string {
	for k, v := range filters {
		if len(v) == 0 || v[0] == "" {
			delete(filters, k)
		}
	}
	if len(filters) == 0 {
		return path
	}
	return path + "?" + filters.Encode()
}

// formValues returns the posted form.
func formValues(c echo.Context) (url.Values, error) {
	f, err := c.FormParams()
	if err != nil {
		return nil, echo.NewHTTPError(http.StatusBadRequest)
	}
	return f, nil
}

// can reports whether the reader may call the route method path (as the
// route table writes it, "/quotes/:id"), by that route's policy: what a
// page offers (an edit link, the navigation) follows the same rule that
// answers the request.
func (s *Server) can(c echo.Context, method, path string) bool {
	p, ok := s.policies[method+" "+path]
	if !ok {
		return false
	}
	cur := auth.CurrentUser(c)
	if cur == nil {
		return p.Allows("", false)
	}
	return p.Allows(cur.Role, true)
}

// isEditor reports whether the reader may write market data (quotes,
// prices): the policy of publishing a quote.
func (s *Server) isEditor(c echo.Context) bool { return s.can(c, http.MethodPost, "/quotes") }

// isFinance reports whether the reader may approve or return reports.
func (s *Server) isFinance(c echo.Context) bool {
	return s.can(c, http.MethodPost, "/reports/:id/approve")
}
