package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"gpuquote/internal/bill"
	"gpuquote/internal/billcheck"
	"gpuquote/internal/form"
	"gpuquote/internal/money"
	"gpuquote/internal/notify"
	"gpuquote/internal/report"
	"gpuquote/internal/tco"
	"gpuquote/internal/user"
)

// The audit actions of bills kept beside approved reports and of the
// FOCUS mappings (docs/RULES.md §23.8).
const (
	ActionBillCreate        = "bill.create"
	ActionBillMappingSave   = "bill_mapping.save"
	ActionBillMappingDelete = "bill_mapping.delete"
)

// ErrReportNotApproved means a bill names a report that exists but is not
// approved: bills are kept beside approved reports only.
var ErrReportNotApproved = errors.New("store: the report is not approved")

// ErrBillQuote means a bill names a quote version that is not one of the
// rows of its report's snapshot.
var ErrBillQuote = errors.New("store: the quote version is not one of the report's")

// ErrBillInvalid is what every *BillError is (errors.Is): a bill or a
// mapping the store refuses before writing anything.
var ErrBillInvalid = errors.New("store: invalid bill")

// BillError names the field of a bill or mapping the store refused and
// why: "month", "currency", "instances", "fx_rate", "source", "filename",
// "note", "lines", "lines[3].item", "totals.billed", "kind", "key",
// "item", "platform_id".
type BillError struct {
	Field   string
	Problem string
}

func (e *BillError) Error() string { return "store: bill: " + e.Field + ": " + e.Problem }

// Unwrap makes a *BillError an ErrBillInvalid.
func (e *BillError) Unwrap() error { return ErrBillInvalid }

// Bounds of what the bill tables hold.
const (
	billFilenameMax = 255
	billNoteMax     = 1000
	billKeyMax      = 500
)

// billTotalBelow bounds a total's magnitude: numeric(20,6) holds 14
// integer digits.
var billTotalBelow = decimal.New(1, 14)

// validateBill checks what CreateBill stores, field by field, before it
// reads anything; it returns the first problem.
func validateBill(in bill.New) error {
	bad := func(field, problem string) error { return &BillError{Field: field, Problem: problem} }
	switch {
	case in.ReportID <= 0:
		return bad("report_id", "required")
	case in.QuoteID <= 0:
		return bad("quote_id", "required")
	case in.Month.IsZero() || in.Month.UTC().Day() != 1 || in.Month.UTC().Year() < 2000:
		return bad("month", "not the first day of a month")
	case !money.IsCurrency(in.Currency):
		return bad("currency", "not a currency")
	case in.Instances < 1 || in.Instances > tco.MaxInstances:
		return bad("instances", "out of range")
	case in.FXRate.Sign() <= 0 || in.FXRate.GreaterThan(tco.MaxFXRate) || money.Places(in.FXRate) > tco.MaxFXPlaces:
		return bad("fx_rate", "not a rate")
	case !slices.Contains(bill.Sources, in.Source):
		return bad("source", "unknown")
	case utf8.RuneCountInString(in.Filename) > billFilenameMax || !form.StorableText(in.Filename):
		return bad("filename", "too long or not text")
	case utf8.RuneCountInString(in.Note) > billNoteMax || !form.StorableText(in.Note):
		return bad("note", "too long or not text")
	case len(in.Lines) == 0 || len(in.Lines) > billcheck.MaxLines:
		return bad("lines", "none or too many")
	}
	billed := decimal.Zero
	for i, l := range in.Lines {
		path := "lines[" + strconv.Itoa(i) + "]"
		switch {
		case !l.Item.Valid():
			return bad(path+".item", "unknown")
		case l.Quantity.Sign() < 0 || l.Quantity.GreaterThan(tco.MaxAmount) || money.Places(l.Quantity) > tco.MaxPlaces:
			return bad(path+".quantity", "out of range")
		case l.Amount.Abs().GreaterThan(tco.MaxAmount) || money.Places(l.Amount) > billcheck.MaxAmountPlaces:
			return bad(path+".amount", "out of range")
		case utf8.RuneCountInString(l.Description) > billcheck.MaxDescriptionLen || !form.StorableText(l.Description):
			return bad(path+".description", "too long or not text")
		}
		billed = money.Add(billed, l.Amount)
	}
	t := in.Totals
	for _, c := range []struct {
		name string
		d    decimal.Decimal
	}{{"billed", t.Billed}, {"expected", t.Expected}, {"overcharge", t.Overcharge}, {"undercharge", t.Undercharge},
		{"unquoted", t.Unquoted}} {
		if c.d.Abs().GreaterThanOrEqual(billTotalBelow) || money.Places(c.d) > 6 {
			return bad("totals."+c.name, "out of range")
		}
	}
	switch {
	case !t.Billed.Equal(billed):
		return bad("totals.billed", "not the sum of the lines")
	case t.Overcharge.Sign() < 0:
		return bad("totals.overcharge", "negative")
	case t.Undercharge.Sign() > 0:
		return bad("totals.undercharge", "positive")
	}
	return nil
}

// exactText writes d with every place it was written with ("0.300" stays
// 0.300), so an unconstrained numeric column keeps it as given, as the
// edit forms show it back.
func exactText(d decimal.Decimal) string {
	if exp := d.Exponent(); exp < 0 {
		return d.StringFixed(-exp)
	}
	return d.StringFixed(0)
}

// dateOf is the calendar day of t in UTC, as a date column stores it.
func dateOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// CreateBill stores a bill beside an approved report (docs/RULES.md
// §23.8), in one transaction under a lock on the report's row: the report
// must exist (ErrNotFound; a deleted draft does not), the actor must be
// its author, finance or an admin (bill.MayStore; else ErrNotAllowed), it
// must be approved (ErrReportNotApproved) and in.QuoteID one of the quote
// versions its snapshot compares (ErrBillQuote). The bill is the next
// revision for its report, quote and month, correcting the latest one; a
// bad field is a *BillError (ErrBillInvalid). The bill, its lines and the
// audit entry commit together, and so do, when it overcharges, the notices
// to the report's author and every finance user (notify.BillOvercharged;
// never to the actor). Any failure leaves the database as it was.
func (s *Store) CreateBill(ctx context.Context, a user.Actor, now time.Time, in bill.New) (bill.Record, error) {
	if err := validateBill(in); err != nil {
		return bill.Record{}, err
	}
	month := dateOf(in.Month)
	var fxDate *time.Time
	if !in.FXDate.IsZero() {
		d := dateOf(in.FXDate)
		fxDate = &d
	}
	var out bill.Record
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		// The row lock serialises the bills of one report, so two
		// corrections of one month cannot both become the next revision.
		var (
			author   int64
			status   string
			number   string
			revision int
			compares bool
		)
		err := tx.QueryRow(ctx, `
			SELECT author_id, status, number, revision,
			       coalesce(snapshot -> 'rows' @> jsonb_build_array(jsonb_build_object('quote', jsonb_build_object('id', $2::bigint))), false)
			FROM reports WHERE id = $1 FOR NO KEY UPDATE`, in.ReportID, in.QuoteID).Scan(&author, &status, &number, &revision, &compares)
		if err != nil {
			return notFound(err)
		}
		if status == report.Deleted {
			return ErrNotFound
		}
		// An enabled user only ("": the system, or disabled).
		var role string
		if _, err := exists(tx.QueryRow(ctx, `SELECT role FROM users WHERE id = $1 AND NOT disabled`, a.UserID).Scan(&role)); err != nil {
			return fmt.Errorf("bill author: %w", err)
		}
		if role == "" || !bill.MayStore(a.UserID, role, author) {
			return ErrNotAllowed
		}
		if status != report.Approved {
			return ErrReportNotApproved
		}
		if !compares {
			return ErrBillQuote
		}
		var (
			prevID  *int64
			prevRev int
		)
		err = tx.QueryRow(ctx, `SELECT id, revision FROM bills WHERE report_id = $1 AND quote_id = $2 AND month = $3
			ORDER BY revision DESC LIMIT 1`, in.ReportID, in.QuoteID, month).Scan(&prevID, &prevRev)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("latest bill: %w", err)
		}
		var id int64
		err = tx.QueryRow(ctx, `
			INSERT INTO bills (report_id, quote_id, month, revision, previous_id, currency, prices_include_tax, instances,
			                   fx_rate, fx_date, source, filename, note, billed_total, expected_total, overcharge_total,
			                   undercharge_total, unquoted_total, author_id, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text::numeric, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
			RETURNING id`,
			in.ReportID, in.QuoteID, month, prevRev+1, prevID, in.Currency, in.PricesIncludeTax, in.Instances,
			exactText(in.FXRate), fxDate, in.Source, in.Filename, in.Note, in.Totals.Billed, in.Totals.Expected, in.Totals.Overcharge,
			in.Totals.Undercharge, in.Totals.Unquoted, a.UserID, now).Scan(&id)
		if isUniqueViolation(err, "") {
			return ErrConflict
		}
		if err != nil {
			return fmt.Errorf("create bill: %w", err)
		}
		n := len(in.Lines)
		pos, items := make([]int32, n), make([]string, n)
		qty, amt, desc := make([]string, n), make([]string, n), make([]string, n)
		for i, l := range in.Lines {
			pos[i], items[i], desc[i] = int32(i), string(l.Item), l.Description
			qty[i], amt[i] = exactText(l.Quantity), exactText(l.Amount)
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO bill_lines (bill_id, position, item, quantity, amount, description)
			SELECT $1, l.position, l.item, l.quantity::numeric, l.amount::numeric, l.description
			FROM unnest($2::integer[], $3::text[], $4::text[], $5::text[], $6::text[]) AS l (position, item, quantity, amount, description)`,
			id, pos, items, qty, amt, desc); err != nil {
			return fmt.Errorf("bill lines: %w", err)
		}
		if out, err = billByID(ctx, tx, id, true); err != nil {
			return err
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: ActionBillCreate, Entity: "bill", EntityID: strconv.FormatInt(id, 10),
			After: billAudit(out)}); err != nil {
			return err
		}
		if out.Totals.Overcharge.Sign() <= 0 {
			return nil
		}
		var finance []int64
		if err := tx.QueryRow(ctx, `SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM users WHERE role = 'finance' AND NOT disabled`).
			Scan(&finance); err != nil {
			return fmt.Errorf("bill notice: %w", err)
		}
		if err := notifyUsers(ctx, tx, notify.Notice{Kind: notify.BillOvercharged, EntityID: id, ActorID: a.UserID, At: now},
			append(finance, author)...); err != nil {
			return err
		}
		return enqueueBillOvercharged(ctx, tx, now, id)
	})
	if err != nil {
		return bill.Record{}, err
	}
	return out, nil
}

// billAudit is what the audit log records of a stored bill: everything
// but its lines, which it counts (the bill itself never changes).
func billAudit(r bill.Record) map[string]any {
	fxDate := ""
	if !r.FXDate.IsZero() {
		fxDate = r.FXDate.Format(time.DateOnly)
	}
	return map[string]any{"id": r.ID, "report_id": r.ReportID, "report_number": r.ReportNumber,
		"report_revision": r.ReportRevision, "quote_id": r.QuoteID, "month": r.Month.Format("2006-01"),
		"revision": r.Revision, "previous_id": r.PreviousID, "currency": r.Currency,
		"prices_include_tax": r.PricesIncludeTax, "instances": r.Instances, "fx_rate": money.String(r.FXRate),
		"fx_date": fxDate, "source": r.Source, "filename": r.Filename, "note": r.Note, "lines": len(r.Lines),
		"billed": money.String(r.Totals.Billed), "expected": money.String(r.Totals.Expected),
		"overcharge": money.String(r.Totals.Overcharge), "undercharge": money.String(r.Totals.Undercharge),
		"unquoted": money.String(r.Totals.Unquoted)}
}

const billColumns = `b.id, b.report_id, r.number, r.revision, b.quote_id, b.month, b.revision, coalesce(b.previous_id, 0),
	NOT EXISTS (SELECT 1 FROM bills n WHERE n.previous_id = b.id), b.currency, b.prices_include_tax, b.instances, b.fx_rate,
	b.fx_date, b.source, b.filename, b.note, b.billed_total, b.expected_total, b.overcharge_total, b.undercharge_total,
	b.unquoted_total, b.author_id, u.display_name, b.created_at`

const billFrom = ` FROM bills b JOIN reports r ON r.id = b.report_id JOIN users u ON u.id = b.author_id`

func scanBill(row pgx.Row) (bill.Record, error) {
	var (
		r      bill.Record
		fxDate *time.Time
	)
	err := row.Scan(&r.ID, &r.ReportID, &r.ReportNumber, &r.ReportRevision, &r.QuoteID, &r.Month, &r.Revision, &r.PreviousID,
		&r.Latest, &r.Currency, &r.PricesIncludeTax, &r.Instances, &r.FXRate, &fxDate, &r.Source, &r.Filename, &r.Note,
		&r.Totals.Billed, &r.Totals.Expected, &r.Totals.Overcharge, &r.Totals.Undercharge, &r.Totals.Unquoted,
		&r.AuthorID, &r.AuthorName, &r.CreatedAt)
	if fxDate != nil {
		r.FXDate = *fxDate
	}
	return r, err
}

// billByID reads a bill, with its lines when lines is set.
func billByID(ctx context.Context, q Querier, id int64, lines bool) (bill.Record, error) {
	r, err := scanBill(q.QueryRow(ctx, `SELECT `+billColumns+billFrom+` WHERE b.id = $1`, id))
	if err != nil {
		return bill.Record{}, notFound(err)
	}
	if !lines {
		return r, nil
	}
	rows, err := q.Query(ctx, `SELECT item, quantity, amount, description FROM bill_lines WHERE bill_id = $1 ORDER BY position`, id)
	if err != nil {
		return bill.Record{}, fmt.Errorf("bill lines: %w", err)
	}
	r.Lines, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (billcheck.Line, error) {
		var (
			l    billcheck.Line
			item string
		)
		err := row.Scan(&item, &l.Quantity, &l.Amount, &l.Description)
		l.Item = billcheck.Item(item)
		return l, err
	})
	if err != nil {
		return bill.Record{}, fmt.Errorf("bill lines: %w", err)
	}
	return r, nil
}

// Bill returns a stored bill with its lines, its author's name, its
// report's number and revision, and whether it is the latest revision.
// ErrNotFound when there is no such bill; who may read it is the caller's
// decision (the report's readers).
func (s *Store) Bill(ctx context.Context, id int64) (bill.Record, error) {
	return billByID(ctx, s.pool, id, true)
}

// ReportBills returns every bill kept beside a report, every revision,
// without their lines: newest month first, then by quote version, the
// latest revision first.
func (s *Store) ReportBills(ctx context.Context, reportID int64) ([]bill.Record, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+billColumns+billFrom+`
		WHERE b.report_id = $1 ORDER BY b.month DESC, b.quote_id, b.revision DESC`, reportID)
	if err != nil {
		return nil, fmt.Errorf("report bills: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (bill.Record, error) { return scanBill(row) })
	if err != nil {
		return nil, fmt.Errorf("report bills: %w", err)
	}
	return out, nil
}

// validMapping checks a mapping's kind, key (trimmed here) and item.
func validMapping(kind, key string, item billcheck.Item) (string, error) {
	key = strings.TrimSpace(key)
	switch {
	case kind != bill.MappingSKU && kind != bill.MappingDescription:
		return "", &BillError{Field: "kind", Problem: "unknown"}
	case key == "" || utf8.RuneCountInString(key) > billKeyMax || !form.StorableText(key):
		return "", &BillError{Field: "key", Problem: "empty, too long or not text"}
	case !item.Valid():
		return "", &BillError{Field: "item", Problem: "unknown"}
	}
	return key, nil
}

// BillMappings returns a platform's remembered FOCUS answers, by kind and
// key. ErrNotFound when the platform does not exist.
func (s *Store) BillMappings(ctx context.Context, platformID int64) ([]bill.Mapping, error) {
	var ok bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM platforms WHERE id = $1)`, platformID).Scan(&ok); err != nil {
		return nil, fmt.Errorf("bill mappings: %w", err)
	}
	if !ok {
		return nil, ErrNotFound
	}
	rows, err := s.pool.Query(ctx, `
		SELECT m.platform_id, m.kind, m.key, m.item, coalesce(u.display_name, ''), m.updated_at
		FROM bill_mappings m LEFT JOIN users u ON u.id = m.updated_by
		WHERE m.platform_id = $1 ORDER BY m.kind, m.key`, platformID)
	if err != nil {
		return nil, fmt.Errorf("bill mappings: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (bill.Mapping, error) {
		var (
			m    bill.Mapping
			item string
		)
		err := row.Scan(&m.PlatformID, &m.Kind, &m.Key, &item, &m.UpdatedByName, &m.UpdatedAt)
		m.Item = billcheck.Item(item)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("bill mappings: %w", err)
	}
	return out, nil
}

// mappingEntityID names a mapping in the audit log.
func mappingEntityID(platformID int64, kind, key string) string {
	return strconv.FormatInt(platformID, 10) + ":" + kind + ":" + key
}

// SaveBillMappings remembers FOCUS answers on a platform (docs/RULES.md
// §23.8): each mapping is added, or its item changed, with one audit entry
// per mapping that changed (one saved again with the same item writes
// nothing), all in one transaction. Each mapping's key is trimmed; a bad
// kind, key or item, or a mapping naming another platform, is a
// *BillError and nothing is written. ErrNotFound when the platform does
// not exist. Who may save is the route's decision.
func (s *Store) SaveBillMappings(ctx context.Context, a user.Actor, now time.Time, platformID int64, ms []bill.Mapping) error {
	clean := make([]bill.Mapping, len(ms))
	for i, m := range ms {
		if m.PlatformID != 0 && m.PlatformID != platformID {
			return &BillError{Field: "platform_id", Problem: "another platform"}
		}
		key, err := validMapping(m.Kind, m.Key, m.Item)
		if err != nil {
			return err
		}
		clean[i] = bill.Mapping{PlatformID: platformID, Kind: m.Kind, Key: key, Item: m.Item}
	}
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT id FROM platforms WHERE id = $1`, platformID).Scan(new(int64)); err != nil {
			return notFound(err)
		}
		for _, m := range clean {
			var old string
			found, err := exists(tx.QueryRow(ctx, `SELECT item FROM bill_mappings WHERE platform_id = $1 AND kind = $2 AND key = $3
				FOR UPDATE`, platformID, m.Kind, m.Key).Scan(&old))
			if err != nil {
				return fmt.Errorf("bill mapping: %w", err)
			}
			if found && old == string(m.Item) {
				continue
			}
			if _, err := tx.Exec(ctx, `
				INSERT INTO bill_mappings (platform_id, kind, key, item, updated_by, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
				ON CONFLICT (platform_id, kind, key) DO UPDATE SET item = EXCLUDED.item, updated_by = EXCLUDED.updated_by,
				    updated_at = EXCLUDED.updated_at`,
				platformID, m.Kind, m.Key, string(m.Item), nullableActorID(a), now); err != nil {
				return fmt.Errorf("save bill mapping: %w", err)
			}
			var before any
			if found {
				before = map[string]any{"item": old}
			}
			if err := audit(ctx, tx, a, AuditEntry{Action: ActionBillMappingSave, Entity: "bill_mapping",
				EntityID: mappingEntityID(platformID, m.Kind, m.Key), Before: before,
				After: map[string]any{"platform_id": platformID, "kind": m.Kind, "key": m.Key, "item": string(m.Item)}}); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteBillMapping forgets one remembered FOCUS answer, audited in the
// same transaction (the audit log dates it; now is taken for symmetry with
// the other writes). ErrNotFound when there is no such mapping; a bad kind
// or key is a *BillError.
func (s *Store) DeleteBillMapping(ctx context.Context, a user.Actor, now time.Time, platformID int64, kind, key string) error {
	key, err := validMapping(kind, key, billcheck.ItemOther)
	if err != nil {
		return err
	}
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var item string
		err := tx.QueryRow(ctx, `DELETE FROM bill_mappings WHERE platform_id = $1 AND kind = $2 AND key = $3 RETURNING item`,
			platformID, kind, key).Scan(&item)
		if err != nil {
			return notFound(err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionBillMappingDelete, Entity: "bill_mapping",
			EntityID: mappingEntityID(platformID, kind, key),
			Before:   map[string]any{"platform_id": platformID, "kind": kind, "key": key, "item": item}})
	})
}
