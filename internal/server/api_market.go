package server

import "github.com/labstack/echo/v4"

// The data API's market reads (docs/RULES.md §19.3).

func (s *Server) apiPlatforms(c echo.Context) error           { return echo.ErrNotImplemented }
func (s *Server) apiPlatform(c echo.Context) error            { return echo.ErrNotImplemented }
func (s *Server) apiGPUs(c echo.Context) error                { return echo.ErrNotImplemented }
func (s *Server) apiGPU(c echo.Context) error                 { return echo.ErrNotImplemented }
func (s *Server) apiQuotes(c echo.Context) error              { return echo.ErrNotImplemented }
func (s *Server) apiQuote(c echo.Context) error               { return echo.ErrNotImplemented }
func (s *Server) apiQuoteVersions(c echo.Context) error       { return echo.ErrNotImplemented }
func (s *Server) apiReferencePrices(c echo.Context) error     { return echo.ErrNotImplemented }
func (s *Server) apiFXRates(c echo.Context) error             { return echo.ErrNotImplemented }
func (s *Server) apiAvailabilityRecords(c echo.Context) error { return echo.ErrNotImplemented }
