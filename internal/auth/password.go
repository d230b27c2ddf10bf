package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
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
	ErrPasswordCommon   = errors.New("password is a common password or a dictionary word")
	ErrPasswordInvalid  = errors.New("password is not valid UTF-8")
	// ErrPasswordBlank: the password is nothing but whitespace.
	ErrPasswordBlank = errors.New("password is only whitespace")
	// ErrPasswordRepeated: one character, or a group of at most
	// maxRepeatUnit characters, repeated.
	ErrPasswordRepeated = errors.New("password is one short group of characters repeated")
	// ErrPasswordSequence: a run along a keyboard row, the alphabet or the digits.
	ErrPasswordSequence = errors.New("password is a keyboard or alphabet sequence")
	// ErrPasswordPersonal: the account's email, its local part or the
	// display name, alone or with a few characters or only digits and
	// symbols added.
	ErrPasswordPersonal = errors.New("password is the account's email or name")
)

// ErrMalformedHash means a stored hash could not be decoded.
var ErrMalformedHash = errors.New("auth: malformed password hash")

// commonPasswordsFile is the refused-password list: lower case, sorted
// bytewise, one a line, '#' lines are comments (scripts/common-passwords.sh
// builds it; README.md beside it names the public-domain sources).
//
//go:embed common-passwords.txt
var commonPasswordsFile string

// commonPasswords returns the list's entries in order; the strings share
// the embedded file's memory, so the list costs one slice header each.
var commonPasswords = sync.OnceValue(func() []string {
	out := make([]string, 0, 180_000)
	for line := range strings.Lines(commonPasswordsFile) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out
})

// isCommonPassword reports whether pw, ignoring case, is on the list.
func isCommonPassword(pw string) bool {
	list := commonPasswords()
	_, found := slices.BinarySearch(list, strings.ToLower(pw))
	return found
}

// CheckPassword applies the password policy of docs/RULES.md §16.5: 8–128
// characters of any Unicode, not only whitespace, not one character or a
// short group repeated, not a keyboard or alphabet sequence, not on the
// common-password list (ignoring case), and not one of personal — the
// account's email and display name — alone or barely dressed up. Callers
// pass the email and display name of the account the password is for.
func CheckPassword(pw string, personal ...string) error {
	if !utf8.ValidString(pw) {
		return ErrPasswordInvalid
	}
	pw = norm.NFC.String(pw)
	n := utf8.RuneCountInString(pw)
	switch {
	case n < MinPasswordLen:
		return ErrPasswordTooShort
	case n > MaxPasswordLen:
		return ErrPasswordTooLong
	case strings.TrimFunc(pw, unicode.IsSpace) == "":
		return ErrPasswordBlank
	case isRepeated(pw):
		return ErrPasswordRepeated
	case isSequence(pw):
		return ErrPasswordSequence
	case isCommonPassword(pw):
		return ErrPasswordCommon
	case isPersonal(pw, personal):
		return ErrPasswordPersonal
	}
	return nil
}

// maxRepeatUnit is the longest group whose repetition is refused:
// "aaaaaaaa", "abababab" and "123123123" alike.
const maxRepeatUnit = 3

// isRepeated reports whether pw is one group of 1 to maxRepeatUnit
// characters repeated, ignoring case.
func isRepeated(pw string) bool {
	r := []rune(strings.ToLower(pw))
	for unit := 1; unit <= maxRepeatUnit && unit < len(r); unit++ {
		if len(r)%unit != 0 {
			continue
		}
		same := true
		for i := unit; i < len(r) && same; i++ {
			same = r[i] == r[i-unit]
		}
		if same {
			return true
		}
	}
	return false
}

// sequences are the runs a sequence password walks: the rows of a US
// keyboard (the layout Chinese and English users type on alike), the
// alphabet and the digits. Each may be walked either way.
var sequences = []string{
	"`1234567890-=", "qwertyuiop[]\\", "asdfghjkl;'", "zxcvbnm,./",
	"abcdefghijklmnopqrstuvwxyz", "0123456789",
}

// minSequenceRun is the shortest run that counts as a piece of a sequence.
const minSequenceRun = 3

// isSequence reports whether pw, ignoring case, is made entirely of runs of
// at least minSequenceRun consecutive characters of one of sequences, each
// run forwards or backwards: "qwertyuiop", "1234567890", "987654321",
// "qwertyasdfgh" and "abc123456" are; "qwerty7x" is not.
func isSequence(pw string) bool {
	s := strings.ToLower(pw)
	// ends[i] is true when s[i:] splits into runs; filled from the end.
	ends := make([]bool, len(s)+1)
	ends[len(s)] = true
	for i := len(s) - 1; i >= 0; i-- {
		for _, seq := range sequences {
			for _, dir := range []int{1, -1} {
				for j := runEnd(s, i, seq, dir); j-i >= minSequenceRun && !ends[i]; j-- {
					ends[i] = ends[j]
				}
			}
		}
	}
	return ends[0]
}

// runEnd returns the end of the longest run of s from i that steps through
// seq in direction dir (i+1 when s[i] is not in seq). Only ASCII is in any
// sequence, so bytes are characters here.
func runEnd(s string, i int, seq string, dir int) int {
	at := strings.IndexByte(seq, s[i])
	if at < 0 {
		return i + 1
	}
	j := i + 1
	for j < len(s) {
		at += dir
		if at < 0 || at >= len(seq) || seq[at] != s[j] {
			break
		}
		j++
	}
	return j
}

// minPersonalLen is the shortest personal word looked for inside a
// password; shorter names are refused only as the whole password, which
// the length rule already prevents.
const minPersonalLen = 3

// isPersonal reports whether pw, ignoring case and whitespace, contains the
// email, the email's local part or a display name of personal and what is
// left is short (under 4 characters) or has no letter: "ana@example.com",
// "Ana.Li2024!" and "li wei 123" for ana.li@example.com, "Li Wei".
func isPersonal(pw string, personal []string) bool {
	squash := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return r
		}, strings.ToLower(norm.NFC.String(s)))
	}
	p := squash(pw)
	var words []string
	for _, w := range personal {
		w = squash(w)
		words = append(words, w)
		if local, _, ok := strings.Cut(w, "@"); ok {
			words = append(words, local)
		}
	}
	for _, w := range words {
		if utf8.RuneCountInString(w) < minPersonalLen {
			continue
		}
		i := strings.Index(p, w)
		if i < 0 {
			continue
		}
		rest := p[:i] + p[i+len(w):]
		if utf8.RuneCountInString(rest) < 4 || !strings.ContainsFunc(rest, unicode.IsLetter) {
			return true
		}
	}
	return false
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
