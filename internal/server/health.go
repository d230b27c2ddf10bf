package server

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// Healthz says the process is up; it touches nothing else.
func (s *Server) Healthz(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// Readyz says the process can serve: PostgreSQL answers within 1.5 s and
// its schema is not older than this binary. 503 otherwise, with a reason
// code but no internals. With replicas, it lists them and says which are
// in use.
func (s *Server) Readyz(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	ctx, cancel := context.WithTimeout(c.Request().Context(), 1500*time.Millisecond)
	defer cancel()
	if err := s.Store.Pool().Ping(ctx); err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": "database"})
	}
	if err := s.Store.CheckSchema(ctx); err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": "schema"})
	}
	if s.Store.HasReplicas() {
		// Which replicas reads go to (docs/RULES.md §20.7); one down or
		// lagging is skipped, and the process is ready on the primary alone.
		return c.JSON(http.StatusOK, map[string]any{"status": "ready", "replicas": s.replicasReady()})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}
