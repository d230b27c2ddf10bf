package api

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/form"
	"gpuquote/internal/quote"
)

// apiAvailRequest is the body of POST /api/v1/availability: the
// availability form's fields, each of one JSON type (docs/RULES.md §19.5).
// The platform and the GPU model are named as a quote sent to the API
// names them: by name or alias (platform, gpu_model), as the CSV import
// and the proposal API resolve them, or by id (platform_id, gpu_model_id);
// or they come from the quote or trial named. null is "not given".
type apiAvailRequest struct {
	Platform    *string `json:"platform"`
	PlatformID  *int64  `json:"platform_id"`
	GPUModel    *string `json:"gpu_model"`
	GPUModelID  *int64  `json:"gpu_model_id"`
	QuoteID     *int64  `json:"quote_id"`
	TrialID     *int64  `json:"trial_id"`
	AttemptedAt *string `json:"attempted_at"`
	GPUCount    *int64  `json:"gpu_count"`
	Obtained    *bool   `json:"obtained"`
	WaitMinutes *int64  `json:"wait_minutes"`
	Note        *string `json:"note"`
}

// formValues writes the request as the availability form posts it (the
// platform and GPU model as ids), resolving names through refs; a name
// that is none, or a name beside an id, is a problem of its field.
func (r apiAvailRequest) formValues(refs quote.Refs) (url.Values, form.Errors) {
	v, errs := url.Values{}, form.Errors{}
	str := func(name string, s *string) {
		if s != nil {
			v.Set(name, *s)
		}
	}
	num := func(name string, n *int64) {
		if n != nil {
			v.Set(name, strconv.FormatInt(*n, 10))
		}
	}
	str("attempted_at", r.AttemptedAt)
	num("gpu_count", r.GPUCount)
	if r.Obtained != nil {
		v.Set("obtained", strconv.FormatBool(*r.Obtained))
	}
	num("wait_minutes", r.WaitMinutes)
	str("note", r.Note)
	num("quote_id", r.QuoteID)
	num("trial_id", r.TrialID)
	for _, ref := range []struct {
		field              string
		name               *string
		id                 *int64
		resolve            func(string) (int64, bool)
		suggest            func(string) string
		unknown, unknownAt string
	}{
		{"platform", r.Platform, r.PlatformID, refs.Platform, refs.SuggestPlatform, quote.MsgUnknownPlatform, quote.MsgUnknownPlatformSuggest},
		{"gpu_model", r.GPUModel, r.GPUModelID, refs.GPUModel, refs.SuggestGPUModel, quote.MsgUnknownGPU, quote.MsgUnknownGPUSuggest},
	} {
		idField := ref.field + apiRefIDSuffix
		switch {
		case ref.name != nil && ref.id != nil:
			errs.Set(ref.field, "api.write.error.ref_both", "Name", ref.field, "ID", idField)
		case ref.id != nil:
			num(ref.field, ref.id)
		case ref.name != nil && *ref.name != "":
			if id, ok := ref.resolve(*ref.name); ok {
				num(ref.field, &id)
			} else if near := ref.suggest(*ref.name); near != "" {
				errs.Set(ref.field, ref.unknownAt, "Name", near)
			} else {
				errs.Set(ref.field, ref.unknown)
			}
		}
	}
	return v, errs
}

// RecordAvailability is POST /api/v1/availability: a JSON object with the
// form's fields (apiAvailRequest); 201 with the stored record, or 422
// naming every problem in the request's language.
func (s *Handlers) RecordAvailability(c echo.Context) error {
	var req apiAvailRequest
	if err := apiReadJSON(c, &req); err != nil {
		return apiReadError(c, err)
	}
	refs, err := s.QuoteRefs(c.Request().Context())
	if err != nil {
		return err
	}
	vals, refErrs := req.formValues(refs)
	in, errs := s.ReadAvailability(vals.Get)
	for k, m := range refErrs {
		errs.Set(k, m.ID, m.Args...) // the name's problem, rather than "name the platform"
	}
	if len(errs) == 0 {
		rec, ok, err := s.CreateAvailability(c, in, errs)
		if err != nil {
			return err
		}
		if ok {
			return apiJSON(c, http.StatusCreated, rec)
		}
	}
	for _, f := range []struct {
		field string
		name  *string
		id    *int64
	}{{"platform", req.Platform, req.PlatformID}, {"gpu_model", req.GPUModel, req.GPUModelID}} {
		if m, bad := errs[f.field]; bad && f.id != nil && f.name == nil {
			delete(errs, f.field) // an unknown id is its field's problem
			errs.Set(f.field+apiRefIDSuffix, m.ID, m.Args...)
		}
	}
	return apiFormErrors(c, errs)
}
