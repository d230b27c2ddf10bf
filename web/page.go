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
	// Path is the current URL path (navigation state).
	Path string
	// Here is where the language switch returns: the page's URL with its
	// query (a comparison, a filtered list), or its path after a post.
	Here string
	// Flash is a one-time message from the previous request, if any.
	Flash *Flash
	// Nav are the navigation entries the reader may open, with the counts
	// drawn beside them (NavBadges).
	Nav []NavItem
	// Counts is what waits for the signed-in reader behind the entries
	// they may open; nil when nothing was counted (an anonymous visitor,
	// an error page, a part of a page swapped by htmx).
	Counts *Counts
	// Notices are the decisions on the reader's reports they have not
	// opened yet, newest first (NoticesMore are not listed).
	Notices     []ReportNotice
	NoticesMore int
}

// Counts are what waits for a reader; each group is counted only when the
// reader may open the page that lists it.
type Counts struct {
	// Mine: the reader's drafts and their returned reports not yet
	// revised (the report list).
	Mine     bool
	Drafts   int
	Returned int
	// Notices: decisions on the reader's reports they have not seen.
	Notices int
	// Inbox: the reports waiting for finance (the inbox).
	Inbox   bool
	Waiting int
	// Market: the editors' dashboard's stale quotes and recent price jumps.
	Market bool
	Stale  int
	Jumps  int
	// Notified: the reader's unread notifications (docs/RULES.md §18.4).
	Notified bool
	Unread   int
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
	// Group is the group the entry is listed under (NavGroups); "" lists
	// it among the main entries.
	Group string
	// Badges are the small counts drawn after the label, set per request.
	Badges []NavBadge
}

// NavBadge is a small count beside a navigation entry.
type NavBadge struct {
	Count int
	// Message is the catalog family that says what the count is, read
	// aloud and shown on hover (Plural: Message+".one" or ".other").
	Message string
	// Kind styles it: waiting, stale, jumps, returned.
	Kind   string
	TestID string
}

// NavItems is the main navigation, in order. A page shows the entries its
// reader may open (Page.Nav): the server keeps those whose route policy
// admits the reader, so the navigation and the routes never disagree.
var NavItems = []NavItem{
	{Href: "/", LabelID: "nav.home", TestID: "nav-home"},
	{Href: "/calculator", LabelID: "nav.calculator", TestID: "nav-calculator"},
	{Href: "/compare", LabelID: "nav.compare", TestID: "nav-compare"},
	{Href: "/quotes", LabelID: "nav.quotes", TestID: "nav-quotes"},
	{Href: "/platforms", LabelID: "nav.platforms", TestID: "nav-platforms"},
	{Href: "/gpus", LabelID: "nav.gpus", TestID: "nav-gpus"},
	{Href: "/trials", LabelID: "nav.trials", TestID: "nav-trials"},
	{Href: "/reports", LabelID: "nav.reports", TestID: "nav-reports"},
	{Href: "/reports/inbox", LabelID: "nav.report_inbox", TestID: "nav-report-inbox"},
	{Href: "/prices", LabelID: "nav.prices", TestID: "nav-prices", Group: NavGroupEditing},
	{Href: "/dashboard", LabelID: "nav.dashboard", TestID: "nav-dashboard", Group: NavGroupEditing},
	{Href: "/own-hardware", LabelID: "nav.own", TestID: "nav-own"},
	{Href: "/electricity", LabelID: "nav.electricity", TestID: "nav-electricity", Group: NavGroupEditing},
	{Href: "/admin/users", LabelID: "nav.users", TestID: "nav-users", Group: NavGroupAdmin},
	{Href: "/admin/audit", LabelID: "nav.audit", TestID: "nav-audit", Group: NavGroupAdmin},
	{Href: "/quotes/review", LabelID: "proposal.nav.queue", TestID: "nav-proposal-queue", Group: NavGroupEditing},
}

// The navigation's groups: the editors' upkeep of the market and the
// administration, each folded under its name beside the main entries
// (docs/RULES.md §21.2).
const (
	NavGroupEditing = "editing"
	NavGroupAdmin   = "admin"
)

// NavGroup is a group of navigation entries the reader may open.
type NavGroup struct {
	ID      string
	LabelID string
	Items   []NavItem
	// Current: one of its entries is the current section.
	Current bool
}

// MainNav are the entries listed outside every group.
func (p Page) MainNav() []NavItem {
	var out []NavItem
	for _, it := range p.Nav {
		if it.Group == "" {
			out = append(out, it)
		}
	}
	return out
}

// NavGroups are the groups holding an entry the reader may open, in the
// order of NavGroupEditing, NavGroupAdmin.
func (p Page) NavGroups() []NavGroup {
	var out []NavGroup
	for _, id := range []string{NavGroupEditing, NavGroupAdmin} {
		g := NavGroup{ID: id, LabelID: "nav.group." + id}
		for _, it := range p.Nav {
			if it.Group == id {
				g.Items = append(g.Items, it)
				g.Current = g.Current || p.Active(it.Href)
			}
		}
		if len(g.Items) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// Active reports whether a navigation entry is the current section.
// The most specific entry wins (the report inbox, not the report list).
func (p Page) Active(href string) bool {
	if !p.within(href) {
		return false
	}
	for _, it := range p.Nav {
		if len(it.Href) > len(href) && p.within(it.Href) {
			return false
		}
	}
	return true
}

// here is where the language switch returns to.
func (p Page) here() string {
	if p.Here != "" {
		return p.Here
	}
	return p.Path
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
