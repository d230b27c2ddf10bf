package trial

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMayWrite(t *testing.T) {
	owned, unowned := Trial{CreatedBy: 7}, Trial{}
	for _, c := range []struct {
		t    Trial
		user int64
		role string
		want bool
	}{
		{owned, 7, "analyst", true},
		{owned, 7, "finance", true},
		{owned, 8, "analyst", false},
		{owned, 8, "finance", false},
		{owned, 8, "editor", true},
		{owned, 8, "admin", true},
		{unowned, 8, "analyst", false},
		{unowned, 0, "", false}, // no author is nobody's trial
		{unowned, 8, "editor", true},
	} {
		if got := MayWrite(c.t, c.user, c.role); got != c.want {
			t.Errorf("trial by %d, user %d (%s): %v, want %v", c.t.CreatedBy, c.user, c.role, got, c.want)
		}
	}
}

func TestEvidenceBudget(t *testing.T) {
	for _, c := range []struct {
		use  Use
		add  int64
		fits bool
	}{
		{Use{}, MaxPasteBytes, true},
		{Use{}, MaxPasteBytes + 1, false},
		{Use{Pastes: 19, Bytes: 100}, 1000, true},
		{Use{Pastes: 20, Bytes: 100}, 1, false},
		{Use{Pastes: 5, Bytes: MaxPasteBytes - 10}, 10, true},
		{Use{Pastes: 5, Bytes: MaxPasteBytes - 10}, 11, false},
	} {
		err := c.use.Admit(c.add)
		var be *BudgetError
		if (err == nil) != c.fits || (err != nil && (!errors.As(err, &be) || be.Used != c.use || be.Adding != c.add)) {
			t.Errorf("%+v + %d: %v, fits %v", c.use, c.add, err, c.fits)
		}
	}
	if (Use{Pastes: 19, Bytes: 10}).Full() || !(Use{Pastes: 20}).Full() || !(Use{Bytes: MaxPasteBytes}).Full() {
		t.Error("Full")
	}
}

func TestPreview(t *testing.T) {
	if s, cut := Preview("短文本", 3); s != "短文本" || cut {
		t.Errorf("short: %q %v", s, cut)
	}
	long := strings.Repeat("显存 24576 MiB\n", 1000)
	s, cut := Preview(long, 100)
	if !cut || utf8.RuneCountInString(s) > 100 || !strings.HasSuffix(s, "MiB") || !strings.HasPrefix(long, s) {
		t.Errorf("cut at a line end: %q %v", s, cut)
	}
	s, cut = Preview(strings.Repeat("é", 50), 10)
	if !cut || s != strings.Repeat("é", 10) {
		t.Errorf("no line end: %q %v", s, cut)
	}
}
