package api

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/apispec"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
)

// OpenAPI serves the OpenAPI 3.1 description of the data API
// (docs/RULES.md §19.1): the same bytes from every process, with an ETag.
func (s *Handlers) OpenAPI(c echo.Context) error {
	doc, err := apispec.Document()
	if err != nil {
		return err
	}
	h := c.Response().Header()
	etag := server.BytesETag(doc)
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, no-cache")
	if server.ETagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, doc)
}

// apiAuditRecord is one entry of GET /api/v1/audit: the audit log's row as
// the admin page shows it, before and after as the JSON stored.
type apiAuditRecord struct {
	ID         int64           `json:"id"`
	At         string          `json:"at"`
	ActorID    *int64          `json:"actor_id"`
	ActorEmail string          `json:"actor_email"`
	Action     string          `json:"action"`
	Entity     string          `json:"entity"`
	EntityID   string          `json:"entity_id"`
	Before     json.RawMessage `json:"before"`
	After      json.RawMessage `json:"after"`
	RequestID  string          `json:"request_id"`
	ClientIP   string          `json:"client_ip"`
}

// apiAuditCursor is a position in the audit log: the rows older than
// BeforeID come next (keyset on id, newest first); FP is the fingerprint of
// the filters it was made with (apiMarketFingerprint).
type apiAuditCursor struct {
	BeforeID int64  `json:"before_id"`
	FP       string `json:"f"`
}

// apiAuditMaxLimit bounds ?limit= of the audit log (docs/RULES.md §19.1).
const apiAuditMaxLimit = 200

// Audit is GET /api/v1/audit (admins, scope admin): the audit log newest
// first, a page at a time, filtered as /admin/audit is by action, object,
// actor (part of the email) and days from/to (docs/RULES.md §19.6).
func (s *Handlers) Audit(c echo.Context) error {
	limit, ok := apiLimit(c, 50, apiAuditMaxLimit)
	if !ok {
		return apiBadLimit(c, apiAuditMaxLimit)
	}
	// The admin page's filters and checks (auditFilter); a cursor is bound
	// to the filters as given.
	filters := url.Values{}
	for _, k := range []string{"action", "entity", "actor", "from", "to"} {
		filters.Set(k, strings.TrimSpace(c.QueryParam(k)))
	}
	fp := apiMarketFingerprint("audit", filters)
	var pos apiAuditCursor
	if raw := c.QueryParam("cursor"); raw != "" {
		if err := s.decodeCursor(raw, &pos); err != nil || pos.BeforeID < 1 || pos.FP != fp {
			return apiBadCursor(c)
		}
	}
	f, errs := server.AuditFilter(c, limit)
	f.BeforeID = pos.BeforeID
	if len(errs) > 0 {
		return apiFormErrors(c, errs)
	}
	recs, err := s.Store.AuditLog(c.Request().Context(), f)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, apiKeysetPage(recs, limit, newAPIAuditRecord,
		func(r store.AuditRecord) string { return s.encodeCursor(apiAuditCursor{BeforeID: r.ID, FP: fp}) }))
}

// newAPIAuditRecord is an audit entry as the API lists it.
func newAPIAuditRecord(r store.AuditRecord) apiAuditRecord {
	item := apiAuditRecord{ID: r.ID, At: r.At.UTC().Format(time.RFC3339Nano), ActorEmail: r.ActorEmail,
		Action: r.Action, Entity: r.Entity, EntityID: r.EntityID, Before: rawOrNull(r.Before), After: rawOrNull(r.After),
		RequestID: r.RequestID, ClientIP: r.ClientIP}
	if r.ActorID != 0 {
		id := r.ActorID
		item.ActorID = &id
	}
	return item
}

// rawOrNull is a stored JSON value, or null when there is none.
func rawOrNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}
