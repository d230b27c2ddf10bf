package server

import (
	"net/http"
	"net/http/pprof"
	"strings"

	"github.com/labstack/echo/v4"
)

// Pprof serves Go's runtime profiles under /debug/pprof/ to admins: the
// index, cmdline, symbol, CPU profile and execution trace by name, and
// every named profile (heap, allocs, goroutine, mutex, block, …). A CPU
// profile or trace lasts at most the request deadline.
func (s *Server) Pprof(c echo.Context) error {
	var h http.HandlerFunc
	switch name := strings.TrimPrefix(c.Request().URL.Path, "/debug/pprof/"); name {
	case "cmdline":
		h = pprof.Cmdline
	case "profile":
		h = pprof.Profile
	case "symbol":
		h = pprof.Symbol
	case "trace":
		h = pprof.Trace
	default:
		h = pprof.Index // the index, and named profiles by their name
	}
	h(c.Response(), c.Request())
	return nil
}
