package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// throttledApp is an app on clock whose argon2id runs the test can count.
func throttledApp(t *testing.T, clock *testutil.Clock, opts ...testutil.Option) (*testutil.App, *auth.Hasher) {
	t.Helper()
	h := auth.NewHasher(testutil.FastArgon2, 4)
	opts = append([]testutil.Option{withClock(clock), func(d *server.Deps) { d.Hasher = h }}, opts...)
	return testutil.NewApp(t, opts...), h
}

// freshClient is a browser that has never signed in, with the login form
// (and its CSRF token) loaded.
func freshClient(app *testutil.App) *testutil.Client {
	c := app.Client()
	c.Get("/login")
	return c
}

func postLogin(c *testutil.Client, email, password string) *testutil.Response {
	return c.PostForm("/login", url.Values{"email": {email}, "password": {password}})
}

// TestLoginBurstChecksAtMostTheLimit: 25 guesses sent at once at one
// account, from browsers without a device cookie, get at most 5 passwords
// checked (docs/RULES.md §16.2); the right password is then refused until
// the window passes, and accepted after.
func TestLoginBurstChecksAtMostTheLimit(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	app, hasher := throttledApp(t, clock)
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)

	const n = 25
	clients := make([]*testutil.Client, n)
	for i := range clients {
		clients[i] = freshClient(app)
	}
	runs := hasher.Runs()
	statuses := make([]int, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			guess := "wrong guess " + strconv.Itoa(i)
			if i == n/2 {
				guess = pw
			}
			<-start
			statuses[i] = postLogin(c, email, guess).StatusCode
		}()
	}
	close(start)
	wg.Wait()
	checked := hasher.Runs() - runs
	t.Logf("%d attempts at once: %d passwords checked, statuses %v", n, checked, statuses)
	if checked > 5 {
		t.Fatalf("%d passwords checked in a burst of %d, want at most 5", checked, n)
	}
	refused := 0
	for _, s := range statuses {
		switch s {
		case http.StatusTooManyRequests:
			refused++
		case http.StatusUnauthorized, http.StatusSeeOther:
		default:
			t.Fatalf("unexpected status %d in %v", s, statuses)
		}
	}
	if refused < n-5 {
		t.Fatalf("%d of %d refused, want at least %d", refused, n, n-5)
	}

	// The right password, later in the window, is refused unchecked.
	clock.Advance(10 * time.Minute)
	runs = hasher.Runs()
	r := postLogin(freshClient(app), email, pw)
	if r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("right password in the open window: %d, want 429", r.StatusCode)
	}
	if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 299 || ra > 300 {
		t.Fatalf("Retry-After %q, want the 300 s left of the window", r.Header.Get("Retry-After"))
	}
	if hasher.Runs() != runs {
		t.Fatal("a refused attempt had its password checked")
	}
	// Once the window has passed, it signs in.
	clock.Advance(5*time.Minute + time.Second)
	c := freshClient(app)
	c.Login(email, pw)
	if r := c.Get("/account"); r.StatusCode != http.StatusOK {
		t.Fatalf("after the window: %d", r.StatusCode)
	}
}

// TestLoginThrottleUnknownAccountLooksAlike: an unknown email is counted and
// refused exactly like a real one, and every attempt counts (successes too).
func TestLoginThrottleUnknownAccountLooksAlike(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	app, _ := throttledApp(t, clock)
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	for _, e := range []string{email, "ghost@example.test"} {
		for i := 0; i < 5; i++ {
			if r := postLogin(freshClient(app), e, "wrong"); r.StatusCode != http.StatusUnauthorized {
				t.Fatalf("%s failure %d: %d, want 401", e, i+1, r.StatusCode)
			}
		}
		if r := postLogin(freshClient(app), e, "wrong"); r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
			t.Fatalf("%s after 5 failures: %d (Retry-After %q), want 429", e, r.StatusCode, r.Header.Get("Retry-After"))
		}
	}
	// The first refusal of each account is audited once, in the window.
	recs, err := app.Store.AuditLog(context.Background(), store.AuditFilter{Action: store.ActionLoginFailed})
	if err != nil || len(recs) != 12 {
		t.Fatalf("audited %d failed sign-ins (%v), want 10 checked + 2 first refusals", len(recs), err)
	}
	// Successes count as well: 5 sign-ins from new browsers fill the bucket.
	clock.Advance(16 * time.Minute)
	for i := 0; i < 5; i++ {
		freshClient(app).Login(email, pw)
	}
	if r := postLogin(freshClient(app), email, pw); r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("sixth sign-in in a window from a new browser: %d, want 429", r.StatusCode)
	}
}

// TestDeviceCookieOwnerSignsInDuringAttack: the owner's browser, which has
// signed in before, still signs in while strangers hammer the account; a
// forged or foreign device cookie counts as none; the cookie's own bucket
// has its own limit.
func TestDeviceCookieOwnerSignsInDuringAttack(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	app, _ := throttledApp(t, clock)
	email, pw, _ := app.CreateUser(auth.RoleEditor)
	email2, pw2, _ := app.CreateUser(auth.RoleEditor)

	owner := app.Client()
	owner.Login(email, pw)
	device := owner.Cookie("gq_device")
	if device == nil || device.Value == "" {
		t.Fatal("no device cookie after sign-in")
	}
	if r := owner.PostForm("/logout", nil); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", r.StatusCode)
	}

	// Strangers fill the account bucket.
	attacker := freshClient(app)
	for i := 0; i < 12; i++ {
		postLogin(attacker, email, "guess "+strconv.Itoa(i))
	}
	if r := postLogin(freshClient(app), email, pw); r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("right password from a new browser during the attack: %d, want 429", r.StatusCode)
	}
	// The owner's browser is not blocked.
	owner.Get("/login")
	if r := postLogin(owner, email, pw); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("owner's browser during the attack: %d, want 303", r.StatusCode)
	}
	owner.Get("/") // the session's CSRF token

	u, _ := url.Parse(app.URL)
	withDevice := func(value string) *testutil.Client {
		c := app.Client()
		c.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: "gq_device", Value: value, Path: "/"}})
		c.Get("/login")
		return c
	}
	// A forged signature counts as no cookie at all.
	forged := device.Value[:len(device.Value)-4] + "AAAA"
	if forged == device.Value {
		forged = device.Value[:len(device.Value)-4] + "BBBB"
	}
	if r := postLogin(withDevice(forged), email, pw); r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("forged device cookie: %d, want 429", r.StatusCode)
	}
	// So does the owner's cookie at another account.
	attacker2 := freshClient(app)
	for i := 0; i < 6; i++ {
		postLogin(attacker2, email2, "guess")
	}
	if r := postLogin(withDevice(device.Value), email2, pw2); r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("device cookie of another account: %d, want 429", r.StatusCode)
	}

	// The device bucket has its own limit: 5 attempts with this cookie (the
	// owner's sign-in above was the first), then even the right password
	// waits for the window.
	dev := withDevice(device.Value)
	for i := 0; i < 4; i++ {
		if r := postLogin(dev, email, "typo "+strconv.Itoa(i)); r.StatusCode != http.StatusUnauthorized {
			t.Fatalf("device attempt %d: %d, want 401", i+1, r.StatusCode)
		}
	}
	if r := postLogin(dev, email, pw); r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("sixth attempt with one device cookie: %d, want 429", r.StatusCode)
	}
	// The cookie the owner's last sign-in issued is a new one, with a
	// bucket of its own.
	if owner.Cookie("gq_device").Value == device.Value {
		t.Fatal("a sign-in did not issue a new device cookie")
	}
	owner.Login(email, pw)

	// A device cookie past its lifetime counts as none.
	clock.Advance(181 * 24 * time.Hour)
	attacker3 := freshClient(app)
	for i := 0; i < 6; i++ {
		postLogin(attacker3, email, "guess")
	}
	old := withDevice(owner.Cookie("gq_device").Value)
	if r := postLogin(old, email, pw); r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("expired device cookie: %d, want 429", r.StatusCode)
	}
}

// TestAddressCounterSlowsButNeverLocks: many failures from one address
// delay its further attempts, but another account's right password from
// that address still signs in.
func TestAddressCounterSlowsButNeverLocks(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	const step, maxDelay = 40 * time.Millisecond, 120 * time.Millisecond
	app, _ := throttledApp(t, clock, func(d *server.Deps) {
		d.Throttle = auth.ThrottleConfig{Window: 15 * time.Minute, PerAccount: 5, PerAddress: 3,
			AddressStep: step, AddressMaxDelay: maxDelay}
	})
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	c := freshClient(app)
	for i := 0; i < 12; i++ {
		// a new account each time, so only the address counter grows
		if r := postLogin(c, "user"+strconv.Itoa(i)+"@example.test", "wrong"); r.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failure %d from one address: %d, want 401 (slowed, never refused)", i+1, r.StatusCode)
		}
	}
	addressCount := func() int {
		var n int
		if err := app.Store.Pool().QueryRow(context.Background(),
			`SELECT attempts FROM login_throttle WHERE key = 'ip:127.0.0.1'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := addressCount()
	begin := time.Now()
	r := postLogin(c, email, pw)
	took := time.Since(begin)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("right password from the busy address: %d, want 303", r.StatusCode)
	}
	t.Logf("sign-in after 12 failures from the address took %s", took)
	if took < maxDelay {
		t.Fatalf("sign-in took %s, want the address delay of %s", took, maxDelay)
	}
	// A success gives its attempt back: colleagues behind one address do
	// not slow each other down.
	if after := addressCount(); after != before {
		t.Fatalf("address counter %d after a successful sign-in, want %d as before it", after, before)
	}
}

// TestCurrentPasswordRecheckThrottled: the current-password check of the
// password change counts in the user's own re-check bucket: failed sign-ins
// by strangers do not block it, and 5 attempts per window are checked.
func TestCurrentPasswordRecheckThrottled(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	app, hasher := throttledApp(t, clock)
	email, pw, id := app.CreateUser(auth.RoleAnalyst)
	c := app.Client()
	c.Login(email, pw)
	c.Get("/account")

	attacker := freshClient(app)
	for i := 0; i < 7; i++ {
		postLogin(attacker, email, "guess")
	}
	change := func(current, next string) *testutil.Response {
		return c.PostForm("/account/password", url.Values{"current": {current}, "new": {next}, "confirm": {next}})
	}
	if r := change(pw, "first new passphrase"); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("password change while strangers fail to sign in: %d, want 303", r.StatusCode)
	}
	for i := 0; i < 4; i++ {
		if r := change("wrong current "+strconv.Itoa(i), "second new passphrase"); r.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("wrong current password %d: %d, want 422", i+1, r.StatusCode)
		}
	}
	before, err := app.Store.UserByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	runs := hasher.Runs()
	r := change("first new passphrase", "second new passphrase")
	if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Fatalf("sixth re-check in the window: %d (Retry-After %q), want 429", r.StatusCode, r.Header.Get("Retry-After"))
	}
	if hasher.Runs() != runs {
		t.Fatal("a refused re-check had its password checked")
	}
	after, _ := app.Store.UserByID(context.Background(), id)
	if after.PasswordHash != before.PasswordHash {
		t.Fatal("the password changed past the re-check limit")
	}
	clock.Advance(15*time.Minute + time.Second)
	if r := change("first new passphrase", "second new passphrase"); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("after the window: %d, want 303", r.StatusCode)
	}
}

// TestCurrentPasswordBurst: re-checks sent at once get at most 5 checked.
func TestCurrentPasswordBurst(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	app, hasher := throttledApp(t, clock)
	c, _ := app.AsUser(auth.RoleAnalyst)
	c.Get("/account")
	runs := hasher.Runs()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 15; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c.PostForm("/account/password", url.Values{"current": {"guess " + strconv.Itoa(i)},
				"new": {"another passphrase"}, "confirm": {"another passphrase"}})
		}()
	}
	close(start)
	wg.Wait()
	if n := hasher.Runs() - runs; n > 5 {
		t.Fatalf("%d current passwords checked in a burst of 15, want at most 5", n)
	}
}

// TestThrottleMessageSaysTheWindow: the refusal of a throttled sign-in or
// password re-check names the configured window, in whole minutes and in
// the reader's language with its plural form, not a fixed 15 minutes
// (docs/RULES.md §16.2).
func TestThrottleMessageSaysTheWindow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		window  time.Duration
		recheck bool
		lang    string
		want    string
	}{
		{40 * time.Minute, true, "en", "up to 40 minutes"},
		{40 * time.Minute, true, "zh-CN", "最多 40 分钟"},
		{time.Minute, false, "en", "up to 1 minute,"},
	} {
		clock := testutil.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
		app, _ := throttledApp(t, clock, func(d *server.Deps) {
			d.Throttle = auth.ThrottleConfig{Window: tc.window, PerAccount: 5}
		})
		email, pw, _ := app.CreateUser(auth.RoleAnalyst)
		if tc.recheck {
			c := app.Client()
			c.Header.Set("Accept-Language", tc.lang)
			c.Login(email, pw)
			c.Get("/account")
			var r *testutil.Response
			for i := 0; i < 6; i++ {
				r = c.PostForm("/account/password", url.Values{"current": {"wrong"}, "new": {"a new passphrase"}, "confirm": {"a new passphrase"}})
			}
			msg := between(r.Body, `data-testid="error-current"`, "</p>")
			if r.StatusCode != http.StatusTooManyRequests || !strings.Contains(msg, tc.want) || strings.Contains(msg, "15") {
				t.Errorf("window %s, %s: re-check %d, message %q, want %q", tc.window, tc.lang, r.StatusCode, msg, tc.want)
			}
		}
		c := freshClient(app)
		c.Header.Set("Accept-Language", tc.lang)
		var r *testutil.Response
		for i := 0; i < 6; i++ {
			r = postLogin(c, email, "guess")
		}
		msg := between(r.Body, `data-testid="login-error"`, "</div>")
		if r.StatusCode != http.StatusTooManyRequests || !strings.Contains(msg, tc.want) || strings.Contains(msg, "15") {
			t.Errorf("window %s, %s: sign-in %d, message %q, want %q", tc.window, tc.lang, r.StatusCode, msg, tc.want)
		}
	}
}

// TestDeviceCookieEndsWithPasswordAndAccountChanges: a device cookie stops
// counting once its account's password changes, while the account is
// disabled, and after it is enabled again: attempts carrying it then count
// in the account's bucket like any unknown browser's (docs/RULES.md §16.2).
func TestDeviceCookieEndsWithPasswordAndAccountChanges(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	app, _ := throttledApp(t, clock)
	ctx := context.Background()
	u, _ := url.Parse(app.URL)
	withDevice := func(value string) *testutil.Client {
		c := app.Client()
		c.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: "gq_device", Value: value, Path: "/"}})
		c.Get("/login")
		return c
	}
	// deviceOf signs in as email and returns the device cookie issued.
	deviceOf := func(email, pw string) string {
		c := app.Client()
		c.Login(email, pw)
		return c.Cookie("gq_device").Value
	}
	// fill spends the account bucket of email from a browser without a cookie.
	fill := func(email string) {
		attacker := freshClient(app)
		for i := 0; i < 6; i++ {
			postLogin(attacker, email, "guess "+strconv.Itoa(i))
		}
	}

	// The cookie counts while nothing changed: the owner signs in though
	// the account's bucket is full.
	email, pw, id := app.CreateUser(auth.RoleAnalyst)
	device := deviceOf(email, pw)
	fill(email)
	if r := postLogin(withDevice(device), email, pw); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("device cookie, nothing changed: %d, want 303", r.StatusCode)
	}

	// A password change ends it.
	clock.Advance(16 * time.Minute)
	device = deviceOf(email, pw)
	hash, err := app.Server.Hasher.Hash(ctx, "a brand new passphrase")
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Store.SetUserPassword(ctx, user.SystemActor, id, hash, nil); err != nil {
		t.Fatal(err)
	}
	fill(email)
	if r := postLogin(withDevice(device), email, "a brand new passphrase"); r.StatusCode != http.StatusTooManyRequests {
		t.Errorf("device cookie from before the password change: %d, want 429", r.StatusCode)
	}

	// Disabling ends it: the attempts go to the full account bucket, and
	// enabling the account again does not revive it.
	email2, pw2, id2 := app.CreateUser(auth.RoleAnalyst)
	device2 := deviceOf(email2, pw2)
	if _, err := app.Store.SetUserDisabled(ctx, user.SystemActor, id2, true); err != nil {
		t.Fatal(err)
	}
	fill(email2)
	if r := postLogin(withDevice(device2), email2, pw2); r.StatusCode != http.StatusTooManyRequests {
		t.Errorf("device cookie of a disabled account: %d, want 429", r.StatusCode)
	}
	if _, err := app.Store.SetUserDisabled(ctx, user.SystemActor, id2, false); err != nil {
		t.Fatal(err)
	}
	if r := postLogin(withDevice(device2), email2, pw2); r.StatusCode != http.StatusTooManyRequests {
		t.Errorf("device cookie from before disabling, account enabled again: %d, want 429", r.StatusCode)
	}
	// A sign-in after the window issues a cookie that counts again.
	clock.Advance(16 * time.Minute)
	device2 = deviceOf(email2, pw2)
	fill(email2)
	if r := postLogin(withDevice(device2), email2, pw2); r.StatusCode != http.StatusSeeOther {
		t.Errorf("a device cookie issued after enabling: %d, want 303", r.StatusCode)
	}
}
