// Package testfactory makes the records tests start from — platforms, GPU
// models, quotes (drafts, published, new versions), proposals, API tokens,
// own-hardware options, trials, usage profiles and platform facts —
// straight through the store, each with sensible defaults a test overrides
// only where it cares. Every test package that needs such a record takes
// it from here, so a change to how one is made (a new required field, a
// new rule) is made once.
//
// Each function fails the test (t.Fatal) when the store refuses, and is
// safe to call from parallel tests: names that must be unique carry a
// process-wide sequence number.
package testfactory

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/facts"
	"gpuquote/internal/market"
	"gpuquote/internal/own"
	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/trial"
	"gpuquote/internal/user"
)

// Day is the as-of day of the records made here unless a test says
// otherwise: 2026-11-20.
var Day = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

var seq atomic.Int64

// Next is a process-wide sequence number for unique names.
func Next() int64 { return seq.Add(1) }

// D is an exact decimal from its text.
func D(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// ND is a present decimal from its text; "" is absent.
func ND(s string) decimal.NullDecimal {
	if s == "" {
		return decimal.NullDecimal{}
	}
	return decimal.NewNullDecimal(D(s))
}

// Platform stores a platform; a blank name gets a fresh one, a blank
// currency CNY.
func Platform(t testing.TB, st *store.Store, p market.Platform) market.Platform {
	t.Helper()
	if p.NameZH == "" && p.NameEN == "" {
		n := Next()
		p.NameZH, p.NameEN = fmt.Sprintf("测试云%d", n), fmt.Sprintf("Test Cloud %d", n)
	}
	if p.Currency == "" {
		p.Currency = "CNY"
	}
	out, err := st.CreatePlatform(context.Background(), user.SystemActor, p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// GPUModel stores a GPU model; blanks are filled as an NVIDIA card with a
// fresh name, 24 GB, PCIe and one fp32 figure of 82.6 TFLOPS.
func GPUModel(t testing.TB, st *store.Store, g market.GPUModel) market.GPUModel {
	t.Helper()
	if g.Vendor == "" {
		g.Vendor = "NVIDIA"
	}
	if g.Name == "" {
		g.Name = fmt.Sprintf("Test GPU %d", Next())
	}
	if g.VRAMGB.IsZero() {
		g.VRAMGB = D("24")
	}
	if g.Interconnect == "" {
		g.Interconnect = "pcie"
	}
	if g.Perf == nil {
		g.Perf = []market.GPUPerf{{Precision: "fp32", NominalTFLOPS: D("82.6"), NominalSource: "spec"}}
	}
	out, err := st.CreateGPUModel(context.Background(), user.SystemActor, g)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Quote fills what q leaves blank for a valid quote: one dedicated GPU,
// EUR, per-second billing, prices with tax, as of Day, source "test".
// Prices and lines are the test's: a quote without either is still valid.
func Quote(q quote.Quote) quote.Quote {
	if q.GPUCount == 0 {
		q.GPUCount = 1
	}
	if q.Sharing == "" {
		q.Sharing = "dedicated"
	}
	if q.Currency == "" {
		q.Currency = "EUR"
	}
	if q.BillingGranularity == "" {
		q.BillingGranularity = "second"
		q.PricesIncludeTax = true
	}
	if q.AsOf.IsZero() {
		q.AsOf = Day
	}
	if q.Source == "" {
		q.Source = "test"
	}
	return q
}

// Draft stores Quote(q) as a new series' draft.
func Draft(t testing.TB, st *store.Store, q quote.Quote) quote.Quote {
	t.Helper()
	d, err := st.CreateQuoteDraft(context.Background(), user.SystemActor, Quote(q))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Publish publishes draft d.
func Publish(t testing.TB, st *store.Store, d quote.Quote) quote.Quote {
	t.Helper()
	p, err := st.PublishQuote(context.Background(), user.SystemActor, d.ID, d.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Published stores Quote(q) as a new series and publishes it.
func Published(t testing.TB, st *store.Store, q quote.Quote) quote.Quote {
	t.Helper()
	return Publish(t, st, Draft(t, st, q))
}

// NextVersion publishes the next version of published quote prev after
// change has edited its draft.
func NextVersion(t testing.TB, st *store.Store, prev int64, change func(*quote.Quote)) quote.Quote {
	t.Helper()
	ctx := context.Background()
	d, err := st.NewQuoteVersion(ctx, user.SystemActor, prev)
	if err != nil {
		t.Fatal(err)
	}
	change(&d)
	if d, err = st.UpdateQuoteDraft(ctx, user.SystemActor, d); err != nil {
		t.Fatal(err)
	}
	return Publish(t, st, d)
}

// AllIncluded are the twelve hidden-cost lines, each included, in writing.
func AllIncluded() []quote.Line {
	var out []quote.Line
	for _, it := range []string{"bandwidth", "egress", "data_migration", "public_ip", "system_disk", "data_disk",
		"object_storage", "bundled_addon", "snapshot", "image", "stopped_retention", "start_stop_schedule"} {
		out = append(out, quote.Line{Item: it, Status: "included", InWriting: true})
	}
	return out
}

// Proposal stores Quote(q) as user uid's proposal of a new offer, with the
// vendor's message and, when file is not nil, an attachment (under its
// name as given, and no quota).
func Proposal(t testing.TB, st *store.Store, uid int64, q quote.Quote, message string, file *store.NewAttachment) quote.Quote {
	t.Helper()
	p, err := st.CreateProposal(context.Background(), user.Actor{UserID: uid}, Quote(q), message, file, proposal.Quota{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// APIToken stores a live token of user uid (email) holding scopes (every
// scope when none is named), expiring in 30 days, and returns its secret.
func APIToken(t testing.TB, st *store.Store, uid int64, email, name string, scopes ...string) string {
	t.Helper()
	if len(scopes) == 0 {
		scopes = user.APIScopes
	}
	token := auth.NewAPIToken()
	expires := time.Now().Add(30 * 24 * time.Hour)
	if _, err := st.CreateAPIToken(context.Background(), user.Actor{UserID: uid, Email: email},
		user.APIToken{Name: name, Scopes: scopes, ExpiresAt: &expires}, auth.HashToken(token), time.Now()); err != nil {
		t.Fatal(err)
	}
	return token
}

// OwnOption stores v as a new own-hardware option of user uid.
func OwnOption(t testing.TB, st *store.Store, uid int64, v own.Version, shared bool) own.Option {
	t.Helper()
	o, err := st.CreateOwnOption(context.Background(), user.Actor{UserID: uid}, v, shared)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// OwnVersion is a valid own-hardware option of one card of GPU model gpu
// named name: CNY 25,000 bought on 2026-11-01, 36 months, 600 W at PUE 1,
// electricity at 0.8 a kWh, prices with tax.
func OwnVersion(name string, gpu int64) own.Version {
	return own.Version{Name: name, GPUModelID: gpu, GPUCount: 1, Currency: "CNY", PurchasePrice: D("25000"),
		PurchaseAsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), PurchaseSource: "guide", LifeMonths: 36,
		PowerLoadW: D("600"), PUE: D("1"), KWhPrice: ND("0.8"), PricesIncludeTax: true}
}

// Trial opens a trial of a published quote by actor a, started on Day.
func Trial(t testing.TB, st *store.Store, a user.Actor, quoteID int64) trial.Trial {
	t.Helper()
	tr, err := st.CreateTrial(context.Background(), a, trial.Start{QuoteID: quoteID, StartedOn: Day})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// UsageProfile saves a usage profile of user uid with the given form values.
func UsageProfile(t testing.TB, st *store.Store, uid int64, name string, values map[string]string) int64 {
	t.Helper()
	p, err := st.SaveUsageProfile(context.Background(), user.Actor{UserID: uid}, name, values)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// Fact records a fact of platform pid as the system, as of 2026-10-01.
func Fact(t testing.TB, st *store.Store, pid int64, k facts.Kind, v facts.Value) {
	t.Helper()
	if _, err := st.CreatePlatformFact(context.Background(), user.SystemActor, facts.Fact{PlatformID: pid, Kind: k, Value: v,
		Source: "trial notes", AsOf: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)}, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
}

// FeedToken makes user uid (email) a feed token and returns it.
func FeedToken(t testing.TB, st *store.Store, uid int64, email string) string {
	t.Helper()
	token := auth.NewFeedToken()
	if _, err := st.CreateFeedToken(context.Background(), user.Actor{UserID: uid, Email: email}, auth.HashToken(token), time.Now()); err != nil {
		t.Fatal(err)
	}
	return token
}
