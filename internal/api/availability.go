package api

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// availShapes are the fields of an availability record's JSON body (the
// form's, docs/RULES.md §18.2), each with the JSON values it takes: whole
// numbers and ids as JSON integers or strings of digits, obtained as true
// or false, the rest as strings.
var availShapes = map[string]writeShape{
	"attempted_at": writeText, "gpu_count": writeInt, "obtained": writeFlag, "wait_minutes": writeInt, "note": writeText,
	"quote_id": writeInt, "trial_id": writeInt, "platform": writeRef, "gpu_model": writeRef,
}

// RecordAvailability is POST /api/v1/availability: a JSON object with the
// form's fields, read by the JSON doors' one rule (apiReadFields: a field
// the form does not have, a key given twice or text that cannot be stored
// is named); 201 with the stored record, or 422 naming every problem in
// the request's language, in the one error shape.
func (s *Handlers) RecordAvailability(c echo.Context) error {
	w, err := apiReadFields(c, availShapes)
	if err != nil {
		return apiReadError(c, err)
	}
	in, errs := s.ReadAvailability(w.get)
	for k, m := range w.errs {
		errs.Set(k, m.ID, m.Args...) // the wrong type, rather than "required"
	}
	if len(errs) == 0 {
		rec, ok, err := s.CreateAvailability(c, in, errs)
		if err != nil {
			return err
		}
		if ok {
			c.Response().Header().Set("Cache-Control", "no-store")
			return c.JSON(http.StatusCreated, rec)
		}
	}
	return apiFormErrors(c, errs)
}
