package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/market"
	"gpuquote/internal/user"
	"gpuquote/internal/watch"
	"gpuquote/internal/webhook"
)

// Audit actions of webhook endpoints (docs/RULES.md §24.7).
const (
	ActionWebhookCreate    = "webhook.create"
	ActionWebhookUpdate    = "webhook.update"
	ActionWebhookEnable    = "webhook.enable"
	ActionWebhookDisable   = "webhook.disable"
	ActionWebhookDelete    = "webhook.delete"
	ActionWebhookRedeliver = "webhook.redeliver"
)

// EnqueueEvent records event ev in the caller's transaction q, with one
// delivery due at once for every enabled endpoint subscribed to its type
// (docs/RULES.md §24.7): so an event and its deliveries exist exactly when
// the write that caused it committed. An event no endpoint subscribes to is
// not stored. ev.At is when it happened (now when zero); ev.Object is what
// receivers get as data.object, and must marshal to a JSON object.
func EnqueueEvent(ctx context.Context, q Querier, ev webhook.Event) error {
	if !webhook.ValidEventType(ev.Type) {
		return fmt.Errorf("enqueue event: unknown type %q", ev.Type)
	}
	payload, err := json.Marshal(ev.Object)
	if err != nil {
		return fmt.Errorf("enqueue event %s: %w", ev.Type, err)
	}
	at := ev.At
	if at.IsZero() {
		at = time.Now()
	}
	_, err = q.Exec(ctx, `
		WITH subs AS (
			SELECT id FROM webhook_endpoints WHERE enabled AND deleted_at IS NULL AND $1 = ANY (events)
		), ev AS (
			INSERT INTO webhook_events (type, entity_id, payload, created_at)
			SELECT $1, $2, $3::jsonb, $4 WHERE EXISTS (SELECT 1 FROM subs)
			RETURNING id
		)
		INSERT INTO webhook_deliveries (endpoint_id, event_id, next_attempt_at, created_at)
		SELECT subs.id, ev.id, $4, $4 FROM subs CROSS JOIN ev`, ev.Type, ev.EntityID, string(payload), at)
	if err != nil {
		return fmt.Errorf("enqueue event %s: %w", ev.Type, err)
	}
	return nil
}

// subscribed returns the event types some enabled endpoint subscribes to.
func subscribed(ctx context.Context, q Querier) (map[string]bool, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT e FROM webhook_endpoints, unnest(events) e WHERE enabled AND deleted_at IS NULL`)
	if err != nil {
		return nil, fmt.Errorf("webhook subscriptions: %w", err)
	}
	types, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("webhook subscriptions: %w", err)
	}
	out := map[string]bool{}
	for _, t := range types {
		out[t] = true
	}
	return out, nil
}

// quotePath is a quote's page.
func quotePath(id int64) string { return "/quotes/" + strconv.FormatInt(id, 10) }

// enqueueQuotesPublished enqueues quote.published for each quote version
// ids just published in q's transaction, and quote.price_jump for those
// whose hourly or monthly price moved more than market.JumpPercent from
// the previous sample of the same offer (the history page's jump,
// docs/RULES.md §7.2). Nothing is read when no endpoint subscribes.
func enqueueQuotesPublished(ctx context.Context, q Querier, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	subs, err := subscribed(ctx, q)
	if err != nil || (!subs[webhook.QuotePublished] && !subs[webhook.QuotePriceJump]) {
		return err
	}
	pubs, err := quoteObjects(ctx, q, ids)
	if err != nil {
		return err
	}
	for _, p := range pubs {
		o := p.obj
		if subs[webhook.QuotePriceJump] && (o.HourlyJump || o.MonthlyJump) {
			j := o
			j.JumpPercent = market.JumpPercent.String()
			if err := EnqueueEvent(ctx, q, webhook.Event{Type: webhook.QuotePriceJump, EntityID: o.ID, At: p.at, Object: j}); err != nil {
				return err
			}
		}
		if subs[webhook.QuotePublished] {
			// quote.published describes the version alone; the previous
			// sample is price_jump's business.
			o.PreviousID, o.PrevHourly, o.PrevMonthly, o.PrevAsOf = 0, nil, nil, ""
			o.HourlyJump, o.MonthlyJump, o.HourlyMove, o.MonthlyMove = false, false, "", ""
			if err := EnqueueEvent(ctx, q, webhook.Event{Type: webhook.QuotePublished, EntityID: o.ID, At: p.at, Object: o}); err != nil {
				return err
			}
		}
	}
	return nil
}

// pub is a published quote version as its events describe it, and when it
// was published.
type pub struct {
	obj webhook.QuoteObject
	at  time.Time
}

// quoteObjects describes the published versions ids as quote events do,
// each with its previous version of the same offer (docs/RULES.md §24.7).
func quoteObjects(ctx context.Context, q Querier, ids []int64) ([]pub, error) {
	rows, err := q.Query(ctx, `
		SELECT q.id, q.series_id, q.version, q.platform_id, p.name_zh, p.name_en, q.gpu_model_id, g.vendor || ' ' || g.name,
		       q.gpu_count, q.label, q.currency, trim_scale(q.hourly)::text, trim_scale(q.monthly)::text, q.as_of,
		       coalesce(q.published_at, now()),
		       coalesce(prev.id, 0), trim_scale(prev.hourly)::text, trim_scale(prev.monthly)::text, prev.as_of,
		       `+jumpExpr("q.hourly", "prev.hourly", "$2")+`, `+jumpExpr("q.monthly", "prev.monthly", "$2")+`,
		       CASE WHEN prev.hourly > 0 THEN round((q.hourly - prev.hourly) * 100 / prev.hourly, 1)::text END,
		       CASE WHEN prev.monthly > 0 THEN round((q.monthly - prev.monthly) * 100 / prev.monthly, 1)::text END
		FROM quotes q
		JOIN platforms p ON p.id = q.platform_id
		JOIN gpu_models g ON g.id = q.gpu_model_id
		LEFT JOIN LATERAL (
			SELECT o.id, o.hourly, o.monthly, o.as_of FROM quotes o
			WHERE o.series_id = q.series_id AND o.currency = q.currency AND o.gpu_count = q.gpu_count
			  AND o.state IN ('published', 'archived') AND (o.as_of, o.id) < (q.as_of, q.id)
			ORDER BY o.as_of DESC, o.id DESC LIMIT 1) prev ON true
		WHERE q.id = ANY ($1) AND q.state = 'published'
		ORDER BY q.id`, ids, market.JumpPercent)
	if err != nil {
		return nil, fmt.Errorf("quote events: %w", err)
	}
	pubs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pub, error) {
		var (
			o                       webhook.QuoteObject
			asOf, publishedAt       time.Time
			prevAsOf                *time.Time
			hourlyMove, monthlyMove *string
		)
		err := r.Scan(&o.ID, &o.SeriesID, &o.Version, &o.PlatformID, &o.PlatformZH, &o.PlatformEN, &o.GPUModelID, &o.GPU,
			&o.GPUCount, &o.Label, &o.Currency, &o.Hourly, &o.Monthly, &asOf, &publishedAt,
			&o.PreviousID, &o.PrevHourly, &o.PrevMonthly, &prevAsOf, &o.HourlyJump, &o.MonthlyJump, &hourlyMove, &monthlyMove)
		o.AsOf, o.PublishedAt, o.Path = asOf.Format(time.DateOnly), publishedAt.UTC().Format(time.RFC3339), quotePath(o.ID)
		if prevAsOf != nil {
			o.PrevAsOf = prevAsOf.Format(time.DateOnly)
		}
		if hourlyMove != nil {
			o.HourlyMove = *hourlyMove
		}
		if monthlyMove != nil {
			o.MonthlyMove = *monthlyMove
		}
		return pub{obj: o, at: publishedAt}, err
	})
	if err != nil {
		return nil, fmt.Errorf("quote events: %w", err)
	}
	return pubs, nil
}

// enqueueReportApproved enqueues report.approved for report id, approved
// by a at now with comment, in q's transaction.
func enqueueReportApproved(ctx context.Context, q Querier, a user.Actor, now time.Time, id int64, comment string) error {
	subs, err := subscribed(ctx, q)
	if err != nil || !subs[webhook.ReportApproved] {
		return err
	}
	o := webhook.ReportObject{ID: id, ApprovedAt: now.UTC().Format(time.RFC3339), Comment: comment, Path: "/reports/" + strconv.FormatInt(id, 10)}
	if err := q.QueryRow(ctx, `SELECT r.number, r.revision, r.title, r.report_currency, coalesce(u.display_name, '')
		FROM reports r LEFT JOIN users u ON u.id = $2 WHERE r.id = $1`, id, nullID(a.UserID)).
		Scan(&o.Number, &o.Revision, &o.Title, &o.Currency, &o.ApprovedBy); err != nil {
		return fmt.Errorf("report event: %w", err)
	}
	return EnqueueEvent(ctx, q, webhook.Event{Type: webhook.ReportApproved, EntityID: id, At: now, Object: o})
}

// enqueueBillOvercharged enqueues bill.overcharged for bill id, stored at
// now, in q's transaction.
func enqueueBillOvercharged(ctx context.Context, q Querier, now time.Time, id int64) error {
	subs, err := subscribed(ctx, q)
	if err != nil || !subs[webhook.BillOvercharged] {
		return err
	}
	o := webhook.BillObject{ID: id}
	var month time.Time
	if err := q.QueryRow(ctx, `SELECT b.report_id, r.number, b.quote_id, coalesce(nullif(p.name_zh, ''), p.name_en), b.month, b.revision,
			b.currency, trim_scale(b.billed_total)::text, trim_scale(b.expected_total)::text, trim_scale(b.overcharge_total)::text
		FROM bills b JOIN reports r ON r.id = b.report_id JOIN quotes q ON q.id = b.quote_id JOIN platforms p ON p.id = q.platform_id
		WHERE b.id = $1`, id).Scan(&o.ReportID, &o.ReportNumber, &o.QuoteID, &o.Platform, &month, &o.Revision,
		&o.Currency, &o.Billed, &o.Expected, &o.Overcharge); err != nil {
		return fmt.Errorf("bill event: %w", err)
	}
	o.Month = month.Format("2006-01")
	o.Path = "/reports/" + strconv.FormatInt(o.ReportID, 10) + "/bills/" + strconv.FormatInt(id, 10)
	return EnqueueEvent(ctx, q, webhook.Event{Type: webhook.BillOvercharged, EntityID: id, At: now, Object: o})
}

const webhookEndpointColumns = `e.id, e.kind, e.url, e.secret, e.events, e.description, e.enabled, coalesce(u.display_name, ''),
	e.created_at, e.updated_at,
	(SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.delivered_at IS NULL AND d.gave_up_at IS NULL),
	(SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.gave_up_at IS NOT NULL)`

const webhookEndpointFrom = ` FROM webhook_endpoints e LEFT JOIN users u ON u.id = e.created_by`

func scanWebhookEndpoint(row pgx.Row) (webhook.Endpoint, error) {
	var e webhook.Endpoint
	err := row.Scan(&e.ID, &e.Kind, &e.URL, &e.Secret, &e.Events, &e.Description, &e.Enabled, &e.CreatedBy,
		&e.CreatedAt, &e.UpdatedAt, &e.Waiting, &e.Failed)
	return e, err
}

// WebhookEndpoints lists the endpoints not deleted, oldest first.
func (s *Store) WebhookEndpoints(ctx context.Context) ([]webhook.Endpoint, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+webhookEndpointColumns+webhookEndpointFrom+` WHERE e.deleted_at IS NULL ORDER BY e.id`)
	if err != nil {
		return nil, fmt.Errorf("webhook endpoints: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (webhook.Endpoint, error) { return scanWebhookEndpoint(r) })
	if err != nil {
		return nil, fmt.Errorf("webhook endpoints: %w", err)
	}
	return out, nil
}

// WebhookEndpoint returns endpoint id; ErrNotFound when there is none or
// it was deleted.
func (s *Store) WebhookEndpoint(ctx context.Context, id int64) (webhook.Endpoint, error) {
	e, err := scanWebhookEndpoint(s.pool.QueryRow(ctx, `SELECT `+webhookEndpointColumns+webhookEndpointFrom+
		` WHERE e.id = $1 AND e.deleted_at IS NULL`, id))
	return e, notFound(err)
}

// webhookAudit is what the audit log keeps of an endpoint: never its
// secret, only whether it has one.
func webhookAudit(e webhook.Endpoint) map[string]any {
	return map[string]any{"kind": e.Kind, "url": e.URL, "events": e.Events, "description": e.Description,
		"enabled": e.Enabled, "has_secret": e.Secret != ""}
}

// CreateWebhookEndpoint registers endpoint in (checked by webhook.Check),
// enabled, audited. A generic endpoint gets a new signing secret
// (webhook.NewSecret); a chat bot keeps the one given (maybe none).
func (s *Store) CreateWebhookEndpoint(ctx context.Context, a user.Actor, now time.Time, in webhook.Endpoint) (webhook.Endpoint, error) {
	if in.Kind == webhook.KindGeneric {
		in.Secret = webhook.NewSecret()
	}
	var out webhook.Endpoint
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO webhook_endpoints (kind, url, secret, events, description, enabled, created_by, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, true, $6, $7, $7) RETURNING id`,
			in.Kind, in.URL, in.Secret, in.Events, in.Description, nullID(a.UserID), now).Scan(&id); err != nil {
			return fmt.Errorf("create webhook endpoint: %w", err)
		}
		var err error
		if out, err = scanWebhookEndpoint(tx.QueryRow(ctx, `SELECT `+webhookEndpointColumns+webhookEndpointFrom+` WHERE e.id = $1`, id)); err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionWebhookCreate, Entity: "webhook", EntityID: strconv.FormatInt(id, 10),
			After: webhookAudit(out)})
	})
	return out, err
}

// lockedWebhookEndpoint locks endpoint id (not deleted) in tx.
func lockedWebhookEndpoint(ctx context.Context, tx pgx.Tx, id int64) (webhook.Endpoint, error) {
	e, err := scanWebhookEndpoint(tx.QueryRow(ctx, `SELECT `+webhookEndpointColumns+webhookEndpointFrom+
		` WHERE e.id = $1 AND e.deleted_at IS NULL FOR NO KEY UPDATE OF e`, id))
	return e, notFound(err)
}

// UpdateWebhookEndpoint changes endpoint id's address, events and
// description (its kind never changes), audited with before and after. A
// chat bot's secret is replaced when in.Secret is not empty; a generic
// endpoint's secret stays.
func (s *Store) UpdateWebhookEndpoint(ctx context.Context, a user.Actor, now time.Time, id int64, in webhook.Endpoint) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := lockedWebhookEndpoint(ctx, tx, id)
		if err != nil {
			return err
		}
		secret := before.Secret
		if before.Kind != webhook.KindGeneric && in.Secret != "" {
			secret = in.Secret
		}
		if _, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET url = $2, secret = $3, events = $4, description = $5, updated_at = $6
			WHERE id = $1`, id, in.URL, secret, in.Events, in.Description, now); err != nil {
			return fmt.Errorf("update webhook endpoint: %w", err)
		}
		after := before
		after.URL, after.Secret, after.Events, after.Description = in.URL, secret, in.Events, in.Description
		b, af := webhookAudit(before), webhookAudit(after)
		af["secret_changed"] = secret != before.Secret
		return audit(ctx, tx, a, AuditEntry{Action: ActionWebhookUpdate, Entity: "webhook", EntityID: strconv.FormatInt(id, 10),
			Before: b, After: af})
	})
}

// SetWebhookEnabled turns endpoint id on or off, audited; setting what is
// already set records nothing. Deliveries of a disabled endpoint that fall
// due are given up without an attempt.
func (s *Store) SetWebhookEnabled(ctx context.Context, a user.Actor, now time.Time, id int64, enabled bool) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := lockedWebhookEndpoint(ctx, tx, id)
		if err != nil {
			return err
		}
		if before.Enabled == enabled {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET enabled = $2, updated_at = $3 WHERE id = $1`, id, enabled, now); err != nil {
			return fmt.Errorf("webhook endpoint enabled: %w", err)
		}
		action := ActionWebhookDisable
		if enabled {
			action = ActionWebhookEnable
		}
		return audit(ctx, tx, a, AuditEntry{Action: action, Entity: "webhook", EntityID: strconv.FormatInt(id, 10),
			Before: map[string]any{"enabled": before.Enabled}, After: map[string]any{"enabled": enabled}})
	})
}

// DeleteWebhookEndpoint deletes endpoint id, audited: it stays as a row
// marked deleted (its log keeps its deliveries), is told of nothing more,
// and its waiting deliveries are given up.
func (s *Store) DeleteWebhookEndpoint(ctx context.Context, a user.Actor, now time.Time, id int64) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := lockedWebhookEndpoint(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET deleted_at = $2, enabled = false, updated_at = $2 WHERE id = $1`, id, now); err != nil {
			return fmt.Errorf("delete webhook endpoint: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET gave_up_at = $2, last_error = 'endpoint deleted'
			WHERE endpoint_id = $1 AND delivered_at IS NULL AND gave_up_at IS NULL`, id, now); err != nil {
			return fmt.Errorf("delete webhook endpoint: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionWebhookDelete, Entity: "webhook", EntityID: strconv.FormatInt(id, 10),
			Before: webhookAudit(before)})
	})
}

// WebhookLog returns endpoint id's newest deliveries, at most limit
// (1–200), each with its attempts, newest first.
func (s *Store) WebhookLog(ctx context.Context, id int64, limit int) ([]webhook.LogRow, error) {
	_, limit = pageWindow(0, limit)
	return s.WebhookLogBefore(ctx, id, 0, limit)
}

// WebhookLogBefore returns endpoint id's deliveries older than delivery
// before (0: from the newest), at most limit (1–201: a page and the one
// that says more follow), each with its attempts, newest first: the data
// API's keyset page of the log (docs/RULES.md §24.9).
func (s *Store) WebhookLogBefore(ctx context.Context, id, before int64, limit int) ([]webhook.LogRow, error) {
	limit = min(max(limit, 1), 201)
	rows, err := s.pool.Query(ctx, `SELECT d.id, d.event_id, e.type, e.entity_id, e.created_at, d.attempts, d.next_attempt_at,
			d.last_status, d.last_error, d.last_duration_ms, d.response_body, d.delivered_at, d.gave_up_at
		FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
		WHERE d.endpoint_id = $1 AND ($3 = 0 OR d.id < $3) ORDER BY d.id DESC LIMIT $2`, id, limit, before)
	if err != nil {
		return nil, fmt.Errorf("webhook log: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (webhook.LogRow, error) {
		var l webhook.LogRow
		err := r.Scan(&l.ID, &l.EventID, &l.Type, &l.EntityID, &l.EventAt, &l.Attempts, &l.NextAttemptAt,
			&l.LastStatus, &l.LastError, &l.LastDuration, &l.ResponseBody, &l.DeliveredAt, &l.GaveUpAt)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("webhook log: %w", err)
	}
	if len(out) == 0 {
		return out, nil
	}
	ids := make([]int64, len(out))
	at := map[int64]int{}
	for i, l := range out {
		ids[i], at[l.ID] = l.ID, i
	}
	rows, err = s.pool.Query(ctx, `SELECT delivery_id, attempt, at, status, duration_ms, error, response_body
		FROM webhook_attempts WHERE delivery_id = ANY ($1) ORDER BY delivery_id, attempt`, ids)
	if err != nil {
		return nil, fmt.Errorf("webhook attempts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			did int64
			t   webhook.AttemptRow
		)
		if err := rows.Scan(&did, &t.Attempt, &t.At, &t.Status, &t.DurationMS, &t.Error, &t.Body); err != nil {
			return nil, fmt.Errorf("webhook attempts: %w", err)
		}
		out[at[did]].Tries = append(out[at[did]].Tries, t)
	}
	return out, rows.Err()
}

// RedeliverWebhook makes delivery deliveryID of endpoint endpointID due
// again at now — one new attempt, whatever it did before — audited
// (docs/RULES.md §24.7). An attempt that fails is retried only within the
// event's 24 hours. ErrNotFound when the delivery is not the endpoint's or
// the endpoint is deleted or disabled.
func (s *Store) RedeliverWebhook(ctx context.Context, a user.Actor, now time.Time, endpointID, deliveryID int64) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		e, err := lockedWebhookEndpoint(ctx, tx, endpointID)
		if err != nil {
			return err
		}
		if !e.Enabled {
			return ErrNotAllowed
		}
		var delivered, gaveUp bool
		err = tx.QueryRow(ctx, `UPDATE webhook_deliveries d SET next_attempt_at = $3, delivered_at = NULL, gave_up_at = NULL
			FROM webhook_deliveries old WHERE d.id = $2 AND d.endpoint_id = $1 AND old.id = d.id
			RETURNING old.delivered_at IS NOT NULL, old.gave_up_at IS NOT NULL`, endpointID, deliveryID, now).Scan(&delivered, &gaveUp)
		if err != nil {
			return notFound(err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionWebhookRedeliver, Entity: "webhook", EntityID: strconv.FormatInt(endpointID, 10),
			Before: map[string]any{"delivery": deliveryID, "delivered": delivered, "gave_up": gaveUp},
			After:  map[string]any{"delivery": deliveryID, "next_attempt_at": now.UTC()}})
	})
}

// DeliverNext implements webhook.Queue: it takes the oldest due delivery
// no other process holds (FOR UPDATE SKIP LOCKED, docs/RULES.md §24.7),
// calls send with it while holding its row, and records the attempt and
// its outcome in the same transaction: delivered, or the error with the
// next attempt's time from retry, or given up. A delivery whose endpoint
// was disabled or deleted is given up without an attempt. A failure to
// record rolls back, and the delivery stays due.
func (s *Store) DeliverNext(ctx context.Context, now time.Time, send func(webhook.Delivery) webhook.Attempt,
	retry func(d webhook.Delivery, attempts int, now time.Time) (time.Time, bool)) (webhook.Outcome, error) {
	out := webhook.None
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var d webhook.Delivery
		err := tx.QueryRow(ctx, `SELECT d.id, d.endpoint_id, e.kind, e.url, e.secret, e.enabled AND e.deleted_at IS NULL,
				d.event_id, ev.type, ev.payload, ev.created_at, d.attempts
			FROM webhook_deliveries d
			JOIN webhook_endpoints e ON e.id = d.endpoint_id
			JOIN webhook_events ev ON ev.id = d.event_id
			WHERE d.delivered_at IS NULL AND d.gave_up_at IS NULL AND d.next_attempt_at <= $1
			ORDER BY d.next_attempt_at, d.id LIMIT 1 FOR UPDATE OF d SKIP LOCKED`, now).
			Scan(&d.ID, &d.EndpointID, &d.Kind, &d.URL, &d.Secret, &d.Active, &d.EventID, &d.Type, &d.Payload, &d.EventAt, &d.Attempts)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("next webhook delivery: %w", err)
		}
		if !d.Active {
			out = webhook.GaveUp
			_, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET gave_up_at = $2, last_error = 'endpoint disabled' WHERE id = $1`, d.ID, now)
			return err
		}
		at := send(d)
		n := d.Attempts + 1
		msg := []rune(at.Err)
		if len(msg) > 1000 {
			msg = msg[:1000]
		}
		var status *int
		if at.Status != 0 {
			status = &at.Status
		}
		ms := int(at.Duration.Milliseconds())
		body := webhook.Truncate([]byte(at.Body), webhook.ResponseMax)
		if _, err := tx.Exec(ctx, `INSERT INTO webhook_attempts (delivery_id, attempt, at, status, duration_ms, error, response_body)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, d.ID, n, now, status, ms, string(msg), body); err != nil {
			return fmt.Errorf("webhook attempt: %w", err)
		}
		set := `attempts = $2, last_attempt_at = $3, last_status = $4, last_duration_ms = $5, last_error = $6, response_body = $7`
		args := []any{d.ID, n, now, status, ms, string(msg), body}
		switch next, giveUp := retry(d, n, now); {
		case at.OK():
			out = webhook.Delivered
			_, err = tx.Exec(ctx, `UPDATE webhook_deliveries SET `+set+`, delivered_at = $3 WHERE id = $1`, args...)
		case giveUp:
			out = webhook.GaveUp
			_, err = tx.Exec(ctx, `UPDATE webhook_deliveries SET `+set+`, gave_up_at = $3 WHERE id = $1`, args...)
		default:
			out = webhook.Retry
			_, err = tx.Exec(ctx, `UPDATE webhook_deliveries SET `+set+`, next_attempt_at = $8 WHERE id = $1`, append(args, next)...)
		}
		return err
	})
	if err != nil {
		return webhook.None, err
	}
	return out, nil
}

// WebhooksWaiting counts the deliveries neither delivered nor given up.
func (s *Store) WebhooksWaiting(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE delivered_at IS NULL AND gave_up_at IS NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("webhooks waiting: %w", err)
	}
	return n, nil
}

// enqueueWatchMatched enqueues watch.matched for event eventID of watch w,
// caused by quote version quoteID (0: none, an availability record), in
// q's transaction (docs/RULES.md §24.7).
func enqueueWatchMatched(ctx context.Context, q Querier, w watch.Watch, eventID, quoteID int64, cause string, now time.Time) error {
	subs, err := subscribed(ctx, q)
	if err != nil || !subs[webhook.WatchMatched] {
		return err
	}
	var o webhook.WatchObject
	o.Watch.ID, o.Watch.Name, o.Reason = w.ID, w.PlatformZH+" "+w.GPU, cause
	o.MatchedAt, o.Path = now.UTC().Format(time.RFC3339), "/watches#watch-"+strconv.FormatInt(w.ID, 10)
	if w.OwnerID != 0 {
		if err := q.QueryRow(ctx, `SELECT display_name FROM users WHERE id = $1`, w.OwnerID).Scan(&o.Watch.Owner); err != nil {
			return fmt.Errorf("watch event: %w", err)
		}
	}
	if quoteID != 0 {
		pubs, err := quoteObjects(ctx, q, []int64{quoteID})
		if err != nil {
			return err
		}
		if len(pubs) == 1 {
			o.Quote, o.Path = pubs[0].obj, pubs[0].obj.Path
		}
	}
	return EnqueueEvent(ctx, q, webhook.Event{Type: webhook.WatchMatched, EntityID: w.ID, At: now, Object: o})
}
