package server

import (
	"github.com/labstack/echo/v4"

	"gpuquote/internal/tcoapi"
)

// rentVsBuyAPI is POST /api/v1/tco/rent-vs-buy (docs/RULES.md §17.3): a
// rental quote and an own-hardware option priced with one profile, 200
// with both results, which is cheaper and the crossing points, or 422
// naming every bad field, messages in the request's language, exactly as
// the evaluation API answers. It stores nothing.
func (s *Server) rentVsBuyAPI(c echo.Context) error { return engineAPI(s, c, tcoapi.RentVsBuy) }
