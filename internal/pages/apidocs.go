package pages

import (
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/apispec"
	"gpuquote/web"
)

// APIDocs is /api/docs: the OpenAPI description as a page to read, in
// the reader's language, rendered on the server from the same document
// (docs/RULES.md §19.6).
func (s *Handlers) APIDocs(c echo.Context) error {
	v, err := apiDocsView()
	if err != nil {
		return err
	}
	v.Page = s.Page(c, "apidoc.title")
	return s.Render(c, http.StatusOK, v.Page, web.APIDocs(v))
}

// apiDocsView is the docs page's view of the description, built once: the
// document is embedded in the binary and never changes while it runs.
var apiDocsView = sync.OnceValues(func() (web.APIDocsView, error) {
	doc, err := apispec.Document()
	if err != nil {
		return web.APIDocsView{}, err
	}
	return web.NewAPIDocsView(doc)
})
