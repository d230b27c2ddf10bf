package web

import (
	"context"
	"strconv"
	"strings"
	"time"

	"gpuquote/internal/compare"
	"gpuquote/internal/facts"
	"gpuquote/internal/i18n"
	"gpuquote/internal/report"
)

// FactRow is one platform fact as pages show it (docs/RULES.md §18.3).
type FactRow struct {
	Kind  facts.Kind
	Value facts.Value
	// Minutes is the measured number, nil without one.
	Minutes *int
	Note    string
	Source  string
	AsOf    string
	TrialID int64
	Sample  bool
	// By names who recorded it ("" for the system).
	By string
	// Recorded is false for a fact never recorded (unknown).
	Recorded bool
}

func factRow(f facts.Fact) FactRow {
	r := FactRow{Kind: f.Kind, Value: f.Value, Minutes: f.Minutes, Note: f.Note, Source: f.Source, TrialID: f.TrialID,
		Sample: f.Sample, By: f.CreatedByName, Recorded: f.ID != 0}
	if r.Recorded {
		r.AsOf = FormatDate(f.AsOf)
	}
	return r
}

// FactHistory is one kind of fact: the record in force and every record
// of the kind, newest first.
type FactHistory struct {
	Current FactRow
	History []FactRow
}

// PlatformFactsView is the platform page's section on its facts.
type PlatformFactsView struct {
	PlatformID int64
	Facts      []FactHistory
	CanEdit    bool
}

// AddURL is the editors' form of a new fact, optionally for one kind.
func (v PlatformFactsView) AddURL(k facts.Kind) string {
	u := "/platforms/" + strconv.FormatInt(v.PlatformID, 10) + "/facts"
	if k != "" {
		u += "?kind=" + string(k)
	}
	return u
}

// NewPlatformFactsView builds the section from every record of the
// platform (newest first), with the facts in force on today.
func NewPlatformFactsView(platformID int64, records []facts.Fact, today time.Time, canEdit bool) PlatformFactsView {
	v := PlatformFactsView{PlatformID: platformID, CanEdit: canEdit}
	inForce := facts.InForce(records, today)
	for _, k := range facts.Kinds {
		h := FactHistory{Current: factRow(inForce[k])}
		for _, f := range records {
			if f.Kind == k {
				h.History = append(h.History, factRow(f))
			}
		}
		v.Facts = append(v.Facts, h)
	}
	return v
}

// FactForm is the editors' form of a new dated fact: every value as typed.
type FactForm struct {
	Page         Page
	PlatformID   int64
	PlatformName string
	Kind, Value  string
	Minutes      string
	Note, Source string
	AsOf         string
	TrialID      string
	Errors       Errors
}

// Action is where the form posts.
func (f FactForm) Action() string {
	return "/platforms/" + strconv.FormatInt(f.PlatformID, 10) + "/facts"
}

// Back is the platform's page, at its facts.
func (f FactForm) Back() string {
	return "/platforms/" + strconv.FormatInt(f.PlatformID, 10) + "#facts"
}

// CompareFactsPlatform is one platform of a comparison with its facts in
// force, for the compare page's facts block.
type CompareFactsPlatform struct {
	ID      int64
	Name    string
	URL     string
	Facts   []FactRow
	Unknown int
	Known   int
}

// CompareFacts is the compare page's facts block for the platforms of its
// rows (compare.RowFacts).
func CompareFacts(ctx context.Context, pfs []compare.PlatformFacts) []CompareFactsPlatform {
	var out []CompareFactsPlatform
	for _, pf := range pfs {
		p := CompareFactsPlatform{ID: pf.PlatformID, Name: PlatformName(ctx, pf.NameZH, pf.NameEN),
			URL: "/platforms/" + strconv.FormatInt(pf.PlatformID, 10) + "#facts"}
		for _, k := range facts.Kinds {
			p.Facts = append(p.Facts, factRow(pf.InForce[k]))
		}
		p.Unknown = len(pf.Unknown)
		p.Known = len(facts.Kinds) - p.Unknown
		out = append(out, p)
	}
	return out
}

// CompareFactKind is one row of the compare page's facts matrix: a kind
// of fact, its answer for each platform (in the order of the platforms),
// and, when any of them is unknown, the platforms to ask, named once in
// the reader's language (docs/RULES.md §18.3).
type CompareFactKind struct {
	Kind  facts.Kind
	Cells []FactRow
	// Ask names the platforms whose answer is unknown, "" when none is.
	Ask string
}

// CompareFactKinds turns the platforms' blocks into the matrix's rows, in
// facts.Kinds order: each question is asked once, naming every platform
// that has no answer to it.
func CompareFactKinds(ctx context.Context, ps []CompareFactsPlatform) []CompareFactKind {
	sep := ", "
	if Lang(ctx) == "zh-CN" {
		sep = "、"
	}
	out := make([]CompareFactKind, 0, len(facts.Kinds))
	for i, k := range facts.Kinds {
		row := CompareFactKind{Kind: k, Cells: make([]FactRow, 0, len(ps))}
		var ask []string
		for _, p := range ps {
			r := FactRow{Kind: k, Value: facts.Unknown}
			if i < len(p.Facts) && p.Facts[i].Kind == k {
				r = p.Facts[i]
			}
			row.Cells = append(row.Cells, r)
			if r.Value == facts.Unknown {
				ask = append(ask, p.Name)
			}
		}
		row.Ask = strings.Join(ask, sep)
		out = append(out, row)
	}
	return out
}

// factMark is the symbol beside a fact's answer (the words follow it).
func factMark(v facts.Value) string {
	switch v {
	case facts.Yes:
		return "✓"
	case facts.No:
		return "✗"
	}
	return "?"
}

// factValueText is a fact's answer in words: the minutes of a measured
// yes, "not achieved" for a measured no, else yes / no / unknown.
func factValueText(ctx context.Context, r FactRow) string {
	switch {
	case r.Kind.Measured() && r.Value == facts.Yes && r.Minutes != nil:
		return Plural(ctx, "facts.minutes", *r.Minutes)
	case r.Kind.Measured() && r.Value == facts.No:
		return T(ctx, "facts.value.measured_no")
	case r.Value == facts.Yes || r.Value == facts.No:
		return T(ctx, "facts.value."+string(r.Value))
	}
	return T(ctx, "facts.value.unknown")
}

// factBadgeClass is the badge class of an answer.
func factBadgeClass(v facts.Value) string {
	switch v {
	case facts.Yes:
		return "badge badge-yes"
	case facts.No:
		return "badge badge-no"
	}
	return "badge badge-unknown"
}

// AddCompareFacts fills the compare page's facts block: the platforms of
// the rows shown, with their facts in force on the comparison's day.
func AddCompareFacts(ctx context.Context, v *CompareView, cmp *compare.Comparison) {
	if len(cmp.Rows) == 0 || cmp.Facts == nil {
		return
	}
	v.Facts = CompareFacts(ctx, compare.RowFacts(cmp.Rows, cmp.Facts, cmp.In.Today))
}

// KeepTyped puts what was typed back in the form: get reads a posted
// value as typed; note is the note as posted.
func (f *FactForm) KeepTyped(get func(string) string, note string) {
	f.Kind, f.Value, f.Minutes, f.Source, f.AsOf, f.TrialID = get("kind"), get("value"), get("minutes"),
		get("source"), get("as_of"), get("trial_id")
	f.Note = note
}

// ReportFacts are a report's compared platforms with the facts it froze
// (docs/RULES.md §18.3), shown as the compare page's facts section shows
// those in force today.
func ReportFacts(tr *i18n.Translator, snap report.Snapshot) []CompareFactsPlatform {
	var out []CompareFactsPlatform
	for _, pf := range snap.Facts {
		p := CompareFactsPlatform{ID: pf.PlatformID, Name: DisplayName(tr.Lang, pf.NameZH, pf.NameEN),
			URL: "/platforms/" + strconv.FormatInt(pf.PlatformID, 10) + "#facts"}
		for _, a := range pf.Facts {
			f := facts.Fact{ID: a.FactID, Kind: facts.Kind(a.Kind), Value: facts.Value(a.Value), Minutes: a.Minutes, Source: a.Source}
			f.AsOf, _ = time.Parse(time.DateOnly, a.AsOf)
			p.Facts = append(p.Facts, factRow(f))
			if f.Value == facts.Unknown {
				p.Unknown++
			}
		}
		p.Known = len(p.Facts) - p.Unknown
		out = append(out, p)
	}
	return out
}
