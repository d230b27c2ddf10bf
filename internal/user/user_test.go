package user_test

import (
	"slices"
	"testing"
	"time"

	"gpuquote/internal/user"
)

// TestAPIScopes checks the scopes a token may hold and their order, as
// docs/RULES.md §19.2 lists them: read, quotes:write, reports:write,
// trials:write, watches:write, admin.
func TestAPIScopes(t *testing.T) {
	want := []string{"read", "quotes:write", "reports:write", "trials:write", "watches:write", "admin"}
	if !slices.Equal(user.APIScopes, want) {
		t.Errorf("APIScopes = %v, want %v", user.APIScopes, want)
	}
	named := map[string]string{
		"read": user.ScopeRead, "quotes:write": user.ScopeQuotesWrite, "reports:write": user.ScopeReportsWrite,
		"trials:write": user.ScopeTrialsWrite, "watches:write": user.ScopeWatchesWrite, "admin": user.ScopeAdmin,
	}
	for spelled, constant := range named {
		t.Run(spelled, func(t *testing.T) {
			if constant != spelled {
				t.Errorf("scope constant %q, want %q", constant, spelled)
			}
		})
	}
}

// TestHasScope checks what a token's scopes let it do (docs/RULES.md
// §19.2): each scope only itself, admin every scope; a token made before
// scopes existed keeps trials:write and gains read, and nothing more.
func TestHasScope(t *testing.T) {
	tests := []struct {
		name   string
		scopes []string
		scope  string
		want   bool
	}{
		{name: "read token reads", scopes: []string{"read"}, scope: "read", want: true},
		{name: "read token does not write quotes", scopes: []string{"read"}, scope: "quotes:write", want: false},
		{name: "read token does not act as admin", scopes: []string{"read"}, scope: "admin", want: false},
		{name: "quotes:write does not imply read", scopes: []string{"quotes:write"}, scope: "read", want: false},
		{name: "reports:write does not record trials", scopes: []string{"reports:write"}, scope: "trials:write", want: false},
		{name: "second of two scopes", scopes: []string{"read", "reports:write"}, scope: "reports:write", want: true},
		{name: "admin holds read", scopes: []string{"admin"}, scope: "read", want: true},
		{name: "admin holds quotes:write", scopes: []string{"admin"}, scope: "quotes:write", want: true},
		{name: "admin holds trials:write", scopes: []string{"admin"}, scope: "trials:write", want: true},
		{name: "admin holds admin", scopes: []string{"admin"}, scope: "admin", want: true},
		{name: "older token records trials", scopes: []string{"read", "trials:write"}, scope: "trials:write", want: true},
		{name: "older token does not save reports", scopes: []string{"read", "trials:write"}, scope: "reports:write", want: false},
		{name: "no scopes, nothing", scopes: nil, scope: "read", want: false},
		{name: "scopes are spelled exactly", scopes: []string{"Read"}, scope: "read", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := user.APIToken{ID: 1, UserID: 2, Scopes: tt.scopes}
			if got := tok.HasScope(tt.scope); got != tt.want {
				t.Errorf("token %v HasScope(%q) = %v, want %v", tt.scopes, tt.scope, got, tt.want)
			}
		})
	}
}

// TestExpired checks when a token stops working (docs/RULES.md §19.2):
// from its expiry on it is refused; a token made before expiries existed
// (no expiry) never expires.
func TestExpired(t *testing.T) {
	expiry := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		expires *time.Time
		now     time.Time
		want    bool
	}{
		{name: "a nanosecond before the expiry", expires: &expiry, now: expiry.Add(-time.Nanosecond), want: false},
		{name: "a day before the expiry", expires: &expiry, now: expiry.AddDate(0, 0, -1), want: false},
		{name: "at the expiry", expires: &expiry, now: expiry, want: true},
		{name: "the same instant in another zone", expires: &expiry, now: expiry.In(time.FixedZone("UTC+8", 8*3600)), want: true},
		{name: "after the expiry", expires: &expiry, now: expiry.Add(time.Second), want: true},
		{name: "no expiry, far in the future", expires: nil, now: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := user.APIToken{ID: 1, Scopes: []string{"read"}, ExpiresAt: tt.expires}
			if got := tok.Expired(tt.now); got != tt.want {
				t.Errorf("Expired(%s) = %v, want %v", tt.now, got, tt.want)
			}
		})
	}
}

// TestSystemActor checks that command-line writes are audited as the
// system, which is no user (Actor.UserID 0, the email "system").
func TestSystemActor(t *testing.T) {
	tests := []struct {
		name      string
		got, want any
	}{
		{name: "user id", got: user.SystemActor.UserID, want: int64(0)},
		{name: "email", got: user.SystemActor.Email, want: "system"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("SystemActor %s = %v, want %v", tt.name, tt.got, tt.want)
			}
		})
	}
}

// TestOwnerOrAdmin: a saved profile is deleted by its owner or an admin
// (docs/RULES.md §2.1), never by another user or nobody signed in.
func TestOwnerOrAdmin(t *testing.T) {
	tests := []struct {
		name          string
		owner, userID int64
		role          string
		want          bool
	}{
		{"owner", 7, 7, "analyst", true},
		{"admin, not the owner", 7, 9, "admin", true},
		{"another analyst", 7, 8, "analyst", false},
		{"an editor", 7, 8, "editor", false},
		{"finance", 7, 8, "finance", false},
		{"nobody signed in", 0, 0, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := user.OwnerOrAdmin(tc.owner, tc.userID, tc.role); got != tc.want {
				t.Errorf("OwnerOrAdmin(%d, %d, %q) = %v, want %v", tc.owner, tc.userID, tc.role, got, tc.want)
			}
		})
	}
}
