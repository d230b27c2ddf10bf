package report_test

import (
	"testing"

	"gpuquote/internal/report"
)

// The people of the workflow tests. Statuses and roles are spelled as
// docs/RULES.md §11.3 and §11.4 spell them, so a renamed constant breaks
// these tests instead of silently following along.
const (
	author  int64 = 11 // the report's author
	other   int64 = 22 // another analyst
	finance int64 = 33 // a finance user
	admin   int64 = 44 // an admin who did not write the report
	editor  int64 = 55 // an editor
	nobody  int64 = 0  // nobody signed in
)

// TestStepsFollowTheWorkflowTable checks that each step of the workflow
// moves between the statuses and is reserved to the people that the table
// of docs/RULES.md §11.3 names: submit, delete and retitle are the
// author's; approve and return are finance's or an admin's, never the
// author's; a return needs a comment, an approval does not.
func TestStepsFollowTheWorkflowTable(t *testing.T) {
	tests := []struct {
		name string
		step report.Step
		want report.Step
	}{
		{name: "submit", step: report.StepSubmit,
			want: report.Step{From: "draft", To: "submitted", Event: "submitted", AuthorOnly: true}},
		{name: "approve", step: report.StepApprove,
			want: report.Step{From: "submitted", To: "approved", Event: "approved", Reviewer: true, Decision: true}},
		{name: "return", step: report.StepReturn,
			want: report.Step{From: "submitted", To: "returned", Event: "returned", Reviewer: true, Decision: true, NeedComment: true}},
		{name: "delete", step: report.StepDelete,
			want: report.Step{From: "draft", To: "deleted", Event: "deleted", AuthorOnly: true}},
		{name: "retitle", step: report.StepRetitle,
			want: report.Step{From: "draft", To: "draft", Event: "retitled", AuthorOnly: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.step != tt.want {
				t.Errorf("step = %+v, want %+v", tt.step, tt.want)
			}
			if tt.step.AuthorOnly && tt.step.Reviewer {
				t.Errorf("step is both the author's and a reviewer's; §11.3 gives each step to one of them")
			}
		})
	}
}

// TestReviewer checks who may decide on submitted reports: finance and
// admins, nobody else (docs/RULES.md §11.4; a disabled or deleted user is
// role "").
func TestReviewer(t *testing.T) {
	tests := []struct {
		name string
		role string
		want bool
	}{
		{name: "finance decides", role: "finance", want: true},
		{name: "admin decides", role: "admin", want: true},
		{name: "analyst does not", role: "analyst", want: false},
		{name: "editor does not", role: "editor", want: false},
		{name: "disabled or gone user does not", role: "", want: false},
		{name: "unknown role does not", role: "auditor", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := report.Reviewer(tt.role); got != tt.want {
				t.Errorf("Reviewer(%q) = %v, want %v", tt.role, got, tt.want)
			}
		})
	}
}

// TestVisible checks who sees a report (docs/RULES.md §11.4, §14.5):
// drafts their author and admins only; submitted, approved and returned
// reports every signed-in user; deleted drafts nobody, not even their
// author or an admin.
func TestVisible(t *testing.T) {
	tests := []struct {
		name    string
		status  string
		viewer  int64
		isAdmin bool
		want    bool
	}{
		{name: "draft, its author", status: "draft", viewer: author, want: true},
		{name: "draft, an admin", status: "draft", viewer: admin, isAdmin: true, want: true},
		{name: "draft, another analyst", status: "draft", viewer: other, want: false},
		{name: "draft, finance", status: "draft", viewer: finance, want: false},
		{name: "draft, an editor", status: "draft", viewer: editor, want: false},

		{name: "submitted, its author", status: "submitted", viewer: author, want: true},
		{name: "submitted, another analyst", status: "submitted", viewer: other, want: true},
		{name: "submitted, finance", status: "submitted", viewer: finance, want: true},
		{name: "submitted, an admin", status: "submitted", viewer: admin, isAdmin: true, want: true},

		{name: "approved, another analyst", status: "approved", viewer: other, want: true},
		{name: "approved, an editor", status: "approved", viewer: editor, want: true},
		{name: "returned, another analyst", status: "returned", viewer: other, want: true},
		{name: "returned, its author", status: "returned", viewer: author, want: true},

		{name: "deleted, its author", status: "deleted", viewer: author, want: false},
		{name: "deleted, an admin", status: "deleted", viewer: admin, isAdmin: true, want: false},
		{name: "deleted, the author who is an admin", status: "deleted", viewer: author, isAdmin: true, want: false},
		{name: "deleted, another analyst", status: "deleted", viewer: other, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := report.Report{ID: 1, AuthorID: author, Status: tt.status}
			if got := report.Visible(r, tt.viewer, tt.isAdmin); got != tt.want {
				t.Errorf("Visible(status %q, viewer %d, admin %v) = %v, want %v", tt.status, tt.viewer, tt.isAdmin, got, tt.want)
			}
		})
	}
}

// TestWhyNot checks why a workflow step changed nothing (docs/RULES.md
// §11.3, §11.4): a deleted report is gone for everyone (404); someone the
// table does not name for the step is not allowed (the author approving or
// returning their own report, an analyst or editor deciding, a disabled or
// gone user deciding, anyone but the author submitting, deleting or
// retitling, admins included); otherwise the report's status moved on
// meanwhile (409).
func TestWhyNot(t *testing.T) {
	steps := map[string]report.Step{
		"submit": report.StepSubmit, "approve": report.StepApprove, "return": report.StepReturn,
		"delete": report.StepDelete, "retitle": report.StepRetitle,
	}
	tests := []struct {
		name   string
		step   string
		status string // the report's status now
		actor  int64
		role   string // the actor's role now; "" when disabled or gone
		want   report.Refusal
	}{
		// Submit: the author's.
		{name: "submit: author, already submitted", step: "submit", status: "submitted", actor: author, role: "analyst", want: report.Moved},
		{name: "submit: author, already approved", step: "submit", status: "approved", actor: author, role: "analyst", want: report.Moved},
		{name: "submit: another analyst", step: "submit", status: "draft", actor: other, role: "analyst", want: report.NotAllowed},
		{name: "submit: an admin who is not the author", step: "submit", status: "draft", actor: admin, role: "admin", want: report.NotAllowed},
		{name: "submit: finance who is not the author", step: "submit", status: "draft", actor: finance, role: "finance", want: report.NotAllowed},
		{name: "submit: deleted, author", step: "submit", status: "deleted", actor: author, role: "analyst", want: report.Gone},
		{name: "submit: deleted, another analyst", step: "submit", status: "deleted", actor: other, role: "analyst", want: report.Gone},

		// Approve: finance or admin, never the author.
		{name: "approve: finance, already approved", step: "approve", status: "approved", actor: finance, role: "finance", want: report.Moved},
		{name: "approve: finance, already returned", step: "approve", status: "returned", actor: finance, role: "finance", want: report.Moved},
		{name: "approve: admin, already approved", step: "approve", status: "approved", actor: admin, role: "admin", want: report.Moved},
		{name: "approve: finance author, own report", step: "approve", status: "submitted", actor: author, role: "finance", want: report.NotAllowed},
		{name: "approve: admin author, own report", step: "approve", status: "submitted", actor: author, role: "admin", want: report.NotAllowed},
		{name: "approve: analyst author, own report", step: "approve", status: "submitted", actor: author, role: "analyst", want: report.NotAllowed},
		{name: "approve: another analyst", step: "approve", status: "submitted", actor: other, role: "analyst", want: report.NotAllowed},
		{name: "approve: an editor", step: "approve", status: "submitted", actor: editor, role: "editor", want: report.NotAllowed},
		{name: "approve: disabled finance user", step: "approve", status: "submitted", actor: finance, role: "", want: report.NotAllowed},
		{name: "approve: analyst, status moved on too", step: "approve", status: "approved", actor: other, role: "analyst", want: report.NotAllowed},
		{name: "approve: deleted, finance", step: "approve", status: "deleted", actor: finance, role: "finance", want: report.Gone},
		{name: "approve: deleted, finance author", step: "approve", status: "deleted", actor: author, role: "finance", want: report.Gone},

		// Return: as approve.
		{name: "return: finance, already approved", step: "return", status: "approved", actor: finance, role: "finance", want: report.Moved},
		{name: "return: admin, already returned", step: "return", status: "returned", actor: admin, role: "admin", want: report.Moved},
		{name: "return: finance author, own report", step: "return", status: "submitted", actor: author, role: "finance", want: report.NotAllowed},
		{name: "return: admin author, own report", step: "return", status: "submitted", actor: author, role: "admin", want: report.NotAllowed},
		{name: "return: another analyst", step: "return", status: "submitted", actor: other, role: "analyst", want: report.NotAllowed},
		{name: "return: an editor", step: "return", status: "submitted", actor: editor, role: "editor", want: report.NotAllowed},
		{name: "return: disabled admin", step: "return", status: "submitted", actor: admin, role: "", want: report.NotAllowed},
		{name: "return: deleted, admin", step: "return", status: "deleted", actor: admin, role: "admin", want: report.Gone},

		// Delete: the author's draft.
		{name: "delete: author, already submitted", step: "delete", status: "submitted", actor: author, role: "analyst", want: report.Moved},
		{name: "delete: another analyst", step: "delete", status: "draft", actor: other, role: "analyst", want: report.NotAllowed},
		{name: "delete: an admin who is not the author", step: "delete", status: "draft", actor: admin, role: "admin", want: report.NotAllowed},
		{name: "delete: already deleted, author", step: "delete", status: "deleted", actor: author, role: "analyst", want: report.Gone},

		// Retitle: the author's draft.
		{name: "retitle: author, already submitted", step: "retitle", status: "submitted", actor: author, role: "analyst", want: report.Moved},
		{name: "retitle: author, returned", step: "retitle", status: "returned", actor: author, role: "analyst", want: report.Moved},
		{name: "retitle: another analyst", step: "retitle", status: "draft", actor: other, role: "analyst", want: report.NotAllowed},
		{name: "retitle: an admin who is not the author", step: "retitle", status: "draft", actor: admin, role: "admin", want: report.NotAllowed},
		{name: "retitle: deleted, author", step: "retitle", status: "deleted", actor: author, role: "analyst", want: report.Gone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, ok := steps[tt.step]
			if !ok {
				t.Fatalf("no step %q", tt.step)
			}
			if got := st.WhyNot(author, tt.status, tt.actor, tt.role); got != tt.want {
				t.Errorf("%s.WhyNot(author %d, %q, actor %d, role %q) = %v, want %v",
					tt.step, author, tt.status, tt.actor, tt.role, got, tt.want)
			}
		})
	}
}

// TestRightsOf checks what a reader may do with a report they see
// (docs/RULES.md §11.3, §11.2): the author submits and edits their draft;
// a reviewer decides on someone else's submitted report, and sees their own
// submitted report as waiting for someone else; the author revises their
// returned report once. Admins who see another author's draft may not
// submit or edit it, and nobody signed in is nobody's author.
func TestRightsOf(t *testing.T) {
	tests := []struct {
		name     string
		status   string
		next     int64 // the report's next revision, 0 for none
		reportBy int64 // the report's author
		viewer   int64
		reviewer bool
		want     report.Rights
	}{
		{name: "author's draft", status: "draft", reportBy: author, viewer: author,
			want: report.Rights{Submit: true, Edit: true}},
		{name: "finance author's own draft", status: "draft", reportBy: author, viewer: author, reviewer: true,
			want: report.Rights{Submit: true, Edit: true}},
		{name: "admin sees another's draft", status: "draft", reportBy: author, viewer: admin, reviewer: true,
			want: report.Rights{}},
		{name: "another analyst, draft", status: "draft", reportBy: author, viewer: other,
			want: report.Rights{}},

		{name: "reviewer, someone else's submitted report", status: "submitted", reportBy: author, viewer: finance, reviewer: true,
			want: report.Rights{Decide: true}},
		{name: "reviewer, own submitted report", status: "submitted", reportBy: author, viewer: author, reviewer: true,
			want: report.Rights{OwnPending: true}},
		{name: "analyst author, own submitted report", status: "submitted", reportBy: author, viewer: author,
			want: report.Rights{}},
		{name: "analyst, someone else's submitted report", status: "submitted", reportBy: author, viewer: other,
			want: report.Rights{}},

		{name: "author's returned report, not revised", status: "returned", reportBy: author, viewer: author,
			want: report.Rights{Revise: true}},
		{name: "author's returned report, already revised", status: "returned", next: 99, reportBy: author, viewer: author,
			want: report.Rights{}},
		{name: "reviewer, someone else's returned report", status: "returned", reportBy: author, viewer: finance, reviewer: true,
			want: report.Rights{}},
		{name: "another analyst, returned report", status: "returned", reportBy: author, viewer: other,
			want: report.Rights{}},

		{name: "author's approved report", status: "approved", reportBy: author, viewer: author,
			want: report.Rights{}},
		{name: "reviewer, approved report", status: "approved", reportBy: author, viewer: finance, reviewer: true,
			want: report.Rights{}},
		{name: "author's deleted draft", status: "deleted", reportBy: author, viewer: author,
			want: report.Rights{}},

		{name: "nobody signed in, report without an author id", status: "draft", reportBy: nobody, viewer: nobody,
			want: report.Rights{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := report.Report{ID: 1, AuthorID: tt.reportBy, Status: tt.status, NextRevisionID: tt.next}
			if got := report.RightsOf(r, tt.viewer, tt.reviewer); got != tt.want {
				t.Errorf("RightsOf(status %q, author %d, viewer %d, reviewer %v) = %+v, want %+v",
					tt.status, tt.reportBy, tt.viewer, tt.reviewer, got, tt.want)
			}
		})
	}
}
