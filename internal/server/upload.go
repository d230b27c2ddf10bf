package server

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/web"
)

// Upload makes a route read a multipart form as it arrives, without
// holding the request whole (docs/RULES.md §18.1): the fields are kept (at
// most uploadFieldBytes in all), and of the one file field File at most
// MaxFile bytes; a longer file is marked too large once MaxFile+1 bytes of
// it were read, and the rest of the request is read (and thrown away) only
// up to the route's body limit, never further. A form that is not
// multipart is read as any other (the body limit and the input guard).
type Upload struct {
	// File is the name of the form's file field.
	File string
	// MaxFile is the most bytes of the file kept.
	MaxFile int64
}

// UploadedFile is the file part of an upload as the server read it.
type UploadedFile struct {
	// Present says a file was sent: a part with a file name or content.
	Present bool
	// Name is the file name the browser sent, as sent.
	Name string
	// Data is the file's bytes (at most MaxFile), valid until the request
	// has been answered.
	Data []byte
	// TooLarge says the file held more than MaxFile bytes (Data is then
	// empty), or the request ended at its body limit inside it.
	TooLarge bool
	// Malformed says the part's header could not be read, named its file
	// with filename* (which RFC 7578 §4.2 forbids in a form, and which
	// would take the place of filename), named none, or came twice.
	Malformed bool
}

// uploadFieldBytes bounds the bytes of an upload form's fields other than
// its file, and uploadMaxParts its parts.
const (
	uploadFieldBytes = 1 << 20
	uploadMaxParts   = 1000
)

// uploadRetryAfter is the Retry-After of an upload answered 503 because
// every upload slot stayed taken.
const uploadRetryAfter = 5

// ErrUploadsBusy refuses an upload that found every upload slot taken for
// the whole of Config.UploadWait: 503 with Retry-After.
var ErrUploadsBusy = echo.NewHTTPError(http.StatusServiceUnavailable, "uploads busy")

const ctxUploadFile = "upload.file"

// UploadFile is the file part the route's Upload read (nil when the
// request was not a multipart form).
func UploadFile(c echo.Context) *UploadedFile {
	f, _ := c.Get(ctxUploadFile).(*UploadedFile)
	return f
}

// uploadSlots bounds the uploads one process reads at once: each holds a
// slot, and each slot keeps one buffer of a file's largest size, allocated
// on first use and reused after, so that the memory uploads take is
// bounded by the number of slots whatever arrives.
type uploadSlots struct {
	free chan *[]byte
	wait time.Duration
}

func newUploadSlots(n int, wait time.Duration) *uploadSlots {
	u := &uploadSlots{free: make(chan *[]byte, max(n, 1)), wait: wait}
	for range cap(u.free) {
		u.free <- new([]byte)
	}
	return u
}

// acquire takes a free slot, waiting up to u.wait for one.
func (u *uploadSlots) acquire(ctx context.Context) (*[]byte, error) {
	select {
	case b := <-u.free:
		return b, nil
	default:
	}
	if u.wait <= 0 {
		return nil, ErrUploadsBusy
	}
	t := time.NewTimer(u.wait)
	defer t.Stop()
	select {
	case b := <-u.free:
		return b, nil
	case <-t.C:
		return nil, ErrUploadsBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (u *uploadSlots) release(b *[]byte) { u.free <- b }

// InFlight is how many uploads are being read now.
func (u *uploadSlots) InFlight() int { return cap(u.free) - len(u.free) }

// UploadsInFlight is how many uploads this process is reading now.
func (s *Server) UploadsInFlight() int { return s.uploads.InFlight() }

// isMultipart reports whether r posts a multipart form, and its boundary.
func isMultipart(r *http.Request) (string, bool) {
	mt, params, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	if err != nil || mt != echo.MIMEMultipartForm || params["boundary"] == "" {
		return "", false
	}
	return params["boundary"], true
}

// uploadLimit is the body limit of an upload route: a multipart form is
// refused by no Content-Length, since its reader stops at n itself and
// answers with the form; anything else gets bodyLimit(n).
func uploadLimit(n int64) echo.MiddlewareFunc {
	other := bodyLimit(n)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		limited := other(next)
		return func(c echo.Context) error {
			r := c.Request()
			if _, ok := isMultipart(r); !ok {
				return limited(c)
			}
			c.SetRequest(r.WithContext(web.WithBodyLimit(r.Context(), n)))
			return next(c)
		}
	}
}

// readUpload reads a multipart form posted to an Upload route (u) as it
// arrives, reading at most limit bytes of the request, inside one of the
// process's upload slots; the fields become the request's form (what
// FormValue, CSRF and FormValues read) and the file UploadFile's. It runs
// after the policy, so nobody signed out takes a slot or has a byte read.
func (s *Server) readUpload(u Upload, limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			boundary, ok := isMultipart(r)
			if !ok {
				return next(c)
			}
			buf, err := s.uploads.acquire(r.Context())
			if errors.Is(err, ErrUploadsBusy) {
				c.Response().Header().Set("Retry-After", strconv.Itoa(uploadRetryAfter))
			}
			if err != nil {
				return err
			}
			defer s.uploads.release(buf)
			// A client sending slowly holds its slot no longer than the
			// request's deadline.
			if d, ok := r.Context().Deadline(); ok {
				_ = http.NewResponseController(c.Response()).SetReadDeadline(d)
			}
			if int64(cap(*buf)) < u.MaxFile+1 {
				*buf = make([]byte, u.MaxFile+1)
			}
			values, file, err := readMultipart(&capReader{r: r.Body, left: limit}, boundary, u, (*buf)[:u.MaxFile+1])
			if err != nil {
				return err
			}
			r.Form, r.PostForm = values, values
			r.MultipartForm = &multipart.Form{Value: values, File: map[string][]*multipart.FileHeader{}}
			c.Set(ctxUploadFile, file)
			return next(c)
		}
	}
}

// errBodyCap is what a capReader answers past its limit.
var errBodyCap = errors.New("upload: the request's body limit was reached")

// capReader reads r up to left bytes, then answers errBodyCap and says so
// (hit), unless r ends right there.
type capReader struct {
	r    io.Reader
	left int64
	hit  bool
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, err := c.r.Read(one[:]); n == 0 && err == io.EOF {
			return 0, io.EOF
		}
		c.hit = true
		return 0, errBodyCap
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// readMultipart reads the parts of a multipart form from body: its fields,
// and the file part named u.File into buf (len(buf) is u.MaxFile+1). A form
// whose fields are too many or too long is a 413, one that is not
// multipart as it said a 400; what is wrong with the file is the file's
// (UploadedFile), so the form can say it.
func readMultipart(body *capReader, boundary string, u Upload, buf []byte) (url.Values, *UploadedFile, error) {
	mr := multipart.NewReader(body, boundary)
	values := url.Values{}
	file := &UploadedFile{}
	fieldBytes := 0
	for parts := 0; ; parts++ {
		p, err := mr.NextPart()
		switch {
		case err == io.EOF:
			return values, file, nil
		case err != nil && body.hit && file.TooLarge:
			// The rest of a file too large is not read.
			return values, file, nil
		case err != nil && body.hit:
			return nil, nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge).SetInternal(err)
		case err != nil:
			return nil, nil, echo.NewHTTPError(http.StatusBadRequest).SetInternal(err)
		case parts >= uploadMaxParts:
			return nil, nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge).SetInternal(errors.New("upload: too many parts"))
		}
		name, filename, isFile, ok := formDataNames(p.Header.Get("Content-Disposition"))
		switch {
		case !ok || name == u.File && (!isFile || file.Present || file.Malformed):
			// A part whose header cannot be read is taken for the file's:
			// the form's other parts carry only names the server chose.
			file.Malformed, file.Present, file.Data = true, true, nil
		case name == u.File:
			file.Name = filename
			n, err := io.ReadFull(p, buf)
			switch {
			case err == nil:
				file.TooLarge, file.Present = true, true
			case body.hit:
				// Cut at the body limit: never kept as if whole.
				file.TooLarge, file.Present = true, true
				return values, file, nil
			case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
				// No file chosen: the browser sends an empty part named "".
				if file.Present = n > 0 || filename != ""; file.Present {
					file.Data = buf[:n]
				}
			default:
				return nil, nil, echo.NewHTTPError(http.StatusBadRequest).SetInternal(err)
			}
		case isFile:
			// A file in a field that takes none is not read.
		default:
			v, err := io.ReadAll(io.LimitReader(p, int64(uploadFieldBytes-fieldBytes)+1))
			if err != nil && body.hit && file.TooLarge {
				return values, file, nil
			}
			if err != nil && body.hit {
				return nil, nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge).SetInternal(err)
			}
			if err != nil {
				return nil, nil, echo.NewHTTPError(http.StatusBadRequest).SetInternal(err)
			}
			if fieldBytes += len(v); fieldBytes > uploadFieldBytes {
				return nil, nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge).SetInternal(errors.New("upload: fields too long"))
			}
			values.Add(name, string(v))
		}
	}
}

// quotedString matches a quoted string of a header parameter.
var quotedString = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// formDataNames reads a form part's Content-Disposition: its field name,
// and whether it names a file (a filename parameter, possibly empty) and
// which; ok is false when it cannot be read, is not form-data, or names
// its file with filename*, which a form must not use (RFC 7578 §4.2) and
// which the standard library would take in place of filename.
func formDataNames(cd string) (name, filename string, isFile, ok bool) {
	disp, params, err := mime.ParseMediaType(cd)
	if err != nil || disp != "form-data" {
		return "", "", false, false
	}
	if strings.Contains(strings.ToLower(quotedString.ReplaceAllString(cd, `""`)), "filename*") {
		return params["name"], "", true, false
	}
	filename, isFile = params["filename"]
	return params["name"], filename, isFile, true
}
