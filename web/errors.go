package web

// ErrorView is a styled error page: no internals, only what the reader can
// act on and the request id to quote when asking for help.
type ErrorView struct {
	Page      Page
	Status    int
	Message   string
	RequestID string
}
