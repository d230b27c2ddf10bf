package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"gpuquote/internal/apiclient"
	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// checkedTransport sends a generated client's requests and checks every
// answer against the OpenAPI description, as testutil.Client does.
type checkedTransport struct{ t *testing.T }

func (ct checkedTransport) Do(req *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	testutil.CheckAPI(ct.t, req, res.StatusCode, res.Header, body)
	return res, nil
}

// generatedClient is the generated client (internal/apiclient) of app's
// API, sending token.
func generatedClient(t *testing.T, app *testutil.App, token string) *apiclient.ClientWithResponses {
	t.Helper()
	c, err := apiclient.NewClientWithResponses(app.URL, apiclient.WithHTTPClient(checkedTransport{t}),
		apiclient.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+token)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGeneratedClientJourney drives an integrator's journey through the
// client oapi-codegen generates from the served description
// (internal/apiclient, TestClientIsGenerated): every value sent is of the
// Go type the description gave it, and every answer decodes into the
// described types and passes the description's validator. An analyst lists
// the quotes a page at a time by cursor and polls with If-None-Match,
// finds their own-hardware option's version id, compares, prices renting
// against buying (own.life_months an integer), saves the comparison as a
// report, submits it and downloads it; finance approves it; the analyst
// records availability naming the platform by name, reads a vendor's
// message into a quote and proposes it, counts as integers and flags as
// booleans (docs/RULES.md §19.6, §22.10).
func TestGeneratedClientJourney(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	gpu := testfactory.GPUModel(app.T, app.Store, market.GPUModel{})
	_, _, analystID := app.CreateUser(auth.RoleAnalyst)
	option := testfactory.OwnOption(t, app.Store, analystID, testfactory.OwnVersion("Journey box", gpu.ID), false)
	analyst := generatedClient(t, app, tokenOf(t, app, analystID, user.ScopeRead, user.ScopeReportsWrite, user.ScopeTrialsWrite, user.ScopeQuotesWrite,
		user.ScopeWatchesWrite))
	financeToken, _ := apiToken(t, app, auth.RoleFinance, user.ScopeReportsWrite)
	finance := generatedClient(t, app, financeToken)
	en := "en"

	// The quotes, one a page, following next_cursor to the end.
	var ids []int64
	limit := 1
	params := &apiclient.ListQuotesParams{Limit: &limit}
	for range 10 {
		res, err := analyst.ListQuotesWithResponse(ctx, params)
		if err != nil || res.JSON200 == nil {
			t.Fatalf("list quotes: %v %d %s", err, res.StatusCode(), res.Body)
		}
		for _, q := range res.JSON200.Items {
			ids = append(ids, q.Id)
		}
		if res.JSON200.NextCursor == "" {
			break
		}
		params.Cursor = &res.JSON200.NextCursor
	}
	slices.Sort(ids)
	if want := []int64{min(a, b), max(a, b)}; !slices.Equal(ids, want) {
		t.Fatalf("the pages listed %v, want %v", ids, want)
	}
	// Polling: the ETag of an answer brings 304 while nothing changed.
	first, err := analyst.ListQuotesWithResponse(ctx, &apiclient.ListQuotesParams{})
	if err != nil || first.StatusCode() != http.StatusOK || first.HTTPResponse.Header.Get("ETag") == "" {
		t.Fatalf("list quotes: %v %d", err, first.StatusCode())
	}
	etag := first.HTTPResponse.Header.Get("ETag")
	again, err := analyst.ListQuotesWithResponse(ctx, &apiclient.ListQuotesParams{IfNoneMatch: &etag})
	if err != nil || again.StatusCode() != http.StatusNotModified || len(again.Body) != 0 {
		t.Errorf("If-None-Match: %v %d", err, again.StatusCode())
	}

	// The option a comparison takes, by its listed version id.
	mine := apiclient.ListOwnHardwareParamsScopeMine
	opts, err := analyst.ListOwnHardwareWithResponse(ctx, &apiclient.ListOwnHardwareParams{Scope: &mine})
	if err != nil || opts.JSON200 == nil || len(opts.JSON200.Items) != 1 || opts.JSON200.Items[0].VersionId != option.Current.ID {
		t.Fatalf("own hardware: %v %s", err, opts.Body)
	}
	hours, months, instances := "200", 12, 1
	egress, release := "100", apiclient.CompareProfileBetweenRunsRelease
	profile := apiclient.CompareProfile{HoursPerMonth: &hours, Months: &months, Instances: &instances, EgressGbPerMonth: &egress,
		BetweenRuns: &release}
	eur := "EUR"
	cmp, err := analyst.CompareWithResponse(ctx, &apiclient.CompareParams{AcceptLanguage: &en}, apiclient.CompareRequest{
		Profile: profile, Quotes: []int64{a, b}, OwnHardware: &[]int64{opts.JSON200.Items[0].VersionId}, ReportCurrency: &eur})
	if err != nil || cmp.JSON200 == nil || cmp.JSON200.Rows == nil || len(*cmp.JSON200.Rows) != 2 || !strings.Contains(string(cmp.Body), "Journey box") {
		t.Fatalf("compare: %v %d %.300s", err, cmp.StatusCode(), cmp.Body)
	}

	// Renting against buying, the own option's life as the integer described.
	life := 36
	rentBuy, err := analyst.EvaluateRentVsBuyWithResponse(ctx, &apiclient.EvaluateRentVsBuyParams{}, apiclient.RentBuyRequest{
		Quote: apiclient.TCOQuote{GpuCount: 1, PricesIncludeTax: true, Currency: &eur, Hourly: ptr("0.471"),
			BillingGranularity: ptr(apiclient.TCOQuoteBillingGranularitySecond)},
		Profile: apiclient.TCOProfile{HoursPerMonth: "200", Months: 12, Instances: 1},
		Own: apiclient.RentBuyOwn{Currency: "EUR", GpuCount: 1, PurchasePrice: "25000", LifeMonths: &life, PowerLoadW: "450",
			KwhPrice: "0.3", PricesIncludeTax: true}})
	if err != nil || rentBuy.JSON200 == nil || rentBuy.JSON200.Own.Tco == "" {
		t.Fatalf("rent vs buy: %v %d %s", err, rentBuy.StatusCode(), rentBuy.Body)
	}

	// A month's bill checked against its quote (golden bill 3, billed
	// without the tax): the instances an integer, the verdict an enum.
	cny, instancesBilled := "CNY", 1
	bill, err := analyst.CheckBillWithResponse(ctx, &apiclient.CheckBillParams{AcceptLanguage: &en}, apiclient.BillCheckRequest{
		Quote: apiclient.TCOQuote{GpuCount: 1, PricesIncludeTax: false, TaxRate: ptr("0.06"), Currency: &cny, Monthly: ptr("3000")},
		Bill: apiclient.BillCheckBill{Month: "2026-11", Currency: "CNY", PricesIncludeTax: true, Instances: &instancesBilled,
			Lines: []apiclient.BillCheckLine{{Item: apiclient.BillCheckLineItemComputeMonthly, Quantity: "1", Amount: "3000.00"}}}})
	if err != nil || bill.JSON200 == nil || len(bill.JSON200.Lines) != 1 ||
		bill.JSON200.Lines[0].Verdict != "undercharged" || bill.JSON200.UnderchargeTotal != "-180.00" {
		t.Fatalf("bill check: %v %d %s", err, bill.StatusCode(), bill.Body)
	}

	// Saved as a report, submitted, downloaded; finance approves.
	saved, err := analyst.CreateReportWithResponse(ctx, &apiclient.CreateReportParams{}, apiclient.ReportCreateRequest{
		Title: "Journey", Profile: &profile, Quotes: &[]int64{a, b}, ReportCurrency: &eur})
	if err != nil || saved.JSON201 == nil || saved.JSON201.Status != "draft" {
		t.Fatalf("save: %v %d %s", err, saved.StatusCode(), saved.Body)
	}
	id := saved.JSON201.Id
	submitted, err := analyst.SubmitReportWithResponse(ctx, id, &apiclient.SubmitReportParams{}, apiclient.ReportStepRequest{})
	if err != nil || submitted.JSON200 == nil || submitted.JSON200.Status != "submitted" || submitted.JSON200.SubmittedAt == nil {
		t.Fatalf("submit: %v %d %s", err, submitted.StatusCode(), submitted.Body)
	}
	if selfApprove, err := analyst.ApproveReportWithResponse(ctx, id, &apiclient.ApproveReportParams{}, apiclient.ReportStepRequest{}); err != nil ||
		selfApprove.JSON403 == nil {
		t.Errorf("the author approving: %v %d %s", err, selfApprove.StatusCode(), selfApprove.Body)
	}
	approved, err := finance.ApproveReportWithResponse(ctx, id, &apiclient.ApproveReportParams{}, apiclient.ReportStepRequest{})
	if err != nil || approved.JSON200 == nil || approved.JSON200.Status != "approved" || approved.JSON200.DecidedBy == nil {
		t.Fatalf("approve: %v %d %s", err, approved.StatusCode(), approved.Body)
	}
	csvFile, err := analyst.ExportReportCSVWithResponse(ctx, id, &apiclient.ExportReportCSVParams{AcceptLanguage: &en})
	if err != nil || csvFile.StatusCode() != http.StatusOK || !strings.Contains(string(csvFile.Body), "Journey") {
		t.Errorf("report CSV: %v %d", err, csvFile.StatusCode())
	}
	xlsx, err := analyst.ExportReportXLSXWithResponse(ctx, id, &apiclient.ExportReportXLSXParams{})
	if err != nil || xlsx.StatusCode() != http.StatusOK || !bytes.HasPrefix(xlsx.Body, []byte("PK")) {
		t.Errorf("report XLSX: %v %d", err, xlsx.StatusCode())
	}
	got, err := analyst.GetReportWithResponse(ctx, id, &apiclient.GetReportParams{})
	if err != nil || got.JSON200 == nil || got.JSON200.Status != "approved" || len(got.JSON200.Events) < 3 {
		t.Errorf("the report now: %v %d", err, got.StatusCode())
	}

	// Availability, the platform by name and the GPU model by id.
	platformName, gpuID := "", int64(0)
	if q, err := analyst.GetQuoteWithResponse(ctx, a, &apiclient.GetQuoteParams{}); err != nil || q.JSON200 == nil {
		t.Fatalf("quote %d: %v", a, err)
	} else {
		platformName, gpuID = q.JSON200.PlatformNameEn, q.JSON200.GpuModelId
	}
	note := "sold out at night"
	rec, err := analyst.RecordAvailabilityWithResponse(ctx, &apiclient.RecordAvailabilityParams{}, apiclient.AvailRequest{
		Platform: &platformName, GpuModelId: &gpuID, AttemptedAt: "2026-11-30T20:00:00Z", GpuCount: 8, Obtained: false,
		WaitMinutes: 45, Note: &note})
	if err != nil || rec.JSON201 == nil || rec.JSON201.GpuCount != 8 {
		t.Fatalf("availability: %v %d %s", err, rec.StatusCode(), rec.Body)
	}

	// The vendor's message read into a quote, storing nothing; its values
	// are of the Go types a proposal takes.
	message := "Radeon AI PRO R9700, 1 GPU: monthly €280, prices include VAT."
	read, err := analyst.ExtractQuoteWithResponse(ctx, &apiclient.ExtractQuoteParams{AcceptLanguage: &en},
		apiclient.QuoteExtractInput{Text: message})
	if err != nil || read.JSON200 == nil {
		t.Fatalf("extract: %v %d %s", err, read.StatusCode(), read.Body)
	}
	stated := read.JSON200.Quote
	if stated.GpuCount == nil || *stated.GpuCount != 1 || stated.Monthly == nil || *stated.Monthly != "280" ||
		stated.Currency == nil || *stated.Currency != eur || stated.PricesIncludeTax == nil || !*stated.PricesIncludeTax ||
		stated.Hourly != nil || stated.PlatformId != nil || len(read.JSON200.Evidence) == 0 {
		t.Fatalf("extract read %s", read.Body)
	}

	// A proposal from what was read: a count as an integer, flags as
	// booleans.
	no := false
	sharing := apiclient.ProposalInputSharingDedicated
	prop, err := analyst.ProposeQuoteWithResponse(ctx, &apiclient.ProposeQuoteParams{}, apiclient.ProposalInput{
		Platform: &platformName, GpuModelId: &gpuID, GpuCount: stated.GpuCount, Sharing: &sharing, Currency: stated.Currency,
		Monthly: stated.Monthly, PricesIncludeTax: stated.PricesIncludeTax, DepositRefundable: &no,
		AsOf: openapi_types.Date{Time: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)}, Source: "vendor mail", VendorMessage: message})
	if err != nil || prop.JSON201 == nil || prop.JSON201.State != "proposed" {
		t.Fatalf("proposal: %v %d %s", err, prop.StatusCode(), prop.Body)
	}

	// A watch on the GPU model, listed in the reader's language, deleted.
	basis, cny, target := apiclient.WatchRequestBasisHourly, "CNY", "10"
	made, err := analyst.CreateWatchWithResponse(ctx, &apiclient.CreateWatchParams{AcceptLanguage: &en}, apiclient.WatchRequest{
		GpuModelId: &gpuID, Kind: apiclient.WatchRequestKindPriceBelow, Basis: &basis, Currency: &cny, Target: &target})
	if err != nil || made.JSON201 == nil || made.JSON201.Kind != apiclient.WatchKindPriceBelow {
		t.Fatalf("watch: %v %d %s", err, made.StatusCode(), made.Body)
	}
	watches, err := analyst.ListWatchesWithResponse(ctx, &apiclient.ListWatchesParams{AcceptLanguage: &en})
	if err != nil || watches.JSON200 == nil || len(watches.JSON200.Items) != 1 || !strings.Contains(watches.JSON200.Items[0].Text, "10.00 CNY") {
		t.Fatalf("watches: %v %s", err, watches.Body)
	}
	if gone, err := analyst.DeleteWatchWithResponse(ctx, made.JSON201.Id, &apiclient.DeleteWatchParams{}); err != nil || gone.StatusCode() != http.StatusNoContent {
		t.Errorf("delete watch: %v %d", err, gone.StatusCode())
	}
}

func ptr[T any](v T) *T { return &v }
