package trial

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// WriterRoles are the roles that may write to any trial and whose
// performance measurements always count (docs/RULES.md §16.3). Everyone
// else writes only to the trials they opened.
var WriterRoles = []string{"editor", "admin"}

// MayWrite reports whether the signed-in user userID holding role may
// change trial t — record a check, paste evidence, record performance: the
// user who opened it, or an editor or admin (docs/RULES.md §16.3). A trial
// opened by the system (CreatedBy 0) has no author, so only editors and
// admins write to it.
func MayWrite(t Trial, userID int64, role string) bool {
	if userID > 0 && t.CreatedBy == userID {
		return true
	}
	return slices.Contains(WriterRoles, role)
}

// The evidence budget of one trial (docs/RULES.md §16.3): pasted nvidia-smi
// output is append-only, so what one trial may hold is bounded.
const (
	// MaxPastes is the most pastes one trial keeps.
	MaxPastes = 20
	// MaxPasteBytes is the most bytes (UTF-8) of pasted output one trial
	// keeps, all pastes together.
	MaxPasteBytes = 5 << 20
)

// How much pasted text a trial page embeds (docs/RULES.md §16.3): the
// newest OpenPastes pastes are shown with the first PreviewChars
// characters of their output; older ones are folded and show none. The
// whole text of any paste is on its own page (text/plain).
const (
	OpenPastes   = 3
	PreviewChars = 8000
)

// Use is how much of its evidence budget a trial has used.
type Use struct {
	Pastes int
	Bytes  int64
}

// BudgetError refuses a paste that would take a trial past its budget.
type BudgetError struct {
	// Used is the trial's use before the paste; Adding the paste's bytes.
	Used   Use
	Adding int64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("trial evidence budget: %d pastes and %d bytes used, %d more bytes refused (at most %d pastes, %d bytes)",
		e.Used.Pastes, e.Used.Bytes, e.Adding, MaxPastes, MaxPasteBytes)
}

// Full reports whether no further paste fits (the count is reached, or no
// byte is left).
func (u Use) Full() bool { return u.Pastes >= MaxPastes || u.Bytes >= MaxPasteBytes }

// Admit returns a *BudgetError when a paste of n bytes does not fit in
// what is left of the budget, nil when it does.
func (u Use) Admit(n int64) error {
	if u.Pastes+1 > MaxPastes || u.Bytes+n > MaxPasteBytes {
		return &BudgetError{Used: u, Adding: n}
	}
	return nil
}

// Preview is the start of s the page embeds: at most max characters, cut
// at a line end where one falls in the second half, and whether anything
// was left out.
func Preview(s string, max int) (string, bool) {
	if utf8.RuneCountInString(s) <= max {
		return s, false
	}
	n, i := 0, 0
	for i = range s {
		if n == max {
			break
		}
		n++
	}
	cut := s[:i]
	for j := len(cut) - 1; j >= len(cut)/2; j-- {
		if cut[j] == '\n' {
			return cut[:j], true
		}
	}
	return cut, true
}
