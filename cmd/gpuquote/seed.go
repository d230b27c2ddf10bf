package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/config"
	"gpuquote/internal/market"
	"gpuquote/internal/user"
)

// demoUsers are created on an empty database, one per role, so every part
// of the product can be tried at once. Their passwords are generated and
// printed once: they are for local use only.
var demoUsers = []struct {
	email, name string
	role        auth.Role
}{
	{"admin@gpuquote.local", "演示管理员 Demo Admin", auth.RoleAdmin},
	{"analyst@gpuquote.local", "演示分析员 Demo Analyst", auth.RoleAnalyst},
	{"finance@gpuquote.local", "演示财务 Demo Finance", auth.RoleFinance},
	{"editor@gpuquote.local", "演示编辑 Demo Editor", auth.RoleEditor},
}

// sampleFXDate is the date of the sample exchange rates.
var sampleFXDate = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// sampleFXRates let the calculator convert between the guides' currencies
// out of the box. They are illustrative, say so in their source, and are
// meant to be replaced by rates the team actually uses.
var sampleFXRates = []market.FXRate{
	{Base: "EUR", Quote: "CNY", Rate: decimal.RequireFromString("7.8"), AsOf: sampleFXDate, Source: "示例数据 sample data — replace with your own dated rate"},
	{Base: "USD", Quote: "CNY", Rate: decimal.RequireFromString("7.1"), AsOf: sampleFXDate, Source: "示例数据 sample data — replace with your own dated rate"},
	{Base: "CNY", Quote: "EUR", Rate: decimal.RequireFromString("0.128"), AsOf: sampleFXDate, Source: "示例数据 sample data — replace with your own dated rate"},
	{Base: "CNY", Quote: "USD", Rate: decimal.RequireFromString("0.1408"), AsOf: sampleFXDate, Source: "示例数据 sample data — replace with your own dated rate"},
	{Base: "EUR", Quote: "USD", Rate: decimal.RequireFromString("1.09"), AsOf: sampleFXDate, Source: "示例数据 sample data — replace with your own dated rate"},
	{Base: "USD", Quote: "EUR", Rate: decimal.RequireFromString("0.917"), AsOf: sampleFXDate, Source: "示例数据 sample data — replace with your own dated rate"},
}

func seed(ctx context.Context, cfg config.Config, stdout io.Writer) error {
	st, err := openOwnerStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Pool().Close()
	if err := st.CheckSchema(ctx); err != nil {
		return err
	}
	n, err := st.CountUsers(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		fmt.Fprintln(stdout, "database already has data; sample data not loaded")
		return nil
	}
	h := newHasher()
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(stdout, "")
	fmt.Fprintln(stdout, "=== LOCAL DEMO ACCOUNTS — for local use only; change or disable them before real use ===")
	fmt.Fprintln(tw, "role\temail\tpassword")
	for _, d := range demoUsers {
		pw := auth.GeneratePassword()
		hash, err := h.Hash(ctx, pw)
		if err != nil {
			return err
		}
		if _, err := st.CreateUser(ctx, user.SystemActor, user.NewAccount{Email: d.email, DisplayName: d.name, Role: string(d.role), PasswordHash: hash}); err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", d.role, d.email, pw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "(the passwords are shown only now; reset one with: gpuquote user password --email …)")
	fmt.Fprintln(stdout, "")
	for _, r := range sampleFXRates {
		if _, err := st.CreateFXRate(ctx, user.SystemActor, r); err != nil {
			return err
		}
	}
	if err := loadSampleMarket(ctx, st, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "loaded %d sample exchange rates (dated %s, marked as sample data: replace them with your own)\n",
		len(sampleFXRates), sampleFXDate.Format(time.DateOnly))
	return nil
}
