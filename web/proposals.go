package web

import (
	"strconv"
	"strings"

	"gpuquote/internal/i18n"
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
	// ReturnedComment is the editor's comment on a returned proposal.
	ReturnedComment string
}

// HasErrors says the form came back with a problem.
func (v ProposalFormView) HasErrors() bool {
	return len(v.Form.Errors) > 0 || v.MessageError != "" || v.FileError != ""
}

// ProposalMessage is one vendor's message on a quote page.
type ProposalMessage struct {
	Body string
	At   string
}

// ProposalAttachment is one vendor's file, linked for download.
type ProposalAttachment struct {
	URL, Filename, ContentType, Size string
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
