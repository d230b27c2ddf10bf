package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"gpuquote/internal/auth"
	"gpuquote/internal/config"
	"gpuquote/internal/store"
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

func seed(ctx context.Context, cfg config.Config, stdout io.Writer) error {
	st, err := openStore(ctx, cfg)
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
		if _, err := st.CreateUser(ctx, store.SystemActor, store.NewUser{Email: d.email, DisplayName: d.name, Role: string(d.role), PasswordHash: hash}); err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", d.role, d.email, pw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "(the passwords are shown only now; reset one with: gpuquote user password --email …)")
	fmt.Fprintln(stdout, "")
	return nil
}
