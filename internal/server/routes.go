package server

import (
	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
)

// Route is one entry of the route table: method, path, who may call it and
// the handler. Bare routes (health, metrics, assets) skip sessions and CSRF;
// Limited routes are public work anyone may ask for, rate-limited per
// client address. BodyLimit, when set, replaces the global request body
// limit for this route, above it (file uploads) or below it (the JSON
// doors' 256 KiB, docs/RULES.md §19.1).
// Upload, when set, reads the route's multipart form as it arrives
// (upload.go), within BodyLimit.
// Reads marks a route of another method than GET that stores nothing (a
// comparison, an evaluation): like a GET's, its reads may go to a replica
// (docs/RULES.md §20.7).
type Route struct {
	Method    string
	Path      string
	Policy    auth.Policy
	Handler   echo.HandlerFunc
	Bare      bool
	Limited   bool
	BodyLimit int64
	Upload    *Upload
	Reads     bool
}

// Routes is the route table the server was built with (Deps.Routes).
func (s *Server) Routes() []Route { return s.routes }
