package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/store"
	"gpuquote/internal/tco"
	"gpuquote/internal/tcoapi"
)

// What every handler reads from a request the same way: the id in its
// path, the page of a list, the posted form, and whether the reader may
// take an action.

// PathID parses the :id of a record's page; anything but a positive
// integer is a page that does not exist, and a number too large for an id
// is a bad request (docs/RULES.md §16.4).
func PathID(c echo.Context) (int64, error) {
	raw := c.Param("id")
	if IDOutOfRange(raw) {
		return 0, BadID()
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.ErrNotFound
	}
	return id, nil
}

// errIDOutOfRange is an id written in digits that no record can have: it
// does not fit in the 64-bit integer every id is.
var errIDOutOfRange = errors.New("id out of range")

// BadID answers such an id: 400, with a message saying why.
func BadID() error { return echo.NewHTTPError(http.StatusBadRequest).SetInternal(errIDOutOfRange) }

// IDOutOfRange reports whether raw starts as a number beyond what an int64
// holds: strconv.ParseInt refuses it as out of range (it does so at the
// first digit too many, before any other character: "1…(30 digits).5"
// is out of range too) and yields the largest int64, which a handler that
// ignores the error would go on to use.
func IDOutOfRange(raw string) bool {
	_, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	return errors.Is(err, strconv.ErrRange)
}

// idParams are the query parameters that carry a record's id, whatever
// the route: the list filters (platform, GPU model, quote, author), the
// audit log's cursor, a saved profile, the report a new one revises.
// revise_of is also a posted field. (Other fields that take an id also
// take a name, such as a quote form's platform: they answer a field
// message instead.)
var idParams = []string{"platform", "gpu", "quote", "author", "before", "profile_id", "revise_of"}

// idFormParams are the posted fields that carry only an id.
var idFormParams = []string{"revise_of"}

// idGuard refuses with 400, before any handler reads it, a request whose
// path id or id parameter is a number too large to be an id: the handlers'
// own parsing then only sees ids that fit (docs/RULES.md §16.4). It runs
// after inputGuard, so the values are text the database can store.
func idGuard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		for _, name := range c.ParamNames() {
			if name == "id" && IDOutOfRange(c.Param(name)) {
				return BadID()
			}
		}
		q := c.QueryParams()
		for _, k := range idParams {
			for _, v := range q[k] {
				if IDOutOfRange(v) {
					return BadID()
				}
			}
		}
		f, err := PostedForm(c)
		if err != nil {
			return err
		}
		for _, k := range idFormParams {
			for _, v := range f[k] {
				if IDOutOfRange(v) {
					return BadID()
				}
			}
		}
		return next(c)
	}
}

// maxPage is the highest page number a list is asked for: beyond it the
// offset (page × page size) would leave what the database counts in, and
// no list here has a million pages.
const maxPage = 1_000_000

// PageParam is the page number a list is asked for (1 when absent or
// nonsense, at most maxPage: past the end, a list shows its empty state).
func PageParam(c echo.Context) int {
	n, err := strconv.Atoi(c.QueryParam("page"))
	if err != nil {
		return 1
	}
	return min(max(n, 1), maxPage)
}

// FormValues returns the posted form.
func FormValues(c echo.Context) (url.Values, error) {
	f, err := c.FormParams()
	if err != nil {
		return nil, echo.NewHTTPError(http.StatusBadRequest)
	}
	return f, nil
}

// Can reports whether the reader may call the route method path (as the
// route table writes it, "/quotes/:id"), by that route's policy: what a
// page offers (an edit link, the navigation) follows the same rule that
// answers the request.
func (s *Server) Can(c echo.Context, method, path string) bool {
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

// IsEditor reports whether the reader may write market data (quotes,
// prices): the policy of publishing a quote.
func (s *Server) IsEditor(c echo.Context) bool { return s.Can(c, http.MethodPost, "/quotes") }

// IsFinance reports whether the reader may approve or return reports.
func (s *Server) IsFinance(c echo.Context) bool {
	return s.Can(c, http.MethodPost, "/reports/:id/approve")
}

// FXLookup gives the evaluation the newest dated rate the server holds.
func (s *Server) FXLookup(ctx context.Context) tcoapi.FXLookup {
	return func(from, to string, day time.Time) (tcoapi.FXRate, bool, error) {
		r, err := s.Store.FXRateOn(ctx, from, to, day)
		if errors.Is(err, store.ErrNotFound) {
			return tcoapi.FXRate{}, false, nil
		}
		if err != nil {
			return tcoapi.FXRate{}, false, err
		}
		return tco.FX{Rate: r.Rate, Date: r.AsOf}, true, nil
	}
}
