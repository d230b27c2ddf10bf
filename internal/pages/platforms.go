package pages

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/form"
	"gpuquote/internal/market"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/web"
)

const platformsPerPage = 50

// PlatformList is GET /platforms: search, qualification filter, pages.
func (s *Handlers) PlatformList(c echo.Context) error {
	in := web.PlatformsRecords{Query: strings.TrimSpace(c.QueryParam("q")), Has: "yes", CanEdit: s.Can(c, http.MethodPost, "/platforms"),
		Page: server.PageParam(c), PerPage: platformsPerPage, Today: s.Today()}
	for _, q := range market.PlatformQualifications {
		if q == c.QueryParam("qual") {
			in.Qualification = q
		}
	}
	if h := c.QueryParam("has"); h == "no" || h == "unknown" {
		in.Has = h
	}
	var err error
	if in.Platforms, in.Total, err = s.Store.Platforms(c.Request().Context(), store.PlatformFilter{Query: in.Query,
		Qualification: in.Qualification, Has: in.Has, Offset: (in.Page - 1) * platformsPerPage, Limit: platformsPerPage}); err != nil {
		return err
	}
	v := web.NewPlatformsView(in)
	v.Page = s.Page(c, "platform.list.title")
	return s.Render(c, http.StatusOK, v.Page, web.Platforms(v))
}

// PlatformShow is GET /platforms/:id: every field of one platform.
func (s *Handlers) PlatformShow(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	p, err := s.Store.PlatformByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	v := web.NewPlatformView(p, s.Today(), s.Can(c, http.MethodPost, "/platforms/:id"))
	if v.Terms, err = s.platformTermsView(c, p.ID); err != nil {
		return err
	}
	if v.Facts, err = s.platformFactsView(c, p.ID); err != nil {
		return err
	}
	v.Page = s.Page(c, "platform.detail.title")
	v.Page.Title = web.PlatformName(c.Request().Context(), p.NameZH, p.NameEN)
	return s.Render(c, http.StatusOK, v.Page, web.Platform(v))
}

// PlatformFormPage is GET /platforms/new and GET /platforms/:id/edit.
func (s *Handlers) PlatformFormPage(c echo.Context) error {
	p, titleID, err := editing(c, market.Platform{Currency: "CNY"}, s.Store.PlatformByID, "platform")
	if err != nil {
		return err
	}
	f := web.NewPlatformForm(p)
	f.Page = s.Page(c, titleID)
	return s.Render(c, http.StatusOK, f.Page, web.PlatformFormPage(f))
}

// platformSave is POST /platforms (id 0) and POST /platforms/:id, through
// the one save path of edited market data (saveEdit).
func (s *Handlers) platformSave(c echo.Context, id int64) error {
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	r := form.Values(values)
	p := market.ReadPlatform(r, values["billing_granularities"], s.Today().Year())
	p.ID = id
	f := web.NewPlatformForm(p)
	f.KeepTyped(r.Raw)
	f.Errors = r.Errs
	return s.saveEdit(c, edit{
		errs: r.Errs, id: id, lock: &p.LockVersion, takenID: "platform.error.name_taken",
		create: func() (int64, error) {
			out, err := s.Store.CreatePlatform(c.Request().Context(), s.Actor(c), p)
			return out.ID, err
		},
		update: func() error { _, err := s.Store.UpdatePlatform(c.Request().Context(), s.Actor(c), p); return err },
		current: func() (int, error) {
			cur, err := s.Store.PlatformByID(c.Request().Context(), id)
			return cur.LockVersion, err
		},
		path: "/platforms/", createdID: "platform.created", updatedID: "platform.updated",
		render: func(status int, lock int, conflict bool) error {
			f.LockVersion, f.Conflict = lock, conflict
			f.Page = s.Page(c, f.TitleID())
			return s.Render(c, status, f.Page, web.PlatformFormPage(f))
		},
	})
}

func (s *Handlers) PlatformCreate(c echo.Context) error { return s.platformSave(c, 0) }

func (s *Handlers) PlatformUpdate(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	return s.platformSave(c, id)
}

// editing reads the record a form edits: blank on …/new, the one in the
// path on …/:id/edit; the title is "<kind>.new" or "<kind>.edit".
func editing[T any](c echo.Context, blank T, load func(context.Context, int64) (T, error), kind string) (T, string, error) {
	if c.Param("id") == "" {
		return blank, kind + ".new", nil
	}
	id, err := server.PathID(c)
	if err != nil {
		return blank, "", err
	}
	v, err := load(c.Request().Context(), id)
	return v, kind + ".edit", err
}

// edit is one save of an edited platform or GPU model (saveEdit).
type edit struct {
	// errs are the form's problems (nothing is written while there are
	// any); id is the record edited, 0 for a new one; lock points at the
	// version the form edits, read from the form here.
	errs web.Errors
	id   int64
	lock *int
	// takenID is the message of a name already in use.
	takenID string
	// create and update write; current reads the stored version after a
	// lost save.
	create  func() (int64, error)
	update  func() error
	current func() (int, error)
	// path + id is the record's page; createdID and updatedID the flash.
	path, createdID, updatedID string
	// render shows the form again with a status, the lock version it
	// edits and whether the save lost to someone else's.
	render func(status, lock int, conflict bool) error
}

// saveEdit is the one save path of platform and GPU model edits under
// optimistic locking: the form carries the lock_version it loaded; a form
// with problems comes back (422) with every problem beside its field; a
// name in use is one of those problems; a save that lost to someone else's
// (ErrConflict) comes back (409) with the reader's input and the current
// version, so saving again is a deliberate overwrite; success redirects to
// the record's page with a message.
func (s *Handlers) saveEdit(c echo.Context, e edit) error {
	if e.id != 0 {
		lv, err := strconv.Atoi(c.FormValue("lock_version"))
		if err != nil || lv < 1 {
			return echo.NewHTTPError(http.StatusBadRequest)
		}
		*e.lock = lv
	}
	if len(e.errs) > 0 {
		return e.render(http.StatusUnprocessableEntity, *e.lock, false)
	}
	id, flashID := e.id, e.updatedID
	var err error
	if e.id == 0 {
		id, err = e.create()
		flashID = e.createdID
	} else {
		err = e.update()
	}
	var taken *store.NameTakenError
	switch {
	case errors.As(err, &taken):
		if taken.Name != "" { // an alias clash (docs/RULES.md §7.6)
			e.errs.Set(taken.Field, "alias.error.taken", "Name", taken.Name)
		} else {
			e.errs.Set(taken.Field, e.takenID)
		}
		return e.render(http.StatusUnprocessableEntity, *e.lock, false)
	case errors.Is(err, store.ErrConflict):
		cur, err := e.current()
		if err != nil {
			return err
		}
		return e.render(http.StatusConflict, cur, true)
	case err != nil:
		return err
	}
	return s.RedirectWithFlash(c, e.path+strconv.FormatInt(id, 10), "ok", flashID)
}
