package testutil

import (
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/quote"
)

// FullQuote is a valid quote in which every field of quote.Fields holds a
// value other than its zero or default, chosen from the field's own
// description (so a field added to the list is filled without changing
// this), with every line answered: what round-trip tests carry through
// every way a quote is written and read.
func FullQuote(platformID, gpuModelID int64, today time.Time) quote.Quote {
	var q quote.Quote
	for i, f := range quote.Fields {
		switch p := f.Value(&q).(type) {
		case *int64:
			*p = platformID
			if f.Name == "gpu_model" {
				*p = gpuModelID
			}
		case *string:
			switch f.Kind {
			case quote.KindCurrency:
				*p = "EUR"
			case quote.KindChoice:
				*p = f.Choices[len(f.Choices)-1]
			default:
				*p = fmt.Sprintf("%s: text with, a comma, \"quotes\" and 中文 %d", f.Name, i)
			}
		case *decimal.NullDecimal:
			*p = decimal.NewNullDecimal(fieldDecimal(f, i))
		case *decimal.Decimal:
			*p = fieldDecimal(f, i)
		case *int:
			*p = fieldInt(f)
		case **int:
			n := fieldInt(f)
			*p = &n
		case **bool:
			b := i%2 == 0
			*p = &b
		case *bool:
			*p = false // the default of prices_include_tax is true
		case *time.Time:
			*p = today.AddDate(0, 0, -3)
		default:
			panic("testutil: no value for quote field " + f.Name)
		}
	}
	statuses := []catalog.Status{catalog.StatusCharged, catalog.StatusIncluded, catalog.StatusNotApplicable, catalog.StatusUnconfirmed}
	for i, it := range catalog.Items {
		l := quote.Line{Item: string(it.Key), Status: string(statuses[i%len(statuses)]), Note: "note " + strconv.Itoa(i),
			InWriting: i%3 != 0}
		if l.Status == string(catalog.StatusCharged) {
			l.Unit = string(it.Units[len(it.Units)-1])
			l.UnitPrice = decimal.NewNullDecimal(decimal.New(int64(1234567+i), -6))
			if it.Key != catalog.ItemBundledAddon {
				l.FreeAllowance = decimal.New(int64(5+i), -1)
			}
		}
		q.Lines = append(q.Lines, l)
	}
	return q
}

// fieldDecimal is a value the field allows with as many places as it
// allows (a percentage stays at most 100; a tax rate below 1).
func fieldDecimal(f quote.Field, i int) decimal.Decimal {
	d := decimal.New(int64(10+i), 0).Add(decimal.New(1, -int32(f.Places)))
	if f.MaxValue.Valid {
		d = decimal.NewFromInt(1).Add(decimal.New(1, -int32(f.Places)))
	}
	if f.Name == "tax_rate" {
		d = decimal.New(6, -2).Add(decimal.New(1, -int32(f.Places)))
	}
	return d
}

// fieldInt is a whole number within the field's bounds, neither end.
func fieldInt(f quote.Field) int {
	if f.Max-f.Min >= 2 {
		return f.Min + (f.Max-f.Min)/2
	}
	return f.Max
}
