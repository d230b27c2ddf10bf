package skycatalog

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"gpuquote/internal/catalog"
	"gpuquote/internal/form"
)

// The fields of the import form.
const (
	FieldPlatform    = "platform"
	FieldAsOf        = "as_of"
	FieldSource      = "source"
	FieldSharing     = "sharing"
	FieldGranularity = "billing_granularity"
	FieldFile        = "file"
)

// DefaultSource is where the form says the file comes from until the
// editor says more: the public repository of SkyPilot's catalogs.
const DefaultSource = "https://github.com/skypilot-org/skypilot-catalog"

// DefaultSharing is the sharing a catalog's instance is taken to have: a
// whole card (a catalog lists instances with whole GPUs; a fraction of one
// is passed over).
var DefaultSharing = catalog.SharingDedicated

// Message IDs of the form's own problems.
const (
	MsgUnknownPlatform = "catalog.error.platform"
	MsgGranularity     = "catalog.error.granularity"
)

// earliestAsOf is the earliest day a catalog may be dated (the column's).
var earliestAsOf = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// ReadSettings reads the import form's settings (docs/RULES.md §7.7): the
// platform (an id that granularities knows; it returns the billing
// granularities the platform's record lists), the catalog's day (no later
// than today, the latest day on Earth, §7.4), the source (required, one
// line), the sharing (a whole card unless said) and the billing
// granularity: the one chosen, else the platform's when its record lists
// exactly one; a catalog never states it.
func ReadSettings(r *form.Reader, granularities func(platformID int64) ([]string, bool), today time.Time) Settings {
	var s Settings
	raw := strings.TrimSpace(r.Raw(FieldPlatform))
	var known []string
	id, err := strconv.ParseInt(raw, 10, 64)
	switch {
	case raw == "":
		r.Fail(FieldPlatform, form.MsgRequired)
	case err != nil || id <= 0:
		r.Fail(FieldPlatform, MsgUnknownPlatform)
	default:
		g, ok := granularities(id)
		if !ok {
			r.Fail(FieldPlatform, MsgUnknownPlatform)
		}
		s.PlatformID, known = id, g
	}
	s.AsOf, _ = r.Date(FieldAsOf, form.Date{Required: true, NotBefore: earliestAsOf, NotAfter: today})
	s.Source = strings.TrimSpace(r.RequiredText(FieldSource, 500))
	s.Sharing = r.Choice(FieldSharing, true, strs(catalog.Sharings)...)
	s.BillingGranularity = r.Choice(FieldGranularity, false, strs(catalog.Granularities)...)
	if s.BillingGranularity == "" && !r.Has(FieldGranularity) && !r.Has(FieldPlatform) && s.PlatformID != 0 {
		if len(known) == 1 && slices.Contains(strs(catalog.Granularities), known[0]) {
			s.BillingGranularity = known[0]
		} else {
			r.Fail(FieldGranularity, MsgGranularity)
		}
	}
	return s
}

func strs[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}
