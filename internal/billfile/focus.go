package billfile

import (
	"errors"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/bill"
	"gpuquote/internal/billcheck"
	"gpuquote/internal/form"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
)

// FOCUS columns by their column IDs (FOCUS 1.2, specification/columns/*.md
// of the FOCUS_Spec repository; the same in 1.3), and gpuquote's custom
// column. FocusColumns are those ReadFOCUS reads; the others are
// WriteFOCUS's.
const (
	FocusBilledCost          = "BilledCost"
	FocusBillingCurrency     = "BillingCurrency"
	FocusChargePeriodStart   = "ChargePeriodStart"
	FocusChargePeriodEnd     = "ChargePeriodEnd"
	FocusChargeCategory      = "ChargeCategory"
	FocusChargeClass         = "ChargeClass"
	FocusChargeDescription   = "ChargeDescription"
	FocusConsumedQuantity    = "ConsumedQuantity"
	FocusConsumedUnit        = "ConsumedUnit"
	FocusPricingQuantity     = "PricingQuantity"
	FocusPricingUnit         = "PricingUnit"
	FocusContractedUnitPrice = "ContractedUnitPrice"
	FocusContractedCost      = "ContractedCost"
	FocusListCost            = "ListCost"
	FocusEffectiveCost       = "EffectiveCost"
	FocusSkuID               = "SkuId"
	FocusServiceName         = "ServiceName"
	FocusProviderName        = "ProviderName"
	// FocusItem is gpuquote's custom column: the bill item of the row,
	// which makes a mapping unnecessary.
	FocusItem = "x_GpuquoteItem"
)

// FocusColumns are the columns ReadFOCUS reads (found by name, in any
// order and case; the file's other columns are ignored). FocusRequired
// must be in the header, and at least one of FocusKeyColumns.
var (
	FocusColumns = []string{FocusBilledCost, FocusBillingCurrency, FocusChargePeriodStart, FocusChargePeriodEnd,
		FocusChargeCategory, FocusChargeClass, FocusChargeDescription, FocusConsumedQuantity, FocusPricingQuantity,
		FocusContractedUnitPrice, FocusContractedCost, FocusSkuID, FocusItem}
	FocusRequired   = []string{FocusBilledCost, FocusBillingCurrency, FocusChargePeriodStart, FocusChargePeriodEnd}
	FocusKeyColumns = []string{FocusItem, FocusSkuID, FocusChargeDescription}
)

// FOCUS charge categories (ChargeCategory's allowed values).
var focusCategories = []string{"Usage", "Purchase", "Tax", "Credit", "Adjustment"}

// FocusResult is what a FOCUS file holds for a bill.
type FocusResult struct {
	// Lines are the file's rows as bill lines, in file order: item,
	// quantity, amount = BilledCost, description = ChargeDescription. A
	// row no column or mapping gives an item has Item "": the lines are
	// usable only when Unmapped is empty.
	Lines []billcheck.Line
	// Sources are where each line came from, index for index.
	Sources []Source
	// Currency is the BillingCurrency every row shares.
	Currency string
	// Unmapped are the distinct keys of the rows without an item, in the
	// order first seen: what the import page asks the user for.
	Unmapped []Unmapped
	// Inconsistent are the lines whose ContractedUnitPrice ×
	// PricingQuantity is not their ContractedCost (FOCUS's own rule):
	// warnings, not problems.
	Inconsistent []int
}

// Ready reports whether every line has an item.
func (r FocusResult) Ready() bool { return len(r.Unmapped) == 0 }

// Source is where a line of a FOCUS file came from.
type Source struct {
	// Line is the file's line (the header is 1).
	Line int
	// By says what gave the line its item: FocusItem (the custom column),
	// bill.MappingSKU, bill.MappingDescription, or "" while unmapped.
	By string
	// SkuID is the row's SkuId (its ChargeDescription is the line's
	// Description): the keys a mapping is asked by.
	SkuID string
}

// Unmapped is one key of rows no mapping knows.
type Unmapped struct {
	// Kind is bill.MappingSKU when the rows have a SkuId, else
	// bill.MappingDescription; Key is that SkuId or ChargeDescription.
	Kind, Key string
	// Description is the ChargeDescription of the first such row.
	Description string
	// FirstLine is the line of the first such row; Rows counts them and
	// Billed sums their BilledCost.
	FirstLine int
	Rows      int
	Billed    decimal.Decimal
}

// Mapping gives the bill item of a SkuId (kind bill.MappingSKU) or a
// ChargeDescription (bill.MappingDescription), when one is known.
type Mapping func(kind, key string) (billcheck.Item, bool)

// ReadFOCUS reads a FOCUS cost-and-usage file (versions 1.2 and 1.3) of
// the calendar month starting at month as bill lines, one a row. Columns
// are found by name in any order (compared without regard to case);
// others are ignored. BilledCost, BillingCurrency, ChargePeriodStart and
// ChargePeriodEnd are required, and one of x_GpuquoteItem, SkuId and
// ChargeDescription.
//
// A row's item is its x_GpuquoteItem when that is filled in (it must be a
// bill item), else mapping's for its SkuId, else mapping's for its
// ChargeDescription; rows still without one are listed in Unmapped. The
// quantity is ConsumedQuantity, else PricingQuantity, else 0. Every row
// must lie in the month (start ≥ the month's first instant, end ≤ the
// next month's), share one BillingCurrency and not be a tax row. Any
// problem refuses the whole file as ReadCSV does; an error of another
// type means reading failed. mapping may be nil.
func ReadFOCUS(r io.Reader, month time.Time, mapping Mapping) (FocusResult, []RowError, error) {
	if month.IsZero() {
		return FocusResult{}, nil, errors.New("billfile: ReadFOCUS needs the bill's month")
	}
	start := time.Date(month.Year(), month.Month(), 1, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(0, 1, 0)
	monthText := billcheck.MonthText(start)

	var s sheet
	var index map[string]int
	header := func(head []string) bool {
		var dup, missing []string
		index, dup, missing, _ = quote.ColumnIndex(head, FocusColumns, FocusRequired)
		if len(missing) > 0 {
			s.fileProblem(msgMissingCols, "Columns", strings.Join(missing, ", "))
		}
		if !hasAny(index, FocusKeyColumns) {
			s.fileProblem(MsgKeyColumns)
		}
		if len(dup) > 0 {
			s.fileProblem(msgDuplicateCols, "Columns", strings.Join(dup, ", "))
		}
		return !s.failed()
	}

	var res FocusResult
	row := func(line int, rec []string) {
		get := func(col string) string {
			if i, ok := index[col]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		problem := func(col, id string, args ...any) { s.rowProblem(line, col, id, args...) }
		var l billcheck.Line
		var id string
		var args []any

		if l.Amount, id, args = readAmount(get(FocusBilledCost), amountRule{required: true, negative: true}, true); id != "" {
			problem(FocusBilledCost, id, args...)
		}
		switch cur := strings.ToUpper(get(FocusBillingCurrency)); {
		case cur == "":
			problem(FocusBillingCurrency, form.MsgRequired)
		case !money.IsCurrency(cur):
			problem(FocusBillingCurrency, msgCurrencyCode)
		case res.Currency == "":
			res.Currency = cur
		case cur != res.Currency:
			problem(FocusBillingCurrency, MsgCurrency, "Value", cur, "Currency", res.Currency)
		}
		rawStart, rawEnd := get(FocusChargePeriodStart), get(FocusChargePeriodEnd)
		from, okFrom := readDateTime(rawStart)
		if !okFrom {
			id, args := dateTimeProblem(rawStart)
			problem(FocusChargePeriodStart, id, args...)
		}
		to, okTo := readDateTime(rawEnd)
		if !okTo {
			id, args := dateTimeProblem(rawEnd)
			problem(FocusChargePeriodEnd, id, args...)
		}
		if okFrom && okTo {
			switch {
			case to.Before(from):
				problem(FocusChargePeriodEnd, MsgPeriod)
			case from.Before(start) || to.After(end):
				problem(FocusChargePeriodStart, MsgOutside, "Line", line, "Month", monthText, "Start", shorten(rawStart),
					"End", shorten(rawEnd))
			}
		}
		if cat := get(FocusChargeCategory); cat != "" {
			switch c := category(cat); c {
			case "Tax":
				problem(FocusChargeCategory, MsgTax, "Line", line)
			case "":
				problem(FocusChargeCategory, MsgCategory, "Value", shorten(cat))
			}
		}
		qCol := FocusConsumedQuantity
		if get(qCol) == "" {
			qCol = FocusPricingQuantity
		}
		if l.Quantity, id, args = readAmount(get(qCol), amountRule{}, true); id != "" {
			problem(qCol, id, args...)
		}
		l.Description = quote.UnguardCell(get(FocusChargeDescription))
		if id, args = readDescription(l.Description); id != "" {
			problem(FocusChargeDescription, id, args...)
		}
		src := Source{Line: line, SkuID: get(FocusSkuID)}
		// A SkuId is a mapping's key, stored as a description is.
		if id, args = readDescription(src.SkuID); id != "" {
			problem(FocusSkuID, id, args...)
		}
		if v := get(FocusItem); v != "" {
			if l.Item, id, args = readItem(v); id != "" {
				problem(FocusItem, id, args...)
			}
			src.By = FocusItem
		} else if src.SkuID == "" && l.Description == "" {
			problem("", MsgNoKey)
		} else if it, by, ok := mapRow(mapping, src.SkuID, l.Description); ok {
			l.Item, src.By = it, by
		}
		if !consistent(get) {
			res.Inconsistent = append(res.Inconsistent, line)
		}
		if !s.failed() { // once a row is wrong, no line is kept
			res.Lines = append(res.Lines, l)
			res.Sources = append(res.Sources, src)
		}
	}
	if err := s.scan(r, MaxFOCUSBytes, header, row); err != nil {
		return FocusResult{}, nil, err
	}
	if errs, err := s.result(); err != nil {
		return FocusResult{}, errs, err
	}
	res.Unmapped = unmapped(res.Lines, res.Sources)
	return res, nil, nil
}

// Resolve gives the lines without an item the item mapping now knows
// (after the user's answers) and lists what is still unmapped.
func (r FocusResult) Resolve(mapping Mapping) FocusResult {
	out := r
	out.Lines = append([]billcheck.Line(nil), r.Lines...)
	out.Sources = append([]Source(nil), r.Sources...)
	for i := range out.Lines {
		if out.Lines[i].Item != "" {
			continue
		}
		if it, by, ok := mapRow(mapping, out.Sources[i].SkuID, out.Lines[i].Description); ok {
			out.Lines[i].Item, out.Sources[i].By = it, by
		}
	}
	out.Unmapped = unmapped(out.Lines, out.Sources)
	return out
}

// mapRow asks mapping for a row's item: by its SkuId first, then by its
// ChargeDescription. An answer that is not a bill item is no answer.
func mapRow(mapping Mapping, sku, desc string) (billcheck.Item, string, bool) {
	if mapping == nil {
		return "", "", false
	}
	if sku != "" {
		if it, ok := mapping(bill.MappingSKU, sku); ok && it.Valid() {
			return it, bill.MappingSKU, true
		}
	}
	if desc != "" {
		if it, ok := mapping(bill.MappingDescription, desc); ok && it.Valid() {
			return it, bill.MappingDescription, true
		}
	}
	return "", "", false
}

// unmapped lists the distinct keys of the lines without an item: the
// SkuId where the row has one, else its ChargeDescription.
func unmapped(lines []billcheck.Line, sources []Source) []Unmapped {
	var out []Unmapped
	at := map[[2]string]int{}
	for i, l := range lines {
		if l.Item != "" {
			continue
		}
		k := [2]string{bill.MappingSKU, sources[i].SkuID}
		if k[1] == "" {
			k = [2]string{bill.MappingDescription, l.Description}
		}
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			out = append(out, Unmapped{Kind: k[0], Key: k[1], Description: l.Description, FirstLine: sources[i].Line})
		}
		out[j].Rows++
		out[j].Billed = money.Add(out[j].Billed, l.Amount)
	}
	return out
}

// category is ChargeCategory's allowed value v names (compared without
// regard to case), "" for none.
func category(v string) string {
	for _, c := range focusCategories {
		if strings.EqualFold(v, c) {
			return c
		}
	}
	return ""
}

// consistent checks FOCUS's rule that ContractedUnitPrice ×
// PricingQuantity is ContractedCost (not for a correction): the product
// rounded to the places the cost is written with, at least the cent's,
// must equal it. A row missing one of the three, or with one that is not
// a number, is not checked (true).
func consistent(get func(string) string) bool {
	if strings.EqualFold(get(FocusChargeClass), "Correction") {
		return true
	}
	price, err1 := parseFOCUSNumber(get(FocusContractedUnitPrice))
	qty, err2 := parseFOCUSNumber(get(FocusPricingQuantity))
	cost, err3 := parseFOCUSNumber(get(FocusContractedCost))
	if err1 != nil || err2 != nil || err3 != nil {
		return true
	}
	places := -cost.Exponent()
	if places < 2 {
		places = 2
	}
	return money.Round(money.Product(price, qty), places).Equal(cost)
}

// readDateTime reads a FOCUS date/time: ISO 8601 in UTC,
// 2026-11-01T00:00:00Z, with fractional seconds or a numeric offset (taken
// to UTC) also read, and a space for the T; a date alone is its midnight,
// UTC.
func readDateTime(v string) (time.Time, bool) {
	if len(v) == len("2006-01-02") {
		t, err := time.Parse(time.DateOnly, v)
		return t, err == nil
	}
	if len(v) > 10 && v[10] == ' ' {
		v = v[:10] + "T" + v[11:]
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// dateTimeProblem is the message of a date/time that cannot be read, as
// the message ID and its arguments.
func dateTimeProblem(v string) (string, []any) {
	if v == "" {
		return form.MsgRequired, nil
	}
	return MsgDateTime, []any{"Value", shorten(v)}
}

func hasAny(index map[string]int, cols []string) bool {
	for _, c := range cols {
		if _, ok := index[c]; ok {
			return true
		}
	}
	return false
}
