package web

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"gpuquote/internal/user"
)

// UserRow is one line of the admin user list.
type UserRow struct {
	ID        int64
	Email     string
	Name      string
	Role      string
	Disabled  bool
	CreatedAt time.Time
}

// NewUserForm is the state of the create-user form.
type NewUserForm struct {
	Email  string
	Name   string
	Role   string
	Errors Errors
}

// UsersView is the admin user list's view model.
type UsersView struct {
	Page  Page
	Users []UserRow
	Pager Pager
	Query string
	Role  string
	Roles []string
	// Back is this list's URL with its filters, where row actions return.
	Back string
	Form NewUserForm
	// Created is set right after a user was created with a generated
	// password, which is shown this once.
	CreatedEmail    string
	CreatedPassword string
}

// AuditRow is one line of the audit log page.
type AuditRow struct {
	ID        int64
	At        time.Time
	Actor     string
	Action    string
	Entity    string
	EntityID  string
	Before    string
	After     string
	RequestID string
	ClientIP  string
}

// AuditView is the audit log page's view model.
type AuditView struct {
	Page    Page
	Rows    []AuditRow
	Actions []string
	// Entities are the objects the entity filter offers.
	Entities []string
	Actor    string
	Action   string
	Entity   string
	From     string
	To       string
	Errors   Errors
	// NextURL links to older entries; empty on the last page.
	NextURL string
	// FirstURL links back to the newest entries when paging.
	FirstURL string
}

func PrettyJSON(raw json.RawMessage) string {
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

// UsersRecords is one page of the admin user list for its filters (a
// search text and a role, "" for any), with the roles to choose from and
// the role the create-user form starts with.
type UsersRecords struct {
	Query, Role          string
	Roles                []string
	DefaultRole          string
	Users                []user.User
	Page, PerPage, Total int
}

// NewUsersView builds the admin user list: its rows, its pager, the
// address row actions return to, and an empty create-user form.
func NewUsersView(in UsersRecords) UsersView {
	base := url.Values{}
	if in.Query != "" {
		base.Set("q", in.Query)
	}
	if in.Role != "" {
		base.Set("role", in.Role)
	}
	v := UsersView{Query: in.Query, Role: in.Role, Roles: in.Roles,
		Pager: Pager{Page: in.Page, PerPage: in.PerPage, Total: in.Total, Base: "/admin/users?" + base.Encode()},
		Form:  NewUserForm{Role: in.DefaultRole}}
	v.Back = "/admin/users"
	if base.Encode() != "" || in.Page > 1 {
		if in.Page > 1 {
			base.Set("page", strconv.Itoa(in.Page))
		}
		v.Back += "?" + base.Encode()
	}
	for _, u := range in.Users {
		v.Users = append(v.Users, UserRow{ID: u.ID, Email: u.Email, Name: u.DisplayName, Role: u.Role,
			Disabled: u.Disabled, CreatedAt: u.CreatedAt})
	}
	return v
}

// WithRecords is the audit page v with the entries found for the query
// q, newest first: at most perPage of them, the rest (a record more than
// perPage was read to know) behind the link to older entries; paged says
// the page starts below the newest entries, which it then links back to.
func (v AuditView) WithRecords(recs []user.AuditRecord, q url.Values, perPage int, paged bool) AuditView {
	q.Del("before")
	if len(recs) > perPage {
		recs = recs[:perPage]
		q.Set("before", strconv.FormatInt(recs[len(recs)-1].ID, 10))
		v.NextURL = "/admin/audit?" + q.Encode()
		q.Del("before")
	}
	if paged {
		v.FirstURL = "/admin/audit?" + q.Encode()
	}
	for _, r := range recs {
		v.Rows = append(v.Rows, AuditRow{ID: r.ID, At: r.At, Actor: r.ActorEmail, Action: r.Action,
			Entity: r.Entity, EntityID: r.EntityID, Before: PrettyJSON(r.Before), After: PrettyJSON(r.After),
			RequestID: r.RequestID, ClientIP: r.ClientIP})
	}
	return v
}

// RoleNames are the names of roles, in their order.
func RoleNames[R ~string](roles []R) []string {
	out := make([]string, len(roles))
	for i, r := range roles {
		out[i] = string(r)
	}
	return out
}

// NewAuditView is the audit page with the filters of the query q (the
// entries are added by WithRecords) and the actions and entities the
// filters offer.
func NewAuditView(q url.Values, actions, entities []string) AuditView {
	return AuditView{Actions: actions, Entities: entities, Actor: strings.TrimSpace(q.Get("actor")),
		Entity: strings.TrimSpace(q.Get("entity")), Action: strings.TrimSpace(q.Get("action")), From: q.Get("from"), To: q.Get("to")}
}
