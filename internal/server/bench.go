package server

import (
	"net/http"
	"sort"

	"github.com/labstack/echo/v4"

	"gpuquote/web"
)

// benchPlaintext is the load test's first ceiling: a fixed byte slice
// through the whole middleware stack, no database, no template.
var benchPlaintext = []byte("Hello, World!")

func (s *Server) BenchPlaintext(c echo.Context) error {
	if !s.Config.BenchRoutes {
		return echo.ErrNotFound
	}
	return c.Blob(http.StatusOK, "text/plain; charset=utf-8", benchPlaintext)
}

// BenchFortunes is the load test's second ceiling, shaped like the
// well-known "Fortunes" test: one query of 12 rows, one row added in
// memory, a sort, and a templ page rendered with escaping in the layout
// every page uses.
func (s *Server) BenchFortunes(c echo.Context) error {
	if !s.Config.BenchRoutes {
		return echo.ErrNotFound
	}
	rows, err := s.Store.PlatformNames(c.Request().Context(), 12)
	if err != nil {
		return err
	}
	items := make([]web.FortuneRow, 0, len(rows)+1)
	for _, r := range rows {
		items = append(items, web.FortuneRow{ID: r.ID, Text: r.Name})
	}
	items = append(items, web.FortuneRow{ID: 0, Text: "<script>alert('escaped at render')</script>"})
	sort.Slice(items, func(i, j int) bool { return items[i].Text < items[j].Text })
	p := s.Page(c, "bench.fortunes.title")
	return s.Render(c, http.StatusOK, p, web.Fortunes(items))
}
