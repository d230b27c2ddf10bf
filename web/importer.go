package web

import (
	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/quote"
)

// ImportView is the CSV import page: the form, the file format and, after
// a rejected upload, every problem found.
type ImportView struct {
	Page    Page
	MaxRows int
	// QuoteColumns, Items and LineColumns describe the format.
	QuoteColumns []string
	Items        []string
	LineColumns  []string
	// Required are the columns every row fills; Example a small file.
	Required []string
	Example  string
	// FileErrors are problems with the file as a whole, translated.
	FileErrors []string
	// RowErrors are the listed row problems (the first ones found);
	// TotalErrors how many were found in all; BadRows how many rows have
	// any.
	RowErrors   []ImportError
	TotalErrors int
	BadRows     int
}

// importValueIDs are the messages of the import page that say how values
// are written, in the order shown.
var importValueIDs = []string{"import.format.value.encoding", "import.format.value.decimal", "import.format.value.yesno",
	"import.format.value.date", "import.format.value.choice", "import.format.value.empty", "import.format.value.names",
	"import.format.value.text"}

// ImportError is one problem of one row; Column is empty when the row as a
// whole is wrong.
type ImportError struct {
	Row     int
	Column  string
	Message string
}

// NewImportView is the CSV import page with the file format described
// and no problems.
func NewImportView() ImportView {
	cols := make([]string, len(quote.Fields))
	for i, f := range quote.Fields {
		cols[i] = f.Name
	}
	return ImportView{MaxRows: quote.CSVMaxRows, QuoteColumns: cols, LineColumns: quote.LineFields, Items: catalog.ItemKeys(),
		Required: quote.CSVRequiredColumns, Example: quote.CSVExample}
}

// WithProblems is the import page v with the problems p of a rejected
// upload translated. quote.ReadCSV keeps only the first
// quote.CSVMaxErrors problems, so only those are translated; the rest are
// a count (docs/RULES.md §16.4).
func (v ImportView) WithProblems(tr *i18n.Translator, p quote.CSVProblems) ImportView {
	for _, m := range p.File {
		v.FileErrors = append(v.FileErrors, tr.T(m.ID, m.Args...))
	}
	v.BadRows, v.TotalErrors = p.BadRows, p.RowProblems
	for _, r := range p.Rows {
		v.RowErrors = append(v.RowErrors, ImportError{Row: r.Row, Column: r.Column, Message: tr.T(r.ID, r.Args...)})
	}
	return v
}
