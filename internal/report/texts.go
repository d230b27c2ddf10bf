package report

import (
	"net/url"

	"gpuquote/internal/form"
)

// Limits of a report's texts (the database checks them too).
const (
	MaxTitle   = 200
	MaxPurpose = 2000
	MaxComment = 2000
)

// ReadTexts reads a report's title and purpose.
func ReadTexts(values url.Values) (title, purpose string, errs form.Errors) {
	r := form.Values(values)
	title = r.RequiredText("title", MaxTitle)
	purpose = r.Paragraphs("purpose", MaxPurpose)
	return title, purpose, r.Errs
}
