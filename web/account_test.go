package web

import (
	"testing"

	"gpuquote/internal/i18n"
)

// TestAccountSessionsEmptyAndDevices: the sessions section says so when
// there is none, and words each device as much as its User-Agent told, in
// both languages (docs/RULES.md §16.5).
func TestAccountSessionsEmptyAndDevices(t *testing.T) {
	empty := map[i18n.Lang]string{i18n.EN: "No active sessions.", i18n.ZH: "没有正在进行的登录。"}
	for lang, want := range empty {
		doc := render(t, lang, Account(AccountView{}))
		if got := text(byID(t, doc, "sessions-empty")); got != want {
			t.Errorf("%s: empty state %q, want %q", lang, got, want)
		}
	}
	v := AccountView{Sessions: []SessionRow{
		{ID: "00000000-0000-4000-8000-000000000001", Browser: "Firefox", OS: "Windows", Current: true},
		{ID: "00000000-0000-4000-8000-000000000002", Browser: "curl"},
		{ID: "00000000-0000-4000-8000-000000000003", OS: "Android"},
		{ID: "00000000-0000-4000-8000-000000000004"},
	}}
	want := map[i18n.Lang][]string{
		i18n.EN: {"Firefox on Windows", "curl", "A browser on Android", "Unknown browser"},
		i18n.ZH: {"Windows 上的 Firefox", "curl", "Android 上的浏览器", "未知浏览器"},
	}
	for lang, devices := range want {
		doc := render(t, lang, Account(v))
		for i, d := range devices {
			if got := text(byID(t, doc, "session-"+v.Sessions[i].ID).Find(".session-device")); got != d {
				t.Errorf("%s: device %d %q, want %q", lang, i, got, d)
			}
		}
		if n := doc.Find(`[data-testid="session-end-self"]`).Length(); n != 1 {
			t.Errorf("%s: %d sign-out-here buttons, want 1", lang, n)
		}
		if n := doc.Find(`[data-testid="session-end"]`).Length(); n != 3 {
			t.Errorf("%s: %d end buttons, want 3", lang, n)
		}
	}
}
