// Package api is gpuquote's JSON door: the handlers of the data API under
// /api/v1 (docs/API.md, described at /api/v1/openapi.json) and of the
// public engine endpoints. They decode JSON, call the same domain functions
// the pages call, and answer JSON in one error shape
// (docs/ARCHITECTURE.md).
package api

import "gpuquote/internal/server"

// Handlers answers the API's routes, with the server's collaborators.
type Handlers struct {
	*server.Server
}

// New returns the API handlers of s.
func New(s *server.Server) *Handlers { return &Handlers{Server: s} }
