package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/user"
)

// AuditActions lists every action the audit log can hold, in the order the
// filter offers them: the one list the audit page's filter, its words
// (audit.action.<action> in both catalogs) and the tests use. A new Action…
// constant belongs here too; TestEveryAuditActionIsListed fails otherwise.
var AuditActions = []string{
	ActionUserCreate, ActionUserRole, ActionUserDisable, ActionUserEnable, ActionUserPassword, ActionUserMailChoice,
	ActionLogin, ActionLoginFailed, ActionLogout, ActionSessionEnd, ActionFXRateCreate,
	ActionPlatformCreate, ActionPlatformUpdate, ActionPlatformTermsUpdate, ActionPlatformFactCreate, ActionGPUModelCreate, ActionGPUModelUpdate,
	ActionQuoteCreate, ActionQuoteUpdate, ActionQuotePublish, ActionQuoteNewVersion, ActionQuoteArchive,
	ActionQuoteDeleteDraft, ActionQuoteImport, ActionCatalogImport, ActionCatalogPublish,
	ActionQuotePropose, ActionQuoteRepropose, ActionQuoteReviewPublish, ActionQuoteReviewReturn, ActionQuoteAttach, ActionQuoteWithdrawFile,
	ActionReferencePriceCreate, ActionProfileSave, ActionProfileDelete,
	ActionTrialCreate, ActionTrialRecord, ActionTrialPaste, ActionTrialPerf,
	ActionReportCreate, ActionReportSubmit, ActionReportApprove, ActionReportReturn, ActionReportRetitle, ActionReportDelete,
	ActionAPITokenCreate, ActionAPITokenRevoke, ActionFeedTokenCreate, ActionFeedTokenRevoke,
	ActionOwnOptionCreate, ActionOwnOptionVersion, ActionOwnOptionArchive, ActionElectricityPriceCreate,
	ActionAvailabilityCreate,
	ActionBillCreate, ActionBillMappingSave, ActionBillMappingDelete,
	ActionWebhookCreate, ActionWebhookUpdate, ActionWebhookEnable, ActionWebhookDisable, ActionWebhookDelete, ActionWebhookRedeliver,
	ActionWatchCreate, ActionWatchUpdate, ActionWatchPause, ActionWatchResume, ActionWatchDelete,
}

// AuditEntities lists every kind of object the audit log records (its
// entity column), for the filter and its words (entity.<entity>).
var AuditEntities = []string{
	"user", "login", "fx_rate", "platform", "gpu_model", "quote", "reference_price",
	"usage_profile", "trial", "report", "api_token", "feed_token", "own_option", "electricity_price",
	"availability_record", "catalog_import", "bill", "bill_mapping", "webhook", "watch",
}

// IsAuditAction reports whether a is one of AuditActions.
func IsAuditAction(a string) bool { return slices.Contains(AuditActions, a) }

// IsAuditEntity reports whether e is one of AuditEntities.
func IsAuditEntity(e string) bool { return slices.Contains(AuditEntities, e) }

// AuditEntry is one audited write.
type AuditEntry struct {
	Action   string
	Entity   string
	EntityID string
	Before   any // marshalled to JSON; nil for creations
	After    any // marshalled to JSON; nil for deletions
}

// audit appends an entry to the audit log inside the caller's transaction,
// so the write and its record commit or fail together.
func audit(ctx context.Context, q Querier, a user.Actor, e AuditEntry) error {
	before, err := jsonOrNil(e.Before)
	if err != nil {
		return fmt.Errorf("audit before: %w", err)
	}
	after, err := jsonOrNil(e.After)
	if err != nil {
		return fmt.Errorf("audit after: %w", err)
	}
	var actorID *int64
	if a.UserID != 0 {
		actorID = &a.UserID
	}
	_, err = q.Exec(ctx, `
		INSERT INTO audit_log (actor_id, actor_email, action, entity, entity_id, before, after, request_id, client_ip)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		actorID, a.Email, e.Action, e.Entity, e.EntityID, before, after, a.RequestID, a.ClientIP)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

func jsonOrNil(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

// AuditRecord is one row of the audit log (user.AuditRecord).
type AuditRecord = user.AuditRecord

// AuditFilter narrows the audit log listing. Zero fields do not filter.
type AuditFilter struct {
	Actor    string // substring of the actor's email, case-insensitive
	Entity   string
	Action   string
	From, To time.Time // To is exclusive
	BeforeID int64     // keyset pagination: rows older than this id
	Limit    int
}

// AuditLog lists audit records newest first. It returns one row more than
// Limit when there are more, so the caller can offer a next page.
func (s *Store) AuditLog(ctx context.Context, f AuditFilter) ([]AuditRecord, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 50
	}
	var (
		where []string
		args  []any
	)
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if f.Actor != "" {
		add("actor_email ILIKE '%%' || $%d || '%%'", escapeLike(f.Actor))
	}
	if f.Entity != "" {
		add("entity = $%d", f.Entity)
	}
	if f.Action != "" {
		add("action = $%d", f.Action)
	}
	if !f.From.IsZero() {
		add("at >= $%d", f.From)
	}
	if !f.To.IsZero() {
		add("at < $%d", f.To)
	}
	if f.BeforeID > 0 {
		add("id < $%d", f.BeforeID)
	}
	// The column names match AuditRecord's fields (pgx.RowToStructByName).
	sql := `SELECT id, at, coalesce(actor_id, 0) AS actor_id, actor_email, action, entity, entity_id,
		coalesce(before, 'null'::jsonb) AS before, coalesce(after, 'null'::jsonb) AS after, request_id, client_ip
		FROM audit_log`
	if len(where) > 0 {
		sql += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, f.Limit+1)
	sql += fmt.Sprintf(" ORDER BY id DESC LIMIT $%d", len(args))
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[AuditRecord])
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return out, nil
}

// escapeLike escapes LIKE wildcards so user input matches literally.
func escapeLike(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}
