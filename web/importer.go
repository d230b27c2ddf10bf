package web

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
