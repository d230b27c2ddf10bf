package auth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"gpuquote/internal/user"
)

// ThrottleConfig bounds password attempts within a window (docs/RULES.md
// §16.2). Every attempt counts, right or wrong, and is counted before the
// password is checked; the window passing resets a count, so nothing locks
// for longer than one window.
type ThrottleConfig struct {
	Window time.Duration
	// PerAccount is how many attempts at one account from browsers without
	// a device cookie for it get their password checked per window; it
	// also bounds re-checks of a signed-in user's current password.
	PerAccount int
	// PerDevice is how many attempts one device cookie gets per window.
	PerDevice int
	// PerAddress is how many attempts from one client address pass
	// undelayed per window; each further one waits AddressStep longer than
	// the one before, at most AddressMaxDelay, and is then checked.
	PerAddress      int
	AddressStep     time.Duration
	AddressMaxDelay time.Duration
	// DeviceTTL is how long a device cookie is honoured after it was issued.
	DeviceTTL time.Duration
}

// DefaultThrottle: in 15 minutes, 5 attempts per account from unknown
// browsers, 5 per device cookie, and 50 per address before each further one
// waits 250 ms more, up to 3 s. Device cookies last 180 days.
var DefaultThrottle = ThrottleConfig{Window: 15 * time.Minute, PerAccount: 5, PerDevice: 5,
	PerAddress: 50, AddressStep: 250 * time.Millisecond, AddressMaxDelay: 3 * time.Second,
	DeviceTTL: 180 * 24 * time.Hour}

// withDefaults fills each zero field from DefaultThrottle.
func (t ThrottleConfig) withDefaults() ThrottleConfig {
	d := DefaultThrottle
	if t.Window <= 0 {
		t.Window = d.Window
	}
	if t.PerAccount <= 0 {
		t.PerAccount = d.PerAccount
	}
	if t.PerDevice <= 0 {
		t.PerDevice = d.PerDevice
	}
	if t.PerAddress <= 0 {
		t.PerAddress = d.PerAddress
	}
	if t.AddressStep <= 0 {
		t.AddressStep = d.AddressStep
	}
	if t.AddressMaxDelay <= 0 {
		t.AddressMaxDelay = d.AddressMaxDelay
	}
	if t.DeviceTTL <= 0 {
		t.DeviceTTL = d.DeviceTTL
	}
	return t
}

// ThrottleError is the ErrThrottled a refused attempt returns, with how
// long until the refusing bucket's window passes.
type ThrottleError struct {
	RetryAfter time.Duration
}

func (e *ThrottleError) Error() string {
	return fmt.Sprintf("%v (retry after %s)", ErrThrottled, e.RetryAfter)
}

// Is makes errors.Is(err, ErrThrottled) hold.
func (e *ThrottleError) Is(target error) bool { return target == ErrThrottled }

// RetryAfterSeconds is the Retry-After header value for err: whole seconds
// until the refusing window passes (at least 1), or the whole window when
// err does not say.
func (m *Manager) RetryAfterSeconds(err error) string {
	d := m.Throttle.Window
	var te *ThrottleError
	if errors.As(err, &te) {
		d = te.RetryAfter
	}
	return strconv.Itoa(max(1, int((d+time.Second-1)/time.Second)))
}

// WindowMinutes is the throttle's window in whole minutes, rounded up and
// at least 1: what a refusal tells the person to wait at most
// (docs/RULES.md §16.2).
func (m *Manager) WindowMinutes() int {
	return max(1, int((m.Throttle.Window+time.Minute-1)/time.Minute))
}

const devicePurpose = "device"

// DeviceCookieName is the device cookie's name (__Host- prefixed over TLS).
func (m *Manager) DeviceCookieName() string {
	if m.Secure {
		return "__Host-gq_device"
	}
	return "gq_device"
}

// DeviceCookie is a new device cookie for u (docs/RULES.md §16.2): the
// user id, a random nonce and the time of issue, signed with the shared
// key over the account as it is now (deviceAccountStamp), so it stops
// counting when the password, the role or the account's status changes.
// It grants nothing by itself; it only lets sign-ins from this browser
// count in a bucket of their own.
func (m *Manager) DeviceCookie(u user.User) *http.Cookie {
	msg := strconv.FormatInt(u.ID, 10) + "." + NewToken() + "." + strconv.FormatInt(m.Now().Unix(), 10)
	ttl := m.Throttle.DeviceTTL
	return &http.Cookie{
		Name: m.DeviceCookieName(), Value: msg + "." + m.Signer.Sign(devicePurpose, deviceSigned(msg, u)), Path: "/",
		Expires: m.Now().Add(ttl), MaxAge: int(ttl / time.Second),
		HttpOnly: true, Secure: m.Secure, SameSite: http.SameSiteStrictMode,
	}
}

// deviceAccountStamp is what a device cookie's signature binds it to
// besides its own text: a digest of u's password hash, role and the time
// the account last changed (a password change, a role change, disabling or
// enabling it). None of it is in the cookie.
func deviceAccountStamp(u user.User) string {
	sum := sha256.Sum256([]byte(u.PasswordHash + "\x00" + u.Role + "\x00" + strconv.FormatInt(u.UpdatedAt.UnixMicro(), 10)))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// deviceSigned is the text a device cookie's signature covers: its own
// text msg and the account stamp of u.
func deviceSigned(msg string, u user.User) string { return msg + "\x00" + deviceAccountStamp(u) }

// deviceNonce returns the nonce of a device cookie value that is signed
// with the shared key, names u, was issued for the account as it is now
// (deviceAccountStamp) and is within its lifetime; ok is false for
// anything else, and always for a disabled account: that counts as no
// cookie at all.
func (m *Manager) deviceNonce(value string, u user.User, now time.Time) (nonce string, ok bool) {
	if m.Signer == nil || value == "" || len(value) > 200 || u.Disabled {
		return "", false
	}
	msg, mac, found := cutLast(value, ".")
	if !found || !m.Signer.Verify(devicePurpose, deviceSigned(msg, u), mac) {
		return "", false
	}
	parts := strings.Split(msg, ".")
	if len(parts) != 3 {
		return "", false
	}
	id, err1 := strconv.ParseInt(parts[0], 10, 64)
	issued, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || id != u.ID || parts[1] == "" {
		return "", false
	}
	at := time.Unix(issued, 0)
	if at.After(now.Add(time.Minute)) || !now.Before(at.Add(m.Throttle.DeviceTTL)) {
		return "", false
	}
	return parts[1], true
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// addressKey is the address counter's key: the IPv4 address, or the /64
// an IPv6 address is in (one subscriber usually holds a whole /64).
func addressKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return "ip:" + ip
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.WithZone("").Prefix(64)
		return "ip:" + p.String()
	}
	return "ip:" + a.String()
}

func accountKey(email string) string {
	return "account:" + strings.ToLower(strings.TrimSpace(email))
}

// admit counts one attempt against buckets (docs/RULES.md §16.2) and says
// whether its password may be checked: a *ThrottleError when a bucket with
// a limit is past it, otherwise nil after the address delay (if any) has
// been waited out. address is the index of the address bucket, or -1. It
// returns the buckets' counts.
func (m *Manager) admit(ctx context.Context, a user.Actor, email string, buckets []user.AttemptBucket, address int) ([]user.AttemptCount, error) {
	now := m.Now()
	counts, err := m.Store.CountLoginAttempt(ctx, a, email, buckets, now, m.Throttle.Window)
	if err != nil {
		return nil, err
	}
	var refuse *ThrottleError
	for i, b := range buckets {
		if b.Limit > 0 && counts[i].Attempts > b.Limit {
			wait := counts[i].WindowStart.Add(m.Throttle.Window).Sub(now)
			if refuse == nil || wait > refuse.RetryAfter {
				refuse = &ThrottleError{RetryAfter: wait}
			}
		}
	}
	if refuse != nil {
		return nil, refuse
	}
	if address >= 0 {
		if over := counts[address].Attempts - m.Throttle.PerAddress; over > 0 {
			d := min(m.Throttle.AddressMaxDelay, time.Duration(over)*m.Throttle.AddressStep)
			if err := sleep(ctx, d); err != nil {
				return nil, err
			}
		}
	}
	return counts, nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// loginBuckets are the counters a sign-in attempt at email counts against
// (docs/RULES.md §16.2): with a valid device cookie for the account, that
// cookie's own bucket only; without one, the account's bucket shared by
// every such browser and the address counter. The second result is the
// address bucket's index, or -1.
func (m *Manager) loginBuckets(email, clientIP, device string, u user.User, found bool, now time.Time) ([]user.AttemptBucket, int) {
	if found {
		if nonce, ok := m.deviceNonce(device, u, now); ok {
			return []user.AttemptBucket{{Key: "device:" + nonce, Limit: m.Throttle.PerDevice}}, -1
		}
	}
	return []user.AttemptBucket{
		{Key: accountKey(email), Limit: m.Throttle.PerAccount},
		{Key: addressKey(clientIP)},
	}, 1
}

// VerifyCurrentPassword re-checks the signed-in user's password before a
// sensitive change (docs/RULES.md §16.2). The attempt is counted first, in
// the user's own re-check bucket (not the sign-in buckets, so strangers
// failing to sign in never block it); past the limit it returns an
// ErrThrottled error without checking. A wrong password gives
// ErrInvalidCredentials.
func (m *Manager) VerifyCurrentPassword(ctx context.Context, a user.Actor, userID int64, password string) error {
	buckets := []user.AttemptBucket{{Key: "reauth:" + strconv.FormatInt(userID, 10), Limit: m.Throttle.PerAccount}}
	if _, err := m.admit(ctx, a, a.Email, buckets, -1); err != nil {
		return err
	}
	u, err := m.Store.UserByID(ctx, userID)
	if err != nil {
		return err
	}
	ok, err := m.Hasher.Verify(ctx, password, u.PasswordHash)
	if err != nil && !errors.Is(err, ErrMalformedHash) {
		return err
	}
	if !ok || u.Disabled {
		return ErrInvalidCredentials
	}
	return nil
}
