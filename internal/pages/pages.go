// Package pages is gpuquote's HTML door: the handlers of the pages people
// read and the forms they post, drawn with the templ components of package
// web. They parse the request, call the domain packages and the store, and
// render; the rules they apply live in the domain packages
// (docs/ARCHITECTURE.md).
package pages

import "gpuquote/internal/server"

// Handlers answers the pages' routes, with the server's collaborators.
type Handlers struct {
	*server.Server
}

// New returns the page handlers of s.
func New(s *server.Server) *Handlers { return &Handlers{Server: s} }
