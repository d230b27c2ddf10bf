// Package static embeds gpuquote's stylesheet, scripts and icons and serves
// them under content-hashed names (/static/app.3f2a9c1b.css), so browsers
// may cache them forever and a new release is fetched at once.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed css js img
var files embed.FS

// Prefix is the URL path under which assets are served.
const Prefix = "/static/"

type asset struct {
	name, hashed, etag, ctype string
	body                      []byte
}

var (
	byName   = map[string]*asset{} // "css/app.css" → asset
	byHashed = map[string]*asset{} // "css/app.3f2a9c1b.css" → asset
)

func init() {
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		h := hex.EncodeToString(sum[:])[:10]
		ext := path.Ext(p)
		a := &asset{name: p, hashed: strings.TrimSuffix(p, ext) + "." + h + ext, etag: `"` + h + `"`,
			ctype: mime.TypeByExtension(ext), body: body}
		if a.ctype == "" {
			a.ctype = "application/octet-stream"
		}
		byName[p] = a
		byHashed[a.hashed] = a
		return nil
	})
	if err != nil {
		panic(err)
	}
}

// URL returns the cache-busting URL of an embedded asset such as
// "css/app.css". An unknown name panics: it is a programming error caught by
// the first render in tests.
func URL(name string) string {
	a, ok := byName[name]
	if !ok {
		panic("static: no asset " + name)
	}
	return Prefix + a.hashed
}

// Handler serves assets by hashed name with a one-year immutable cache. The
// plain name is also served, without long caching, for hand-written links.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(r.URL.Path, Prefix)
		a, immutable := byHashed[p]
		if !immutable {
			a = byName[p]
		}
		if a == nil {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.ctype)
		h.Set("ETag", a.etag)
		if immutable {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			h.Set("Cache-Control", "public, max-age=300")
		}
		if r.Header.Get("If-None-Match") == a.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write(a.body)
	})
}
