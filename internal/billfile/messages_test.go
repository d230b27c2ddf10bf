package billfile_test

import (
	"testing"

	"gpuquote/internal/billcheck"
	"gpuquote/internal/billfile"
	"gpuquote/internal/form"
	"gpuquote/internal/i18n"
)

// TestMessagesExist: every message a bill file's problem or export can
// show is in both catalogs (the export's labels are checked by
// TestDocument, rendered).
func TestMessagesExist(t *testing.T) {
	c, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{billfile.MsgItem, billfile.MsgText, billfile.MsgTooLarge, billfile.MsgKeyColumns, billfile.MsgNoKey,
		billfile.MsgDateTime, billfile.MsgPeriod, billfile.MsgOutside, billfile.MsgTax, billfile.MsgCategory,
		billfile.MsgCurrency, form.MsgPlaces(billcheck.MaxAmountPlaces), form.MsgRequired, form.MsgNegative,
		form.MsgTooLarge, form.MsgTooLong, form.MsgLineBreak, form.MsgNumber, form.MsgFullWidth, form.MsgCommaDecimal,
		form.MsgThousands, "form.error.currency", "import.error.empty", "import.error.csv", "import.error.encoding",
		"import.error.field_count.one", "import.error.field_count.other", "import.error.unknown_columns",
		"import.error.duplicate_columns", "import.error.missing_columns", "import.error.too_many_rows"}
	for _, it := range billcheck.Items() {
		ids = append(ids, it.LabelID())
	}
	for _, v := range billcheck.Verdicts {
		ids = append(ids, v.LabelID())
	}
	for _, id := range ids {
		for _, l := range i18n.Langs {
			if !c.Has(l, id) {
				t.Errorf("%s has no message %q", l, id)
			}
		}
	}
}
