package quote_test

import (
	"fmt"
	"testing"

	"gpuquote/internal/quote"
)

// TestMayRead checks who may read a quote version, over every state and
// every kind of reader (docs/RULES.md §18.1 "Who reads a version", §7.1):
// published and archived versions everyone signed in; drafts editors and
// admins only; a proposal in any of its states (proposed, returned,
// reviewed) its author, editors and admins. Nobody signed in (user id 0)
// reads none, whatever the state. States are spelled as the rules spell
// them.
func TestMayRead(t *testing.T) {
	const authorID int64 = 7 // the quote's creator: the proposal's author
	type viewer struct {
		name string
		id   int64
		role string
	}
	var (
		nobody        = viewer{"nobody signed in", 0, ""}
		author        = viewer{"its author, an analyst", authorID, "analyst"}
		otherAnalyst  = viewer{"another analyst", 8, "analyst"}
		editor        = viewer{"an editor", 9, "editor"}
		admin         = viewer{"an admin", 10, "admin"}
		financeViewer = viewer{"finance", 11, "finance"}
	)
	viewers := []viewer{nobody, author, otherAnalyst, editor, admin, financeViewer}

	// want[state][viewer name]: may that viewer read a version in that
	// state?
	want := map[string]map[string]bool{
		"published": {nobody.name: false, author.name: true, otherAnalyst.name: true, editor.name: true, admin.name: true, financeViewer.name: true},
		"archived":  {nobody.name: false, author.name: true, otherAnalyst.name: true, editor.name: true, admin.name: true, financeViewer.name: true},
		"draft":     {nobody.name: false, author.name: false, otherAnalyst.name: false, editor.name: true, admin.name: true, financeViewer.name: false},
		"proposed":  {nobody.name: false, author.name: true, otherAnalyst.name: false, editor.name: true, admin.name: true, financeViewer.name: false},
		"returned":  {nobody.name: false, author.name: true, otherAnalyst.name: false, editor.name: true, admin.name: true, financeViewer.name: false},
		"reviewed":  {nobody.name: false, author.name: true, otherAnalyst.name: false, editor.name: true, admin.name: true, financeViewer.name: false},
	}
	states := []string{"draft", "published", "archived", "proposed", "returned", "reviewed"}

	n := 0
	for _, state := range states {
		for _, v := range viewers {
			exp, ok := want[state][v.name]
			if !ok {
				t.Fatalf("no expectation for %s × %s", state, v.name)
			}
			n++
			t.Run(fmt.Sprintf("%s, %s", state, v.name), func(t *testing.T) {
				q := quote.Quote{ID: 100, State: state, CreatedBy: authorID}
				if got := quote.MayRead(q, v.id, v.role); got != exp {
					t.Errorf("MayRead(state %q, user %d, role %q) = %v, want %v", state, v.id, v.role, got, exp)
				}
			})
		}
	}
	if n != len(states)*len(viewers) {
		t.Fatalf("ran %d cases, want %d", n, len(states)*len(viewers))
	}
}

// TestMayReadNobodyWithARole checks that user id 0 reads nothing even with
// a role attached (docs/RULES.md §18.1: only people signed in read quote
// versions; the id, not the role, says someone is signed in), and that a
// quote with no creator (CreatedBy 0) gives nobody an author's right.
func TestMayReadNobodyWithARole(t *testing.T) {
	tests := []struct {
		name  string
		state string
		role  string
	}{
		{name: "published, role admin", state: "published", role: "admin"},
		{name: "draft, role editor", state: "draft", role: "editor"},
		{name: "proposed by nobody, no role", state: "proposed", role: ""},
		{name: "returned by nobody, role analyst", state: "returned", role: "analyst"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := quote.Quote{ID: 100, State: tt.state, CreatedBy: 0}
			if quote.MayRead(q, 0, tt.role) {
				t.Errorf("MayRead(state %q, user 0, role %q) = true, want false", tt.state, tt.role)
			}
		})
	}
}
