// Package pages is gpuquote's HTML door: the handlers of the pages people
// read and the forms they post, drawn with the templ components of package
// web. They parse the request, call the domain packages and the store, and
// render; the rules they apply live in the domain packages
// (docs/ARCHITECTURE.md).
package pages

import (
	"net/url"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/server"
	"gpuquote/internal/store"
)

// Handlers answers the pages' routes, with the server's collaborators.
type Handlers struct {
	*server.Server
	// lists keeps what the quote list reads under the database's stamps
	// (docs/RULES.md §20.6).
	lists *store.QuoteListCache
}

// New returns the page handlers of s.
func New(s *server.Server) *Handlers {
	return &Handlers{Server: s, lists: store.NewQuoteListCache(store.QuoteListPages)}
}

// pathForm reads what a form's write on one record sends: the record's id
// in the path and the posted values (404 for an id no record can have).
func pathForm(c echo.Context) (int64, url.Values, error) {
	id, err := server.PathID(c)
	if err != nil {
		return 0, nil, err
	}
	values, err := server.FormValues(c)
	return id, values, err
}
