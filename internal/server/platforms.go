package server

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"golang.org/x/text/language"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/store"
	"gpuquote/web"
)

const platformsPerPage = 50

// canEditSpecs reports whether the signed-in user may change platforms and
// GPU models (editors and admins), so pages show their edit links.
func canEditSpecs(c echo.Context) bool {
	cur := auth.CurrentUser(c)
	return cur != nil && (cur.Role == auth.RoleEditor || cur.Role == auth.RoleAdmin)
}

// specPathID parses the :id of a platform or GPU model page; anything but a
// positive integer is a page that does not exist.
func specPathID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.NewHTTPError(http.StatusNotFound)
	}
	return id, nil
}

// pageParam is the page number a list is asked for (1 when absent or
// nonsense).
func pageParam(c echo.Context) int {
	n, _ := strconv.Atoi(c.QueryParam("page"))
	return max(n, 1)
}

// specListURL is a list's URL with its non-empty filters.
func specListURL(path string, filters url.Values) string {
	for k, v := range filters {
		if len(v) == 0 || v[0] == "" {
			delete(filters, k)
		}
	}
	if len(filters) == 0 {
		return path
	}
	return path + "?" + filters.Encode()
}

// platformYears is how many whole calendar years a platform that started in
// since has operated by today: only the year is known, so the count is by
// calendar year (started 2021, today 2026 → 5).
func platformYears(since *int, today time.Time) (year, years int) {
	if since == nil {
		return 0, 0
	}
	return *since, max(today.Year()-*since, 0)
}

// qualState names a qualification's state: nil is "unknown", never "no".
func qualState(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "yes"
	default:
		return "no"
	}
}

func qualBadges(p market.Platform) []web.QualBadge {
	out := make([]web.QualBadge, len(market.PlatformQualifications))
	for i, q := range market.PlatformQualifications {
		out[i] = web.QualBadge{LabelID: "platform.qual." + q, State: qualState(p.Qualification(q))}
	}
	return out
}

func supportID(channel string) string {
	if channel == "" {
		return ""
	}
	return "platform.support." + channel
}

// platformList is GET /platforms: search, qualification filter, pages.
func (s *Server) platformList(c echo.Context) error {
	v := web.PlatformsView{Query: strings.TrimSpace(c.QueryParam("q")), CanEdit: canEditSpecs(c), States: []web.Option{
		{Value: "yes", LabelID: "platform.state.yes"}, {Value: "no", LabelID: "platform.state.no"},
		{Value: "unknown", LabelID: "platform.state.unknown"}}}
	for _, q := range market.PlatformQualifications {
		v.Qualifications = append(v.Qualifications, web.Option{Value: q, LabelID: "platform.qual." + q})
		if q == c.QueryParam("qual") {
			v.Qualification = q
		}
	}
	v.Has = "yes"
	if h := c.QueryParam("has"); h == "no" || h == "unknown" {
		v.Has = h
	}
	page := pageParam(c)
	rows, total, err := s.store.Platforms(c.Request().Context(), store.PlatformFilter{Query: v.Query,
		Qualification: v.Qualification, Has: v.Has, Offset: (page - 1) * platformsPerPage, Limit: platformsPerPage})
	if err != nil {
		return err
	}
	// "Nothing matches" rather than "nothing entered yet" also past the last page.
	v.Filtered = v.Query != "" || v.Qualification != "" || total > 0
	filters := url.Values{"q": {v.Query}, "qual": {v.Qualification}}
	if v.Qualification != "" {
		filters.Set("has", v.Has)
	}
	v.Pager = web.Pager{Page: page, PerPage: platformsPerPage, Total: total, Base: specListURL("/platforms", filters)}
	today := s.today()
	for _, p := range rows {
		since, years := platformYears(p.OperatingSince, today)
		v.Rows = append(v.Rows, web.PlatformRow{ID: p.ID, NameZH: p.NameZH, NameEN: p.NameEN, Country: p.Country,
			Currency: p.Currency, Since: since, Years: years, Quals: qualBadges(p), SupportID: supportID(p.SupportChannel)})
	}
	v.Page = s.page(c, "platform.list.title")
	return s.render(c, http.StatusOK, v.Page, web.Platforms(v))
}

// platformShow is GET /platforms/:id: every field of one platform.
func (s *Server) platformShow(c echo.Context) error {
	id, err := specPathID(c)
	if err != nil {
		return err
	}
	p, err := s.store.PlatformByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	since, years := platformYears(p.OperatingSince, s.today())
	v := web.PlatformView{ID: p.ID, NameZH: p.NameZH, NameEN: p.NameEN, Website: p.Website, Country: p.Country,
		Currency: p.Currency, Since: since, Years: years, Quals: qualBadges(p), GuaranteeNote: p.GuaranteeNote,
		SupportID: supportID(p.SupportChannel), Notes: p.Notes, LockVersion: p.LockVersion, UpdatedAt: p.UpdatedAt,
		CanEdit: canEditSpecs(c)}
	for _, g := range p.BillingGranularities {
		v.GranularityIDs = append(v.GranularityIDs, "granularity."+g)
	}
	if v.Terms, err = s.platformTermsView(c, p.ID); err != nil {
		return err
	}
	v.Page = s.page(c, "platform.detail.title")
	v.Page.Title = web.PlatformName(c.Request().Context(), p.NameZH, p.NameEN)
	return s.render(c, http.StatusOK, v.Page, web.Platform(v))
}

// platformForm fills the form's fixed choices around the values of p.
func platformForm(p market.Platform) web.PlatformForm {
	f := web.PlatformForm{ID: p.ID, NameZH: p.NameZH, NameEN: p.NameEN, Website: p.Website, Country: p.Country,
		Currency: p.Currency, GuaranteeNote: p.GuaranteeNote, SupportChannel: p.SupportChannel, Notes: p.Notes,
		LockVersion: p.LockVersion, Errors: web.Errors{}}
	if p.OperatingSince != nil {
		f.OperatingSince = strconv.Itoa(*p.OperatingSince)
	}
	for _, q := range market.PlatformQualifications {
		val := ""
		if b := p.Qualification(q); b != nil {
			val = strconv.FormatBool(*b)
		}
		f.Quals = append(f.Quals, web.QualField{Name: q, LabelID: "platform.qual." + q, Value: val})
	}
	f.Supports = []web.Option{{Value: "", LabelID: "platform.support.unknown"}}
	for _, ch := range market.PlatformSupportChannels {
		f.Supports = append(f.Supports, web.Option{Value: ch, LabelID: "platform.support." + ch})
	}
	for _, g := range market.PlatformGranularities {
		f.Granularities = append(f.Granularities, web.SpecCheckbox{Value: g, LabelID: "granularity." + g,
			Checked: slices.Contains(p.BillingGranularities, g)})
	}
	return f
}

// platformNew is GET /platforms/new.
func (s *Server) platformNew(c echo.Context) error {
	f := platformForm(market.Platform{Currency: "CNY"})
	f.Page = s.page(c, "platform.new")
	return s.render(c, http.StatusOK, f.Page, web.PlatformFormPage(f))
}

// platformEdit is GET /platforms/:id/edit.
func (s *Server) platformEdit(c echo.Context) error {
	id, err := specPathID(c)
	if err != nil {
		return err
	}
	p, err := s.store.PlatformByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	f := platformForm(p)
	f.Page = s.page(c, "platform.edit")
	return s.render(c, http.StatusOK, f.Page, web.PlatformFormPage(f))
}

var countryCode = regexp.MustCompile(`^[A-Z]{2}$`)

// validCountry accepts an ISO 3166-1 alpha-2 code in upper case that names
// a country or territory ("CN", "DE", "HK"): not a macro-region ("EU",
// "UN"), an unassigned code ("ZZ") or a deprecated alias ("UK" for GB).
func validCountry(s string) bool {
	if !countryCode.MatchString(s) {
		return false
	}
	r, err := language.ParseRegion(s)
	return err == nil && r.IsCountry() && r.Canonicalize().String() == s && r.ISO3() != "ZZZ"
}

// validWebsite accepts an absolute http or https URL with a host.
func validWebsite(s string) bool {
	if len(s) > 500 || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

// specText reads a trimmed text field of at most maxRunes characters.
func specText(c echo.Context, errs web.Errors, name string, maxRunes int) string {
	v := strings.TrimSpace(c.FormValue(name))
	if utf8.RuneCountInString(v) > maxRunes {
		errs.Set(name, "spec.error.too_long")
	}
	return v
}

// readPlatform binds and validates the platform form. It returns the
// platform to save and the form as typed, with every problem in its Errors.
func (s *Server) readPlatform(c echo.Context, id int64) (market.Platform, web.PlatformForm, error) {
	form, err := c.FormParams()
	if err != nil {
		return market.Platform{}, web.PlatformForm{}, err
	}
	errs := web.Errors{}
	p := market.Platform{ID: id}
	p.NameZH = specText(c, errs, "name_zh", 100)
	p.NameEN = specText(c, errs, "name_en", 100)
	if p.NameZH == "" && p.NameEN == "" {
		errs.Set("name_zh", "platform.error.name_required")
	}
	p.Website = strings.TrimSpace(c.FormValue("website"))
	if p.Website != "" && !validWebsite(p.Website) {
		errs.Set("website", "platform.error.website")
	}
	// Codes are stored upper case; "cn" is read as "CN".
	p.Country = strings.ToUpper(strings.TrimSpace(c.FormValue("country")))
	if p.Country != "" && !validCountry(p.Country) {
		errs.Set("country", "platform.error.country")
	}
	p.Currency = strings.ToUpper(strings.TrimSpace(c.FormValue("currency")))
	if !money.IsCurrency(p.Currency) {
		errs.Set("currency", "platform.error.currency")
	}
	since := strings.TrimSpace(c.FormValue("operating_since"))
	if since != "" {
		y, err := strconv.Atoi(since)
		if err != nil || y < 1990 || y > s.today().Year() || since != strconv.Itoa(y) {
			errs.Set("operating_since", "platform.error.operating_since")
		} else {
			p.OperatingSince = &y
		}
	}
	qualValues := map[string]string{}
	for _, q := range market.PlatformQualifications {
		raw := c.FormValue(q)
		qualValues[q] = raw
		switch raw {
		case "":
		case "true", "false":
			b := raw == "true"
			p.SetQualification(q, &b)
		default:
			errs.Set(q, "spec.error.choice")
		}
	}
	p.GuaranteeNote = specText(c, errs, "guarantee_note", 500)
	p.SupportChannel = c.FormValue("support_channel")
	if p.SupportChannel != "" && !slices.Contains(market.PlatformSupportChannels, p.SupportChannel) {
		errs.Set("support_channel", "spec.error.choice")
	}
	picked := form["billing_granularities"]
	p.BillingGranularities = []string{}
	for _, g := range picked {
		if !slices.Contains(market.PlatformGranularities, g) {
			errs.Set("billing_granularities", "spec.error.choice")
		}
	}
	// Stored finest first, each once, whatever order the boxes came in.
	for _, g := range market.PlatformGranularities {
		if slices.Contains(picked, g) {
			p.BillingGranularities = append(p.BillingGranularities, g)
		}
	}
	p.Notes = specText(c, errs, "notes", 5000)
	if id != 0 {
		lv, err := strconv.Atoi(c.FormValue("lock_version"))
		if err != nil || lv < 1 {
			return market.Platform{}, web.PlatformForm{}, echo.NewHTTPError(http.StatusBadRequest)
		}
		p.LockVersion = lv
	}

	f := platformForm(p)
	// The form shows what was typed, not what was understood.
	f.Website, f.Country, f.Currency, f.OperatingSince = p.Website, p.Country, p.Currency, since
	for i := range f.Quals {
		f.Quals[i].Value = qualValues[f.Quals[i].Name]
	}
	f.Errors = errs
	return p, f, nil
}

// platformCreate is POST /platforms.
func (s *Server) platformCreate(c echo.Context) error {
	p, f, err := s.readPlatform(c, 0)
	if err != nil {
		return err
	}
	if len(f.Errors) == 0 {
		created, err := s.store.CreatePlatform(c.Request().Context(), s.actor(c), p)
		var taken *store.NameTakenError
		switch {
		case errors.As(err, &taken):
			f.Errors.Set(taken.Field, "platform.error.name_taken")
		case err != nil:
			return err
		default:
			return s.redirectWithFlash(c, "/platforms/"+strconv.FormatInt(created.ID, 10), "ok", "platform.created")
		}
	}
	f.Page = s.page(c, "platform.new")
	return s.render(c, http.StatusUnprocessableEntity, f.Page, web.PlatformFormPage(f))
}

// platformUpdate is POST /platforms/:id. A save that names an older
// lock_version than the stored one lost to someone else's: the form comes
// back (409) with the reader's input and the current version, so saving
// again is a deliberate overwrite.
func (s *Server) platformUpdate(c echo.Context) error {
	id, err := specPathID(c)
	if err != nil {
		return err
	}
	p, f, err := s.readPlatform(c, id)
	if err != nil {
		return err
	}
	status := http.StatusUnprocessableEntity
	if len(f.Errors) == 0 {
		_, err := s.store.UpdatePlatform(c.Request().Context(), s.actor(c), p)
		var taken *store.NameTakenError
		switch {
		case errors.As(err, &taken):
			f.Errors.Set(taken.Field, "platform.error.name_taken")
		case errors.Is(err, store.ErrConflict):
			cur, err := s.store.PlatformByID(c.Request().Context(), id)
			if err != nil {
				return err
			}
			f.Conflict, f.LockVersion, status = true, cur.LockVersion, http.StatusConflict
		case err != nil:
			return err
		default:
			return s.redirectWithFlash(c, "/platforms/"+strconv.FormatInt(id, 10), "ok", "platform.updated")
		}
	}
	f.Page = s.page(c, "platform.edit")
	return s.render(c, status, f.Page, web.PlatformFormPage(f))
}
