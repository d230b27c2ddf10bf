// Package web holds gpuquote's templ components: the layout, pages and
// shared pieces. Components take typed view models and read the reader's
// language from the context; they never touch the database or HTTP.
package web

import (
	"context"

	"gpuquote/internal/i18n"
)

// Page is what the layout needs to frame any page.
type Page struct {
	// Title is the page's translated title.
	Title string
	// User is the signed-in user, nil for anonymous visitors.
	User *User
	// CSRF is the token forms must send back.
	CSRF string
	// Path is the current URL path (navigation state, language switch).
	Path string
	// Flash is a one-time message from the previous request, if any.
	Flash *Flash
}

// User is the signed-in user as pages see them.
type User struct {
	ID    int64
	Name  string
	Email string
	Role  string
}

// Flash is a one-line message shown at the top of a page.
type Flash struct {
	// Kind is "ok" or "error".
	Kind string
	// Text is already translated.
	Text string
}

// NavItem is one entry of the main navigation.
type NavItem struct {
	Href    string
	LabelID string
	TestID  string
}

// Nav returns the main navigation for the user (nil: anonymous).
func Nav(u *User) []NavItem {
	items := []NavItem{
		{Href: "/", LabelID: "nav.home", TestID: "nav-home"},
		{Href: "/calculator", LabelID: "nav.calculator", TestID: "nav-calculator"},
	}
	if u == nil {
		return items
	}
	items = append(items,
		NavItem{Href: "/compare", LabelID: "nav.compare", TestID: "nav-compare"},
		NavItem{Href: "/quotes", LabelID: "nav.quotes", TestID: "nav-quotes"},
		NavItem{Href: "/platforms", LabelID: "nav.platforms", TestID: "nav-platforms"},
		NavItem{Href: "/gpus", LabelID: "nav.gpus", TestID: "nav-gpus"},
		NavItem{Href: "/trials", LabelID: "nav.trials", TestID: "nav-trials"})
	items = append(items, NavItem{Href: "/reports", LabelID: "nav.reports", TestID: "nav-reports"})
	if u.Role == "finance" || u.Role == "admin" {
		items = append(items, NavItem{Href: "/reports/inbox", LabelID: "nav.report_inbox", TestID: "nav-report-inbox"})
	}
	if u.Role == "editor" || u.Role == "admin" {
		items = append(items,
			NavItem{Href: "/prices", LabelID: "nav.prices", TestID: "nav-prices"},
			NavItem{Href: "/dashboard", LabelID: "nav.dashboard", TestID: "nav-dashboard"})
	}
	if u.Role == "admin" {
		items = append(items,
			NavItem{Href: "/admin/users", LabelID: "nav.users", TestID: "nav-users"},
			NavItem{Href: "/admin/audit", LabelID: "nav.audit", TestID: "nav-audit"})
	}
	return items
}

// Active reports whether a navigation entry is the current section.
// The most specific entry wins (the report inbox, not the report list).
func (p Page) Active(href string) bool {
	if !p.within(href) {
		return false
	}
	for _, it := range Nav(p.User) {
		if len(it.Href) > len(href) && p.within(it.Href) {
			return false
		}
	}
	return true
}

// within reports whether the current path is href or below it.
func (p Page) within(href string) bool {
	if href == "/" {
		return p.Path == "/"
	}
	return p.Path == href || len(p.Path) > len(href) && p.Path[:len(href)] == href && p.Path[len(href)] == '/'
}

// T renders a catalog message in the reader's language.
func T(ctx context.Context, id string, args ...any) string { return i18n.T(ctx, id, args...) }

// Lang is the reader's language.
func Lang(ctx context.Context) string { return string(i18n.LangOf(ctx)) }

// RoleLabelID is the catalog message of a role's name.
func RoleLabelID(role string) string { return "role." + role }
