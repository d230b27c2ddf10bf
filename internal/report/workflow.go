package report

import "slices"

// The workflow of a saved report (docs/RULES.md §11.3, §11.4): a draft
// is submitted by its author; finance (or an admin) approves or returns a
// submitted report, never their own, and a return says why; an author
// deletes their own draft. The store takes each step with one conditional
// update, so of two decisions at once exactly one wins.

// Step is one move of the workflow.
type Step struct {
	From, To string
	// Event is the timeline's action.
	Event string
	// AuthorOnly: only the report's author may take it.
	AuthorOnly bool
	// Reviewer: only finance or an admin, never the author.
	Reviewer bool
	// Decision records who decided, when, and the comment.
	Decision bool
	// NeedComment: the step needs a comment (a return says why).
	NeedComment bool
}

// The steps of the workflow.
var (
	StepSubmit  = Step{From: Draft, To: Submitted, Event: EventSubmitted, AuthorOnly: true}
	StepApprove = Step{From: Submitted, To: Approved, Event: EventApproved, Reviewer: true, Decision: true}
	StepReturn  = Step{From: Submitted, To: Returned, Event: EventReturned, Reviewer: true, Decision: true, NeedComment: true}
	StepDelete  = Step{From: Draft, To: Deleted, Event: EventDeleted, AuthorOnly: true}
	// StepRetitle changes a draft's title and purpose; it stays a draft.
	StepRetitle = Step{From: Draft, To: Draft, Event: EventRetitled, AuthorOnly: true}
)

// ReviewerRoles are the roles that decide on reports (approve or return
// them), never on their own: the one statement of the rule, which the
// store's conditional update reads too.
var ReviewerRoles = []string{"finance", "admin"}

// Reviewer reports whether a role may decide on reports.
func Reviewer(role string) bool { return slices.Contains(ReviewerRoles, role) }

// Refusal says why a step changed nothing.
type Refusal int

// Why a step may change nothing.
const (
	// Gone: the report does not exist for anyone (deleted).
	Gone Refusal = iota + 1
	// NotAllowed: this user may not take this step on this report.
	NotAllowed
	// Moved: the report's status moved on meanwhile.
	Moved
)

// WhyNot explains a step that changed nothing, from the report's author
// and status as they are now and the acting user (role "" when the user is
// gone or disabled).
func (st Step) WhyNot(authorID int64, status string, actorID int64, role string) Refusal {
	switch {
	case status == Deleted:
		return Gone
	case st.AuthorOnly && authorID != actorID:
		return NotAllowed
	case st.Reviewer && (authorID == actorID || !Reviewer(role)):
		return NotAllowed
	default:
		return Moved
	}
}

// Visible says whether a reader sees a report: drafts are their author's
// (and admins'); deleted drafts are nobody's.
func Visible(r Report, viewerID int64, admin bool) bool {
	switch {
	case r.Status == Deleted:
		return false
	case r.Status == Draft:
		return r.AuthorID == viewerID || admin
	default:
		return true
	}
}

// Rights are what a reader may do with a report they see.
type Rights struct {
	// Submit and Edit: the author's draft.
	Submit, Edit bool
	// Decide: a submitted report of someone else, for a reviewer.
	Decide bool
	// OwnPending: a reviewer's own submitted report (someone else decides).
	OwnPending bool
	// Revise: the author's returned report, not yet revised.
	Revise bool
}

// RightsOf are a reader's rights on r; reviewer says they may decide on
// reports.
func RightsOf(r Report, viewerID int64, reviewer bool) Rights {
	author := viewerID != 0 && viewerID == r.AuthorID
	return Rights{Submit: author && r.Status == Draft, Edit: author && r.Status == Draft,
		Decide: reviewer && !author && r.Status == Submitted, OwnPending: reviewer && author && r.Status == Submitted,
		Revise: author && r.Status == Returned && r.NextRevisionID == 0}
}
