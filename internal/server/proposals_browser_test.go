package server_test

import (
	"context"
	"io"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/proposal"
	"gpuquote/internal/sample"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestBrowserProposalPages opens the proposal pages of an analyst (the
// proposal form, the proposal's page, "my proposals") and of an editor
// (the queue, the review page, a returned proposal's page with its file to
// withdraw, one whose file was withdrawn) at a phone's and a desktop's
// width in both languages: nothing scrolls sideways (docs/RULES.md §18.1).
// GPUQUOTE_SCREENSHOT_DIR keeps the images.
func TestBrowserProposalPages(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	if err := sample.LoadMarket(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	aEmail, aPassword, aID := app.CreateUser(auth.RoleAnalyst)
	eEmail, ePassword, eID := app.CreateUser(auth.RoleEditor)
	q := draftQuote(app)
	q.Label = "RTX 4090 单卡 · 按月预付 · 含 10 Mbps 带宽"
	p, err := app.Store.CreateProposal(ctx, user.Actor{UserID: aID}, q,
		"您好，4090 单卡月付 1,099 元（含税），带宽 10 Mbps 含在内，数据盘 100 GB 免费。\nRegards, sales team, a-very-long-unbroken-word-"+
			"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
		&store.NewAttachment{Filename: "报价单 2026-11 very long file name for the vendor offer.pdf", ContentType: "application/pdf", Data: proposalPDF},
		proposal.Quota{}, testutil.NewClock(q.AsOf).Now())
	if err != nil {
		t.Fatal(err)
	}
	// Two more sent back: one whose file an editor may withdraw, one whose
	// file was withdrawn.
	returned := func(name string) int64 {
		r, err := app.Store.CreateProposal(ctx, user.Actor{UserID: aID}, q, "附件见报价单",
			&store.NewAttachment{Filename: name, ContentType: "application/pdf", Data: proposalPDF}, proposal.Quota{}, testutil.NewClock(q.AsOf).Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := app.Store.ReturnProposal(ctx, user.Actor{UserID: eID}, r.ID, r.LockVersion, "价格与附件不符", q.AsOf); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	withdrawable, withdrawn := returned("报价单 2026-11 错误的附件 wrong attachment.pdf"), returned("已撤回的文件 withdrawn file.pdf")
	atts, err := app.Store.QuoteAttachments(ctx, withdrawn)
	if err != nil || len(atts) != 1 {
		t.Fatalf("attachments: %v %v", atts, err)
	}
	if err := app.Store.WithdrawAttachment(ctx, user.Actor{UserID: eID}, withdrawn, atts[0].ID, q.AsOf); err != nil {
		t.Fatal(err)
	}
	run := func(email, password string, pages []fitPage) {
		b := testutil.Browser(t)
		if err := chromedp.Do(b, signIn(app, email, password)); err != nil {
			t.Fatal(err)
		}
		pagesFit(t, b, app, "proposal", pages)
	}
	run(aEmail, aPassword, []fitPage{
		{"form", "/quotes/new", `[data-testid="proposal-form"]`, false},
		{"quote", "/quotes/" + itoa(p.ID), `[data-testid="proposal-panel"]`, false},
		{"mine", "/quotes/proposals", `[data-testid="proposals"]`, false},
	})
	run(eEmail, ePassword, []fitPage{
		{"queue", "/quotes/review", `[data-testid="proposals"]`, false},
		{"review", "/quotes/" + itoa(p.ID) + "/review", `[data-testid="review-publish-form"]`, false},
		{"withdrawable", "/quotes/" + itoa(withdrawable), `[data-testid="attachment-withdraw"]`, false},
		{"withdrawn", "/quotes/" + itoa(withdrawn), `[data-testid="attachment-withdrawn"]`, false},
	})
}
