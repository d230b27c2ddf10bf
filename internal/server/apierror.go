package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// APIError is one problem of a refused API request: the field it concerns
// ("" for the request as a whole), a stable code and the message in the
// request's language. Every error answer of the API is
// {"errors": [APIError, ...]}, with the request id beside it.
type APIError struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// APIErrorBody is the error answer's body.
type APIErrorBody struct {
	Errors    []APIError `json:"errors"`
	RequestID string     `json:"request_id,omitempty"`
}

// APIErrors answers with status and errs.
func APIErrors(c echo.Context, status int, errs []APIError) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(status, APIErrorBody{Errors: errs, RequestID: c.Response().Header().Get(echo.HeaderXRequestID)})
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
