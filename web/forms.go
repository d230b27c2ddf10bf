package web

import (
	"net/url"
	"strconv"
	"strings"

	"gpuquote/internal/form"
)

// Errors maps a form field name to the message of its problem
// (package form reads every form).
type Errors = form.Errors

// PluralMessage is the message of the family id for the count n, as
// Plural renders it (id+".one" when n is 1, id+".other" otherwise, with
// {{.Count}} and the name/value pairs in args), for a field or a page to
// show later.
func PluralMessage(id string, n int, args ...any) form.Message {
	if n == 1 {
		id += ".one"
	} else {
		id += ".other"
	}
	return form.Message{ID: id, Args: append([]any{"Count", n}, args...)}
}

// Pager is the state of a paginated list.
type Pager struct {
	Page, PerPage, Total int
	// Capped says Total is a lower bound: there are more rows than counted.
	Capped bool
	// Base is the list URL with the current filters, without "page".
	Base string
}

// Pages is the number of pages (at least 1).
func (p Pager) Pages() int {
	if p.PerPage <= 0 || p.Total <= 0 {
		return 1
	}
	return (p.Total + p.PerPage - 1) / p.PerPage
}

// URL is the link to page n.
func (p Pager) URL(n int) string {
	sep := "?"
	if strings.Contains(p.Base, "?") {
		sep = "&"
	}
	return p.Base + sep + "page=" + strconv.Itoa(n)
}

// listURL is a list's URL with its non-empty filters.
func listURL(path string, filters url.Values) string {
	for k, v := range filters {
		if len(v) == 0 || v[0] == "" {
			delete(filters, k)
		}
	}
	if len(filters) == 0 {
		return path
	}
	return path + "?" + filters.Encode()
}
