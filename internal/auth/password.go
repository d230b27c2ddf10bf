package auth

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
	"golang.org/x/text/unicode/norm"
)

// Password length limits, counted in Unicode characters (not bytes): any
// script is welcome and there are no composition rules.
const (
	MinPasswordLen = 8
	MaxPasswordLen = 128
)

// Password policy errors; the UI words them from the catalogs.
var (
	ErrPasswordTooShort = errors.New("password too short")
	ErrPasswordTooLong  = errors.New("password too long")
	ErrPasswordCommon   = errors.New("password is one of the most common")
	ErrPasswordInvalid  = errors.New("password is not valid UTF-8")
)

// ErrMalformedHash means a stored hash could not be decoded.
var ErrMalformedHash = errors.New("auth: malformed password hash")

//go:embed common-passwords.txt
var commonPasswordsFile string

var commonPasswords = func() map[string]struct{} {
	m := make(map[string]struct{}, 1000)
	sc := bufio.NewScanner(strings.NewReader(commonPasswordsFile))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m[strings.ToLower(line)] = struct{}{}
	}
	return m
}()

// CheckPassword applies the password policy: 8–128 characters of any
// Unicode, not one of the 1,000 most common passwords (case-insensitively).
func CheckPassword(pw string) error {
	if !utf8.ValidString(pw) {
		return ErrPasswordInvalid
	}
	n := utf8.RuneCountInString(norm.NFC.String(pw))
	switch {
	case n < MinPasswordLen:
		return ErrPasswordTooShort
	case n > MaxPasswordLen:
		return ErrPasswordTooLong
	}
	if _, ok := commonPasswords[strings.ToLower(pw)]; ok {
		return ErrPasswordCommon
	}
	return nil
}

// Argon2Params are the argon2id cost parameters, stored with every hash.
type Argon2Params struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
	SaltLen   int
	KeyLen    uint32
}

// DefaultArgon2 is OWASP's minimum argon2id configuration: 19 MiB, t=2, p=1.
var DefaultArgon2 = Argon2Params{MemoryKiB: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// Hasher hashes and verifies passwords with argon2id. At most a fixed number
// of hashes run at once (each holds MemoryKiB of RAM), so a login storm
// queues instead of exhausting memory; waiting respects the request context.
type Hasher struct {
	params Argon2Params
	sem    chan struct{}
	runs   atomic.Int64
}

// Runs is the number of argon2id computations done so far (hashes and
// verifications alike), exported as a metric.
func (h *Hasher) Runs() int64 { return h.runs.Load() }

// NewHasher returns a Hasher running at most concurrency hashes at a time.
func NewHasher(p Argon2Params, concurrency int) *Hasher {
	if concurrency < 1 {
		concurrency = 1
	}
	return &Hasher{params: p, sem: make(chan struct{}, concurrency)}
}

func (h *Hasher) acquire(ctx context.Context) error {
	select {
	case h.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *Hasher) release() {
	h.runs.Add(1)
	<-h.sem
}

// Hash returns the PHC-format argon2id hash of pw (NFC-normalised, so the
// same password typed on different systems matches).
func (h *Hasher) Hash(ctx context.Context, pw string) (string, error) {
	salt := make([]byte, h.params.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(norm.NFC.String(pw)), salt, h.params.Time, h.params.MemoryKiB, h.params.Threads, h.params.KeyLen)
	h.release()
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version,
		h.params.MemoryKiB, h.params.Time, h.params.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Verify reports whether pw matches the encoded hash, comparing in
// constant time. The hash's own parameters are used, so hashes made before
// the cost was raised keep working.
func (h *Hasher) Verify(ctx context.Context, pw, encoded string) (bool, error) {
	p, salt, key, err := decodeHash(encoded)
	if err != nil {
		return false, err
	}
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(norm.NFC.String(pw)), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(key)))
	h.release()
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

func decodeHash(encoded string) (Argon2Params, []byte, []byte, error) {
	var p Argon2Params
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return p, nil, nil, ErrMalformedHash
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return p, nil, nil, ErrMalformedHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil {
		return p, nil, nil, ErrMalformedHash
	}
	if p.MemoryKiB < 8 || p.MemoryKiB > 4<<20 || p.Time < 1 || p.Time > 64 || p.Threads < 1 {
		return p, nil, nil, ErrMalformedHash
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return p, nil, nil, ErrMalformedHash
	}
	key, err := b64.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > 64 {
		return p, nil, nil, ErrMalformedHash
	}
	return p, salt, key, nil
}

// GeneratePassword returns a random password of 20 characters from an
// alphabet without look-alikes, for 'gpuquote user create' and demo users.
func GeneratePassword() string {
	const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	return randomFrom(alphabet, 20)
}

func randomFrom(alphabet string, n int) string {
	b := make([]byte, n)
	buf := make([]byte, n)
	if _, err := rand.Read(buf); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	for i := range b {
		// Rejection sampling keeps every character equally likely.
		for int(buf[i]) >= 256-256%len(alphabet) {
			var one [1]byte
			_, _ = rand.Read(one[:])
			buf[i] = one[0]
		}
		b[i] = alphabet[int(buf[i])%len(alphabet)]
	}
	return string(b)
}
