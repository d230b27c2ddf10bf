package web

import (
	"strconv"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
)

// ProposalCorrections is what an editor changed of a proposal when
// publishing it (docs/RULES.md §18.1), shown on the proposal's page and
// on the version published from it: each field and each part of a cost
// line that differs, the vendor's value beside the published one.
type ProposalCorrections struct {
	// VendorURL is the proposal's page, "" where the reader may not read
	// it; PublishedURL the version published.
	VendorURL, PublishedURL string
	Rows                    []CorrectionRow
}

// CorrectionRow is one value the editor changed: a quote field (LabelID)
// or one part (PartID) of a cost line (LabelID the item's label).
type CorrectionRow struct {
	LabelID, PartID string
	Vendor          QuoteTerm
	Published       QuoteTerm
}

// NewProposalCorrections compares the vendor's version of a proposal with
// the version published from it; mayReadVendor says whether the reader may
// open the proposal itself.
func NewProposalCorrections(tr *i18n.Translator, vendor, published quote.Quote, mayReadVendor bool) *ProposalCorrections {
	c := &ProposalCorrections{PublishedURL: "/quotes/" + strconv.FormatInt(published.ID, 10)}
	if mayReadVendor {
		c.VendorURL = "/quotes/" + strconv.FormatInt(vendor.ID, 10)
	}
	diff := proposal.Correct(vendor, published)
	for _, name := range diff.Fields {
		f, _ := quote.FieldByName(name)
		c.Rows = append(c.Rows, CorrectionRow{LabelID: f.LabelID,
			Vendor: correctionField(tr, vendor, f), Published: correctionField(tr, published, f)})
	}
	for _, lc := range diff.Lines {
		it, _ := catalog.LookupItem(catalog.ItemKey(lc.Item))
		for _, part := range lc.Fields {
			c.Rows = append(c.Rows, CorrectionRow{LabelID: it.LabelID, PartID: lineFieldLabels[part],
				Vendor: correctionLine(tr, vendor, it, part), Published: correctionLine(tr, published, it, part)})
		}
	}
	return c
}

// correctionField is field f of q as the quote page shows it; the
// platform and GPU model by their names.
func correctionField(tr *i18n.Translator, q quote.Quote, f quote.Field) QuoteTerm {
	switch f.Name {
	case "platform":
		return QuoteTerm{Value: DisplayName(tr.Lang, q.PlatformNameZH, q.PlatformNameEN)}
	case "gpu_model":
		return QuoteTerm{Value: q.GPUVendor + " " + q.GPUName}
	}
	return quoteTerm(q, f, func(d decimal.NullDecimal) string { return FormatMoney(tr.Lang, d, q.Currency) })
}

// lineFieldLabels are the labels of a cost line's parts (quote.LineFields).
var lineFieldLabels = map[string]string{
	"status": "calc.line.status", "unit": "calc.line.unit", "unit_price": "calc.line.unit_price",
	"free_allowance": "calc.line.free_allowance", "note": "quote.line.note", "in_writing": "quote.line.in_writing",
}

// correctionLine is part of q's line of item it as the quote page shows it
// (a line the quote lacks is the unconfirmed one the page shows).
func correctionLine(tr *i18n.Translator, q quote.Quote, it catalog.Item, part string) QuoteTerm {
	l := quote.Line{Item: string(it.Key), Status: string(catalog.StatusUnconfirmed)}
	for _, x := range q.Lines {
		if x.Item == string(it.Key) {
			l = x
		}
	}
	switch part {
	case "status":
		return QuoteTerm{ValueID: catalog.Status(l.Status).LabelID()}
	case "unit":
		if l.Unit != "" {
			return QuoteTerm{ValueID: it.UnitLabelID(catalog.Unit(l.Unit))}
		}
	case "unit_price":
		return QuoteTerm{Value: FormatMoney(tr.Lang, l.UnitPrice, q.Currency)}
	case "free_allowance":
		return QuoteTerm{Value: specNumber(l.FreeAllowance)}
	case "note":
		return QuoteTerm{Value: l.Note}
	case "in_writing":
		return QuoteTerm{ValueID: yesNoLabel(&l.InWriting)}
	}
	return QuoteTerm{}
}
