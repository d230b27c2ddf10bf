package extract

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"gpuquote/internal/market"
	"gpuquote/internal/quote"
)

// TestPrefill: reading a message into a form that holds the new form's
// defaults and some typing sets what the reader left alone, keeps what
// they typed (listing the message's other value), resolves the platform
// and GPU model by name or alias to ids, and names an unknown model with
// the nearest known one instead of choosing it (docs/RULES.md §22.11).
func TestPrefill(t *testing.T) {
	refs := quote.NewRefs(
		[]market.RefName{{ID: 3, Names: []string{"AutoDL", "AutoDL 算力云"}}},
		[]market.RefName{{ID: 7, Names: []string{"NVIDIA GeForce RTX 4090", "GeForce RTX 4090", "RTX 4090"}},
			{ID: 9, Names: []string{"NVIDIA H100 SXM5 80GB", "H100 SXM5 80GB"}}})
	defaults := map[string]string{"gpu_count": "1", "sharing": "dedicated", "prices_include_tax": "true"}
	untouched := func(field, value string) bool { return value == "" || defaults[field] == value }

	msg := "AutoDL RTX 4090 单卡：按量 ¥1.98/小时，按秒计费；包月 ¥1,150。数据盘 50GB 免费，超出部分 ¥0.01/GB/天。公网IP ¥20/月。"
	r := Read(msg)
	form := url.Values{"gpu_count": {"1"}, "sharing": {"dedicated"}, "prices_include_tax": {"true"},
		"monthly":          {"1100"}, // typed: the reader's value stays
		"public_ip.status": {"included"}}
	f := Prefill(r, form.Get, untouched, refs)
	set := map[string]string{}
	for _, v := range f.Set {
		set[v.Field] = v.Value
	}
	for field, want := range map[string]string{"platform": "3", "gpu_model": "7", "hourly": "1.98", "currency": "CNY",
		"billing_granularity": "second", "data_disk.status": "charged", "data_disk.unit_price": "0.01", "data_disk.free_allowance": "50"} {
		if set[field] != want {
			t.Errorf("%s set to %q, want %q (read %v)", field, set[field], want, r.Values)
		}
		if f.Sources[field] == "" {
			t.Errorf("%s has no source phrase", field)
		}
	}
	if src := f.Sources["hourly"]; !strings.Contains(src, "¥1.98/小时") {
		t.Errorf("hourly's source %q does not hold its price", src)
	}
	for field, src := range f.Sources {
		for _, phrase := range strings.Split(src, " … ") {
			if !containsRunes(msg, phrase) {
				t.Errorf("%s's source %q: %q is not a phrase of the message", field, src, phrase)
			}
		}
	}
	if got := f.Sources["currency"]; got != "¥" {
		t.Errorf("the currency's source %q, want the sign once", got)
	}
	if _, ok := set["monthly"]; ok {
		t.Error("the typed monthly price was replaced")
	}
	if _, ok := set["public_ip.unit_price"]; ok {
		t.Error("a line the reader answered (public IP included) was changed")
	}
	wantKept := map[string]bool{"monthly": true, "public_ip.status": true}
	for _, k := range f.Kept {
		delete(wantKept, k.Field)
		if k.Field == "monthly" && (k.Typed != "1100" || k.Read != "1150") {
			t.Errorf("kept monthly: %+v", k)
		}
	}
	if len(wantKept) > 0 {
		t.Errorf("not listed as kept: %v (kept %+v)", wantKept, f.Kept)
	}

	// A model the message names that no record has exactly.
	r = Read("H100 SXM5 8卡整机，$2.49 per GPU-hour, billed per second.")
	f = Prefill(r, url.Values{}.Get, untouched, refs)
	for _, v := range f.Set {
		if v.Field == "gpu_model" {
			t.Errorf("an inexact name chose gpu_model %s", v.Value)
		}
	}
	if len(f.Unknown) != 1 || f.Unknown[0].Field != "gpu_model" || f.Unknown[0].Nearest != "H100 SXM5 80GB" {
		t.Errorf("unknown names: %+v, want the model with its nearest known name", f.Unknown)
	}

	// Determinism.
	again := Prefill(r, url.Values{}.Get, untouched, refs)
	if !reflect.DeepEqual(f, again) {
		t.Error("the same reading planned two fills")
	}
}

func containsRunes(s, sub string) bool {
	rs, rsub := []rune(s), []rune(sub)
	for i := 0; i+len(rsub) <= len(rs); i++ {
		if string(rs[i:i+len(rsub)]) == sub {
			return true
		}
	}
	return false
}
