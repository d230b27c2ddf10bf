package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/labstack/echo/v4"

	"gpuquote/internal/apierror"
	"gpuquote/internal/auth"
	"gpuquote/internal/report"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// handleError is the one place errors become responses: not found → 404,
// HTTP errors keep their status, an unreachable database or an expired
// request deadline → 503, anything else → a logged 500 with the request id
// and no internals. API paths get JSON, pages a styled page.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	// The request's own deadline has usually passed or been cancelled by
	// now; the error page must still render.
	c.SetRequest(c.Request().WithContext(context.WithoutCancel(c.Request().Context())))
	status := http.StatusInternalServerError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &he):
		status = he.Code
	case errors.Is(err, store.ErrNotFound):
		status = http.StatusNotFound
	case tooLargeToStore(err):
		status = http.StatusUnprocessableEntity
	case errors.Is(err, context.DeadlineExceeded):
		status = http.StatusServiceUnavailable
	case clientGone(err):
		// Nobody reads the answer, and nothing broke: the request log
		// records it at info level, nothing else.
		_ = c.NoContent(statusClientClosedRequest)
		return
	case isConnError(err):
		status = http.StatusServiceUnavailable
		// Every pooled connection is likely as dead as this one (the
		// server restarted): drop them all, so the requests after the
		// database is back get fresh connections instead of failing too.
		s.Store.Pool().Reset()
	}
	reqID := c.Response().Header().Get(echo.HeaderXRequestID)
	if status >= 500 {
		s.Log.ErrorContext(c.Request().Context(), "request failed", "request_id", reqID,
			"method", c.Request().Method, "path", redactForLog(c.Request().URL.Path), "status", status, "err", err.Error())
	}
	if status == http.StatusTooManyRequests {
		c.Response().Header().Set("Retry-After", "60")
	}
	tr := Translator(c)
	titleID, msgID := errorMessages(status)
	if errors.Is(err, auth.ErrCSRF) {
		msgID = "error.csrf.text"
	}
	if errors.Is(err, ErrUnstorableText) {
		msgID = "error.unstorable.text"
	}
	if errors.Is(err, errIDOutOfRange) {
		msgID = "error.id_range.text"
	}
	if errors.Is(err, ErrUploadsBusy) {
		msgID = "error.upload_busy.text"
	}
	if status == http.StatusUnprocessableEntity && tooLargeToStore(err) {
		msgID = "error.too_large_to_store.text"
	}
	if isAPI(c) {
		// The data API's one error shape (docs/RULES.md §19.1).
		code := APIStatusCode(status)
		switch {
		case errors.Is(err, auth.ErrCSRF):
			code = "csrf"
		case errors.Is(err, auth.ErrInsufficientScope):
			code, msgID = "insufficient_scope", "api.error.scope"
		}
		msg := tr.T(msgID)
		if n := web.BodyLimit(c.Request().Context()); status == http.StatusRequestEntityTooLarge && n > 0 {
			// The body bound of the endpoint, named (docs/RULES.md §19.1).
			msg = tr.T("api.error.too_large", "Size", web.ByteSize(n))
		}
		_ = APIErrors(c, status, []apierror.Error{{Code: code, Message: msg}})
		return
	}
	p := s.Page(c, titleID)
	_ = s.Render(c, status, p, web.ErrorPage(web.ErrorView{Page: p, Status: status, Message: tr.T(msgID), RequestID: reqID}))
}

// tooLargeToStore reports that err is figures too large for the columns
// that store them: refused by the code that computes them, or, for any
// such figure no check foresaw, by PostgreSQL (numeric_value_out_of_range,
// 22003) with nothing written, since the transaction rolled back
// (docs/RULES.md §16.4). Either way the request is refused with 422, not a
// server error.
func tooLargeToStore(err error) bool {
	if errors.Is(err, report.ErrFiguresTooLarge) {
		return true
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "22003"
}

func isAPI(c echo.Context) bool {
	p := c.Request().URL.Path
	return len(p) >= 5 && p[:5] == "/api/"
}

// statusClientClosedRequest is the status logged and counted for a request
// whose client went away before its answer (nginx's 499): not a server
// error.
const statusClientClosedRequest = 499

// clientGone reports that err is the request's context being cancelled:
// the server never cancels one itself (its base context ignores shutdown,
// and the request timeout is a deadline), so the client disconnected.
func clientGone(err error) bool {
	return errors.Is(err, context.Canceled)
}

// isConnError reports that PostgreSQL could not be reached or the
// connection broke under the request: the server is down, restarting or
// unreachable, which is a temporary 503, not a bug to report as 500.
func isConnError(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// Class 08 is "connection exception"; 57P01–57P03 are the server
		// shutting down, crashing, or not accepting connections yet.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// errorMessages names the catalog messages of an error status.
func errorMessages(status int) (titleID, messageID string) {
	switch status {
	case http.StatusBadRequest:
		return "error.400.title", "error.400.text"
	case http.StatusUnauthorized:
		return "error.401.title", "error.401.text"
	case http.StatusForbidden:
		return "error.403.title", "error.403.text"
	case http.StatusNotFound:
		return "error.404.title", "error.404.text"
	case http.StatusMethodNotAllowed:
		return "error.405.title", "error.405.text"
	case http.StatusRequestEntityTooLarge:
		return "error.413.title", "error.413.text"
	case http.StatusUnprocessableEntity:
		return "error.422.title", "error.422.text"
	case http.StatusTooManyRequests:
		return "error.429.title", "error.429.text"
	case http.StatusServiceUnavailable:
		return "error.503.title", "error.503.text"
	default:
		if status >= 500 {
			return "error.500.title", "error.500.text"
		}
		return "error.400.title", "error.400.text"
	}
}
