package server

import (
	"net/http"

	"gpuquote/internal/apierror"

	"github.com/labstack/echo/v4"
)

// APIErrors answers with status and errs in the API's one error shape
// (apierror.Body, the request id beside them), never cached.
func APIErrors(c echo.Context, status int, errs []apierror.Error) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(status, apierror.Body{Errors: errs, RequestID: c.Response().Header().Get(echo.HeaderXRequestID)})
}

// APIStatusCode is the stable code of an error status in the API's error
// shape.
func APIStatusCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "bad_request"
	case http.StatusUnauthorized:
		return "unauthorized"
	case http.StatusForbidden:
		return "forbidden"
	case http.StatusNotFound:
		return "not_found"
	case http.StatusMethodNotAllowed:
		return "method_not_allowed"
	case http.StatusConflict:
		return "conflict"
	case http.StatusRequestEntityTooLarge:
		return "too_large"
	case http.StatusUnsupportedMediaType:
		return "unsupported_media_type"
	case http.StatusUnprocessableEntity:
		return "unprocessable"
	case http.StatusTooManyRequests:
		return "too_many_requests"
	case http.StatusServiceUnavailable:
		return "unavailable"
	default:
		if status >= 500 {
			return "server_error"
		}
		return "bad_request"
	}
}
