package web

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"gpuquote/internal/form"
	"gpuquote/internal/i18n"
	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
)

// ProposalFormView is the form an analyst or finance user proposes a quote
// with (docs/RULES.md §18.1): the editors' quote fields (Form) plus the
// vendor's message and file. A returned proposal is edited with the same
// form (Form.IsNew false), showing the editor's comment.
type ProposalFormView struct {
	Page Page
	Form QuoteFormView
	// Message is the vendor's message as typed; MessageError and FileError
	// the translated problems with it and with the file.
	Message      string
	MessageError string
	FileError    string
	// RateError says the author proposed as many as they may in an hour
	// (docs/RULES.md §18.1).
	RateError string
	// ReturnedComment is the editor's comment on a returned proposal.
	ReturnedComment string
}

// HasErrors says the form came back with a problem.
func (v ProposalFormView) HasErrors() bool {
	return len(v.Form.Errors) > 0 || v.MessageError != "" || v.FileError != "" || v.RateError != ""
}

// ProposalMessage is one vendor's message on a quote page.
type ProposalMessage struct {
	Body string
	At   string
}

// ProposalAttachment is one vendor's file, linked for download; one
// withdrawn says who withdrew it and when, and has no URL. WithdrawURL is
// where an editor withdraws it, when they may.
type ProposalAttachment struct {
	URL, Filename, ContentType, Size string
	Withdrawn                        bool
	WithdrawnBy, WithdrawnAt         string
	WithdrawURL                      string
}

// ProposalDecision is one editor's decision on a proposal.
type ProposalDecision struct {
	Decision     string // published or returned
	Comment      string
	By           string
	At           string
	PublishedURL string
}

// ProposalPanel is what a quote page shows of a proposed offer: the
// vendor's words, the editors' decisions, whether this version is still
// waiting, and the reader's next step (review it, or edit it again).
type ProposalPanel struct {
	State       string
	NotReviewed bool
	ReviewURL   string
	EditURL     string
	Messages    []ProposalMessage
	Attachments []ProposalAttachment
	Decisions   []ProposalDecision
	// CSRF is the token of the panel's forms (withdrawing a file).
	CSRF string
	// Corrections are what the editor changed when publishing the
	// proposal, on its page and on the version published; nil otherwise.
	Corrections *ProposalCorrections
}

// ProposalReviewView is an editor's review page of one proposal: the
// vendor's words, the quote form prefilled with the proposal (publishing
// it publishes what the form holds) and sending it back with a comment.
type ProposalReviewView struct {
	Page         Page
	QuoteID      int64
	Title        string
	Author       string
	Panel        ProposalPanel
	Form         QuoteFormView
	Comment      string
	CommentError string
}

// ProposalListRow is one proposal in the queue or in "my proposals".
type ProposalListRow struct {
	ID           int64
	Name         string
	State        string
	Author       string
	Created      string
	Hourly       string
	Monthly      string
	Comment      string
	EditURL      string
	ReviewURL    string
	PublishedURL string
}

// URL is the proposal's quote page.
func (r ProposalListRow) URL() string { return "/quotes/" + strconv.FormatInt(r.ID, 10) }

// ProposalListView is the editors' review queue (Queue) or the reader's
// own proposals.
type ProposalListView struct {
	Page  Page
	Queue bool
	Rows  []ProposalListRow
	Pager Pager
}

// FileSize writes a byte count for people (KiB and MiB, one decimal).
func FileSize(n int) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.Itoa(n) + " B"
}

// NotReviewedQuotes names the quotes of a report that were proposals no
// editor had published when it was frozen (docs/RULES.md §18.1), joined
// for one cell of an export; "" when there are none.
func NotReviewedQuotes(tr *i18n.Translator, snap report.Snapshot) string {
	var names []string
	for _, r := range snap.Rows {
		if quote.IsProposal(r.Quote.State) {
			names = append(names, QuoteName(tr, r.Quote.AsQuote(r.GPU)))
		}
	}
	return strings.Join(names, "; ")
}

// ProposalListRecords is one page of the editors' review queue (Queue)
// or of the reader's own proposals; ViewerID is the reader (0: nobody
// signed in) and Editor says they are an editor.
type ProposalListRecords struct {
	Queue                bool
	Proposals            []proposal.Row
	ViewerID             int64
	Editor               bool
	Page, PerPage, Total int
}

// NewProposalListView builds the review queue or the reader's proposals:
// each row with the links the reader may follow (review, edit, the
// version published) and the pager.
func NewProposalListView(tr *i18n.Translator, in ProposalListRecords) ProposalListView {
	base := "/quotes/proposals?"
	if in.Queue {
		base = "/quotes/review?"
	}
	v := ProposalListView{Queue: in.Queue, Rows: make([]ProposalListRow, 0, len(in.Proposals)),
		Pager: Pager{Page: in.Page, PerPage: in.PerPage, Total: in.Total, Base: base}}
	for _, r := range in.Proposals {
		q := r.Quote
		row := ProposalListRow{ID: q.ID, Name: QuoteName(tr, q), State: q.State, Author: r.AuthorName,
			Created: FormatDate(r.CreatedAt), Hourly: FormatMoney(tr.Lang, q.Hourly, q.Currency),
			Monthly: FormatMoney(tr.Lang, q.Monthly, q.Currency)}
		id := strconv.FormatInt(q.ID, 10)
		switch q.State {
		case quote.Proposed:
			if in.Editor {
				row.ReviewURL = "/quotes/" + id + "/review"
			}
		case quote.Returned:
			row.Comment = r.LastComment
			if in.ViewerID != 0 && !in.Editor {
				row.EditURL = "/quotes/" + id + "/proposal/edit"
			}
		case quote.Reviewed:
			if r.PublishedID != 0 {
				row.PublishedURL = "/quotes/" + strconv.FormatInt(r.PublishedID, 10)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// ProposalRecords is what quote Quote's page shows of the proposal behind
// its series: the vendor's messages and files and the editors' decisions;
// ViewerID is the reader and Editor says they are an editor.
type ProposalRecords struct {
	Quote       quote.Quote
	Messages    []proposal.Message
	Attachments []proposal.Attachment
	Reviews     []proposal.Review
	ViewerID    int64
	Editor      bool
}

// NewProposalPanel builds the proposal box of a quote page, with the links
// the reader may follow (an editor reviews a proposed quote or withdraws a
// file of a returned one, its author edits a returned one), or nil when
// the series never was a proposal.
func NewProposalPanel(in ProposalRecords) *ProposalPanel {
	q := in.Quote
	if len(in.Messages) == 0 && len(in.Attachments) == 0 && len(in.Reviews) == 0 && !quote.IsProposal(q.State) {
		return nil
	}
	id := strconv.FormatInt(q.ID, 10)
	p := &ProposalPanel{State: q.State, NotReviewed: q.State == quote.Proposed || q.State == quote.Returned}
	if q.State == quote.Proposed && in.Editor {
		p.ReviewURL = "/quotes/" + id + "/review"
	}
	if q.State == quote.Returned && q.CreatedBy == in.ViewerID {
		p.EditURL = "/quotes/" + id + "/proposal/edit"
	}
	for _, m := range in.Messages {
		p.Messages = append(p.Messages, ProposalMessage{Body: m.Body, At: m.CreatedAt.UTC().Format("2006-01-02 15:04")})
	}
	for _, a := range in.Attachments {
		// A name kept before proposal.Filename's rule is shown by it too.
		att := ProposalAttachment{Filename: proposal.Filename(a.Filename, a.ContentType), ContentType: a.ContentType, Size: FileSize(a.Size)}
		href := "/quotes/" + id + "/attachments/" + strconv.FormatInt(a.ID, 10)
		switch {
		case a.WithdrawnAt != nil:
			att.Withdrawn, att.WithdrawnBy, att.WithdrawnAt = true, a.WithdrawnBy, a.WithdrawnAt.UTC().Format("2006-01-02 15:04")
		default:
			att.URL = href
			// An editor withdraws a file of a proposal sent back
			// (docs/RULES.md §18.1).
			if in.Editor && q.State == quote.Returned && a.QuoteID == q.ID {
				att.WithdrawURL = href + "/withdraw"
			}
		}
		p.Attachments = append(p.Attachments, att)
	}
	for _, r := range in.Reviews {
		d := ProposalDecision{Decision: r.Decision, Comment: r.Comment, By: r.DeciderName, At: r.DecidedAt.UTC().Format("2006-01-02 15:04")}
		if r.PublishedID != 0 {
			d.PublishedURL = "/quotes/" + strconv.FormatInt(r.PublishedID, 10)
		}
		p.Decisions = append(p.Decisions, d)
	}
	return p
}

// TitleID is the form's title: a new proposal's or a returned one's.
func (v ProposalFormView) TitleID() string {
	if v.Form.IsNew {
		return "proposal.new.title"
	}
	return "proposal.edit.title"
}

// ReturnedComment is the comment with which an editor returned quote id,
// the newest first of reviews; "" when none did.
func ReturnedComment(reviews []proposal.Review, id int64) string {
	for _, r := range reviews {
		if r.QuoteID == id && r.Decision == quote.Returned {
			return r.Comment
		}
	}
	return ""
}

// NewProposalEditView is the edit form of returned proposal q and the
// values it starts with: the proposal's, the vendor's newest message
// (messages come newest first) and the comment it was returned with.
func NewProposalEditView(q quote.Quote, messages []proposal.Message, reviews []proposal.Review) (ProposalFormView, url.Values) {
	v := ProposalFormView{Form: QuoteFormView{Action: "/quotes/" + strconv.FormatInt(q.ID, 10) + "/proposal", QuoteID: q.ID,
		LockVersion: q.LockVersion, Version: q.Version}, ReturnedComment: ReturnedComment(reviews, q.ID)}
	values := quote.Values(q)
	if len(messages) > 0 {
		values.Set("vendor_message", messages[0].Body)
	}
	return v, values
}

// SetVendorProblems words the problems of the vendor's message and file
// (an empty ID when fine) on the form.
func (v *ProposalFormView) SetVendorProblems(tr *i18n.Translator, msgProblem string, fileProblem form.Message) {
	if msgProblem != "" {
		v.MessageError = tr.T(msgProblem, "Max", strconv.Itoa(proposal.MaxMessageChars))
	}
	if fileProblem.ID != "" {
		v.FileError = tr.T(fileProblem.ID, fileProblem.Args...)
	}
}

// SetRateProblem words a proposal refused by its author's hourly bound
// (docs/RULES.md §18.1): how many, and in how many minutes to try again.
func (v *ProposalFormView) SetRateProblem(tr *i18n.Translator, e *proposal.RateError) {
	id := "proposal.error.rate.other"
	if e.RetryMinutes() == 1 {
		id = "proposal.error.rate.one"
	}
	v.RateError = tr.T(id, "Count", e.RetryMinutes(), "Limit", e.Limit)
}

// proposalListTitle is the proposal list's title: the editors' queue or
// the reader's own proposals.
func proposalListTitle(ctx context.Context, queue bool) string {
	if queue {
		return T(ctx, "proposal.queue.title")
	}
	return T(ctx, "proposal.mine.title")
}
