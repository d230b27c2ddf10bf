package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/shopspring/decimal"

	"gpuquote/internal/bill"
	"gpuquote/internal/billcheck"
	"gpuquote/internal/i18n"
	"gpuquote/internal/mail"
	"gpuquote/internal/notify"
	"gpuquote/internal/report"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// billWorld is an approved report comparing two quote versions, a third
// quote version it does not compare, a draft report, and the people
// around them.
type billWorld struct {
	st                            *store.Store
	author, fin1, fin2, admin     user.Actor
	stranger, editor, offFinance  user.Actor
	approved, draft               report.Report
	quote1, quote2, quoteElsewise int64
	platformID                    int64
}

var billMonth = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// snapshotOf is a report snapshot whose rows compare the quote versions.
func snapshotOf(quoteIDs ...int64) []byte {
	rows := make([]map[string]any, len(quoteIDs))
	for i, id := range quoteIDs {
		rows[i] = map[string]any{"quote": map[string]any{"id": id}, "tco": "72.00"}
	}
	b, _ := json.Marshal(map[string]any{"version": 1, "rows": rows})
	return b
}

func newBillWorld(t *testing.T, st *store.Store) billWorld {
	t.Helper()
	ctx := context.Background()
	w := billWorld{st: st, author: reportUser(t, st, "analyst"), fin1: reportUser(t, st, "finance"),
		fin2: reportUser(t, st, "finance"), admin: reportUser(t, st, "admin"), stranger: reportUser(t, st, "analyst"),
		editor: reportUser(t, st, "editor"), offFinance: reportUser(t, st, "finance")}
	if _, err := st.SetUserDisabled(ctx, actor, w.offFinance.UserID, true); err != nil {
		t.Fatal(err)
	}
	pid, gid := marketFixture(t, st)
	w.platformID = pid
	w.quote1 = testfactory.Published(t, st, sampleQuote(pid, gid)).ID
	w.quote2 = testfactory.Published(t, st, sampleQuote(pid, gid)).ID
	w.quoteElsewise = testfactory.Published(t, st, sampleQuote(pid, gid)).ID
	in := newReport("账单")
	in.Snapshot, in.QuoteCount = snapshotOf(w.quote1, w.quote2), 2
	r, err := st.CreateReport(ctx, w.author, storeDay, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SubmitReport(ctx, w.author, storeDay, r.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.ApproveReport(ctx, w.fin1, storeDay, r.ID, ""); err != nil {
		t.Fatal(err)
	}
	if w.approved, err = st.ReportHead(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	in.Title = "草稿"
	if w.draft, err = st.CreateReport(ctx, w.author, storeDay, in); err != nil {
		t.Fatal(err)
	}
	return w
}

// newBill is a bill with a line of every bill item, amounts to six places,
// a credit, and totals whose billed total is the lines' sum.
func newBill(reportID, quoteID int64, overcharge string) bill.New {
	var lines []billcheck.Line
	billed := decimal.Zero
	for i, it := range billcheck.Items() {
		l := billcheck.Line{Item: it, Quantity: dec(fmt.Sprintf("%d.250", 700+i)), Amount: dec(fmt.Sprintf("%d.123456", i)),
			Description: fmt.Sprintf("行 %d, \"quoted\"", i)}
		if it == billcheck.ItemOther {
			l.Amount, l.Quantity = dec("-3.50"), dec("0")
		}
		billed = billed.Add(l.Amount)
		lines = append(lines, l)
	}
	return bill.New{ReportID: reportID, QuoteID: quoteID, Month: billMonth, Currency: "EUR", PricesIncludeTax: true,
		Instances: 2, FXRate: dec("1.08250"), FXDate: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		Source: bill.SourceFOCUS, Filename: "focus-2026-11.csv", Lines: lines,
		Totals: bill.Totals{Billed: billed, Expected: dec("100.00"), Overcharge: dec(overcharge), Undercharge: dec("-0.30"),
			Unquoted: dec("5.00")}}
}

// sameBill reports how got differs from what in stored, decimals exactly.
func sameBill(got bill.Record, in bill.New) string {
	switch {
	case got.ReportID != in.ReportID || got.QuoteID != in.QuoteID || !got.Month.Equal(in.Month) ||
		got.Currency != in.Currency || got.PricesIncludeTax != in.PricesIncludeTax || got.Instances != in.Instances ||
		!got.FXRate.Equal(in.FXRate) || got.FXRate.Exponent() != in.FXRate.Exponent() || !got.FXDate.Equal(in.FXDate) || got.Source != in.Source ||
		got.Filename != in.Filename || got.Note != in.Note:
		return fmt.Sprintf("head %+v", got)
	case !got.Totals.Billed.Equal(in.Totals.Billed) || !got.Totals.Expected.Equal(in.Totals.Expected) ||
		!got.Totals.Overcharge.Equal(in.Totals.Overcharge) || !got.Totals.Undercharge.Equal(in.Totals.Undercharge) ||
		!got.Totals.Unquoted.Equal(in.Totals.Unquoted):
		return fmt.Sprintf("totals %+v", got.Totals)
	case len(got.Lines) != len(in.Lines):
		return fmt.Sprintf("%d lines, want %d", len(got.Lines), len(in.Lines))
	}
	for i, l := range got.Lines {
		w := in.Lines[i]
		if l.Item != w.Item || l.Description != w.Description || !l.Quantity.Equal(w.Quantity) || !l.Amount.Equal(w.Amount) ||
			l.Quantity.Exponent() != w.Quantity.Exponent() || l.Amount.Exponent() != w.Amount.Exponent() {
			return fmt.Sprintf("line %d %+v, want %+v", i, l, w)
		}
	}
	return ""
}

// TestBillStoredAndRevised: a bill reads back as stored, decimals exact; a
// second bill for the same report, quote and month is its correction
// (revision 2, naming revision 1, which is no longer the latest); another
// month or quote starts at revision 1; every bill is audited.
func TestBillStoredAndRevised(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newBillWorld(t, testutil.Store(t))
	st := w.st
	in := newBill(w.approved.ID, w.quote1, "0")
	first, err := st.CreateBill(ctx, w.author, storeDay, in)
	if err != nil {
		t.Fatal(err)
	}
	if first.Revision != 1 || first.PreviousID != 0 || !first.Latest || first.AuthorID != w.author.UserID ||
		first.AuthorName != "用户 analyst" || first.ReportNumber != w.approved.Number || first.ReportRevision != 1 ||
		!first.CreatedAt.Equal(storeDay) {
		t.Fatalf("first bill %+v", first)
	}
	got, err := st.Bill(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := sameBill(got, in); diff != "" {
		t.Fatalf("read back: %s", diff)
	}

	fix := newBill(w.approved.ID, w.quote1, "0")
	fix.Source, fix.Filename, fix.FXDate, fix.Note = bill.SourceTyped, "", time.Time{}, "供应商更正了出口流量"
	fix.Lines = fix.Lines[:1]
	fix.Totals.Billed = fix.Lines[0].Amount
	second, err := st.CreateBill(ctx, w.fin1, storeDay.Add(time.Hour), fix)
	if err != nil {
		t.Fatal(err)
	}
	if second.Revision != 2 || second.PreviousID != first.ID || !second.Latest || second.AuthorID != w.fin1.UserID {
		t.Fatalf("correction %+v", second)
	}
	if got, err := st.Bill(ctx, second.ID); err != nil || sameBill(got, fix) != "" {
		t.Fatalf("correction read back: %v %s", err, sameBill(got, fix))
	}
	if got, err := st.Bill(ctx, first.ID); err != nil || got.Latest {
		t.Fatalf("revision 1 after its correction: latest %v (%v)", got.Latest, err)
	}
	other := newBill(w.approved.ID, w.quote2, "0")
	otherQuote, err := st.CreateBill(ctx, w.admin, storeDay, other)
	if err != nil || otherQuote.Revision != 1 {
		t.Fatalf("another quote: %+v %v", otherQuote, err)
	}
	other = newBill(w.approved.ID, w.quote1, "0")
	other.Month = billMonth.AddDate(0, 1, 0)
	nextMonth, err := st.CreateBill(ctx, w.author, storeDay, other)
	if err != nil || nextMonth.Revision != 1 {
		t.Fatalf("another month: %+v %v", nextMonth, err)
	}
	if _, err := st.Bill(ctx, nextMonth.ID+100); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("no such bill: %v", err)
	}

	list, err := st.ReportBills(ctx, w.approved.ID)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, b := range list {
		order = append(order, fmt.Sprintf("%d:%s:%d:%v", b.ID, b.Month.Format("2006-01"), b.Revision, b.Latest))
	}
	// quote1 was published before quote2, so its id is the smaller.
	want := []string{
		fmt.Sprintf("%d:2026-12:1:true", nextMonth.ID),
		fmt.Sprintf("%d:2026-11:2:true", second.ID),
		fmt.Sprintf("%d:2026-11:1:false", first.ID),
		fmt.Sprintf("%d:2026-11:1:true", otherQuote.ID),
	}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Fatalf("report bills %v, want %v", order, want)
	}
	if list, err := st.ReportBills(ctx, w.draft.ID); err != nil || len(list) != 0 {
		t.Fatalf("a report without bills: %v %v", list, err)
	}

	recs, err := st.AuditLog(ctx, store.AuditFilter{Entity: "bill"})
	if err != nil || len(recs) != 4 {
		t.Fatalf("bill audit rows: %d %v", len(recs), err)
	}
	last := recs[len(recs)-1] // the first bill (newest first)
	var after map[string]any
	if err := json.Unmarshal(last.After, &after); err != nil {
		t.Fatal(err)
	}
	if last.Action != store.ActionBillCreate || last.EntityID != strconv.FormatInt(first.ID, 10) ||
		after["report_number"] != w.approved.Number || after["month"] != "2026-11" || after["revision"] != float64(1) ||
		after["billed"] != in.Totals.Billed.String() || after["lines"] != float64(len(in.Lines)) {
		t.Fatalf("audit of the first bill: %s %s", last.Action, last.After)
	}
}

// TestBillCorrectionsTakeTurns: bills for one month stored at once become
// revisions 1…n, each correcting the one before.
func TestBillCorrectionsTakeTurns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newBillWorld(t, testutil.Store(t))
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := w.st.CreateBill(ctx, w.author, storeDay, newBill(w.approved.ID, w.quote1, "0")); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	list, err := w.st.ReportBills(ctx, w.approved.ID)
	if err != nil || len(list) != 6 {
		t.Fatalf("%d bills, %v", len(list), err)
	}
	for i, b := range list {
		if b.Revision != 6-i || b.Latest != (i == 0) || (i < 5 && b.PreviousID != list[i+1].ID) || (i == 5 && b.PreviousID != 0) {
			t.Errorf("revision chain at %d: %+v", i, b)
		}
	}
}

// billCounts are the rows a refused CreateBill must not have added.
func billCounts(t *testing.T, st *store.Store) [4]int {
	return [4]int{count(t, st, "bills"), count(t, st, "bill_lines"), count(t, st, "audit_log"), count(t, st, "notifications")}
}

// TestBillRefusals: a report that is not approved, a quote it does not
// compare, a reader who is neither its author nor finance nor an admin,
// and every bad field are refused with their own errors, writing nothing.
func TestBillRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newBillWorld(t, testutil.Store(t))
	st := w.st
	refused := func(name string, a user.Actor, in bill.New, want error) {
		t.Helper()
		if _, err := st.CreateBill(ctx, a, storeDay, in); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
	ok := func() bill.New { return newBill(w.approved.ID, w.quote1, "1.70") }
	with := func(change func(*bill.New)) bill.New {
		in := ok()
		change(&in)
		return in
	}
	before := billCounts(t, st)
	refused("draft report", w.author, newBill(w.draft.ID, w.quote1, "0"), store.ErrReportNotApproved)
	if after := billCounts(t, st); after != before {
		t.Fatalf("a refused bill wrote rows: %v → %v", before, after)
	}
	if err := st.SubmitReport(ctx, w.author, storeDay, w.draft.ID); err != nil {
		t.Fatal(err)
	}
	before = billCounts(t, st)
	refused("submitted report", w.fin1, newBill(w.draft.ID, w.quote1, "0"), store.ErrReportNotApproved)
	refused("no such report", w.fin1, newBill(w.draft.ID+100, w.quote1, "0"), store.ErrNotFound)
	refused("quote not in the report", w.author, newBill(w.approved.ID, w.quoteElsewise, "0"), store.ErrBillQuote)
	refused("another analyst", w.stranger, ok(), store.ErrNotAllowed)
	refused("an editor", w.editor, ok(), store.ErrNotAllowed)
	refused("a disabled finance user", w.offFinance, ok(), store.ErrNotAllowed)
	refused("the system", user.SystemActor, ok(), store.ErrNotAllowed)
	for name, change := range map[string]func(*bill.New){
		"month not the first":   func(in *bill.New) { in.Month = billMonth.AddDate(0, 0, 1) },
		"no month":              func(in *bill.New) { in.Month = time.Time{} },
		"currency":              func(in *bill.New) { in.Currency = "eur" },
		"instances":             func(in *bill.New) { in.Instances = 10001 },
		"fx rate":               func(in *bill.New) { in.FXRate = decimal.Zero },
		"source":                func(in *bill.New) { in.Source = "pdf" },
		"filename":              func(in *bill.New) { in.Filename = strings.Repeat("名", 256) },
		"note":                  func(in *bill.New) { in.Note = strings.Repeat("n", 1001) },
		"note with a NUL":       func(in *bill.New) { in.Note = "a\x00b" },
		"no lines":              func(in *bill.New) { in.Lines = nil },
		"unknown item":          func(in *bill.New) { in.Lines[0].Item = "gpu" },
		"negative quantity":     func(in *bill.New) { in.Lines[0].Quantity = dec("-1") },
		"seven places":          func(in *bill.New) { in.Lines[0].Amount, in.Totals.Billed = dec("0.1234567"), dec("0") },
		"long description":      func(in *bill.New) { in.Lines[0].Description = strings.Repeat("描", 501) },
		"billed not the sum":    func(in *bill.New) { in.Totals.Billed = in.Totals.Billed.Add(dec("0.01")) },
		"negative overcharge":   func(in *bill.New) { in.Totals.Overcharge = dec("-1") },
		"positive undercharge":  func(in *bill.New) { in.Totals.Undercharge = dec("1") },
		"total too large":       func(in *bill.New) { in.Totals.Expected = dec("100000000000000") },
		"total too many places": func(in *bill.New) { in.Totals.Unquoted = dec("0.0000001") },
	} {
		in := with(change)
		_, err := st.CreateBill(ctx, w.fin1, storeDay, in)
		var be *store.BillError
		if !errors.Is(err, store.ErrBillInvalid) || !errors.As(err, &be) || be.Field == "" {
			t.Errorf("%s: %v, want a *BillError", name, err)
		}
	}
	if after := billCounts(t, st); after != before {
		t.Fatalf("refused bills wrote rows: %v → %v", before, after)
	}
}

// TestBillsAreImmutable: nobody changes or deletes a stored bill or its
// lines — the serving role lacks the privilege, and the tables' owner is
// refused by the trigger — nor adds lines to it later, nor stores a bill
// without lines, beside a report that is not approved, or correcting
// another bill than the revision before.
func TestBillsAreImmutable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	owner, app := testutil.DB(t)
	st, own := testutil.Open(t, app), testutil.Open(t, owner)
	w := newBillWorld(t, st)
	b, err := st.CreateBill(ctx, w.author, storeDay, newBill(w.approved.ID, w.quote1, "0"))
	if err != nil {
		t.Fatal(err)
	}
	before := billCounts(t, st)
	id := b.ID
	for _, c := range []struct {
		name string
		sql  string
		args []any
	}{
		{"update a bill", `UPDATE bills SET overcharge_total = 0, note = 'x' WHERE id = $1`, []any{id}},
		{"delete a bill", `DELETE FROM bills WHERE id = $1`, []any{id}},
		{"update a line", `UPDATE bill_lines SET amount = 0 WHERE bill_id = $1`, []any{id}},
		{"delete a line", `DELETE FROM bill_lines WHERE bill_id = $1 AND position = 0`, []any{id}},
		{"truncate bills", `TRUNCATE bills CASCADE`, nil},
		{"truncate lines", `TRUNCATE bill_lines`, nil},
		{"add a line later", `INSERT INTO bill_lines (bill_id, position, item, quantity, amount) VALUES ($1, 99, 'other', 1, 1)`, []any{id}},
	} {
		for who, s := range map[string]*store.Store{"serving role": st, "owner": own} {
			_, err := s.Pool().Exec(ctx, c.sql, c.args...)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) {
				t.Errorf("%s, as the %s: %v", c.name, who, err)
				continue
			}
			// The serving role may not UPDATE or DELETE at all; the owner
			// is stopped by a trigger.
			if who == "serving role" && (strings.HasPrefix(c.name, "update") || strings.HasPrefix(c.name, "delete")) && pgErr.Code != "42501" {
				t.Errorf("%s, as the serving role: %s %s, want a refused privilege", c.name, pgErr.Code, pgErr.Message)
			}
			if who == "owner" && pgErr.Code != "P0001" {
				t.Errorf("%s, as the owner: %s %s, want the trigger's exception", c.name, pgErr.Code, pgErr.Message)
			}
		}
	}
	insertBill := func(reportID, quoteID int64, revision int, previous any, withLine bool) error {
		tx, err := own.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		var nid int64
		if err := tx.QueryRow(ctx, `
			INSERT INTO bills (report_id, quote_id, month, revision, previous_id, currency, prices_include_tax, instances, fx_rate,
			                   source, billed_total, expected_total, overcharge_total, undercharge_total, unquoted_total,
			                   author_id, created_at)
			VALUES ($1, $2, '2026-11-01', $3, $4, 'EUR', true, 1, 1, 'typed', 1, 1, 0, 0, 0, $5, now()) RETURNING id`,
			reportID, quoteID, revision, previous, w.author.UserID).Scan(&nid); err != nil {
			return err
		}
		if withLine {
			if _, err := tx.Exec(ctx, `INSERT INTO bill_lines (bill_id, position, item, quantity, amount) VALUES ($1, 0, 'other', 1, 1)`, nid); err != nil {
				return err
			}
		}
		return tx.Commit(ctx)
	}
	if err := insertBill(w.approved.ID, w.quote1, 2, id, false); err == nil {
		t.Error("a bill without lines was committed")
	}
	if err := insertBill(w.draft.ID, w.quote1, 1, nil, true); err == nil {
		t.Error("a bill beside a draft report was stored")
	}
	if err := insertBill(w.approved.ID, w.quoteElsewise, 1, nil, true); err == nil {
		t.Error("a bill for a quote the report does not compare was stored")
	}
	if err := insertBill(w.approved.ID, w.quote2, 2, id, true); err == nil {
		t.Error("a revision correcting another quote's bill was stored")
	}
	if err := insertBill(w.approved.ID, w.quote1, 3, id, true); err == nil {
		t.Error("revision 3 correcting revision 1 was stored")
	}
	if after := billCounts(t, st); after != before {
		t.Fatalf("refused writes changed rows: %v → %v", before, after)
	}
	// The one sound way in, by hand, still works: the next revision with
	// its lines in one transaction.
	if err := insertBill(w.approved.ID, w.quote1, 2, id, true); err != nil {
		t.Fatalf("the next revision by hand: %v", err)
	}
	got, err := st.Bill(ctx, id)
	if err != nil || sameBill(got, newBill(w.approved.ID, w.quote1, "0")) != "" || got.Latest {
		t.Fatalf("bill after the attempts: %v %s latest %v", err, sameBill(got, newBill(w.approved.ID, w.quote1, "0")), got.Latest)
	}
}

// TestOverchargedBillNotifies: a bill that overcharges tells the report's
// author and every enabled finance user, but never the one who stored it,
// with a sentence naming the report, the month and the amount and a link
// to the bill; its mail says the same. A bill that does not overcharge
// tells nobody.
func TestOverchargedBillNotifies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newBillWorld(t, testutil.Store(t))
	st := w.st
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	st.SetMail(&store.Mail{Render: mail.Renderer{Catalog: cat, BaseURL: "https://gpuquote.test"}.Render})
	before := count(t, st, "notifications")
	if _, err := st.CreateBill(ctx, w.author, storeDay, newBill(w.approved.ID, w.quote2, "0")); err != nil {
		t.Fatal(err)
	}
	if n := count(t, st, "notifications"); n != before {
		t.Fatalf("a bill that does not overcharge added %d notices", n-before)
	}

	b, err := st.CreateBill(ctx, w.author, storeDay, newBill(w.approved.ID, w.quote1, "1.70"))
	if err != nil {
		t.Fatal(err)
	}
	if got := recipients(t, st, notify.BillOvercharged, b.ID); !sameIDs(got, []int64{w.fin1.UserID, w.fin2.UserID}) {
		t.Errorf("the author's overcharged bill told %v, want the enabled finance users %d, %d", got, w.fin1.UserID, w.fin2.UserID)
	}
	fix, err := st.CreateBill(ctx, w.fin1, storeDay, newBill(w.approved.ID, w.quote1, "1.70"))
	if err != nil {
		t.Fatal(err)
	}
	if got := recipients(t, st, notify.BillOvercharged, fix.ID); !sameIDs(got, []int64{w.author.UserID, w.fin2.UserID}) {
		t.Errorf("finance's overcharged bill told %v, want the author %d and the other finance user %d", got, w.author.UserID, w.fin2.UserID)
	}

	items, _, _, err := st.Notifications(ctx, w.author.UserID, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var it notify.Item
	for _, x := range items {
		if x.Kind == notify.BillOvercharged {
			it = x
		}
	}
	path := "/reports/" + strconv.FormatInt(w.approved.ID, 10) + "/bills/" + strconv.FormatInt(fix.ID, 10)
	if it.Entity != "bill" || it.EntityID != fix.ID || it.ActorID != w.fin1.UserID || it.Path() != path ||
		it.About.ReportNumber != w.approved.Number || !it.About.BillOvercharge.Equal(dec("1.70")) || it.About.BillCurrency != "EUR" {
		t.Fatalf("the author's notice %+v", it)
	}
	wantEN := "The 2026-11 bill of " + w.approved.Number + " overcharges 1.70 EUR."
	wantZH := w.approved.Number + " 的 2026-11 账单多收 1.70 EUR。"
	if got := notify.Sentence(cat.Translator(i18n.EN), it); got != wantEN {
		t.Errorf("en sentence %q, want %q", got, wantEN)
	}
	if got := notify.Sentence(cat.Translator(i18n.ZH), it); got != wantZH {
		t.Errorf("zh-CN sentence %q, want %q", got, wantZH)
	}
	opened, err := st.OpenNotification(ctx, w.author.UserID, it.ID, storeDay)
	if err != nil || opened.Path() != path || opened.ReadAt == nil {
		t.Fatalf("opened notice %+v %v", opened, err)
	}
	var subject, body string
	if err := st.Pool().QueryRow(ctx, `SELECT subject, body FROM mail_queue WHERE notification_id = $1`, it.ID).Scan(&subject, &body); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(subject, wantZH) || !strings.Contains(subject, wantEN) || !strings.Contains(body, "https://gpuquote.test"+path) {
		t.Errorf("mail %q\n%s", subject, body)
	}
}

// TestBillMappingsRoundTrip: mappings are added, changed and deleted, each
// change audited once in its transaction; saving the same answer again
// writes nothing; bad mappings and unknown platforms write nothing.
func TestBillMappingsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	editor := reportUser(t, st, "editor")
	pid, _ := marketFixture(t, st)
	audits := func() int {
		recs, err := st.AuditLog(ctx, store.AuditFilter{Entity: "bill_mapping"})
		if err != nil {
			t.Fatal(err)
		}
		return len(recs)
	}
	ms := []bill.Mapping{
		{Kind: bill.MappingSKU, Key: "  SKU-H100-80G  ", Item: billcheck.ItemComputeHourly},
		{Kind: bill.MappingDescription, Key: "Data Transfer Out (GB)", Item: billcheck.Item("egress")},
		{Kind: bill.MappingDescription, Key: "Boot disk", Item: billcheck.Item("system_disk")},
	}
	if err := st.SaveBillMappings(ctx, editor, storeDay, pid, ms); err != nil {
		t.Fatal(err)
	}
	got, err := st.BillMappings(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range got {
		keys = append(keys, m.Kind+"|"+m.Key+"|"+string(m.Item))
		if m.PlatformID != pid || m.UpdatedByName != "用户 editor" || !m.UpdatedAt.Equal(storeDay) {
			t.Errorf("mapping %+v", m)
		}
	}
	if want := "description|Boot disk|system_disk description|Data Transfer Out (GB)|egress sku|SKU-H100-80G|compute_hourly"; strings.Join(keys, " ") != want {
		t.Fatalf("mappings %q, want %q", strings.Join(keys, " "), want)
	}
	if n := audits(); n != 3 {
		t.Fatalf("%d audit entries for 3 new mappings", n)
	}

	// The same answers again change nothing; one changed answer is one entry.
	ms[1].Item = billcheck.ItemOther
	if err := st.SaveBillMappings(ctx, editor, storeDay.Add(time.Hour), pid, ms); err != nil {
		t.Fatal(err)
	}
	recs, err := st.AuditLog(ctx, store.AuditFilter{Entity: "bill_mapping"})
	if err != nil || len(recs) != 4 || recs[0].Action != store.ActionBillMappingSave ||
		!strings.Contains(string(recs[0].Before), `"egress"`) || !strings.Contains(string(recs[0].After), `"other"`) {
		t.Fatalf("audit after one change: %d %v %s → %s", len(recs), err, recs[0].Before, recs[0].After)
	}
	if got, _ := st.BillMappings(ctx, pid); len(got) != 3 || got[1].Item != billcheck.ItemOther || !got[1].UpdatedAt.Equal(storeDay.Add(time.Hour)) {
		t.Fatalf("after the change: %+v", got)
	}

	if err := st.DeleteBillMapping(ctx, editor, storeDay, pid, bill.MappingSKU, " SKU-H100-80G"); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.BillMappings(ctx, pid); len(got) != 2 {
		t.Fatalf("after delete: %+v", got)
	}
	if err := st.DeleteBillMapping(ctx, editor, storeDay, pid, bill.MappingSKU, "SKU-H100-80G"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete again: %v", err)
	}
	recs, _ = st.AuditLog(ctx, store.AuditFilter{Entity: "bill_mapping"})
	if len(recs) != 5 || recs[0].Action != store.ActionBillMappingDelete || !strings.Contains(string(recs[0].Before), "compute_hourly") {
		t.Fatalf("audit after delete: %d %+v", len(recs), recs[0])
	}

	before := [2]int{count(t, st, "bill_mappings"), count(t, st, "audit_log")}
	for name, m := range map[string]bill.Mapping{
		"unknown kind":   {Kind: "name", Key: "k", Item: billcheck.ItemOther},
		"blank key":      {Kind: bill.MappingSKU, Key: "   ", Item: billcheck.ItemOther},
		"long key":       {Kind: bill.MappingSKU, Key: strings.Repeat("k", 501), Item: billcheck.ItemOther},
		"unknown item":   {Kind: bill.MappingSKU, Key: "k", Item: "gpu"},
		"other platform": {PlatformID: pid + 1, Kind: bill.MappingSKU, Key: "k", Item: billcheck.ItemOther},
	} {
		// A good mapping first: nothing of the batch is written.
		batch := []bill.Mapping{{Kind: bill.MappingSKU, Key: "good", Item: billcheck.ItemOther}, m}
		if err := st.SaveBillMappings(ctx, editor, storeDay, pid, batch); !errors.Is(err, store.ErrBillInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := st.SaveBillMappings(ctx, editor, storeDay, pid+100, ms); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown platform: %v", err)
	}
	if _, err := st.BillMappings(ctx, pid+100); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("mappings of an unknown platform: %v", err)
	}
	if err := st.DeleteBillMapping(ctx, editor, storeDay, pid, "name", "k"); !errors.Is(err, store.ErrBillInvalid) {
		t.Errorf("delete with an unknown kind: %v", err)
	}
	if after := [2]int{count(t, st, "bill_mappings"), count(t, st, "audit_log")}; after != before {
		t.Fatalf("refused mappings wrote rows: %v → %v", before, after)
	}
}
