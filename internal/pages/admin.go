package pages

import (
	"errors"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/form"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/user"
	"gpuquote/web"
)

const usersPerPage = 50

// usersView loads the user list for the current filters.
func (s *Handlers) usersView(c echo.Context) (web.UsersView, error) {
	in := web.UsersRecords{Query: strings.TrimSpace(c.QueryParam("q")), Role: c.QueryParam("role"), Roles: web.RoleNames(auth.Roles),
		DefaultRole: string(auth.RoleAnalyst), Page: server.PageParam(c), PerPage: usersPerPage}
	if !auth.Role(in.Role).Valid() {
		in.Role = ""
	}
	var err error
	if in.Users, in.Total, err = s.Store.Users(c.Request().Context(), store.UserFilter{
		Query: in.Query, Role: in.Role, Offset: (in.Page - 1) * usersPerPage, Limit: usersPerPage}); err != nil {
		return web.UsersView{}, err
	}
	return web.NewUsersView(in), nil
}

func (s *Handlers) AdminUsers(c echo.Context) error {
	v, err := s.usersView(c)
	if err != nil {
		return err
	}
	v.Page = s.Page(c, "users.title")
	return s.Render(c, http.StatusOK, v.Page, web.Users(v))
}

// validEmail accepts a bare address such as ana@example.com.
func validEmail(s string) bool {
	if len(s) < 3 || len(s) > 254 {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == ""
}

// AdminCreateUser creates an account; when no password is given one is
// generated and shown once on the resulting page.
func (s *Handlers) AdminCreateUser(c echo.Context) error {
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
	} else if !form.OneLine(f.Name) {
		f.Errors.Set("display_name", form.MsgLineBreak)
	}
	if !auth.Role(f.Role).Valid() {
		f.Errors.Set("role", "form.role.invalid")
	}
	if err := auth.CheckPassword(password, f.Email, f.Name); err != nil {
		f.Errors.Set("password", auth.PasswordMessageID(err))
	}
	var created user.User
	if len(f.Errors) == 0 {
		hash, err := s.Hasher.Hash(ctx, password)
		if err != nil {
			return err
		}
		created, err = s.Store.CreateUser(ctx, s.Actor(c), user.NewAccount{Email: f.Email, DisplayName: f.Name, Role: f.Role, PasswordHash: hash})
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
	v.Page = s.Page(c, "users.title")
	if len(f.Errors) > 0 {
		v.Form = f
		return s.Render(c, http.StatusUnprocessableEntity, v.Page, web.Users(v))
	}
	v.CreatedEmail = created.Email
	if generated {
		v.CreatedPassword = password
	}
	return s.Render(c, http.StatusCreated, v.Page, web.Users(v))
}

// targetUser parses :id and refuses actions on oneself (an admin cannot
// demote or disable themselves and lock everybody out).
func (s *Handlers) targetUser(c echo.Context) (int64, error) {
	id, err := server.PathID(c)
	if err != nil {
		return 0, err
	}
	if cur := auth.CurrentUser(c); cur != nil && cur.UserID == id {
		return 0, echo.NewHTTPError(http.StatusForbidden)
	}
	return id, nil
}

func (s *Handlers) AdminSetRole(c echo.Context) error {
	id, err := s.targetUser(c)
	if err != nil {
		return err
	}
	role := c.FormValue("role")
	if !auth.Role(role).Valid() {
		return s.RedirectWithFlash(c, server.LocalPath(c.FormValue("back"), "/admin/users"), "error", "form.role.invalid")
	}
	if _, err := s.Store.SetUserRole(c.Request().Context(), s.Actor(c), id, role); err != nil {
		return err
	}
	return s.RedirectWithFlash(c, server.LocalPath(c.FormValue("back"), "/admin/users"), "ok", "users.role.changed")
}

func (s *Handlers) AdminDisable(c echo.Context) error { return s.adminSetDisabled(c, true) }

func (s *Handlers) AdminEnable(c echo.Context) error { return s.adminSetDisabled(c, false) }

func (s *Handlers) adminSetDisabled(c echo.Context, disabled bool) error {
	id, err := s.targetUser(c)
	if err != nil {
		return err
	}
	if _, err := s.Store.SetUserDisabled(c.Request().Context(), s.Actor(c), id, disabled); err != nil {
		return err
	}
	msg := "users.enabled.done"
	if disabled {
		msg = "users.disabled.done"
	}
	return s.RedirectWithFlash(c, server.LocalPath(c.FormValue("back"), "/admin/users"), "ok", msg)
}

const auditPerPage = 50

func (s *Handlers) AdminAudit(c echo.Context) error {
	v := web.NewAuditView(c.QueryParams(), store.AuditActions, store.AuditEntities)
	var f store.AuditFilter
	f, v.Errors = server.AuditFilter(c, auditPerPage)
	f.BeforeID, _ = strconv.ParseInt(c.QueryParam("before"), 10, 64)
	status := http.StatusOK
	if len(v.Errors) > 0 {
		status = http.StatusUnprocessableEntity
	} else {
		recs, err := s.Store.AuditLog(c.Request().Context(), f)
		if err != nil {
			return err
		}
		v = v.WithRecords(recs,
			c.QueryParams(), auditPerPage, f.BeforeID > 0)
	}
	v.Page = s.Page(c, "audit.title")
	return s.Render(c, status, v.Page, web.Audit(v))
}
