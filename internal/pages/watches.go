package pages

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/form"
	"gpuquote/internal/money"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/watch"
	"gpuquote/web"
)

// The watch pages (docs/RULES.md §24.4): every signed-in user keeps their
// own watches; editors also keep the shared ones, whose matches go to the
// editors (§24.1).

// WatchList is GET /watches.
func (s *Handlers) WatchList(c echo.Context) error {
	cur := auth.CurrentUser(c)
	ws, events, err := s.Store.WatchesFor(c.Request().Context(), cur.UserID)
	if err != nil {
		return err
	}
	tr := server.Translator(c)
	editor := s.IsEditor(c)
	v := web.WatchesView{MayKeepShared: editor}
	for _, w := range ws {
		var ms []web.WatchMatch
		for _, e := range events[w.ID] {
			ms = append(ms, web.WatchMatch{Cause: e.Cause, QuoteID: e.QuoteID, Value: e.Value, At: e.CreatedAt})
		}
		if w.Shared() {
			v.Shared = append(v.Shared, web.NewWatchRow(tr, w, ms, editor))
		} else {
			v.Mine = append(v.Mine, web.NewWatchRow(tr, w, ms, true))
		}
	}
	v.Page = s.Page(c, "watch.title")
	return s.Render(c, http.StatusOK, v.Page, web.Watches(v))
}

// WatchNewForm is GET /watches/new; its query may prefill the form (the
// quote page's "watch this offer" does: platform, GPU model, count,
// currency, basis and a target a little under the current price).
func (s *Handlers) WatchNewForm(c echo.Context) error {
	values := url.Values{}
	for _, k := range []string{"platform", "gpu_model", "gpu_count", "sharing", "currency", "kind", "basis", "profile", "target", "percent"} {
		if x := c.QueryParam(k); x != "" && len(x) <= 40 {
			values.Set(k, x)
		}
	}
	if values.Get("kind") == "" {
		values.Set("kind", string(watch.PriceBelow))
	}
	values.Set("cooldown_hours", strconv.Itoa(watch.DefaultCooldownHours))
	return s.renderWatchForm(c, http.StatusOK, 0, values, nil)
}

// WatchEditForm is GET /watches/:id/edit.
func (s *Handlers) WatchEditForm(c echo.Context) error {
	w, err := s.editableWatch(c)
	if err != nil {
		return err
	}
	return s.renderWatchForm(c, http.StatusOK, w.ID, web.WatchValues(w), nil)
}

// editableWatch reads the watch in the path that the reader may change:
// their own, or a shared one for an editor; 404 otherwise.
func (s *Handlers) editableWatch(c echo.Context) (watch.Watch, error) {
	id, err := server.PathID(c)
	if err != nil {
		return watch.Watch{}, err
	}
	w, err := s.Store.WatchByID(c.Request().Context(), id)
	if err != nil {
		return watch.Watch{}, err
	}
	if w.Shared() && !s.IsEditor(c) || !w.Shared() && w.OwnerID != auth.CurrentUser(c).UserID {
		return watch.Watch{}, echo.ErrNotFound
	}
	return w, nil
}

func (s *Handlers) renderWatchForm(c echo.Context, status int, id int64, values url.Values, errs web.Errors) error {
	platforms, gpus, err := s.Store.QuoteRefNames(c.Request().Context())
	if err != nil {
		return err
	}
	saved, err := s.Store.UsageProfiles(c.Request().Context())
	if err != nil {
		return err
	}
	tr := server.Translator(c)
	me := auth.CurrentUser(c).UserID
	var profiles []web.Option
	// The reader's own profiles first, then the team's others (every saved
	// profile may be reused, docs/RULES.md §2.1), each named with its owner.
	for _, mine := range []bool{true, false} {
		for _, p := range saved {
			if (p.OwnerID == me) != mine {
				continue
			}
			label := p.Name
			if !mine && p.OwnerEmail != "" {
				label += " (" + p.OwnerEmail + ")"
			}
			profiles = append(profiles, web.Option{Value: strconv.FormatInt(p.ID, 10), Label: label})
		}
	}
	v := web.NewWatchFormView(tr, web.RefOptions(tr.Lang, platforms), web.GPUOptions(gpus), profiles, values)
	v.ID, v.MayShare = id, id == 0 && s.IsEditor(c)
	if errs != nil {
		v.Errors = errs
	}
	titleID := "watch.new.title"
	if id != 0 {
		titleID = "watch.edit.title"
	}
	v.Page = s.Page(c, titleID)
	return s.Render(c, status, v.Page, web.WatchForm(v))
}

// readWatch reads the form into a watch and checks it (docs/RULES.md
// §24.1).
func readWatch(values url.Values) (watch.Watch, web.Errors) {
	errs := web.Errors{}
	w := watch.Watch{Sharing: values.Get("sharing"), Currency: strings.ToUpper(strings.TrimSpace(values.Get("currency"))),
		Kind: watch.Kind(values.Get("kind")), Basis: watch.Basis(values.Get("basis"))}
	id := func(field string) int64 {
		raw := strings.TrimSpace(values.Get(field))
		if raw == "" {
			return 0
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n <= 0 {
			errs.Add(field, form.MsgRequired)
			return 0
		}
		return n
	}
	w.PlatformID, w.GPUModelID = id("platform"), id("gpu_model")
	w.GPUCount = int(min(id("gpu_count"), 1000))
	w.CooldownHours = int(min(id("cooldown_hours"), 100000))
	dec := func(field string) decimal.Decimal {
		raw := strings.TrimSpace(values.Get(field))
		if raw == "" {
			return decimal.Zero
		}
		d, err := money.ParseDecimal(raw)
		if err != nil {
			errs.Add(field, "watch.error."+field)
		}
		return d
	}
	if w.Kind == watch.PriceBelow {
		w.Target = dec("target")
		if w.Basis == watch.TCO {
			w.ProfileID = id("profile")
		}
	}
	if w.Kind == watch.PriceJump || w.Kind == watch.AvailabilityBelow {
		w.Percent = dec("percent")
	}
	for f, id := range w.Validate() {
		errs.Add(f, id)
	}
	return w, errs
}

// WatchCreate is POST /watches.
func (s *Handlers) WatchCreate(c echo.Context) error {
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	w, errs := readWatch(values)
	editor := s.IsEditor(c)
	if !(editor && values.Get("shared") == "yes") {
		w.OwnerID = auth.CurrentUser(c).UserID
	}
	if len(errs) == 0 {
		_, err = s.Store.CreateWatch(c.Request().Context(), s.Actor(c), editor, s.Now(), w)
		switch {
		case errors.Is(err, store.ErrWatchProfile):
			errs.Add("profile", "watch.error.profile")
		case errors.Is(err, store.ErrNotFound):
			errs.Add("platform", "watch.error.subject")
		case err != nil:
			return err
		}
	}
	if len(errs) > 0 {
		return s.renderWatchForm(c, http.StatusUnprocessableEntity, 0, values, errs)
	}
	return s.RedirectWithFlash(c, "/watches", "ok", "watch.flash.created")
}

// WatchUpdate is POST /watches/:id.
func (s *Handlers) WatchUpdate(c echo.Context) error {
	old, err := s.editableWatch(c)
	if err != nil {
		return err
	}
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	w, errs := readWatch(values)
	w.ID, w.OwnerID = old.ID, old.OwnerID
	if len(errs) == 0 {
		_, err = s.Store.UpdateWatch(c.Request().Context(), s.Actor(c), s.IsEditor(c), s.Now(), w)
		switch {
		case errors.Is(err, store.ErrWatchProfile):
			errs.Add("profile", "watch.error.profile")
		case errors.Is(err, store.ErrNotFound):
			errs.Add("platform", "watch.error.subject")
		case err != nil:
			return err
		}
	}
	if len(errs) > 0 {
		return s.renderWatchForm(c, http.StatusUnprocessableEntity, old.ID, values, errs)
	}
	return s.RedirectWithFlash(c, "/watches", "ok", "watch.flash.saved")
}

// WatchPause is POST /watches/:id/pause.
func (s *Handlers) WatchPause(c echo.Context) error { return s.pauseWatch(c, true) }

// WatchResume is POST /watches/:id/resume.
func (s *Handlers) WatchResume(c echo.Context) error { return s.pauseWatch(c, false) }

func (s *Handlers) pauseWatch(c echo.Context, paused bool) error {
	w, err := s.editableWatch(c)
	if err != nil {
		return err
	}
	if err := s.Store.PauseWatch(c.Request().Context(), s.Actor(c), s.IsEditor(c), s.Now(), w.ID, paused); err != nil {
		return watchErr(err)
	}
	msg := "watch.flash.resumed"
	if paused {
		msg = "watch.flash.paused"
	}
	return s.RedirectWithFlash(c, "/watches", "ok", msg)
}

// WatchDelete is POST /watches/:id/delete.
func (s *Handlers) WatchDelete(c echo.Context) error {
	w, err := s.editableWatch(c)
	if err != nil {
		return err
	}
	if err := s.Store.DeleteWatch(c.Request().Context(), s.Actor(c), s.IsEditor(c), s.Now(), w.ID); err != nil {
		return watchErr(err)
	}
	return s.RedirectWithFlash(c, "/watches", "ok", "watch.flash.deleted")
}

func watchErr(err error) error {
	if errors.Is(err, store.ErrWatchForbidden) {
		return echo.ErrNotFound
	}
	return err
}
