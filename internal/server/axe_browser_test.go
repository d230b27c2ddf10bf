package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/bill"
	"gpuquote/internal/quote"
	"gpuquote/internal/sample"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
	"gpuquote/internal/watch"
	"gpuquote/internal/webhook"
	"gpuquote/web"
)

// axeNotPages are the GET routes of the route table that are no page a
// person reads: operations, assets, files and plain text (and every route
// under /api/v1/, the data API). The accessibility test checks every other
// GET route.
var axeNotPages = map[string]string{
	"GET /healthz":                             "operations",
	"GET /readyz":                              "operations",
	"GET /metrics":                             "operations",
	"GET /static/*":                            "assets",
	"GET /bench/plaintext":                     "load test ceiling",
	"GET /bench/fortunes":                      "load test ceiling",
	"GET /debug/pprof/*":                       "profiler",
	"GET /quotes/export.csv":                   "a CSV file",
	"GET /reports/:id/export.csv":              "a CSV file",
	"GET /reports/:id/export.xlsx":             "a workbook",
	"GET /reports/:id/bills/:bill/export.csv":  "a CSV file",
	"GET /reports/:id/bills/:bill/export.xlsx": "a workbook",
	"GET /reports/:id/bills/:bill/focus.csv":   "a CSV file",
	"GET /quotes/:id/attachments/:att":         "a vendor's file",
	"GET /trials/:id/pastes/:paste":            "plain text",
	"GET /trials/:id/results/:result/output":   "plain text",
	"GET /feeds/quotes.atom":                   "an Atom feed",
	"GET /feeds/watch/:token":                  "an Atom feed",
}

// axeWorld is what the accessibility test's pages show: the sample market
// (platforms, GPU models, the HOSTKEY quotes, own hardware, facts,
// availability), a user of each role, and the records the pages with an id
// show.
type axeWorld struct {
	app   *testutil.App
	users map[string][2]string // role → email, password
	// clients are the users signed in over HTTP, once each: with the
	// browser's, two of the five password attempts an account has in 15
	// minutes (docs/RULES.md §16.2).
	clients map[string]*testutil.Client
	ids     map[string]int64 // role → user id
	quotes  []int64          // the published HOSTKEY sample quotes
	// proposal is each role's own proposal, sent back (its author alone
	// edits it); ownOption each role's own private option (its author
	// edits it); pending the analyst's proposal the editors review.
	proposal, ownOption   map[string]int64
	pending               int64
	platform, gpu, draft  int64
	sharedOption, trialID int64
	report                int64
	// approved is the analyst's approved report; bill finance's check of
	// its November bill.
	approved, bill int64
	catalogImport  int64
	// webhook is an endpoint told of the approval (its delivery waits).
	webhook int64
	compare url.Values
	watches map[string]int64 // role → its own watch
}

// axePage is how to open one GET route: its path for a role (the records
// it names those the role may see), and the roles that may see it when the
// route's policy admits more (a record's own rule: the author alone edits
// a proposal).
type axePage struct {
	path  func(w *axeWorld, role string) string
	roles []string
}

func axePages() map[string]axePage {
	return map[string]axePage{
		"GET /":           {},
		"GET /login":      {roles: []string{"anonymous"}}, // the signed-in are sent home
		"GET /calculator": {},
		"GET /api/docs":   {},
		"GET /account":    {},
		// The notices of a proposal (editors, admins) and a submitted
		// report (finance, admins) wait unread.
		"GET /notifications": {},
		// Each role's own watch, listed and opened for a change.
		"GET /watches": {path: func(w *axeWorld, role string) string { axeWatch(w, role); return "/watches" }},
		"GET /watches/new": {path: func(w *axeWorld, _ string) string {
			return web.WatchOfferURL(mustQuote(w, w.quotes[0]))
		}},
		"GET /watches/:id/edit": {path: func(w *axeWorld, role string) string {
			return "/watches/" + itoa(axeWatch(w, role)) + "/edit"
		}},
		"GET /platforms":     {},
		"GET /platforms/new": {},
		"GET /platforms/:id": {path: func(w *axeWorld, _ string) string { return "/platforms/" + itoa(w.platform) }},
		"GET /platforms/:id/edit": {path: func(w *axeWorld, _ string) string {
			return "/platforms/" + itoa(w.platform) + "/edit"
		}},
		"GET /platforms/:id/terms/edit": {path: func(w *axeWorld, _ string) string {
			return "/platforms/" + itoa(w.platform) + "/terms/edit"
		}},
		"GET /platforms/:id/facts": {path: func(w *axeWorld, _ string) string { return "/platforms/" + itoa(w.platform) + "/facts" }},
		"GET /gpus":                {},
		"GET /gpus/new":            {},
		"GET /gpus/:id":            {path: func(w *axeWorld, _ string) string { return "/gpus/" + itoa(w.gpu) }},
		"GET /gpus/:id/edit":       {path: func(w *axeWorld, _ string) string { return "/gpus/" + itoa(w.gpu) + "/edit" }},
		"GET /quotes":              {},
		"GET /quotes/new":          {}, // the proposal form, or the editors' draft form
		"GET /quotes/proposals":    {},
		"GET /quotes/:id/proposal/edit": {path: func(w *axeWorld, role string) string {
			return "/quotes/" + itoa(w.proposal[role]) + "/proposal/edit"
		}},
		"GET /quotes/review": {},
		"GET /quotes/:id/review": {path: func(w *axeWorld, _ string) string {
			return "/quotes/" + itoa(w.pending) + "/review"
		}},
		"GET /quotes/:id":      {path: func(w *axeWorld, _ string) string { return "/quotes/" + itoa(w.quotes[0]) }},
		"GET /quotes/:id/edit": {path: func(w *axeWorld, _ string) string { return "/quotes/" + itoa(w.draft) + "/edit" }},
		"GET /quotes/import":   {},
		// The catalog import's form (with the recent imports) and an
		// import's page: new and changed drafts, a name not known.
		"GET /quotes/import/skypilot": {},
		"GET /quotes/import/skypilot/:id": {path: func(w *axeWorld, _ string) string {
			return "/quotes/import/skypilot/" + itoa(w.catalogImport)
		}},
		"GET /prices":           {},
		"GET /own-hardware":     {},
		"GET /own-hardware/new": {},
		"GET /own-hardware/:id": {path: func(w *axeWorld, _ string) string {
			return "/own-hardware/" + itoa(w.sharedOption)
		}},
		"GET /own-hardware/:id/edit": {path: func(w *axeWorld, role string) string {
			return "/own-hardware/" + itoa(w.ownOption[role]) + "/edit"
		}},
		"GET /electricity": {},
		"GET /history": {path: func(w *axeWorld, _ string) string {
			return "/history?platform=" + itoa(w.platform) + "&gpu=" + itoa(w.gpu)
		}},
		"GET /dashboard": {},
		"GET /trials":    {},
		"GET /trials/new": {path: func(w *axeWorld, _ string) string {
			return "/trials/new?quote=" + itoa(w.quotes[0])
		}},
		"GET /trials/:id": {path: func(w *axeWorld, _ string) string { return "/trials/" + itoa(w.trialID) }},
		"GET /availability": {path: func(w *axeWorld, _ string) string {
			return "/availability?platform=" + itoa(w.platform) + "&gpu=" + itoa(w.gpu)
		}},
		// A comparison of the sample quotes with an own-hardware option
		// and a second scenario, its parts as pages of their own.
		"GET /compare":              {path: func(w *axeWorld, _ string) string { return "/compare?" + w.compare.Encode() }},
		"GET /compare/lines":        {path: func(w *axeWorld, _ string) string { return "/compare/lines?" + w.compare.Encode() }},
		"GET /compare/facts":        {path: func(w *axeWorld, _ string) string { return "/compare/facts?" + w.compare.Encode() }},
		"GET /compare/availability": {path: func(w *axeWorld, _ string) string { return "/compare/availability?" + w.compare.Encode() }},
		"GET /compare/questions": {path: func(w *axeWorld, _ string) string {
			return "/compare/questions?" + w.compare.Encode() + "&quote=" + itoa(w.quotes[0])
		}},
		"GET /reports":       {},
		"GET /reports/inbox": {},
		"GET /reports/new": {path: func(w *axeWorld, _ string) string {
			q := url.Values{"title": {"LoRA"}}
			for k, v := range w.compare {
				q[k] = v
			}
			return "/reports/new?" + q.Encode()
		}},
		"GET /reports/:id": {path: func(w *axeWorld, _ string) string { return "/reports/" + itoa(w.report) }},
		"GET /reports/:id/bills/new": {path: func(w *axeWorld, _ string) string { return "/reports/" + itoa(w.approved) + "/bills/new" },
			roles: []string{"analyst", "finance", "admin"}},
		"GET /reports/:id/bills/:bill": {path: func(w *axeWorld, _ string) string {
			return "/reports/" + itoa(w.approved) + "/bills/" + itoa(w.bill)
		}},
		"GET /reports/:id/bills/:bill/letter": {path: func(w *axeWorld, _ string) string {
			return "/reports/" + itoa(w.approved) + "/bills/" + itoa(w.bill) + "/letter"
		}},
		"GET /platforms/:id/bill-mappings": {path: func(w *axeWorld, _ string) string {
			return "/platforms/" + itoa(w.platform) + "/bill-mappings"
		}},
		"GET /admin/users":        {},
		"GET /admin/audit":        {},
		"GET /admin/mail":         {},
		"GET /admin/webhooks":     {},
		"GET /admin/webhooks/:id": {path: func(w *axeWorld, _ string) string { return web.WebhookPath(w.webhook) }},
	}
}

// who are the five kinds of caller every route is tried with (the route
// policy table's and this test's).
var who = []string{"anonymous", "analyst", "finance", "editor", "admin"}

// newAxeWorld loads the sample market and makes the users and records the
// pages show.
func newAxeWorld(t *testing.T) *axeWorld {
	t.Helper()
	app := testutil.NewApp(t)
	ctx := context.Background()
	for _, load := range []func(context.Context, *store.Store, io.Writer) error{
		sample.LoadMarket, sample.LoadOwn, sample.LoadFacts,
		func(ctx context.Context, st *store.Store, w io.Writer) error {
			return sample.LoadAvailability(ctx, st, w, time.Now().UTC())
		}} {
		if err := load(ctx, app.Store, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	w := &axeWorld{app: app, users: map[string][2]string{}, ids: map[string]int64{},
		proposal: map[string]int64{}, ownOption: map[string]int64{}}
	db := app.Store.Pool()
	if err := db.QueryRow(ctx, `SELECT id FROM platforms WHERE name_en = 'HOSTKEY'`).Scan(&w.platform); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(ctx, `SELECT id FROM gpu_models WHERE name = 'Radeon AI PRO R9700'`).Scan(&w.gpu); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(ctx, `SELECT id FROM quotes WHERE platform_id = $1 AND state = 'published' ORDER BY id`, w.platform)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		w.quotes = append(w.quotes, id)
	}
	if rows.Err() != nil || len(w.quotes) < 2 {
		t.Fatalf("sample quotes: %v %v", w.quotes, rows.Err())
	}
	if err := db.QueryRow(ctx, `SELECT id FROM own_options WHERE shared ORDER BY id LIMIT 1`).Scan(&w.sharedOption); err != nil {
		t.Fatal(err)
	}
	w.draft = testfactory.Draft(t, app.Store, quote.Quote{PlatformID: w.platform, GPUModelID: w.gpu,
		Hourly: testfactory.ND("0.471"), Monthly: testfactory.ND("284"), Label: "R9700 draft"}).ID
	w.clients = map[string]*testutil.Client{}
	for _, role := range who[1:] {
		email, pw, id := app.CreateUser(auth.Role(role))
		w.users[role], w.ids[role] = [2]string{email, pw}, id
		c := app.Client()
		c.Login(email, pw)
		w.clients[role] = c
		// Each role's own proposal, sent back by an editor: its author
		// edits it.
		p := w.propose(id)
		if err := app.Store.ReturnProposal(ctx, user.SystemActor, p.ID, p.LockVersion, "请附上书面确认 / add the vendor's written word", time.Now()); err != nil {
			t.Fatal(err)
		}
		w.proposal[role] = p.ID
		w.ownOption[role] = testfactory.OwnOption(t, app.Store, id, testfactory.OwnVersion("RTX 4090 "+role, w.gpu), false).ID
	}
	w.pending = w.propose(w.ids["analyst"]).ID // waits in the editors' queue
	w.trialID, _, _ = routeTrialOutputs(app)
	w.catalogImport = someCatalogImport(t, app)
	w.compare = url.Values{"profile.hours_per_month": {"100"}, "profile.months": {"1"}, "profile.instances": {"1"},
		"report_currency": {"EUR"}, "b.profile.hours_per_month": {"300"}, "own": {itoa(w.sharedOption)}}
	for _, id := range w.quotes {
		w.compare.Add("q", itoa(id))
	}
	// A report compared by the analyst and sent to finance: everyone reads it.
	form := url.Values{"title": {"LoRA 微调"}, "purpose": {"LoRA 微调，一个月"}}
	for k, v := range w.compare {
		form[k] = v
	}
	w.report = saveReport(t, w.clients["analyst"], form)
	if got := postStatus(w.clients["analyst"], "/reports/"+itoa(w.report)+"/submit", nil); got != http.StatusSeeOther {
		t.Fatalf("submit: %d", got)
	}
	// The same comparison approved, and its November bill checked by
	// finance: overcharged compute, an included egress charged, a hidden
	// snapshot cost (docs/RULES.md §23).
	hook, err := app.Store.CreateWebhookEndpoint(context.Background(), user.SystemActor, time.Now(), webhook.Endpoint{
		Kind: webhook.KindGeneric, URL: "https://hooks.example.test/gpuquote", Events: webhook.EventTypes, Description: "采购群"})
	if err != nil {
		t.Fatal(err)
	}
	w.webhook = hook.ID
	w.approved = saveReport(t, w.clients["analyst"], form)
	if got := postStatus(w.clients["analyst"], "/reports/"+itoa(w.approved)+"/submit", nil); got != http.StatusSeeOther {
		t.Fatalf("submit: %d", got)
	}
	if got := postStatus(w.clients["finance"], "/reports/"+itoa(w.approved)+"/approve", url.Values{"comment": {"ok"}}); got != http.StatusSeeOther {
		t.Fatalf("approve: %d", got)
	}
	r := w.clients["finance"].PostForm("/reports/"+itoa(w.approved)+"/bills", billForm(w.quotes[0], "2026-11", "EUR", true,
		"compute_hourly 100 99.00 GPU", "egress 50 2.50 traffic", "snapshot 20 1.00 snapshots", "other 1 5.00 setup"))
	if m := billPath.FindStringSubmatch(r.Header.Get("Location")); m == nil {
		t.Fatalf("check a bill: %d %s", r.StatusCode, errorsOf(r.Body))
	} else {
		w.bill, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if err := app.Store.SaveBillMappings(context.Background(), user.SystemActor, time.Now(), w.platform,
		[]bill.Mapping{{PlatformID: w.platform, Kind: bill.MappingSKU, Key: "gpu.r9700.hour", Item: "compute_hourly"}}); err != nil {
		t.Fatal(err)
	}
	return w
}

// propose stores a proposal of the HOSTKEY R9700 by user uid, with the
// vendor's PDF.
func (w *axeWorld) propose(uid int64) quote.Quote {
	return testfactory.Proposal(w.app.T, w.app.Store, uid, quote.Quote{PlatformID: w.platform, GPUModelID: w.gpu,
		Hourly: testfactory.ND("0.471"), Monthly: testfactory.ND("284"), Label: "R9700 proposal"}, "vendor says 0.471",
		&store.NewAttachment{Filename: "offer.pdf", ContentType: "application/pdf", Data: proposalPDF})
}

// axeView is one page as one role in one language, and the other
// (role, language) pairs whose page has the same markup.
type axeView struct {
	key, path, role, lang string
	same                  []string
}

// axeSkeleton writes the markup of s's children as the rules axe-core
// applies see it: every element, its class, role, type, tabindex, lang and
// aria-* values (an aria-label's and every other attribute's only whether
// it is there and whether it is empty), and where text is (not what it
// says). Two pages with the same skeleton under the same stylesheet give
// axe-core the same elements with the same colours, names and roles.
func axeSkeleton(b *strings.Builder, s *goquery.Selection) {
	s.Contents().Each(func(_ int, c *goquery.Selection) {
		switch name := goquery.NodeName(c); name {
		case "#text":
			if strings.TrimSpace(c.Text()) != "" {
				b.WriteString("T")
			}
		case "#comment":
		default:
			b.WriteString("<" + name)
			for _, a := range c.Get(0).Attr {
				switch {
				case a.Key == "class" || a.Key == "role" || a.Key == "type" || a.Key == "tabindex" || a.Key == "lang" ||
					strings.HasPrefix(a.Key, "aria-") && a.Key != "aria-label":
					b.WriteString(" " + a.Key + "=" + a.Val)
				case a.Val == "":
					b.WriteString(" " + a.Key + "=")
				default:
					b.WriteString(" " + a.Key)
				}
			}
			b.WriteString(">")
			axeSkeleton(b, c)
			b.WriteString("</>")
		}
	})
}

// scrollBoxes lists the boxes that scroll (overflow auto or scroll, at
// this width or another, with today's records or longer ones) and cannot
// be reached with the keyboard and named: each needs tabindex="0" and an
// aria-label or aria-labelledby (axe-core's scrollable-region-focusable
// asks only of the boxes that overflow as the page is shown).
const scrollBoxes = `[...document.querySelectorAll('body *')].filter(e => {
	if (['TEXTAREA', 'SELECT', 'INPUT'].includes(e.tagName)) return false;
	const s = getComputedStyle(e);
	return /auto|scroll/.test(s.overflowX + ' ' + s.overflowY) &&
		!(e.getAttribute('tabindex') === '0' && (e.getAttribute('aria-label') || e.getAttribute('aria-labelledby')));
}).map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + [...e.classList].map(c => '.' + c).join('') +
	(e.dataset.testid ? '[data-testid="' + e.dataset.testid + '"]' : ''))`

// TestBrowserAccessibility checks every GET page of the route table as
// each role that may see it (anonymous, analyst, finance, editor, admin,
// as the route's policy says) in both languages with axe-core, and fails
// on every serious or critical violation, naming the page, the role, the
// language, the rule and the elements; and on every box that scrolls
// without being reachable with the keyboard (docs/RULES.md §21.1).
//
// Every page is fetched as each role in each language (318 pages); axe-core
// runs in Chromium on those whose markup differs from every other's
// (axeSkeleton: about 70), and on each role's home page in each language
// for the header its navigation makes: a page with the same elements,
// classes, roles, ARIA attributes and placement of text under the same
// stylesheet gives the same verdict, and checking it again cost about half
// a second of CPU a page.
func TestBrowserAccessibility(t *testing.T) {
	t.Parallel()
	start := time.Now()
	w := newAxeWorld(t)
	pages := axePages()
	routes := map[string]auth.Policy{}
	for _, r := range w.app.Server.Routes() {
		if r.Method != http.MethodGet {
			continue
		}
		key := r.Method + " " + r.Path
		if _, ok := axeNotPages[key]; ok || strings.HasPrefix(r.Path, "/api/v1/") {
			continue
		}
		if _, ok := pages[key]; !ok {
			t.Errorf("%s is a GET route the accessibility test does not open: add it to axePages (or, if it is no page, to axeNotPages)", key)
			continue
		}
		routes[key] = r.Policy
	}
	for key := range pages {
		if _, ok := routes[key]; !ok {
			t.Errorf("axePages names %s, which is no GET page of the route table", key)
		}
	}
	keys := make([]string, 0, len(routes))
	for k := range routes {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	// Every page as every role in both languages, over HTTP: the views
	// whose markup is new go to the browser.
	var views []*axeView
	bySkeleton := map[string]*axeView{}
	fetched := 0
	base, _ := url.Parse(w.app.URL)
	for _, role := range who {
		c := w.clients[role]
		if c == nil {
			c = w.app.Client()
		}
		for _, lang := range []string{"zh-CN", "en"} {
			c.HTTP.Jar.SetCookies(base, []*http.Cookie{{Name: "gq_lang", Value: lang, Path: "/"}})
			for _, key := range keys {
				p := pages[key]
				if !routes[key].Allows(auth.Role(role), role != "anonymous") || p.roles != nil && !slices.Contains(p.roles, role) {
					continue
				}
				path := strings.TrimPrefix(key, "GET ")
				if p.path != nil {
					path = p.path(w, role)
				}
				r := c.Get(path)
				fetched++
				if r.StatusCode != http.StatusOK {
					t.Errorf("%s as %s in %s: status %d (%s); want the page", path, role, lang, r.StatusCode, r.Header.Get("Location"))
					continue
				}
				d, err := goquery.NewDocumentFromReader(strings.NewReader(r.Body))
				if err != nil {
					t.Fatal(err)
				}
				var sk strings.Builder
				sk.WriteString(key + "\n")
				if key == "GET /" {
					// Each role's header, in each language.
					sk.WriteString(role + " " + lang + "\n")
				}
				axeSkeleton(&sk, d.Find("main"))
				if v, ok := bySkeleton[sk.String()]; ok {
					v.same = append(v.same, role+" "+lang)
					continue
				}
				v := &axeView{key: key, path: path, role: role, lang: lang}
				bySkeleton[sk.String()] = v
				views = append(views, v)
			}
		}
	}
	fetchedIn := time.Since(start)

	byRole := map[string][]*axeView{}
	for _, v := range views {
		byRole[v.role] = append(byRole[v.role], v)
	}
	// Two tabs at once, a role each, the roles with the most to check first.
	queue := make(chan string, len(who))
	for _, role := range []string{"analyst", "anonymous", "editor", "finance", "admin"} {
		queue <- role
	}
	close(queue)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for role := range queue {
				if err := w.axeCheck(t, role, byRole[role]); err != nil {
					t.Errorf("as %s: %v", role, err)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d pages fetched in %s, %d of them checked with axe-core in Chromium; %s in all",
		fetched, fetchedIn.Round(time.Millisecond), len(views), time.Since(start).Round(time.Millisecond))
}

// axeCheck opens views in a tab of their own signed in as role, runs
// axe-core and the scroll box check on each, and reports what they find
// as the test's errors.
func (w *axeWorld) axeCheck(t *testing.T, role string, views []*axeView) error {
	ctx := testutil.Browser(t)
	if err := testutil.InjectAxe(ctx); err != nil {
		return err
	}
	if role == "anonymous" {
		if err := chromedp.Do(ctx, chromedp.Navigate(w.app.URL+"/")); err != nil {
			return err
		}
	} else if err := chromedp.Do(ctx, signIn(w.app, w.users[role][0], w.users[role][1])); err != nil {
		return fmt.Errorf("sign in: %w", err)
	}
	for _, v := range views {
		where := fmt.Sprintf("%s as %s in %s", v.path, v.role, v.lang)
		if len(v.same) > 0 {
			where += " (the same markup as " + strings.Join(v.same, ", ") + ")"
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.cookie = "gq_lang=`+v.lang+`; path=/"`)); err != nil {
			return err
		}
		// A page opened again at the address it is at (the anonymous home
		// page after the first visit) is left first, so the browser asks
		// for it anew, in the language just chosen.
		if here, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname + location.search`)); err == nil && here == v.path {
			if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
				return err
			}
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(w.app.URL+v.path)); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[axeReadPage](`({path: location.pathname + location.search,
			status: performance.getEntriesByType('navigation')[0].responseStatus, lang: document.documentElement.lang})`))
		if err != nil {
			return err
		}
		if got.Status != http.StatusOK || got.Path != v.path || got.Lang != v.lang {
			t.Errorf("%s: status %d at %s in %s; want the page itself", where, got.Status, got.Path, got.Lang)
			continue
		}
		vs, err := testutil.Axe(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		for _, x := range vs {
			t.Errorf("%s: %s", where, x)
		}
		boxes, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](scrollBoxes))
		if err != nil {
			return err
		}
		if len(boxes) > 0 {
			t.Errorf("%s: boxes that scroll but are no named stop of the keyboard (tabindex=\"0\", aria-label): %s", where, strings.Join(boxes, ", "))
		}
	}
	return nil
}

// axeReadPage is what the test reads of the page it opened: where it
// landed, the status it was answered with and its language.
type axeReadPage struct {
	Path   string `json:"path"`
	Status int    `json:"status"`
	Lang   string `json:"lang"`
}

// axeWatch is role's own watch of the first sample quote's offer, made
// once per role.
func axeWatch(w *axeWorld, role string) int64 {
	w.app.T.Helper()
	if id, ok := w.watches[role]; ok {
		return id
	}
	q := mustQuote(w, w.quotes[0])
	wt, err := w.app.Store.CreateWatch(context.Background(), user.Actor{UserID: w.ids[role]}, false, time.Now(), watch.Watch{
		OwnerID: w.ids[role], PlatformID: q.PlatformID, GPUModelID: q.GPUModelID, Kind: watch.PriceBelow, Basis: watch.Hourly,
		Currency: q.Currency, Target: testfactory.D("0.01"), CooldownHours: 24})
	if err != nil {
		w.app.T.Fatal(err)
	}
	if w.watches == nil {
		w.watches = map[string]int64{}
	}
	w.watches[role] = wt.ID
	return wt.ID
}

// mustQuote reads quote id.
func mustQuote(w *axeWorld, id int64) quote.Quote {
	w.app.T.Helper()
	q, err := w.app.Store.QuoteByID(context.Background(), id)
	if err != nil {
		w.app.T.Fatal(err)
	}
	return q
}
