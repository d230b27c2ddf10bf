package server

import (
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/tcoapi"
)

// rentVsBuyAPI is POST /api/v1/tco/rent-vs-buy (docs/RULES.md §17.3): a
// rental quote and an own-hardware option priced with one profile, 200
// with both results, which is cheaper and the crossing points, or 422
// naming every bad field, messages in the request's language, exactly as
// the evaluation API answers. It stores nothing.
func (s *Server) rentVsBuyAPI(c echo.Context) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err // the body limit's 413, or a broken connection
	}
	res, errs, err := tcoapi.RentVsBuy(body, s.fxLookup(c.Request().Context()), s.today())
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	if len(errs) > 0 {
		return c.JSON(http.StatusUnprocessableEntity, tcoapi.Messages(errs, translator(c).TMap))
	}
	return c.JSON(http.StatusOK, res)
}
