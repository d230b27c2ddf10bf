package pages

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/extract"
	"gpuquote/internal/pdftext"
	"gpuquote/internal/proposal"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// Reading the vendor's message into a quote form (docs/RULES.md §22.11):
// the form's "read" button posts the whole form; the message (and the
// text of an attached PDF) fills the fields the reader left alone, and the
// form comes back marked. Nothing is stored, published or proposed: only
// the form's own submit button does that.

// wantsReading says whether the form was posted by its "read" button.
func wantsReading(values url.Values) bool { return values.Get("read") != "" }

// readVendorText reads text into values: the fields the reader left empty
// or at the new form's defaults take what the message states.
func (s *Handlers) readVendorText(c echo.Context, text string, values url.Values) (*web.ReadingInput, error) {
	refs, err := s.QuoteRefs(c.Request().Context())
	if err != nil {
		return nil, err
	}
	res := extract.Read(text)
	defaults := web.QuoteFormDefaults(s.Today(), nil)
	untouched := func(field, v string) bool {
		return v == "" || field != "as_of" && defaults.Get(field) == v
	}
	fill := extract.Prefill(res, values.Get, untouched, refs)
	for _, v := range fill.Set {
		values.Set(v.Field, v.Value)
	}
	return &web.ReadingInput{Fill: fill, Result: res}, nil
}

// fileText is the text of a vendor's file to read beside the message, and
// the note saying what became of it ("" without a file).
func fileText(file *store.NewAttachment) (text, noteID string) {
	if file == nil {
		return "", ""
	}
	if file.ContentType != "application/pdf" {
		return "", "extract.file.not_pdf"
	}
	t, err := pdftext.Text(file.Data)
	switch {
	case errors.Is(err, pdftext.ErrNoText):
		return "", "extract.file.no_text"
	case err != nil:
		return "", "extract.file.unreadable"
	}
	return t, "extract.file.read"
}

// readProposalForm answers a proposal form posted by its "read" button:
// the message and the attached PDF's text fill the form, shown again with
// what was read (200); a message that is missing (with no file text) or
// too long is the message's problem (422). Nothing is stored.
func (s *Handlers) readProposalForm(c echo.Context, values url.Values, v web.ProposalFormView) error {
	if err := storableForm(values); err != nil {
		return err
	}
	file, msgProblem, fileProblem := readVendorWords(c, values)
	text, noteID := fileText(file)
	if msgProblem == "proposal.error.message_required" && strings.TrimSpace(text) != "" {
		msgProblem = "" // the file's text alone is read
	}
	if msgProblem != "" || fileProblem.ID != "" {
		v.SetVendorProblems(server.Translator(c), msgProblem, fileProblem)
		return s.renderProposalForm(c, http.StatusUnprocessableEntity, v, values, nil)
	}
	all := values.Get("vendor_message")
	if text != "" {
		all = strings.TrimSpace(all + "\n\n" + text)
	}
	read, err := s.readVendorText(c, all, values)
	if err != nil {
		return err
	}
	if file != nil {
		read.FileNoteID, read.FileName = noteID, file.Filename
	}
	v.Form.Read = read
	return s.renderProposalForm(c, http.StatusOK, v, values, nil)
}

// readQuoteForm answers the editors' new-quote form posted by its "read"
// button: the pasted message fills the form, shown again with what was
// read (200); a missing or too long message is its problem (422).
func (s *Handlers) readQuoteForm(c echo.Context, values url.Values, v web.QuoteFormView) error {
	text := values.Get("vendor_text")
	v.VendorText = text
	if problem := proposal.CheckMessage(text); problem != "" {
		v.VendorTextError = server.Translator(c).T(problem, "Max", strconv.Itoa(proposal.MaxMessageChars))
		return s.renderQuoteForm(c, http.StatusUnprocessableEntity, v, values, nil)
	}
	read, err := s.readVendorText(c, text, values)
	if err != nil {
		return err
	}
	v.Read = read
	return s.renderQuoteForm(c, http.StatusOK, v, values, nil)
}
