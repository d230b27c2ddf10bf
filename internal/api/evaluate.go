package api

import (
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/server"
	"gpuquote/internal/tcoapi"
)

// Evaluate is POST /api/v1/tco/evaluate (docs/RULES.md §12):
// 200 with the result, or 422 naming every bad field, messages in the
// request's language. It stores nothing.
func (s *Handlers) Evaluate(c echo.Context) error { return engineAPI(s, c, tcoapi.Evaluate) }

// engineAPI answers a request of the engine's JSON API with run: 200 with
// its result, or 422 naming every bad field, messages in the request's
// language; never cached, nothing stored.
func engineAPI[R any](s *Handlers, c echo.Context, run func([]byte, tcoapi.FXLookup, time.Time) (R, []tcoapi.FieldError, error)) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err // the body limit's 413, or a broken connection
	}
	res, errs, err := run(body, s.FXLookup(c.Request().Context()), s.Today())
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	if len(errs) > 0 {
		return server.APIErrors(c, http.StatusUnprocessableEntity, tcoapi.Messages(errs, server.Translator(c).TMap))
	}
	return c.JSON(http.StatusOK, res)
}

// RentVsBuy is POST /api/v1/tco/rent-vs-buy (docs/RULES.md §17.3): a
// rental quote and an own-hardware option priced with one profile, 200
// with both results, which is cheaper and the crossing points, or 422
// naming every bad field, messages in the request's language, exactly as
// the evaluation API answers. It stores nothing.
func (s *Handlers) RentVsBuy(c echo.Context) error { return engineAPI(s, c, tcoapi.RentVsBuy) }

// BillCheck is POST /api/v1/bills/check (docs/RULES.md §23): a vendor's
// bill for one month priced again by its quote's rules, line by line, 200
// with the verdicts and totals, or 422 naming every bad field, messages in
// the request's language, exactly as the evaluation API answers. It stores
// nothing.
func (s *Handlers) BillCheck(c echo.Context) error { return engineAPI(s, c, tcoapi.BillCheck) }
