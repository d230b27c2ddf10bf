package store_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"gpuquote/internal/own"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

var (
	ownDay1 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ownDay2 = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
)

// ownGPU adds a GPU model for the options of one test.
func ownGPU(t *testing.T, st *store.Store) int64 {
	t.Helper()
	var id int64
	if err := st.Pool().QueryRow(context.Background(),
		`INSERT INTO gpu_models (vendor, name, vram_gb) VALUES ('NVIDIA', 'GeForce RTX 4090', 24) RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// ownVersion is a valid option version with its own kWh figure.
func ownVersion(gpuID int64, name string) own.Version {
	return own.Version{Name: name, GPUModelID: gpuID, GPUCount: 1, Currency: "CNY", PurchasePrice: dec("25000"),
		PurchaseAsOf: ownDay1, PurchaseSource: "guide, 2026", LifeMonths: 36, PowerLoadW: dec("600"), PowerIdleW: dec("80"),
		PUE: dec("1.2"), KWhPrice: nd("0.8"), PricesIncludeTax: true}
}

func ownCounts(t *testing.T, st *store.Store) [3]int {
	t.Helper()
	return [3]int{count(t, st, "own_options"), count(t, st, "own_option_versions"), count(t, st, "audit_log")}
}

// TestOwnOptionVersionsAreImmutable: editing stores version n+1 and never
// touches version n; the database refuses to change or delete a version,
// or to rewrite a series, on every path, the owner's included
// (docs/RULES.md §17.4).
func TestOwnOptionVersionsAreImmutable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	owner, app := testutil.DB(t)
	st, ow := testutil.Open(t, app), testutil.Open(t, owner)
	gpu := ownGPU(t, st)
	author := reportUser(t, st, "analyst")
	o, err := st.CreateOwnOption(ctx, author, ownVersion(gpu, "4090 workstation"), false)
	if err != nil || o.LatestVersion != 1 || o.Current.Version != 1 || o.Shared || o.CreatedBy != author.UserID {
		t.Fatalf("create: %+v %v", o, err)
	}
	v2 := ownVersion(gpu, "4090 workstation, second quote")
	v2.PurchasePrice = dec("23999.5")
	o2, err := st.NewOwnOptionVersion(ctx, author, o.ID, 1, v2)
	if err != nil || o2.LatestVersion != 2 || o2.Current.Name != v2.Name || !o2.Current.PurchasePrice.Equal(dec("23999.5")) {
		t.Fatalf("new version: %+v %v", o2, err)
	}
	old, err := st.OwnOptionVersion(ctx, o.ID, 1)
	if err != nil || old.Name != "4090 workstation" || !old.PurchasePrice.Equal(dec("25000")) || old.ID != o.Current.ID {
		t.Fatalf("version 1 after the edit: %+v %v", old, err)
	}
	if vs, err := st.OwnOptionVersions(ctx, o.ID); err != nil || len(vs) != 2 || vs[0].Version != 2 || vs[1].Version != 1 {
		t.Fatalf("history: %+v %v", vs, err)
	}

	// A save based on version 1 after version 2 is a conflict and stores nothing.
	before := ownCounts(t, st)
	if _, err := st.NewOwnOptionVersion(ctx, author, o.ID, 1, v2); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale save: %v, want ErrConflict", err)
	}
	if after := ownCounts(t, st); after != before {
		t.Fatalf("refused save stored something: %v → %v", before, after)
	}

	for _, pool := range []*store.Store{st, ow} {
		for name, sql := range map[string]string{
			"update an old version":   `UPDATE own_option_versions SET purchase_price = 1 WHERE option_id = $1 AND version = 1`,
			"update the newest":       `UPDATE own_option_versions SET name = 'x' WHERE option_id = $1 AND version = 2`,
			"delete a version":        `DELETE FROM own_option_versions WHERE option_id = $1`,
			"delete the option":       `DELETE FROM own_options WHERE id = $1`,
			"make it shared":          `UPDATE own_options SET shared = true WHERE id = $1`,
			"take it over":            `UPDATE own_options SET created_by = NULL, shared = true WHERE id = $1`,
			"skip a version":          `UPDATE own_options SET latest_version = latest_version + 2 WHERE id = $1`,
			"insert an older version": `INSERT INTO own_option_versions (option_id, version, name, gpu_model_id, gpu_count, currency, purchase_price, purchase_as_of, purchase_source, power_load_w, kwh_price) SELECT $1, 1, 'x', gpu_model_id, 1, 'CNY', 1, '2026-01-01', 's', 1, 0 FROM own_option_versions WHERE option_id = $1 LIMIT 1`,
		} {
			if _, err := pool.Pool().Exec(ctx, sql, o.ID); err == nil {
				t.Errorf("%s: succeeded", name)
			}
		}
	}
	if got, err := st.OwnOptionVersion(ctx, o.ID, 1); err != nil || got.Name != old.Name || !got.PurchasePrice.Equal(old.PurchasePrice) {
		t.Fatalf("version 1 changed: %+v %v", got, err)
	}

	// Archived: no new version, the history stays, archiving is final.
	if err := st.ArchiveOwnOption(ctx, author, o.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.NewOwnOptionVersion(ctx, author, o.ID, 2, v2); !errors.Is(err, store.ErrOwnArchived) {
		t.Fatalf("version of an archived option: %v", err)
	}
	if err := st.ArchiveOwnOption(ctx, author, o.ID); !errors.Is(err, store.ErrOwnArchived) {
		t.Fatalf("archive twice: %v", err)
	}
	if _, err := ow.Pool().Exec(ctx, `UPDATE own_options SET archived_at = NULL, archived_by = NULL WHERE id = $1`, o.ID); err == nil {
		t.Fatal("un-archiving succeeded")
	}
	if vs, err := st.OwnOptionVersions(ctx, o.ID); err != nil || len(vs) != 2 {
		t.Fatalf("history after archiving: %d %v", len(vs), err)
	}
}

// TestOwnOptionVisibility: a private option is its author's; another
// analyst neither sees it in the list nor changes it; finance reads it;
// editors and admins read and change it; only editors and admins share
// (docs/RULES.md §17.4).
func TestOwnOptionVisibility(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	gpu := ownGPU(t, st)
	author, other := reportUser(t, st, "analyst"), reportUser(t, st, "analyst")
	fin, ed := reportUser(t, st, "finance"), reportUser(t, st, "editor")
	private, err := st.CreateOwnOption(ctx, author, ownVersion(gpu, "mine"), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateOwnOption(ctx, other, ownVersion(gpu, "an analyst shares"), true); !errors.Is(err, store.ErrNotAllowed) {
		t.Fatalf("analyst shares: %v, want ErrNotAllowed", err)
	}
	shared, err := st.CreateOwnOption(ctx, ed, ownVersion(gpu, "shared"), true)
	if err != nil || !shared.Shared {
		t.Fatalf("editor shares: %+v %v", shared, err)
	}
	roles := map[int64]string{author.UserID: "analyst", other.UserID: "analyst", fin.UserID: "finance", ed.UserID: "editor"}
	list := func(a user.Actor, scope string) map[int64]bool {
		rows, total, err := st.OwnOptions(ctx, store.OwnOptionFilter{ViewerID: a.UserID, ViewerRole: roles[a.UserID], Scope: scope})
		if err != nil || total != len(rows) {
			t.Fatalf("list: %d/%d %v", len(rows), total, err)
		}
		out := map[int64]bool{}
		for _, r := range rows {
			out[r.ID] = true
		}
		return out
	}
	for _, c := range []struct {
		who     user.Actor
		private bool
	}{{author, true}, {other, false}, {fin, true}, {ed, true}} {
		got := list(c.who, "")
		if got[private.ID] != c.private || !got[shared.ID] {
			t.Errorf("%s %d sees %v, want private=%v and the shared one", roles[c.who.UserID], c.who.UserID, got, c.private)
		}
		if own.MayRead(private, c.who.UserID, roles[c.who.UserID]) != c.private {
			t.Errorf("%s MayRead private: want %v", roles[c.who.UserID], c.private)
		}
	}
	if got := list(author, store.OwnScopeMine); !got[private.ID] || got[shared.ID] {
		t.Errorf("author's own: %v", got)
	}
	if got := list(author, store.OwnScopeShared); got[private.ID] || !got[shared.ID] {
		t.Errorf("shared: %v", got)
	}

	// Writes: refused in the store with nothing stored.
	before := ownCounts(t, st)
	for _, c := range []struct {
		who user.Actor
		id  int64
	}{{other, private.ID}, {fin, private.ID}, {author, shared.ID}, {fin, shared.ID}} {
		if _, err := st.NewOwnOptionVersion(ctx, c.who, c.id, 1, ownVersion(gpu, "taken over")); !errors.Is(err, store.ErrNotAllowed) {
			t.Errorf("%s edits option %d: %v", roles[c.who.UserID], c.id, err)
		}
		if err := st.ArchiveOwnOption(ctx, c.who, c.id); !errors.Is(err, store.ErrNotAllowed) {
			t.Errorf("%s archives option %d: %v", roles[c.who.UserID], c.id, err)
		}
	}
	if after := ownCounts(t, st); after != before {
		t.Fatalf("refused writes stored something: %v → %v", before, after)
	}
	if _, err := st.NewOwnOptionVersion(ctx, ed, private.ID, 1, ownVersion(gpu, "editor's fix")); err != nil {
		t.Fatalf("editor edits a private option: %v", err)
	}
	// The role is read when writing: an editor made analyst no longer
	// changes the shared option.
	if _, err := st.SetUserRole(ctx, actor, ed.UserID, "analyst"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.NewOwnOptionVersion(ctx, ed, shared.ID, 1, ownVersion(gpu, "no longer an editor")); !errors.Is(err, store.ErrNotAllowed) {
		t.Fatalf("former editor edits the shared option: %v", err)
	}
}

// TestOwnOptionWritesAuditInTheSameTransaction: each write and its audit
// row commit together; when the audit fails, nothing of the write stays.
func TestOwnOptionWritesAuditInTheSameTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	owner, app := testutil.DB(t)
	st, ow := testutil.Open(t, app), testutil.Open(t, owner)
	gpu := ownGPU(t, st)
	author := reportUser(t, st, "analyst")
	o, err := st.CreateOwnOption(ctx, author, ownVersion(gpu, "audited"), false)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.AuditLog(ctx, store.AuditFilter{Entity: "own_option"})
	if err != nil || len(recs) != 1 || recs[0].Action != store.ActionOwnOptionCreate || recs[0].EntityID != strconv.FormatInt(o.ID, 10) {
		t.Fatalf("audit of create: %+v %v", recs, err)
	}
	if _, err := ow.Pool().Exec(ctx, `
		CREATE FUNCTION fail_own_audit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.entity IN ('own_option', 'electricity_price') THEN RAISE EXCEPTION 'audit unavailable'; END IF; RETURN NEW; END $$;
		CREATE TRIGGER fail_own_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION fail_own_audit();`); err != nil {
		t.Fatal(err)
	}
	before := ownCounts(t, st)
	if _, err := st.CreateOwnOption(ctx, author, ownVersion(gpu, "unaudited"), false); err == nil {
		t.Error("create succeeded although its audit failed")
	}
	if _, err := st.NewOwnOptionVersion(ctx, author, o.ID, 1, ownVersion(gpu, "unaudited")); err == nil {
		t.Error("new version succeeded although its audit failed")
	}
	if err := st.ArchiveOwnOption(ctx, author, o.ID); err == nil {
		t.Error("archive succeeded although its audit failed")
	}
	if _, err := st.CreateElectricityPrice(ctx, author, own.ElectricityPrice{Region: "CN", Currency: "CNY", KWhPrice: dec("0.7"),
		AsOf: ownDay1, Source: "s"}); err == nil {
		t.Error("electricity price stored although its audit failed")
	}
	if after := ownCounts(t, st); after != before {
		t.Fatalf("writes without their audit left rows: %v → %v", before, after)
	}
	got, err := st.OwnOptionByID(ctx, o.ID)
	if err != nil || got.LatestVersion != 1 || got.Archived() || count(t, st, "electricity_prices") != 0 {
		t.Fatalf("option after failed writes: %+v %v", got, err)
	}
}

// TestElectricityResolvesByDay: an option priced by region uses the newest
// sample of its region and currency dated on or before the day, names it,
// and cannot be priced before the first one; an option's own figure names
// no sample (docs/RULES.md §17.4).
func TestElectricityResolvesByDay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	gpu := ownGPU(t, st)
	ed := reportUser(t, st, "editor")
	add := func(region, currency, price string, day time.Time) own.ElectricityPrice {
		t.Helper()
		p, err := st.CreateElectricityPrice(ctx, ed, own.ElectricityPrice{Region: region, Currency: currency, KWhPrice: dec(price), AsOf: day, Source: "tariff " + price})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := add("CN-Beijing", "CNY", "0.7", ownDay1)
	second := add("CN-beijing", "CNY", "0.8", ownDay2) // the stored spelling is kept
	add("CN-Beijing", "EUR", "0.09", ownDay1.AddDate(0, 0, 10))
	add("CN-Shanghai", "CNY", "0.95", ownDay1)
	if second.Region != "CN-Beijing" {
		t.Fatalf("second sample's region %q, want the first spelling", second.Region)
	}
	if _, err := st.CreateElectricityPrice(ctx, ed, own.ElectricityPrice{Region: "CN-BEIJING", Currency: "CNY", KWhPrice: dec("1"), AsOf: ownDay2, Source: "dup"}); !errors.Is(err, store.ErrElectricityPriceExists) {
		t.Fatalf("second sample on one day: %v", err)
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE electricity_prices SET kwh_price = 9 WHERE id = $1`, first.ID); err == nil {
		t.Fatal("a sample was changed")
	}
	if _, err := st.Pool().Exec(ctx, `DELETE FROM electricity_prices WHERE id = $1`, first.ID); err == nil {
		t.Fatal("a sample was deleted")
	}

	v := ownVersion(gpu, "by region")
	v.ElectricityRegion, v.KWhPrice = "cn-beijing", nd("0")
	o, err := st.CreateOwnOption(ctx, ed, v, true)
	if err != nil || o.Current.ElectricityRegion != "CN-Beijing" || o.Current.KWhPrice.Valid {
		t.Fatalf("option by region: %+v %v", o.Current, err)
	}
	for _, c := range []struct {
		day   time.Time
		want  string
		id    int64
		asOf  time.Time
		none  bool
		label string
	}{
		{day: ownDay1.AddDate(0, 0, -1), none: true, label: "before the first sample"},
		{day: ownDay1, want: "0.7", id: first.ID, asOf: ownDay1, label: "the first sample's day"},
		{day: ownDay2.AddDate(0, 0, -1), want: "0.7", id: first.ID, asOf: ownDay1, label: "the day before the second"},
		{day: ownDay2, want: "0.8", id: second.ID, asOf: ownDay2, label: "the second sample's day"},
		{day: ownDay2.AddDate(1, 0, 0), want: "0.8", id: second.ID, asOf: ownDay2, label: "a year later"},
	} {
		e, err := st.ResolveElectricity(ctx, o.Current, c.day)
		if c.none {
			if !errors.Is(err, store.ErrNoElectricitySample) {
				t.Errorf("%s: %+v %v, want ErrNoElectricitySample", c.label, e, err)
			}
			continue
		}
		if err != nil || !e.KWhPrice.Equal(dec(c.want)) || e.SampleID != c.id || !e.AsOf.Equal(c.asOf) || e.Region != "CN-Beijing" {
			t.Errorf("%s: %+v %v, want %s from sample %d", c.label, e, err, c.want, c.id)
		}
	}
	in, ver, e, err := st.OwnEngineInput(ctx, o.Current.ID, ownDay2)
	if err != nil || ver.ID != o.Current.ID || e.SampleID != second.ID || !in.KWhPrice.Equal(dec("0.8")) ||
		in.GPUModel != "NVIDIA GeForce RTX 4090" || in.Currency != "CNY" || !in.PurchasePrice.Equal(dec("25000")) ||
		in.LifeMonths != 36 || !in.PUE.Equal(dec("1.2")) || !in.PricesIncludeTax {
		t.Fatalf("engine input: %+v %+v %+v %v", in, ver, e, err)
	}

	// Its own figure: no sample.
	mine, err := st.CreateOwnOption(ctx, ed, ownVersion(gpu, "own figure"), false)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := st.ResolveElectricity(ctx, mine.Current, ownDay1.AddDate(-5, 0, 0)); err != nil || e.SampleID != 0 || !e.KWhPrice.Equal(dec("0.8")) {
		t.Fatalf("own figure: %+v %v", e, err)
	}

	// A region without a sample in the option's currency is refused.
	bad := ownVersion(gpu, "no series")
	bad.ElectricityRegion, bad.Currency = "CN-Shanghai", "EUR"
	before := ownCounts(t, st)
	if _, err := st.CreateOwnOption(ctx, ed, bad, false); !errors.Is(err, store.ErrNoElectricitySeries) {
		t.Fatalf("region without a series: %v", err)
	}
	if after := ownCounts(t, st); after != before {
		t.Fatalf("refused option stored something: %v → %v", before, after)
	}
	cur, err := st.CurrentElectricityPrices(ctx, ownDay2)
	if err != nil || len(cur) != 3 {
		t.Fatalf("in force: %+v %v", cur, err)
	}
}

// TestOwnReadsNameTheDomainsErrors: an option or version that is not there
// is both store.ErrNotFound and own.ErrNotFound, so the pricing of options
// (package compare, which imports no store) drops it; a region with no
// electricity price is own.ErrNoElectricitySample.
func TestOwnReadsNameTheDomainsErrors(t *testing.T) {
	t.Parallel()
	st := testutil.Store(t)
	ctx := context.Background()
	_, errVersion := st.OwnOptionVersionByID(ctx, 987654)
	_, errOption := st.OwnOptionByID(ctx, 987654)
	for name, err := range map[string]error{"version": errVersion, "option": errOption} {
		if !errors.Is(err, own.ErrNotFound) || !errors.Is(err, store.ErrNotFound) {
			t.Errorf("an unknown own-hardware %s: %v, want both own.ErrNotFound and store.ErrNotFound", name, err)
		}
	}
	if !errors.Is(store.ErrNoElectricitySample, own.ErrNoElectricitySample) {
		t.Error("store.ErrNoElectricitySample is not own.ErrNoElectricitySample")
	}
}
