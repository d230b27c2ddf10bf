package web

import (
	"encoding/json"
	"time"
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
