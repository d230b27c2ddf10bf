package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/apispec"
)

// apiOpenAPI serves the OpenAPI 3.1 description of the data API
// (docs/RULES.md §19.1): the same bytes from every process, with an ETag.
func (s *Server) apiOpenAPI(c echo.Context) error {
	doc, err := apispec.Document()
	if err != nil {
		return err
	}
	h := c.Response().Header()
	etag := bytesETag(doc)
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, no-cache")
	if etagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, doc)
}

func (s *Server) apiDocsPage(c echo.Context) error { return echo.ErrNotImplemented }
func (s *Server) apiAudit(c echo.Context) error    { return echo.ErrNotImplemented }
