package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/store"
	"gpuquote/internal/user"
	"gpuquote/web"
)

const usersPerPage = 50

func roleNames() []string {
	out := make([]string, len(auth.Roles))
	for i, r := range auth.Roles {
		out[i] = string(r)
	}
	return out
}

// usersView loads the user list for the current filters.
func (s *Server) usersView(c echo.Context) (web.UsersView, error) {
	q := strings.TrimSpace(c.QueryParam("q"))
	role := c.QueryParam("role")
	if !auth.Role(role).Valid() {
		role = ""
	}
	pageNum := pageParam(c)
	users, total, err := s.store.Users(c.Request().Context(), store.UserFilter{
		Query: q, Role: role, Offset: (pageNum - 1) * usersPerPage, Limit: usersPerPage})
	if err != nil {
		return web.UsersView{}, err
	}
	base := url.Values{}
	if q != "" {
		base.Set("q", q)
	}
	if role != "" {
		base.Set("role", role)
	}
	v := web.UsersView{Query: q, Role: role, Roles: roleNames(),
		Pager: web.Pager{Page: pageNum, PerPage: usersPerPage, Total: total, Base: "/admin/users?" + base.Encode()},
		Form:  web.NewUserForm{Role: string(auth.RoleAnalyst)}}
	v.Back = "/admin/users"
	if base.Encode() != "" || pageNum > 1 {
		if pageNum > 1 {
			base.Set("page", strconv.Itoa(pageNum))
		}
		v.Back += "?" + base.Encode()
	}
	for _, u := range users {
		v.Users = append(v.Users, web.UserRow{ID: u.ID, Email: u.Email, Name: u.DisplayName, Role: u.Role,
			Disabled: u.Disabled, CreatedAt: u.CreatedAt})
	}
	return v, nil
}

func (s *Server) adminUsers(c echo.Context) error {
	v, err := s.usersView(c)
	if err != nil {
		return err
	}
	v.Page = s.page(c, "users.title")
	return s.render(c, http.StatusOK, v.Page, web.Users(v))
}

// validEmail accepts a bare address such as ana@example.com.
func validEmail(s string) bool {
	if len(s) < 3 || len(s) > 254 {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == ""
}

// adminCreateUser creates an account; when no password is given one is
// generated and shown once on the resulting page.
func (s *Server) adminCreateUser(c echo.Context) error {
	ctx := c.Request().Context()
	f := web.NewUserForm{
		Email:  strings.TrimSpace(c.FormValue("email")),
		Name:   strings.TrimSpace(c.FormValue("display_name")),
		Role:   c.FormValue("role"),
		Errors: web.Errors{},
	}
	password := c.FormValue("password")
	generated := password == ""
	if generated {
		password = auth.GeneratePassword()
	}
	if !validEmail(f.Email) {
		f.Errors.Set("email", "form.email.invalid")
	}
	if n := utf8.RuneCountInString(f.Name); n < 1 || n > 100 {
		f.Errors.Set("display_name", "form.display_name.invalid")
	}
	if !auth.Role(f.Role).Valid() {
		f.Errors.Set("role", "form.role.invalid")
	}
	if err := auth.CheckPassword(password, f.Email, f.Name); err != nil {
		f.Errors.Set("password", passwordErrorID(err))
	}
	var created user.User
	if len(f.Errors) == 0 {
		hash, err := s.hasher.Hash(ctx, password)
		if err != nil {
			return err
		}
		created, err = s.store.CreateUser(ctx, s.actor(c), user.NewAccount{Email: f.Email, DisplayName: f.Name, Role: f.Role, PasswordHash: hash})
		if errors.Is(err, store.ErrEmailTaken) {
			f.Errors.Set("email", "form.email.taken")
		} else if err != nil {
			return err
		}
	}
	v, err := s.usersView(c)
	if err != nil {
		return err
	}
	v.Page = s.page(c, "users.title")
	if len(f.Errors) > 0 {
		v.Form = f
		return s.render(c, http.StatusUnprocessableEntity, v.Page, web.Users(v))
	}
	v.CreatedEmail = created.Email
	if generated {
		v.CreatedPassword = password
	}
	return s.render(c, http.StatusCreated, v.Page, web.Users(v))
}

// targetUser parses :id and refuses actions on oneself (an admin cannot
// demote or disable themselves and lock everybody out).
func (s *Server) targetUser(c echo.Context) (int64, error) {
	id, err := pathID(c)
	if err != nil {
		return 0, err
	}
	if cur := auth.CurrentUser(c); cur != nil && cur.UserID == id {
		return 0, echo.NewHTTPError(http.StatusForbidden)
	}
	return id, nil
}

func (s *Server) adminSetRole(c echo.Context) error {
	id, err := s.targetUser(c)
	if err != nil {
		return err
	}
	role := c.FormValue("role")
	if !auth.Role(role).Valid() {
		return s.redirectWithFlash(c, localPath(c.FormValue("back"), "/admin/users"), "error", "form.role.invalid")
	}
	if _, err := s.store.SetUserRole(c.Request().Context(), s.actor(c), id, role); err != nil {
		return err
	}
	return s.redirectWithFlash(c, localPath(c.FormValue("back"), "/admin/users"), "ok", "users.role.changed")
}

func (s *Server) adminDisable(c echo.Context) error { return s.adminSetDisabled(c, true) }

func (s *Server) adminEnable(c echo.Context) error { return s.adminSetDisabled(c, false) }

func (s *Server) adminSetDisabled(c echo.Context, disabled bool) error {
	id, err := s.targetUser(c)
	if err != nil {
		return err
	}
	if _, err := s.store.SetUserDisabled(c.Request().Context(), s.actor(c), id, disabled); err != nil {
		return err
	}
	msg := "users.enabled.done"
	if disabled {
		msg = "users.disabled.done"
	}
	return s.redirectWithFlash(c, localPath(c.FormValue("back"), "/admin/users"), "ok", msg)
}

const auditPerPage = 50

// adminAudit lists the audit log with filters and keyset pagination.
// auditFilter reads the audit log's filters from the query (action,
// entity, actor, from, to): the admin page's and the API's. An action or
// object the log cannot hold is a mistyped link, and a day that is no day
// a mistake: errs says so rather than list every row as if unfiltered.
func auditFilter(c echo.Context, limit int) (f store.AuditFilter, errs web.Errors) {
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

func (s *Server) adminAudit(c echo.Context) error {
	v := web.AuditView{Actions: store.AuditActions, Entities: store.AuditEntities,
		Actor: strings.TrimSpace(c.QueryParam("actor")), Entity: strings.TrimSpace(c.QueryParam("entity")),
		Action: strings.TrimSpace(c.QueryParam("action")), From: c.QueryParam("from"), To: c.QueryParam("to")}
	var f store.AuditFilter
	f, v.Errors = auditFilter(c, auditPerPage)
	f.BeforeID, _ = strconv.ParseInt(c.QueryParam("before"), 10, 64)
	status := http.StatusOK
	if len(v.Errors) > 0 {
		status = http.StatusUnprocessableEntity
	} else {
		recs, err := s.store.AuditLog(c.Request().Context(), f)
		if err != nil {
			return err
		}
		q := c.QueryParams()
		q.Del("before")
		if len(recs) > auditPerPage {
			recs = recs[:auditPerPage]
			q.Set("before", strconv.FormatInt(recs[len(recs)-1].ID, 10))
			v.NextURL = "/admin/audit?" + q.Encode()
			q.Del("before")
		}
		if f.BeforeID > 0 {
			v.FirstURL = "/admin/audit?" + q.Encode()
		}
		for _, r := range recs {
			v.Rows = append(v.Rows, web.AuditRow{ID: r.ID, At: r.At, Actor: r.ActorEmail, Action: r.Action,
				Entity: r.Entity, EntityID: r.EntityID, Before: prettyJSON(r.Before), After: prettyJSON(r.After),
				RequestID: r.RequestID, ClientIP: r.ClientIP})
		}
	}
	v.Page = s.page(c, "audit.title")
	return s.render(c, status, v.Page, web.Audit(v))
}

func prettyJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}
