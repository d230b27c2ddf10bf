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
		{"password", ErrPasswordCommon},      // #3 of the list
		{"PASSWORD", ErrPasswordCommon},      // case-insensitive
		{"12345678", ErrPasswordCommon},      // 8 characters but common
		{"ilovegpus!", nil},                  // ordinary, fine
		{"算力租用避坑指南", nil},                    // 8 Chinese characters
		{strings.Repeat("算力租用避坑指南", 8), nil}, // 64 non-ASCII characters
		{strings.Repeat("é", 128), nil},
		{strings.Repeat("é", 129), ErrPasswordTooLong},
		{"bad\xffbytes!!", ErrPasswordInvalid},
	}
	for _, c := range cases {
		if got := CheckPassword(c.pw); !errors.Is(got, c.want) {
			t.Errorf("CheckPassword(%q) = %v, want %v", c.pw, got, c.want)
		}
	}
	if len(commonPasswords) != 1000 {
		t.Fatalf("common password list has %d entries", len(commonPasswords))
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
