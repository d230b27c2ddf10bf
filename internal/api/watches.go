package api

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/money"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/watch"
	"gpuquote/web"
)

// Watches through the data API (docs/RULES.md §24.1, §24.9): the watch
// pages' rules — a user's own watches, shared ones kept by editors, one
// validation (watch.Validate) — as JSON. The JSON of a watch, both ways,
// is stated once, here: apiWatch (the answer), apiWatchRequest (the body)
// and their field names (watchFieldOf), so a new field of a watch is
// added in this one place.

// apiWatch is a watch as the API answers it: what it is about ("any" is
// null), its condition, its state, the words the watch list shows, in the
// request's language, and its last three matches.
type apiWatch struct {
	ID            int64               `json:"id"`
	Shared        bool                `json:"shared"`
	MayEdit       bool                `json:"may_edit"`
	PlatformID    *int64              `json:"platform_id"`
	PlatformName  string              `json:"platform_name"`
	GPUModelID    *int64              `json:"gpu_model_id"`
	GPUName       string              `json:"gpu_name"`
	GPUCount      *int64              `json:"gpu_count"`
	Sharing       *string             `json:"sharing"`
	Currency      *string             `json:"currency"`
	Kind          string              `json:"kind"`
	Basis         *string             `json:"basis"`
	ProfileID     *int64              `json:"profile_id"`
	Target        decimal.NullDecimal `json:"target"`
	Percent       decimal.NullDecimal `json:"percent"`
	CooldownHours int                 `json:"cooldown_hours"`
	Paused        bool                `json:"paused"`
	Armed         bool                `json:"armed"`
	LastMatchedAt *time.Time          `json:"last_matched_at"`
	Text          string              `json:"text"`
	Matches       []apiWatchMatch     `json:"matches"`
	CreatedAt     time.Time           `json:"created_at"`
	UpdatedAt     time.Time           `json:"updated_at"`
	URL           string              `json:"url"`
}

// apiWatchMatch is one of a watch's last matches: its cause (quote:<id>,
// avail:<id>, stale:<id>, superseded:<id>), the figure read, and what the
// list says of it.
type apiWatchMatch struct {
	At      time.Time           `json:"at"`
	Cause   string              `json:"cause"`
	QuoteID *int64              `json:"quote_id"`
	Value   decimal.NullDecimal `json:"value"`
	Text    string              `json:"text"`
	URL     string              `json:"url"`
}

func nullText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullPositiveDecimal(d decimal.Decimal) decimal.NullDecimal {
	if d.Sign() <= 0 {
		return decimal.NullDecimal{}
	}
	return decimal.NewNullDecimal(d)
}

// newAPIWatch is watch w as the API answers it to a reader who may (or
// may not) change it, with its last matches.
func newAPIWatch(c echo.Context, w watch.Watch, events []store.WatchEvent, mayEdit bool) apiWatch {
	tr := server.Translator(c)
	out := apiWatch{ID: w.ID, Shared: w.Shared(), MayEdit: mayEdit, PlatformID: optionalID(w.PlatformID), GPUModelID: optionalID(w.GPUModelID),
		GPUCount: optionalID(int64(w.GPUCount)), Sharing: nullText(w.Sharing), Currency: nullText(w.Currency), Kind: string(w.Kind),
		Basis: nullText(string(w.Basis)), ProfileID: optionalID(w.ProfileID), Target: nullPositiveDecimal(w.Target), Percent: nullPositiveDecimal(w.Percent),
		CooldownHours: w.CooldownHours, Paused: w.Paused, Armed: w.Armed, LastMatchedAt: utcPtr(w.LastMatchedAt),
		Text: web.WatchText(tr, w), Matches: []apiWatchMatch{}, CreatedAt: w.CreatedAt.UTC(), UpdatedAt: w.UpdatedAt.UTC(),
		URL: "/watches#watch-" + strconv.FormatInt(w.ID, 10)}
	if w.PlatformID != 0 {
		out.PlatformName = web.DisplayName(tr.Lang, w.PlatformZH, w.PlatformEN)
	}
	if w.GPUModelID != 0 {
		out.GPUName = w.GPU
	}
	row := web.NewWatchRow(tr, w, watchMatches(events), mayEdit)
	for i, e := range events {
		m := apiWatchMatch{At: e.CreatedAt.UTC(), Cause: e.Cause, QuoteID: optionalID(e.QuoteID), Value: e.Value}
		if i < len(row.Matches) {
			m.Text, m.URL = row.Matches[i].Text, row.Matches[i].Href
		}
		out.Matches = append(out.Matches, m)
	}
	return out
}

func watchMatches(events []store.WatchEvent) []web.WatchMatch {
	var ms []web.WatchMatch
	for _, e := range events {
		ms = append(ms, web.WatchMatch{Cause: e.Cause, QuoteID: e.QuoteID, Value: e.Value, At: e.CreatedAt})
	}
	return ms
}

// apiWatchRequest is the body of POST /api/v1/watches and PUT
// /api/v1/watches/{id}: the watch form's fields, each of one JSON type
// (ids and counts integers, figures decimal strings); null or absent is
// "any" (or, for the figures, none). shared is read on creation only; a
// PUT that gives it must give the watch's own.
type apiWatchRequest struct {
	PlatformID    *int64  `json:"platform_id"`
	GPUModelID    *int64  `json:"gpu_model_id"`
	GPUCount      *int64  `json:"gpu_count"`
	Sharing       *string `json:"sharing"`
	Currency      *string `json:"currency"`
	Kind          string  `json:"kind"`
	Basis         *string `json:"basis"`
	ProfileID     *int64  `json:"profile_id"`
	Target        *string `json:"target"`
	Percent       *string `json:"percent"`
	CooldownHours *int64  `json:"cooldown_hours"`
	Shared        *bool   `json:"shared"`
}

// watchFieldOf names watch.Validate's fields (the form's) as the API's.
var watchFieldOf = map[string]string{"platform": "platform_id", "gpu_model": "gpu_model_id", "profile": "profile_id"}

func watchField(f string) string {
	if api, ok := watchFieldOf[f]; ok {
		return api
	}
	return f
}

// watch reads the request into a watch and checks it with the pages'
// rules (watch.Validate): every problem by its field's API name, as a
// catalog message id.
func (r apiWatchRequest) watch() (watch.Watch, map[string]string) {
	errs := map[string]string{}
	w := watch.Watch{Kind: watch.Kind(r.Kind), CooldownHours: watch.DefaultCooldownHours}
	id := func(field string, v *int64) int64 {
		if v == nil {
			return 0
		}
		if *v <= 0 {
			errs[field] = "api.reports.error.id"
			return 0
		}
		return *v
	}
	w.PlatformID, w.GPUModelID = id("platform_id", r.PlatformID), id("gpu_model_id", r.GPUModelID)
	if r.GPUCount != nil {
		w.GPUCount = int(max(min(*r.GPUCount, 1000), -1))
	}
	if r.CooldownHours != nil {
		w.CooldownHours = int(max(min(*r.CooldownHours, 100000), -1))
	}
	if r.Sharing != nil {
		w.Sharing = *r.Sharing
	}
	if r.Currency != nil {
		w.Currency = strings.ToUpper(strings.TrimSpace(*r.Currency))
	}
	if r.Basis != nil {
		w.Basis = watch.Basis(*r.Basis)
	}
	dec := func(field string, v *string) decimal.Decimal {
		if v == nil || strings.TrimSpace(*v) == "" {
			return decimal.Zero
		}
		d, err := money.ParseDecimal(strings.TrimSpace(*v))
		if err != nil {
			errs[field] = "watch.error." + field
		}
		return d
	}
	// The figures a kind does not use are ignored, as on the form.
	if w.Kind == watch.PriceBelow {
		w.Target = dec("target", r.Target)
		if w.Basis == watch.TCO {
			w.ProfileID = id("profile_id", r.ProfileID)
		}
	}
	if w.Kind == watch.PriceJump || w.Kind == watch.AvailabilityBelow {
		w.Percent = dec("percent", r.Percent)
	}
	for f, msg := range w.Validate() {
		if _, seen := errs[watchField(f)]; !seen {
			errs[watchField(f)] = msg
		}
	}
	return w, errs
}

// apiFieldErrors answers 422 naming each field of errs (field → catalog
// message id) in the request's language, in field order.
func apiFieldErrors(c echo.Context, errs map[string]string) error {
	we := web.Errors{}
	for f, id := range errs {
		we.Add(f, id)
	}
	return apiFormErrors(c, we)
}

// readWatchRequest reads the body of a watch's create or change.
func readWatchRequest(c echo.Context) (apiWatchRequest, bool, error) {
	var req apiWatchRequest
	if err := apiReadJSON(c, &req); err != nil {
		return req, false, apiReadError(c, err)
	}
	return req, true, nil
}

// apiWatchFor reads the watch in the path as the caller sees it: their
// own, or a shared one (everyone reads those; editors change them);
// another user's watch is 404, as one that does not exist.
func (s *Handlers) apiWatchFor(c echo.Context) (watch.Watch, []store.WatchEvent, error) {
	id, err := server.PathID(c)
	if err != nil {
		return watch.Watch{}, nil, err
	}
	cur := auth.CurrentUser(c)
	ws, events, err := s.Store.WatchesFor(c.Request().Context(), cur.UserID)
	if err != nil {
		return watch.Watch{}, nil, err
	}
	for _, w := range ws {
		if w.ID == id {
			return w, events[w.ID], nil
		}
	}
	return watch.Watch{}, nil, echo.ErrNotFound
}

// mayEditWatch says whether the caller may change w: their own, or a
// shared one when an editor (or admin).
func (s *Handlers) mayEditWatch(c echo.Context, w watch.Watch) bool {
	return !w.Shared() || s.IsEditor(c)
}

// apiWatchForbidden is the 403 of a change of a shared watch by someone
// who is not an editor.
func apiWatchForbidden(c echo.Context) error {
	return apiFail(c, http.StatusForbidden, "forbidden", "api.watch.error.shared")
}

// Watches is GET /api/v1/watches: the shared watches, then the caller's
// own, newest first, each with its words and its last three matches; one
// page (the list holds at most 500).
func (s *Handlers) Watches(c echo.Context) error {
	ws, events, err := s.Store.WatchesFor(c.Request().Context(), auth.CurrentUser(c).UserID)
	if err != nil {
		return err
	}
	page := apiPage[apiWatch]{Items: make([]apiWatch, 0, len(ws))}
	for _, w := range ws {
		page.Items = append(page.Items, newAPIWatch(c, w, events[w.ID], s.mayEditWatch(c, w)))
	}
	return apiJSON(c, http.StatusOK, page)
}

// Watch is GET /api/v1/watches/{id}.
func (s *Handlers) Watch(c echo.Context) error {
	w, events, err := s.apiWatchFor(c)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, newAPIWatch(c, w, events, s.mayEditWatch(c, w)))
}

// answerWatch answers status with watch id as the caller now sees it.
func (s *Handlers) answerWatch(c echo.Context, status int, id int64) error {
	ws, events, err := s.Store.WatchesFor(c.Request().Context(), auth.CurrentUser(c).UserID)
	if err != nil {
		return err
	}
	for _, w := range ws {
		if w.ID == id {
			return apiJSON(c, status, newAPIWatch(c, w, events[w.ID], s.mayEditWatch(c, w)))
		}
	}
	return echo.ErrNotFound
}

// WatchCreate is POST /api/v1/watches: a new watch of the caller's (or,
// for an editor giving shared: true, a shared one), audited; 201 with
// its address in Location.
func (s *Handlers) WatchCreate(c echo.Context) error {
	req, ok, err := readWatchRequest(c)
	if !ok {
		return err
	}
	editor := s.IsEditor(c)
	shared := req.Shared != nil && *req.Shared
	if shared && !editor {
		return apiWatchForbidden(c)
	}
	w, errs := req.watch()
	if len(errs) > 0 {
		return apiFieldErrors(c, errs)
	}
	if !shared {
		w.OwnerID = auth.CurrentUser(c).UserID
	}
	out, err := s.Store.CreateWatch(c.Request().Context(), s.Actor(c), editor, s.Now(), w)
	switch {
	case errors.Is(err, store.ErrWatchProfile):
		return apiFieldErrors(c, map[string]string{"profile_id": "watch.error.profile"})
	case errors.Is(err, store.ErrNotFound): // a platform or GPU model that does not exist
		return apiFieldErrors(c, map[string]string{"platform_id": "watch.error.subject"})
	case errors.Is(err, store.ErrWatchForbidden):
		return apiWatchForbidden(c)
	case err != nil:
		return err
	}
	c.Response().Header().Set("Location", "/api/v1/watches/"+strconv.FormatInt(out.ID, 10))
	return s.answerWatch(c, http.StatusCreated, out.ID)
}

// WatchUpdate is PUT /api/v1/watches/{id}: the watch replaced by the
// body (what it is about, its condition, its cooldown), armed again,
// audited. Whether it is shared never changes. No version is kept: the
// last change wins (docs/RULES.md §24.9).
func (s *Handlers) WatchUpdate(c echo.Context) error {
	old, _, err := s.apiWatchFor(c)
	if err != nil {
		return err
	}
	if !s.mayEditWatch(c, old) {
		return apiWatchForbidden(c)
	}
	req, ok, err := readWatchRequest(c)
	if !ok {
		return err
	}
	w, errs := req.watch()
	if req.Shared != nil && *req.Shared != old.Shared() {
		errs["shared"] = "api.watch.error.shared_fixed"
	}
	if len(errs) > 0 {
		return apiFieldErrors(c, errs)
	}
	w.ID, w.OwnerID = old.ID, old.OwnerID
	_, err = s.Store.UpdateWatch(c.Request().Context(), s.Actor(c), s.IsEditor(c), s.Now(), w)
	switch {
	case errors.Is(err, store.ErrWatchProfile):
		return apiFieldErrors(c, map[string]string{"profile_id": "watch.error.profile"})
	case errors.Is(err, store.ErrNotFound):
		return apiFieldErrors(c, map[string]string{"platform_id": "watch.error.subject"})
	case errors.Is(err, store.ErrWatchForbidden):
		return apiWatchForbidden(c)
	case err != nil:
		return err
	}
	return s.answerWatch(c, http.StatusOK, old.ID)
}

// WatchDelete is DELETE /api/v1/watches/{id}: no longer listed nor
// evaluated, audited; 204.
func (s *Handlers) WatchDelete(c echo.Context) error {
	w, _, err := s.apiWatchFor(c)
	if err != nil {
		return err
	}
	if !s.mayEditWatch(c, w) {
		return apiWatchForbidden(c)
	}
	if err := s.Store.DeleteWatch(c.Request().Context(), s.Actor(c), s.IsEditor(c), s.Now(), w.ID); err != nil {
		return apiWatchStoreError(c, err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.NoContent(http.StatusNoContent)
}

// WatchPause is POST /api/v1/watches/{id}/pause.
func (s *Handlers) WatchPause(c echo.Context) error { return s.pauseWatch(c, true) }

// WatchResume is POST /api/v1/watches/{id}/resume: armed again.
func (s *Handlers) WatchResume(c echo.Context) error { return s.pauseWatch(c, false) }

func (s *Handlers) pauseWatch(c echo.Context, paused bool) error {
	w, _, err := s.apiWatchFor(c)
	if err != nil {
		return err
	}
	if !s.mayEditWatch(c, w) {
		return apiWatchForbidden(c)
	}
	if err := s.Store.PauseWatch(c.Request().Context(), s.Actor(c), s.IsEditor(c), s.Now(), w.ID, paused); err != nil {
		return apiWatchStoreError(c, err)
	}
	return s.answerWatch(c, http.StatusOK, w.ID)
}

func apiWatchStoreError(c echo.Context, err error) error {
	if errors.Is(err, store.ErrWatchForbidden) {
		return apiWatchForbidden(c)
	}
	return err
}

// apiFeedToken is the answer of POST /api/v1/feed-token: the two feed
// addresses of the new token, shown this once (only its hash is kept).
type apiFeedToken struct {
	QuotesURL string    `json:"quotes_url"`
	WatchURL  string    `json:"watch_url"`
	CreatedAt time.Time `json:"created_at"`
}

// FeedTokenCreate is POST /api/v1/feed-token: a new feed token for the
// caller, replacing the one they held, audited (docs/RULES.md §24.6). It
// is a feed token like the account page's, whoever asks: it reads the
// feeds and nothing else.
func (s *Handlers) FeedTokenCreate(c echo.Context) error {
	token := auth.NewFeedToken()
	ft, err := s.Store.CreateFeedToken(c.Request().Context(), s.Actor(c), auth.HashToken(token), s.Now())
	if err != nil {
		return err
	}
	quotes, watchURL := web.FeedURLs(s.FeedBase(c), token, server.Translator(c).Lang)
	return apiJSON(c, http.StatusCreated, apiFeedToken{QuotesURL: quotes, WatchURL: watchURL, CreatedAt: ft.CreatedAt.UTC()})
}

// FeedTokenRevoke is DELETE /api/v1/feed-token: the caller's feed token
// removed, audited; 404 when they hold none.
func (s *Handlers) FeedTokenRevoke(c echo.Context) error {
	if err := s.Store.RevokeFeedToken(c.Request().Context(), s.Actor(c)); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.NoContent(http.StatusNoContent)
}
