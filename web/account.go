package web

// LoginView is the login page's view model.
type LoginView struct {
	Page  Page
	Email string
	Next  string
	// ErrorID is the catalog message of a failed attempt (identical for an
	// unknown email and a wrong password).
	ErrorID string
	Errors  Errors
}

// AccountView is the "my account" page's view model.
type AccountView struct {
	Page        Page
	Email       string
	DisplayName string
	Role        string
	Errors      Errors
	// Tokens are the user's live API tokens, newest first.
	Tokens []APITokenRow
	// NewToken is the token just created, shown this once; nil otherwise.
	NewToken *NewAPIToken
	// TokenErrors are the errors of the create-token form.
	TokenErrors Errors
}

// APITokenRow is one API token in the account page's list.
type APITokenRow struct {
	ID      int64
	Name    string
	Created string // UTC, "2006-01-02 15:04"
	// LastUsed is "" when the token was never used.
	LastUsed string
}

// NewAPIToken is a token just created: its only showing.
type NewAPIToken struct {
	Name  string
	Token string
	// BaseURL is this site's address, for the example command.
	BaseURL string
}
