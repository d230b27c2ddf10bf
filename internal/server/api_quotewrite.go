package server

import "github.com/labstack/echo/v4"

// The data API's market writes (docs/RULES.md §19.4).

func (s *Server) apiQuoteCreate(c echo.Context) error          { return echo.ErrNotImplemented }
func (s *Server) apiQuoteNewVersion(c echo.Context) error      { return echo.ErrNotImplemented }
func (s *Server) apiProposalCreate(c echo.Context) error       { return echo.ErrNotImplemented }
func (s *Server) apiReferencePriceCreate(c echo.Context) error { return echo.ErrNotImplemented }
func (s *Server) apiFXRateCreate(c echo.Context) error         { return echo.ErrNotImplemented }
