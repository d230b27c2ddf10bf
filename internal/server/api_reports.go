package server

import "github.com/labstack/echo/v4"

// The data API's comparison, reports and trial evidence (docs/RULES.md §19.5).

func (s *Server) apiCompare(c echo.Context) error       { return echo.ErrNotImplemented }
func (s *Server) apiReports(c echo.Context) error       { return echo.ErrNotImplemented }
func (s *Server) apiReport(c echo.Context) error        { return echo.ErrNotImplemented }
func (s *Server) apiReportCreate(c echo.Context) error  { return echo.ErrNotImplemented }
func (s *Server) apiReportSubmit(c echo.Context) error  { return echo.ErrNotImplemented }
func (s *Server) apiReportApprove(c echo.Context) error { return echo.ErrNotImplemented }
func (s *Server) apiReportReturn(c echo.Context) error  { return echo.ErrNotImplemented }
func (s *Server) apiTrialCheck(c echo.Context) error    { return echo.ErrNotImplemented }
