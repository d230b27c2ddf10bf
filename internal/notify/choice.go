package notify

import "time"

// How a user's notices reach them by mail (docs/RULES.md §18.4). The
// notices themselves are kept and listed whatever the choice.
const (
	// MailEach: one mail per notice, as it happens (the default).
	MailEach = "each"
	// MailDaily: one digest a day holding the notices of the days before.
	MailDaily = "daily"
	// MailNone: no mail.
	MailNone = "none"
)

// MailChoices are the choices in the order the account page offers them.
var MailChoices = []string{MailEach, MailDaily, MailNone}

// ValidMailChoice reports whether c is one of MailChoices.
func ValidMailChoice(c string) bool {
	return c == MailEach || c == MailDaily || c == MailNone
}

// DigestDay is the day a digest built at now belongs to, and the moment
// before which a notice must have been added to be in it: the start of
// now's UTC calendar day (08:00 in China). A digest holds the notices of
// the days before its own; one added on its day waits for the next.
func DigestDay(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// DigestListed bounds how many notices a digest lists one by one; the
// rest are counted, and /notifications lists them all.
const DigestListed = 30
