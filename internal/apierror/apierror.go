// Package apierror is the one shape of every error answer of the data API
// (docs/API.md, docs/RULES.md §19): {"errors": [Error, ...]} with the
// request id beside it. The route handlers, the evaluation engine's JSON
// adapter (internal/tcoapi) and the nvidia-smi reader's (internal/verifyapi)
// all build the same Error, so a client decodes one type whatever refused
// its request.
package apierror

// Error is one problem of a refused request: the field it concerns (a JSON
// path; "" for the request as a whole), a stable code and the message in
// the request's language.
type Error struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// Line is the line of pasted text a parse error points at (the
	// nvidia-smi reader's errors only; 0 is left out).
	Line int `json:"line,omitempty"`
	// AcceptedColumnOrders are the column orders header-less nvidia-smi
	// CSV may have, each as --query-gpu takes it (recommended first), on an
	// error about the text's columns or format (docs/RULES.md §9.3).
	AcceptedColumnOrders []string `json:"accepted_column_orders,omitempty"`
}

// Body is an error answer's body.
type Body struct {
	Errors    []Error `json:"errors"`
	RequestID string  `json:"request_id,omitempty"`
}
