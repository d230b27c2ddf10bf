package auth

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCheckPassword(t *testing.T) {
	cases := []struct {
		pw   string
		want error
	}{
		{"short1", ErrPasswordTooShort},
		{"1234567", ErrPasswordTooShort},
		{"password", ErrPasswordCommon},      // the list's best-known entry
		{"PASSWORD", ErrPasswordCommon},      // case-insensitive
		{"Elephant", ErrPasswordCommon},      // a dictionary word
		{"sunshine", ErrPasswordCommon},      // a common password of 8 letters
		{"ilovegpus!", nil},                  // ordinary, fine
		{"算力租用避坑指南", nil},                    // 8 Chinese characters
		{strings.Repeat("算力租用避坑指南", 8), nil}, // 64 non-ASCII characters
		{strings.Repeat("é", 127) + "x", nil},
		{strings.Repeat("é", 129), ErrPasswordTooLong},
		{"bad\xffbytes!!", ErrPasswordInvalid},
		// The security review's findings.
		{"aaaaaaaa", ErrPasswordRepeated},
		{"        ", ErrPasswordBlank},
		{"\t \u3000  \n  ", ErrPasswordBlank}, // any whitespace, ideographic space included
		{"qwertyuiop", ErrPasswordSequence},
		{"1234567890", ErrPasswordSequence},
		// Repetition of a short group, in any script.
		{"AAAAaaaa", ErrPasswordRepeated},
		{"abababab", ErrPasswordRepeated},
		{"123123123", ErrPasswordRepeated},
		{"密密密密密密密密", ErrPasswordRepeated},
		{"abcdabcd", ErrPasswordSequence}, // a group of 4 repeated is a sequence twice
		{"abcdeabcdeX", nil},              // a sequence twice and a stray
		// Sequences: keyboard rows, the alphabet and the digits, either way,
		// whole runs of 3 or more.
		{"QWERTYUIOP", ErrPasswordSequence},
		{"poiuytrewq", ErrPasswordSequence},
		{"987654321", ErrPasswordSequence},
		{"qwertyasdfgh", ErrPasswordSequence},
		{"abc12345", ErrPasswordSequence},
		{"zxcvbnm,./", ErrPasswordSequence},
		{"abcdefghijk", ErrPasswordSequence},
		{"qwerty7x", nil},      // a run and two strays
		{"qwertz1234", nil},    // a German row is not a US row: "qwert" + "z" + ...
		{"horse-battery", nil}, // no run at all
	}
	for _, c := range cases {
		if got := CheckPassword(c.pw); !errors.Is(got, c.want) {
			t.Errorf("CheckPassword(%q) = %v, want %v", c.pw, got, c.want)
		}
	}
	if n := len(commonPasswords()); n < 10_000 {
		t.Fatalf("common password list has %d entries", n)
	}
}

// TestCheckPasswordPersonal: the account's own email, its local part and
// its display name are refused, also with a few characters or only digits
// and symbols added; a passphrase that merely contains them is not.
func TestCheckPasswordPersonal(t *testing.T) {
	email, name := "Ana.Li@Example.com", "Zhang Wei"
	cases := []struct {
		pw   string
		want error
	}{
		{"ana.li@example.com", ErrPasswordPersonal},
		{"ANA.LI@EXAMPLE.COM", ErrPasswordPersonal},
		{"ana.li2024!", ErrPasswordPersonal}, // local part and digits
		{"ana.li@ab", ErrPasswordPersonal},   // local part and 3 characters
		{"ana.li@abcd", nil},                 // 4 characters with letters added
		{"zhangwei", ErrPasswordPersonal},    // the display name without its space
		{"Zhang Wei 1988", ErrPasswordPersonal},
		{"xzhangweix", ErrPasswordPersonal}, // 2 characters added
		{"zhang wei rents gpus", nil},       // a passphrase that contains the name
		{"ana.li likes h100s", nil},
		{"ilovegpus!", nil},
	}
	for _, c := range cases {
		if got := CheckPassword(c.pw, email, name); !errors.Is(got, c.want) {
			t.Errorf("CheckPassword(%q, %q, %q) = %v, want %v", c.pw, email, name, got, c.want)
		}
	}
	// Without the personal words the same passwords pass.
	if err := CheckPassword("ana.li2024!"); err != nil {
		t.Errorf("without personal words: %v", err)
	}
	// A very short name is looked for only as the whole password.
	if err := CheckPassword("li-rents-gpus", "li@example.com", "Li"); err != nil {
		t.Errorf("short name: %v", err)
	}
}

// TestCommonPasswordList: the shipped list is sorted, lower case and
// without duplicates (the lookup is a binary search), and keeps its
// best-known entries.
func TestCommonPasswordList(t *testing.T) {
	list := commonPasswords()
	for i, e := range list {
		if e != strings.ToLower(e) || strings.TrimSpace(e) != e {
			t.Fatalf("entry %d %q is not lower case and trimmed", i, e)
		}
		if i > 0 && list[i-1] >= e {
			t.Fatalf("entries %d and %d (%q, %q) are out of order or repeated", i-1, i, list[i-1], e)
		}
	}
	for _, e := range []string{"123456", "password", "iloveyou", "trustno1", "elephant"} {
		if !isCommonPassword(e) {
			t.Errorf("%q missing", e)
		}
	}
}

func TestHashFormatAndVerify(t *testing.T) {
	ctx := context.Background()
	h := NewHasher(DefaultArgon2, 1)
	enc, err := h.Hash(ctx, "correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(enc, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q does not carry argon2id parameters ≥ 19 MiB, t=2, p=1", enc)
	}
	for pw, want := range map[string]bool{"correct horse battery staple": true, "correct horse battery stapl": false, "": false} {
		ok, err := h.Verify(ctx, pw, enc)
		if err != nil || ok != want {
			t.Errorf("Verify(%q) = %v, %v; want %v", pw, ok, err, want)
		}
	}
	// Unicode is normalised: a precomposed and a decomposed é are one password.
	enc2, _ := h.Hash(ctx, "caf\u00e9 au lait!")
	if ok, _ := h.Verify(ctx, "cafe\u0301 au lait!", enc2); !ok {
		t.Error("NFC normalisation missing")
	}
	// A hash made with other (older) parameters still verifies.
	old := NewHasher(Argon2Params{MemoryKiB: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}, 1)
	enc3, _ := old.Hash(ctx, "legacy password")
	if ok, err := h.Verify(ctx, "legacy password", enc3); !ok || err != nil {
		t.Errorf("verify with stored parameters: %v %v", ok, err)
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=1,t=1,p=1$aa$bb", "$argon2id$v=19$m=19456,t=2,p=1$!!$??", enc[:len(enc)-30]} {
		if _, err := h.Verify(ctx, "x", bad); !errors.Is(err, ErrMalformedHash) {
			t.Errorf("Verify on %q: %v, want ErrMalformedHash", bad, err)
		}
	}
}

func TestHasherBoundsConcurrency(t *testing.T) {
	h := NewHasher(Argon2Params{MemoryKiB: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}, 2)
	// Occupy both slots; a third hash must wait and give up with its context.
	h.sem <- struct{}{}
	h.sem <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := h.Hash(ctx, "waiting password"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hash with no free slot: %v, want deadline exceeded", err)
	}
	<-h.sem
	<-h.sem
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := h.Hash(context.Background(), "concurrent password"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if h.Runs() != 8 {
		t.Fatalf("runs %d, want 8", h.Runs())
	}
}

func TestTokens(t *testing.T) {
	a, b := NewToken(), NewToken()
	if a == b || len(a) != 43 {
		t.Fatalf("tokens %q %q", a, b)
	}
	if len(HashToken(a)) != 32 {
		t.Fatal("token hash is not SHA-256")
	}
	seen := map[byte]bool{}
	for i := 0; i < 50; i++ {
		for _, c := range []byte(GeneratePassword()) {
			seen[c] = true
		}
	}
	if p := GeneratePassword(); len(p) != 20 || CheckPassword(p) != nil || len(seen) < 40 {
		t.Fatalf("generated password %q (alphabet coverage %d)", p, len(seen))
	}
}

func TestPolicy(t *testing.T) {
	if (Policy{}).Allows(RoleAdmin, true) || (Policy{}).Defined() {
		t.Fatal("the zero policy must admit nobody")
	}
	p := Allow(RoleFinance)
	if !p.Allows(RoleFinance, true) || !p.Allows(RoleAdmin, true) || p.Allows(RoleAnalyst, true) || p.Allows("", false) {
		t.Fatal("Allow(finance) wrong")
	}
	if !Public.Allows("", false) || AnyUser.Allows("", false) || !AnyUser.Allows(RoleEditor, true) {
		t.Fatal("Public/AnyUser wrong")
	}
}
