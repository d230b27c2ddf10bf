package store_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

func hash(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:] }

func TestAPITokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	mk := func(email string) user.Actor {
		u, err := st.CreateUser(ctx, actor, user.NewAccount{Email: email, DisplayName: "X", Role: "analyst", PasswordHash: "x"})
		if err != nil {
			t.Fatal(err)
		}
		return user.Actor{UserID: u.ID, Email: u.Email}
	}
	ana, bo := mk("ana@example.test"), mk("bo@example.test")

	tok, err := st.CreateAPIToken(ctx, ana, user.APIToken{Name: "  box 1 ", Scopes: []string{user.ScopeRead}}, hash("secret-1"), now)
	if err != nil || tok.Name != "box 1" || tok.UserID != ana.UserID || tok.LastUsedAt != nil {
		t.Fatalf("create: %+v %v", tok, err)
	}
	if _, err := st.CreateAPIToken(ctx, ana, user.APIToken{Name: "box 2", Scopes: []string{user.ScopeRead}}, hash("secret-1"), now); err == nil {
		t.Error("two tokens with one hash")
	}
	// Creating failed as a whole: no stray audit row.
	if n := count(t, st, "audit_log WHERE action = 'api_token.create'"); n != 1 {
		t.Errorf("%d create audits", n)
	}

	gotTok, u, found, err := st.UserByAPIToken(ctx, hash("secret-1"))
	if err != nil || !found || gotTok.ID != tok.ID || u.ID != ana.UserID {
		t.Fatalf("by token: %+v %+v %v", gotTok, u, err)
	}
	if _, _, found, err := st.UserByAPIToken(ctx, hash("nope")); found || err != nil {
		t.Errorf("unknown token: %v", err)
	}

	// Touching records the use at most once a minute.
	if err := st.TouchAPIToken(ctx, tok.ID, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := st.TouchAPIToken(ctx, tok.ID, now.Add(time.Hour+30*time.Second)); err != nil {
		t.Fatal(err)
	}
	list, err := st.APITokens(ctx, ana.UserID)
	if err != nil || len(list) != 1 || list[0].LastUsedAt == nil || !list[0].LastUsedAt.Equal(now.Add(time.Hour)) {
		t.Fatalf("list: %+v %v", list, err)
	}

	// Only the owner revokes; a revoked token is gone for good.
	if _, err := st.RevokeAPIToken(ctx, bo, tok.ID, now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoke someone else's: %v", err)
	}
	rv, err := st.RevokeAPIToken(ctx, ana, tok.ID, now.Add(2*time.Hour))
	if err != nil || rv.RevokedAt == nil {
		t.Fatalf("revoke: %+v %v", rv, err)
	}
	if _, err := st.RevokeAPIToken(ctx, ana, tok.ID, now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoke twice: %v", err)
	}
	if _, _, found, err := st.UserByAPIToken(ctx, hash("secret-1")); found || err != nil {
		t.Errorf("revoked token still finds its user: %v", err)
	}
	if list, _ := st.APITokens(ctx, ana.UserID); len(list) != 0 {
		t.Errorf("revoked token listed: %+v", list)
	}
	if n := count(t, st, "audit_log WHERE action = 'api_token.revoke'"); n != 1 {
		t.Errorf("%d revoke audits", n)
	}

	// A disabled user's tokens find nobody.
	tok2, err := st.CreateAPIToken(ctx, bo, user.APIToken{Name: "bo", Scopes: []string{user.ScopeRead}}, hash("secret-2"), now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetUserDisabled(ctx, actor, bo.UserID, true); err != nil {
		t.Fatal(err)
	}
	if _, _, found, err := st.UserByAPIToken(ctx, hash("secret-2")); found || err != nil {
		t.Errorf("disabled user's token %d: %v", tok2.ID, err)
	}

	// At most MaxAPITokens live tokens per user.
	for i := 0; i < store.MaxAPITokens; i++ {
		if _, err := st.CreateAPIToken(ctx, ana, user.APIToken{Name: fmt.Sprint("t", i), Scopes: []string{user.ScopeRead}}, hash(fmt.Sprint("many-", i)), now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.CreateAPIToken(ctx, ana, user.APIToken{Name: "one more", Scopes: []string{user.ScopeRead}}, hash("one more"), now); !errors.Is(err, store.ErrTooManyTokens) {
		t.Errorf("over the limit: %v", err)
	}
}

func TestGPUModelByName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	mk := func(vendor, name string, aliases ...string) market.GPUModel {
		g, err := st.CreateGPUModel(ctx, actor, market.GPUModel{Vendor: vendor, Name: name, VRAMGB: decimal.RequireFromString("24"),
			Interconnect: "pcie", Aliases: aliases})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	mk("NVIDIA", "GeForce RTX 4090", "RTX 4090", "4090")
	mk("NVIDIA", "X1")
	mk("Other", "X1")
	mk("Other", "NVIDIA X1")
	cases := []struct {
		ref  string
		want string // "Vendor|Name"; "" for not found
	}{
		{"NVIDIA GeForce RTX 4090", "NVIDIA|GeForce RTX 4090"},
		{"nvidia geforce rtx 4090", "NVIDIA|GeForce RTX 4090"},
		{"  NVIDIA   GeForce  RTX 4090 ", "NVIDIA|GeForce RTX 4090"},
		{"GeForce RTX 4090", "NVIDIA|GeForce RTX 4090"},
		{"Other X1", "Other|X1"},
		{"X1", ""}, // two vendors call a model X1: ambiguous
		{"NVIDIA RTX 4090", ""},
		// Aliases resolve like names, as quote references resolve them.
		{"rtx  4090", "NVIDIA|GeForce RTX 4090"},
		{"4090", "NVIDIA|GeForce RTX 4090"},
		{"", ""},
	}
	for _, c := range cases {
		g, err := st.GPUModelByName(ctx, c.ref)
		if c.want == "" {
			if !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%q: %s %s %v, want not found", c.ref, g.Vendor, g.Name, err)
			}
			continue
		}
		if err != nil || g.Vendor+"|"+g.Name != c.want {
			t.Errorf("%q: %s|%s %v, want %s", c.ref, g.Vendor, g.Name, err, c.want)
		}
	}
	// A full "Vendor Name" match wins over a bare name: "NVIDIA X1" is both
	// NVIDIA's X1 and the bare name of Other's "NVIDIA X1".
	if g, err := st.GPUModelByName(ctx, "NVIDIA X1"); err != nil || g.Vendor != "NVIDIA" || g.Name != "X1" {
		t.Errorf("NVIDIA X1: %+v %v", g, err)
	}
}
