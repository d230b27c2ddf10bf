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
	"gpuquote/internal/avail"
	"gpuquote/internal/compare"
	"gpuquote/internal/form"
	"gpuquote/internal/market"
	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/store"
	"gpuquote/internal/tco"
	"gpuquote/internal/trial"
	"gpuquote/internal/user"
	"gpuquote/web"
)

// What both doors, the pages and the API, read from a request and its reader.

// Viewer is the signed-in reader's id and role.
func Viewer(c echo.Context) (int64, string) {
	if cur := auth.CurrentUser(c); cur != nil {
		return cur.UserID, string(cur.Role)
	}
	return 0, ""
}

// QuoteFilter reads the quote list's filters from the query (the list and
// the CSV export share them); only editors may ask for drafts or archived
// versions. filter holds the given values, for links.
func (s *Server) QuoteFilter(c echo.Context) (f store.QuoteFilter, filter url.Values) {
	q := c.QueryParams()
	f = store.QuoteFilter{Query: q.Get("q"), Currency: strings.ToUpper(strings.TrimSpace(q.Get("currency")))}
	f.PlatformID, _ = strconv.ParseInt(q.Get("platform"), 10, 64)
	f.GPUModelID, _ = strconv.ParseInt(q.Get("gpu"), 10, 64)
	if q.Get("stale") == "1" {
		f.AsOfBefore = tco.StaleBefore(s.Today())
	}
	if s.IsEditor(c) {
		switch st := q.Get("state"); st {
		case quote.Draft, quote.Archived, quote.Published:
			f.States = []string{st}
		case "all":
			f.States = []string{quote.Draft, quote.Published, quote.Archived}
		}
	}
	filter = url.Values{}
	for _, k := range []string{"q", "platform", "gpu", "currency", "stale", "state"} {
		if v := strings.TrimSpace(q.Get(k)); v != "" {
			filter.Set(k, v)
		}
	}
	return f, filter
}

// LoadQuote loads :id when the reader may read it (quote.MayRead: drafts
// editors only, a proposal its author and editors, docs/RULES.md §18.1);
// others get 404.
func (s *Server) LoadQuote(c echo.Context) (quote.Quote, error) {
	id, err := PathID(c)
	if err != nil {
		return quote.Quote{}, err
	}
	uid, role := Viewer(c)
	return s.Store.QuoteFor(c.Request().Context(), id, uid, role)
}

// adminAudit lists the audit log with filters and keyset pagination.
// AuditFilter reads the audit log's filters from the query (action,
// entity, actor, from, to): the admin page's and the API's. An action or
// object the log cannot hold is a mistyped link, and a day that is no day
// a mistake: errs says so rather than list every row as if unfiltered.
func AuditFilter(c echo.Context, limit int) (f store.AuditFilter, errs web.Errors) {
	errs = web.Errors{}
	f = store.AuditFilter{Actor: strings.TrimSpace(c.QueryParam("actor")), Entity: strings.TrimSpace(c.QueryParam("entity")),
		Action: strings.TrimSpace(c.QueryParam("action")), Limit: limit}
	if f.Action != "" && !store.IsAuditAction(f.Action) {
		errs.Set("action", "form.error.choice")
	}
	if f.Entity != "" && !store.IsAuditEntity(f.Entity) {
		errs.Set("entity", "form.error.choice")
	}
	if raw := c.QueryParam("from"); raw != "" {
		d, err := time.Parse(time.DateOnly, raw)
		if err != nil {
			errs.Set("from", "form.date.invalid")
		}
		f.From = d
	}
	if raw := c.QueryParam("to"); raw != "" {
		d, err := time.Parse(time.DateOnly, raw)
		if err != nil {
			errs.Set("to", "form.date.invalid")
		}
		f.To = d.AddDate(0, 0, 1) // the "to" day is included
	}
	return f, errs
}

// QuoteRefs loads the names input may use for platforms and GPU models.
func (s *Server) QuoteRefs(ctx context.Context) (quote.Refs, error) {
	p, g, err := s.Store.QuoteRefNames(ctx)
	if err != nil {
		return quote.Refs{}, err
	}
	return quote.NewRefs(p, g), nil
}

// ReadAvailability reads a record from fields and checks where it came
// from; the store then resolves and checks the references.
func (s *Server) ReadAvailability(get func(string) string) (avail.Input, form.Errors) {
	in, errs := avail.Read(get, s.LatestDay())
	avail.Require(in, errs)
	return in, errs
}

// CreateAvailability stores in for the signed-in user; a reference the
// store refuses becomes a field problem in errs (ok false, err nil).
func (s *Server) CreateAvailability(c echo.Context, in avail.Input, errs form.Errors) (avail.Record, bool, error) {
	r, err := s.Store.CreateAvailabilityRecord(c.Request().Context(), s.Actor(c), in)
	var re *avail.RefError
	if errors.As(err, &re) {
		errs.Set(re.Field, re.MessageID)
		return r, false, nil
	}
	return r, err == nil, err
}

func (s *Server) AvailabilityPair(c echo.Context, pair market.PlatformGPU) (market.PlatformGPU, market.Platform, market.GPUModel, error) {
	if pair.PlatformID <= 0 || pair.GPUModelID <= 0 {
		return pair, market.Platform{}, market.GPUModel{}, echo.ErrNotFound
	}
	ctx := c.Request().Context()
	p, err := s.Store.PlatformByID(ctx, pair.PlatformID)
	if err != nil {
		return pair, p, market.GPUModel{}, err
	}
	g, err := s.Store.GPUModelByID(ctx, pair.GPUModelID)
	return pair, p, g, err
}

// Actor describes who performs this request's writes, for the audit log.
func (s *Server) Actor(c echo.Context) user.Actor {
	a := user.Actor{RequestID: c.Response().Header().Get(echo.HeaderXRequestID), ClientIP: c.RealIP()}
	if cur := auth.CurrentUser(c); cur != nil {
		a.UserID, a.Email = cur.UserID, cur.Email
	}
	return a
}

// CanSeeReport says whether the reader may see a report (report.Visible).
func CanSeeReport(c echo.Context, r report.Report) bool {
	cur := auth.CurrentUser(c)
	return cur != nil && report.Visible(r, cur.UserID, cur.Role == auth.RoleAdmin)
}

// ReportViewer is who a report's comparison is priced for: the
// own-hardware options it freezes are those the reader may read
// (docs/RULES.md §11.7, §17.4).
func ReportViewer(c echo.Context) compare.Viewer {
	cur := auth.CurrentUser(c)
	if cur == nil {
		return compare.Viewer{}
	}
	return compare.Viewer{UserID: cur.UserID, Role: string(cur.Role)}
}

// ReportStoreError turns the store's refusals into HTTP errors: a step
// this user may not take is 403; a conflict is answered by the caller.
func ReportStoreError(err error) error {
	if errors.Is(err, store.ErrNotAllowed) {
		return echo.NewHTTPError(http.StatusForbidden)
	}
	return err
}

// MayWriteTrial reports whether the signed-in user may record on trial t:
// its author, an editor or an admin (docs/RULES.md §16.3).
func MayWriteTrial(c echo.Context, t trial.Trial) bool {
	cur := auth.CurrentUser(c)
	return cur != nil && trial.MayWrite(t, cur.UserID, string(cur.Role))
}

// ProposalQuota is what one person may propose, from the configuration
// (docs/RULES.md §18.1): both doors pass it to the store's proposal writes.
func (s *Server) ProposalQuota() proposal.Quota {
	return proposal.Quota{PerHour: s.Config.ProposalsPerHour, Storage: s.Config.ProposalStorage}
}

// FeedBase is the site's absolute address the feeds and their addresses
// are written with (docs/RULES.md §24.5): GPUQUOTE_PUBLIC_URL when set,
// else the address the request came to. The account page and the data
// API's feed token write the same addresses.
func (s *Server) FeedBase(c echo.Context) string {
	if s.Config.PublicURL != "" {
		return strings.TrimSuffix(s.Config.PublicURL, "/")
	}
	return c.Scheme() + "://" + c.Request().Host
}
