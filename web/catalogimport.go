package web

import (
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/quote"
	"gpuquote/internal/skycatalog"
)

// CatalogFormView is the SkyPilot catalog import's form (docs/RULES.md
// §7.7): the platform, the catalog's day, its source, the sharing and
// billing granularity a catalog does not state, the file; after a refused
// upload, every problem; and the recent imports.
type CatalogFormView struct {
	Page Page
	// Platforms are the choices; the typed values follow.
	Platforms                                    []Option
	Platform, AsOf, Source, Sharing, Granularity string
	Errors                                       Errors
	// Problems are those of a refused file (the CSV import's words).
	Problems ImportView
	// Conflict says a series gained a draft while the file was imported.
	Conflict bool
	MaxRows  int
	MaxMiB   int
	Recent   []CatalogImportRow
}

// Sharings are the sharing kinds offered.
func (v CatalogFormView) Sharings() []string { return strs(catalog.Sharings) }

// Granularities are the billing granularities offered.
func (v CatalogFormView) Granularities() []string { return strs(catalog.Granularities) }

func strs[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

// CatalogImportRow is one recent import in the form's list.
type CatalogImportRow struct {
	ID       int64
	Platform string
	AsOf     string
	At       string
	By       string
	New      int
	Changed  int
	Waiting  int
}

// Href is the import's page.
func (r CatalogImportRow) Href() string { return CatalogImportPath(r.ID) }

// CatalogImportPath is the page of import id.
func CatalogImportPath(id int64) string {
	return "/quotes/import/skypilot/" + strconv.FormatInt(id, 10)
}

// NewCatalogFormView is the blank form: dated today, the repository as
// source, a whole card, the platform's own granularity.
func NewCatalogFormView(platforms []Option, today time.Time) CatalogFormView {
	return CatalogFormView{Platforms: platforms, AsOf: FormatDate(today), Source: skycatalog.DefaultSource,
		Sharing: string(skycatalog.DefaultSharing), Errors: Errors{}, MaxRows: skycatalog.MaxRows, MaxMiB: skycatalog.MaxBytes >> 20}
}

// CatalogImportView is an import's page: what it read and did, and its
// drafts to review and publish in one step.
type CatalogImportView struct {
	Page      Page
	ID        int64
	Platform  string
	AsOf      string
	Source    string
	SourceURL string
	FileName  string
	By        string
	At        string
	Summary   skycatalog.Summary
	Rows      []CatalogDraftRow
	// Drafts counts the rows still drafts (the ones publish takes);
	// Published those published since.
	Drafts, Published int
}

// CatalogDraftRow is one quote the import made, as it is now.
type CatalogDraftRow struct {
	ID          int64
	Href        string
	Label       string
	GPU         string
	GPUCount    int
	Region      string
	State       string
	Version     int
	LockVersion int
	// New says it started a series; otherwise Old* are the prices of the
	// version it follows.
	New        bool
	OldHourly  string
	NewHourly  string
	OldSpot    string
	NewSpot    string
	SpotMoved  bool
	HourlyMove string
}

// IsDraft says the row can still be published.
func (r CatalogDraftRow) IsDraft() bool { return r.State == quote.Draft }

// CatalogDraft is what NewCatalogImportView reads of each quote an import
// made.
type CatalogDraft struct {
	ID, SeriesID               int64
	Version, LockVersion       int
	State, Label, GPU          string
	GPUCount                   int
	Currency, Region           string
	Hourly, SpotHourly         decimal.NullDecimal
	PrevID                     int64
	PrevCurrency               string
	PrevHourly, PrevSpotHourly decimal.NullDecimal
}

// NewCatalogImportView builds an import's page from its record and its
// quotes (the store's order).
func NewCatalogImportView(tr *i18n.Translator, id int64, platform string, asOf time.Time, source, fileName, by string,
	at time.Time, s skycatalog.Summary, drafts []CatalogDraft) CatalogImportView {
	v := CatalogImportView{ID: id, Platform: platform, AsOf: FormatDate(asOf), Source: source, SourceURL: SourceURL(source),
		FileName: fileName, By: by, At: at.UTC().Format("2006-01-02 15:04"), Summary: s}
	for _, d := range drafts {
		r := CatalogDraftRow{ID: d.ID, Href: "/quotes/" + strconv.FormatInt(d.ID, 10), Label: d.Label, GPU: d.GPU, GPUCount: d.GPUCount,
			Region: d.Region, State: d.State, Version: d.Version, LockVersion: d.LockVersion, New: d.PrevID == 0,
			NewHourly: FormatMoney(tr.Lang, d.Hourly, d.Currency), NewSpot: FormatMoney(tr.Lang, d.SpotHourly, d.Currency)}
		if !r.New {
			r.OldHourly = FormatMoney(tr.Lang, d.PrevHourly, d.PrevCurrency)
			r.OldSpot = FormatMoney(tr.Lang, d.PrevSpotHourly, d.PrevCurrency)
			r.SpotMoved = r.OldSpot != r.NewSpot
			if d.PrevCurrency == d.Currency {
				r.HourlyMove = ChangeText(tr, d.PrevHourly, d.Hourly)
			}
		}
		if r.IsDraft() {
			v.Drafts++
		} else if d.State == quote.Published || d.State == quote.Archived {
			v.Published++
		}
		v.Rows = append(v.Rows, r)
	}
	return v
}
