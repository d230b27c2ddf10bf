package compare

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/own"
	"gpuquote/internal/tco"
)

// Viewer is who asks for a comparison: an own-hardware option is priced
// only for a viewer who may read it (own.MayRead, docs/RULES.md §8.6). The
// zero Viewer reads shared options only.
type Viewer struct {
	UserID int64
	Role   string
}

// OwnReader is what pricing own-hardware options reads; the store
// implements it. An unknown version answers own.ErrNotFound; a region
// with no electricity sample in force, own.ErrNoElectricitySample.
type OwnReader interface {
	OwnOptionVersionByID(ctx context.Context, id int64) (own.Version, error)
	OwnOptionByID(ctx context.Context, id int64) (own.Option, error)
	ResolveElectricity(ctx context.Context, v own.Version, day time.Time) (own.Electricity, error)
}

// CodeNoElectricitySample is the error of an option whose region has no
// electricity price in force on the comparison's day (docs/RULES.md §17.4).
const CodeNoElectricitySample = "no_electricity_sample"

// OwnSelection reads the own-hardware option versions of a page state
// (OwnParam, in the order given, each once, at most MaxOwnSelected);
// tooMany says more were asked for.
func OwnSelection(values url.Values) (ids []int64, tooMany bool) {
	seen := map[int64]bool{}
	for _, raw := range values[OwnParam] {
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || id <= 0 || seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	if len(ids) > MaxOwnSelected {
		return ids[:MaxOwnSelected], true
	}
	return ids, false
}

// ownSlot is one asked-for version as read: nil when the viewer may not
// see it or it does not exist (dropped like an unknown quote id); noPower
// says its region had no electricity sample in force.
type ownSlot struct {
	cand    OwnCandidate
	noPower bool
}

// loadOwn reads version id for the viewer on day; (nil, nil) drops it.
func loadOwn(ctx context.Context, r OwnReader, v Viewer, id int64, day time.Time) (*ownSlot, error) {
	ver, err := r.OwnOptionVersionByID(ctx, id)
	if errors.Is(err, own.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	opt, err := r.OwnOptionByID(ctx, ver.OptionID)
	if errors.Is(err, own.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	// An option the viewer may not read is not there for them: no figure,
	// no name (docs/RULES.md §17.4).
	if !own.MayRead(opt, v.UserID, v.Role) {
		return nil, nil
	}
	e, err := r.ResolveElectricity(ctx, ver, day)
	if errors.Is(err, own.ErrNoElectricitySample) {
		return &ownSlot{cand: OwnCandidate{Version: ver}, noPower: true}, nil
	} else if err != nil {
		return nil, err
	}
	return &ownSlot{cand: OwnCandidate{Version: ver, Electricity: e}}, nil
}

// Sensitivity variant keys (OwnVariant.Key).
const (
	VariantElectricity50  = "electricity_50"
	VariantElectricity150 = "electricity_150"
	VariantLife24         = "life_24"
	VariantLife36         = "life_36"
	VariantLife48         = "life_48"
)

// OwnVariants lists the sensitivity variants in the order they are shown.
var OwnVariants = []string{VariantElectricity50, VariantElectricity150, VariantLife24, VariantLife36, VariantLife48}

var (
	half          = decimal.New(5, -1)
	oneAndHalf    = decimal.New(15, -1)
	oneHour       = decimal.New(1, 0)
	hoursPastZero = tco.HoursPerMonth.Sub(oneHour)
)

// variant is o with one assumption moved: the kWh price at 50 % or 150 %
// (rounded half-up to tco.MaxPlaces, as every price is held), or another
// life.
func variant(o tco.Own, key string) tco.Own {
	switch key {
	case VariantElectricity50:
		o.KWhPrice = o.KWhPrice.Mul(half).Round(tco.MaxPlaces)
	case VariantElectricity150:
		o.KWhPrice = o.KWhPrice.Mul(oneAndHalf).Round(tco.MaxPlaces)
	case VariantLife24:
		o.LifeMonths = 24
	case VariantLife36:
		o.LifeMonths = 36
	case VariantLife48:
		o.LifeMonths = 48
	}
	return o
}

// RunOwn prices the own-hardware candidates with the comparison's profile
// and report currency (docs/RULES.md §8.6): each option's seven lines by
// tco.EvaluateOwn, converted at the dated rate for its currency as a
// rental is (never a fake conversion: without a rate it is not priced);
// its crossings with every priced rental row, in the order of rows; its
// tco under each sensitivity variant; and its cost curve.
func RunOwn(cands []OwnCandidate, noPower []bool, rows []Row, in Input) []OwnRow {
	out := make([]OwnRow, len(cands))
	opts := tco.Options{ReportCurrency: in.ReportCurrency, Rates: in.Rates}
	for i, c := range cands {
		row := OwnRow{OwnCandidate: c}
		if i < len(noPower) && noPower[i] {
			row.Errors = []tco.FieldError{{Field: "own.kwh_price", Code: CodeNoElectricitySample,
				MessageID: "compare.own.no_electricity", Args: map[string]any{"Region": c.Version.ElectricityRegion}}}
			out[i] = row
			continue
		}
		o := c.Version.Engine(c.Electricity.KWhPrice)
		res, err := tco.EvaluateOwn(o, in.Profile, opts)
		var ve *tco.ValidationError
		switch {
		case err == nil:
			row.Priced, row.Result = true, res
		case errors.As(err, &ve):
			row.Errors = ve.Fields
		default:
			row.Errors = []tco.FieldError{{Code: "cannot_evaluate", MessageID: ReasonCannotEvaluate}}
		}
		if !row.Priced {
			out[i] = row
			continue
		}
		for _, r := range rows {
			if !r.Priced {
				continue
			}
			x, err := tco.OwnCrossingsConverted(r.Quote.Engine(r.GPU), o, rowProfile(r.Candidate, in), opts)
			if err != nil {
				continue // a priced row always validates; nothing to say otherwise
			}
			row.Crossings = append(row.Crossings, OwnCrossing{QuoteID: r.Quote.ID, Crossings: x})
		}
		for _, key := range OwnVariants {
			if v, err := tco.EvaluateOwn(variant(o, key), in.Profile, opts); err == nil {
				row.Sensitivity = append(row.Sensitivity, OwnVariant{Key: key, TCO: v.TCO})
			}
		}
		row.Curve = ownCurve(o, in.Profile, opts)
		out[i] = row
	}
	return out
}

// ownCurve is the option's cost per month and server against running hours
// for the cost curves: its tco ÷ (M × N) at 1 h and at 730 h a month, the
// line through them carried back to 0 h (every line but electricity is
// the same whatever H, and electricity grows in step with H). It only
// illustrates (docs/RULES.md §8.4).
func ownCurve(o tco.Own, p tco.Profile, opts tco.Options) OwnCurve {
	per := decimal.New(int64(p.Months)*int64(p.Instances), 0)
	at := func(h decimal.Decimal) (decimal.Decimal, bool) {
		q := p
		q.HoursPerMonth = h
		r, err := tco.EvaluateOwn(o, q, opts)
		if err != nil || per.Sign() == 0 {
			return decimal.Decimal{}, false
		}
		return r.TCO.Div(per), true
	}
	lo, ok1 := at(oneHour)
	hi, ok2 := at(tco.HoursPerMonth)
	if !ok1 || !ok2 {
		return OwnCurve{}
	}
	slope := hi.Sub(lo).Div(hoursPastZero)
	return OwnCurve{Valid: true, At0: lo.Sub(slope), At730: hi}
}

// OwnCurve is an own-hardware option's line on the cost curves: its cost
// per month for one server at 0 h and at 730 h a month, in the report
// currency.
type OwnCurve struct {
	Valid      bool
	At0, At730 decimal.Decimal
}
