package extract

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"gpuquote/internal/i18n"
)

func TestReadNumber(t *testing.T) {
	cases := []struct {
		in   string
		wide bool
		want string
		end  int // runes read
	}{
		{"1150", false, "1150", 4},
		{"1.98", false, "1.98", 4},
		{"1,150", false, "1150", 5},
		{"12,000,000", false, "12000000", 10},
		{"1,150.50", false, "1150.5", 8},
		{"1.150,00", false, "1150", 8},
		{"1.150", false, "1.15", 5},          // a dot alone is the decimal mark
		{"1.150.000", false, "1150000", 9},   // several dots group thousands
		{"1 150", true, "1150", 5},           // spaces group only beside a currency
		{"1 150", false, "1", 1},             //
		{"1 150,00", true, "1150", 8},        //
		{"14,90", true, "14.9", 5},           // a decimal comma only beside a currency
		{"14,90", false, "14", 2},            //
		{"0,471", true, "0.471", 5},          //
		{"8,16", false, "8", 1},              // a list, not a number
		{"1.2.3", false, "1.2", 3},           // a version: the longest number that reads
		{"007", false, "7", 3},               //
		{"1,15", false, "1", 1},              //
		{"1,150,2", false, "1150", 5},        //
		{"2026-12-01", false, "2026", 4},     //
		{"99.95%", false, "99.95", 5},        //
		{"3.84TB", false, "3.84", 4},         //
		{"1,000 GB", false, "1000", 5},       //
		{"12 000 000", true, "12000000", 10}, //
		{"1.234.567,89", true, "1234567.89", 12},
	}
	for _, c := range cases {
		n := []rune(c.in)
		v, end, ok := readNumber(n, 0, c.wide)
		if !ok || v.String() != c.want || end != c.end {
			t.Errorf("readNumber(%q, wide=%v) = %s, %d, %v; want %s, %d", c.in, c.wide, v, end, ok, c.want, c.end)
		}
	}
	if _, _, ok := readNumber([]rune("abc"), 0, false); ok {
		t.Error("readNumber read a number in abc")
	}
}

func TestReadChinese(t *testing.T) {
	for in, want := range map[string]int{"三": 3, "两": 2, "十": 10, "十二": 12, "二十四": 24, "一年": 1, "三十": 30} {
		if v, _, ok := readChinese([]rune(in), 0); !ok || v != want {
			t.Errorf("readChinese(%q) = %d, %v; want %d", in, v, ok, want)
		}
	}
}

// values returns a result's values as a map.
func values(r Result) map[string]string {
	m := map[string]string{}
	for _, v := range r.Values {
		m[v.Field] = v.Value
	}
	return m
}

func reasons(r Result) []string {
	var out []string
	for _, s := range r.Skipped {
		out = append(out, s.Reason)
	}
	return out
}

// expect checks that text reads exactly want (every value, nothing more)
// and that each reason in skips is among the skipped phrases.
func expect(t *testing.T, text string, want map[string]string, skips ...string) {
	t.Helper()
	r := Read(text)
	checkInvariants(t, text, text, r)
	got := values(r)
	if !reflect.DeepEqual(got, want) {
		var keys []string
		for k := range got {
			keys = append(keys, k)
		}
		for k := range want {
			if _, ok := got[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if got[k] != want[k] {
				t.Errorf("%q: %s = %q, want %q", text, k, got[k], want[k])
			}
		}
	}
	for _, s := range skips {
		found := false
		for _, x := range reasons(r) {
			found = found || x == s
		}
		if !found {
			t.Errorf("%q: not skipped as %s (skipped %v)", text, s, reasons(r))
		}
	}
}

func TestNumbersInMessages(t *testing.T) {
	expect(t, "按量 ￥１．９８／小时", map[string]string{"currency": "CNY", "hourly": "1.98"})
	expect(t, "按量：１５．２０元／小时", map[string]string{"currency": "CNY", "hourly": "15.2"})
	expect(t, "包月 ¥1 150", map[string]string{"currency": "CNY", "monthly": "1150"})
	expect(t, "包月 ¥1,150，包年 ¥11,880", map[string]string{"currency": "CNY", "monthly": "1150", "yearly": "11880"})
	expect(t, "Monthly: €1.150,00", map[string]string{"currency": "EUR", "monthly": "1150"})
	expect(t, "Hourly: €0,471/h", map[string]string{"currency": "EUR", "hourly": "0.471"})
	expect(t, "包年 1.2万元", map[string]string{"currency": "CNY", "yearly": "12000"})
	expect(t, "包月：０.９８万元／月", map[string]string{"currency": "CNY", "monthly": "9800"})
	expect(t, "$1.2k/mo", map[string]string{"currency": "USD", "monthly": "1200"})
	expect(t, "押金 ¥5,000", map[string]string{"currency": "CNY", "deposit": "5000"})
	expect(t, "A deposit of $2,000 is required.", map[string]string{"currency": "USD", "deposit": "2000"})
}

func TestRangesAreSkipped(t *testing.T) {
	for _, text := range []string{
		"按量 ¥1.8–2.2/小时", "按量 1.8~2.2元/小时", "On-demand: $0.30-0.45/hr", "包月 ¥2,800 至 3,200/月",
		"roughly $1.60-$2.00/hr", "$2 to 3 USD per hour",
	} {
		r := Read(text)
		for _, f := range []string{"hourly", "monthly"} {
			if v, ok := r.Get(f); ok {
				t.Errorf("%q: %s = %s from a range", text, f, v)
			}
		}
		found := false
		for _, s := range r.Skipped {
			found = found || s.Reason == MsgSkipRange
		}
		if !found {
			t.Errorf("%q: no range skipped: %+v", text, r.Skipped)
		}
	}
}

func TestConditionalPrices(t *testing.T) {
	expect(t, "包年 8 折", map[string]string{}, MsgSkipDiscount)
	expect(t, "按量 ¥1.98/小时，包年 8 折，满3个月9折",
		map[string]string{"currency": "CNY", "hourly": "1.98"}, MsgSkipDiscount)
	expect(t, "RTX 4090 from $1.99/hr", map[string]string{"currency": "USD", "gpu_model": "RTX 4090"}, MsgSkipConditional)
	expect(t, "抢占式实例：¥2.72/小时起", map[string]string{"currency": "CNY"}, MsgSkipConditional)
	expect(t, "新用户首月 ¥500/月", map[string]string{"currency": "CNY"}, MsgSkipConditional)
	expect(t, "满3个月 ¥1,000/月", map[string]string{"currency": "CNY"}, MsgSkipConditional)
	expect(t, "约 ¥2/小时", map[string]string{"currency": "CNY"}, MsgSkipApprox)
	expect(t, "包月大约 ¥1,000 左右", map[string]string{"currency": "CNY"}, MsgSkipApprox)
	expect(t, "about $2/hr", map[string]string{"currency": "USD"}, MsgSkipApprox)
	expect(t, "原价 ¥2.5/小时，现价 ¥1.98/小时", map[string]string{"currency": "CNY", "hourly": "1.98"}, MsgSkipFormer)
	expect(t, "was $0.79/hr, now $0.55/hr", map[string]string{"currency": "USD", "hourly": "0.55"}, MsgSkipFormer)
	expect(t, "$9,600 per year (that is $800/month equivalent)",
		map[string]string{"currency": "USD", "yearly": "9600"}, MsgSkipEquivalent)
	expect(t, "15% off for 3 months", map[string]string{}, MsgSkipDiscount)
	expect(t, "包年 ¥980/月", map[string]string{"currency": "CNY"}, MsgSkipPeriod)
}

func TestCurrencies(t *testing.T) {
	for text, want := range map[string]string{
		"$2/hr": "USD", "US$2/hr": "USD", "USD 2/hr": "USD", "2 美元/小时": "USD", "2美金/小时": "USD",
		"€2/hr": "EUR", "2 EUR/hr": "EUR", "2欧元/小时": "EUR",
		"¥2/小时": "CNY", "￥2/小时": "CNY", "2元/小时": "CNY", "人民币 2/小时": "CNY", "RMB 2/小时": "CNY", "2 CNY/hr": "CNY",
		"£2/hr": "GBP", "HK$2/hr": "HKD",
	} {
		expect(t, text, map[string]string{"currency": want, "hourly": "2"})
	}
	// Two currencies: neither the currency nor any price.
	expect(t, "按量 ¥2/小时，包月 $300/月", map[string]string{}, MsgSkipCurrency)
	// Another country's dollar is not read.
	expect(t, "A$2/hr", map[string]string{}, MsgSkipCurrency)
	// No currency anywhere: no price.
	expect(t, "按量 1.98/小时", map[string]string{}, MsgSkipNoCurrency)
	// A currency named on its own serves the bare prices.
	expect(t, "单位：元\n按量 1.98/小时", map[string]string{"currency": "CNY", "hourly": "1.98"})
	// 块 is money, 8块显卡 is eight cards.
	expect(t, "1.6块一小时", map[string]string{"currency": "CNY", "hourly": "1.6"})
	expect(t, "8块显卡", map[string]string{"gpu_count": "8"})
}

func TestHardware(t *testing.T) {
	for text, want := range map[string]map[string]string{
		"4090 8卡":               {"gpu_model": "RTX 4090", "gpu_count": "8"},
		"8x H100":               {"gpu_model": "H100", "gpu_count": "8"},
		"8 × A100":              {"gpu_model": "A100", "gpu_count": "8"},
		"8xH100 80GB":           {"gpu_model": "H100", "gpu_count": "8", "vram_gb": "80"},
		"H100 SXM5 x8":          {"gpu_model": "H100 SXM5", "gpu_count": "8"},
		"单卡 3090":               {"gpu_model": "RTX 3090", "gpu_count": "1"},
		"八卡 A800":               {"gpu_model": "A800", "gpu_count": "8"},
		"8 GPUs":                {"gpu_count": "8"},
		"24G显存":                 {"vram_gb": "24"},
		"显存 24GB，内存 64GB":       {"vram_gb": "24", "ram_gb": "64"},
		"80GB HBM3":             {"vram_gb": "80"},
		"16核":                   {"cpu_cores": "16"},
		"16 vCPU":               {"cpu_cores": "16"},
		"16核64G":                {"cpu_cores": "16", "ram_gb": "64"},
		"内存 64G":                {"ram_gb": "64"},
		"64 GB RAM":             {"ram_gb": "64"},
		"GPU memory: 80 GB":     {"vram_gb": "80"},
		"系统盘 30GB":              {"included_system_disk_gb": "30"},
		"30GB 系统盘":              {"included_system_disk_gb": "30"},
		"数据盘 50GB 免费":           {"included_data_disk_gb": "50"},
		"带宽 10Mbps":             {"included_mbps": "10"},
		"10M带宽":                 {"included_mbps": "10"},
		"1 Gbps port":           {"included_mbps": "1000"},
		"400Gb/s InfiniBand 内网": {},
		"系统盘可扩容至 500GB":         {},
		"数据盘 1TB":               {},
		"独享整卡":                  {"sharing": "dedicated"},
		"带宽 200Mbps 独享":         {"included_mbps": "200"},
		"2×56核（共 112 核）":        {"cpu_cores": "112"},
		"RTX 3090、RTX 4090 和 A100 80G 都有": {},
	} {
		expect(t, text, want)
	}
}

func TestGranularity(t *testing.T) {
	for text, want := range map[string]string{
		"按秒计费": "second", "per-second billing": "second", "billed per second": "second", "Billing: per second": "second",
		"按分钟计费": "minute", "billed per minute": "minute", "Billing is by the minute": "minute",
		"按小时计费": "hour", "不足一小时按一小时计": "hour", "billed hourly": "hour",
	} {
		expect(t, text, map[string]string{"billing_granularity": want})
	}
	expect(t, "按秒计费，按小时结算", map[string]string{"billing_granularity": "second"})
	expect(t, "按秒计费；包月按小时计费", map[string]string{}, MsgSkipConflict)
}

func TestTermsAndTax(t *testing.T) {
	for text, want := range map[string]map[string]string{
		"最短租期3个月":               {"commitment_months": "3"},
		"最低租期两个月":               {"commitment_months": "2"},
		"3个月起租":                 {"commitment_months": "3"},
		"签约一年":                  {"commitment_months": "12"},
		"12-month minimum":      {"commitment_months": "12"},
		"a 1-year contract":     {"commitment_months": "12"},
		"no minimum commitment": {"commitment_months": "0"},
		"Savings plans reduce this by up to 45% with a 1- or 3-year commitment.": {},
		"提前解约收取剩余费用的30%":                                                         {"early_termination_pct": "30"},
		"30% early termination fee":                                              {"early_termination_pct": "30"},
		"提前退租退还剩余费用的70%":                                                         {},
		"押金可退":                                                                   {"deposit_refundable": "true"},
		"押金不退":                                                                   {"deposit_refundable": "false"},
		"The deposit is refundable.":                                             {"deposit_refundable": "true"},
		"The deposit is non-refundable.":                                         {"deposit_refundable": "false"},
		"免押金":                                                                    {"deposit": "0"},
		"余额可提现":                                                                  {"balance_withdrawable": "true"},
		"账户余额不可提现":                                                               {"balance_withdrawable": "false"},
		"价格含税":                                                                   {"prices_include_tax": "true"},
		"不含税":                                                                    {"prices_include_tax": "false"},
		"Prices ex. VAT":                                                         {"prices_include_tax": "false"},
		"excl. VAT":                                                              {"prices_include_tax": "false"},
		"incl. VAT":                                                              {"prices_include_tax": "true"},
		"可开 6% 增值税专票":                                                            {"tax_rate": "0.06", "invoice_type": "vat_special"},
		"含 6% 增值税":                                                               {"tax_rate": "0.06", "prices_include_tax": "true"},
		"VAT 21%":                                                                {"tax_rate": "0.21"},
		"税点 6 个点":                                                                {"tax_rate": "0.06"},
		"可开普票":                                                                   {"invoice_type": "vat_general"},
		"SLA 99.9%":                                                              {"sla_availability_pct": "99.9"},
		"99.95% uptime":                                                          {"sla_availability_pct": "99.95"},
		"机房：上海，带宽另计":                                                             {"region": "上海"},
		"Region: us-east-1":                                                      {"region": "us-east-1"},
	} {
		expect(t, text, want)
	}
	expect(t, "价格含税。价格不含税。", map[string]string{}, MsgSkipConflict)
}

func TestLines(t *testing.T) {
	expect(t, "数据盘 50GB 免费，超出部分 ¥0.01/GB/天", map[string]string{"currency": "CNY",
		"data_disk.status": "charged", "data_disk.unit": "per_day", "data_disk.unit_price": "0.01", "data_disk.free_allowance": "50"})
	expect(t, "流量不限", map[string]string{"egress.status": "included"})
	expect(t, "免费出网", map[string]string{"egress.status": "included"})
	expect(t, "公网IP ¥20/月", map[string]string{"currency": "CNY",
		"public_ip.status": "charged", "public_ip.unit": "per_month", "public_ip.unit_price": "20"})
	expect(t, "关机不收费", map[string]string{"stopped_retention.status": "included"})
	expect(t, "Stopped instances are not billed.", map[string]string{"stopped_retention.status": "included"})
	expect(t, "关机即释放", map[string]string{"stopped_retention.status": "not_applicable"})
	expect(t, "快照 ¥0.1/GB/月", map[string]string{"currency": "CNY",
		"snapshot.status": "charged", "snapshot.unit": "per_month", "snapshot.unit_price": "0.1"})
	expect(t, "egress $0.09/GB", map[string]string{"currency": "USD",
		"egress.status": "charged", "egress.unit": "per_gb", "egress.unit_price": "0.09"})
	expect(t, "带宽 ¥23/Mbps/月", map[string]string{"currency": "CNY",
		"bandwidth.status": "charged", "bandwidth.unit": "per_month", "bandwidth.unit_price": "23"})
	expect(t, "每次启动 ¥0.5", map[string]string{"currency": "CNY",
		"start_stop_schedule.status": "charged", "start_stop_schedule.unit": "per_event", "start_stop_schedule.unit_price": "0.5"})
	expect(t, "No mandatory add-ons.", map[string]string{"bundled_addon.status": "not_applicable"})
	expect(t, "需捆绑购买监控服务 ¥200/月", map[string]string{"currency": "CNY",
		"bundled_addon.status": "charged", "bundled_addon.unit": "flat_month", "bundled_addon.unit_price": "200"})
	// A unit the line does not take.
	expect(t, "快照 ¥0.1/GB/周", map[string]string{"currency": "CNY"}, MsgSkipUnit)
	// A line said to be free and priced: no status.
	expect(t, "流量免费。流量 ¥0.8/GB。", map[string]string{"currency": "CNY"}, MsgSkipConflict)
	// 不含 is not free.
	expect(t, "价格不包含流量", map[string]string{})
}

func TestPerGPUPrices(t *testing.T) {
	expect(t, "8x H100 SXM: $2.99/GPU/hr", map[string]string{"currency": "USD", "gpu_model": "H100 SXM",
		"gpu_count": "8", "hourly": "23.92"})
	expect(t, "H100 按量 ¥26.8/卡/小时", map[string]string{"currency": "CNY", "gpu_model": "H100"}, MsgSkipPerGPU)
}

func TestNothingStatedNothingRead(t *testing.T) {
	expect(t, "", map[string]string{})
	expect(t, "您好，请问有什么可以帮您？", map[string]string{})
	expect(t, "Thanks for reaching out, we will get back to you.", map[string]string{})
	expect(t, "RTX 4090 有货", map[string]string{"gpu_model": "RTX 4090"})
}

func TestUnread(t *testing.T) {
	r := Read("RTX 4090 按量 ¥1.98/小时。技术支持 ¥500/月。包周 ¥1,188/周。")
	want := []string{"技术支持 ¥500/月", "包周 ¥1,188/周"}
	if !reflect.DeepEqual(r.Unread, want) {
		t.Errorf("Unread = %q, want %q", r.Unread, want)
	}
	if v, _ := r.Get("hourly"); v != "1.98" {
		t.Errorf("hourly = %q", v)
	}
	if _, ok := r.Get("monthly"); ok {
		t.Error("a support fee read as the monthly price")
	}
}

// TestEvidenceIsRuneOffsets: offsets count characters, not bytes.
func TestEvidenceIsRuneOffsets(t *testing.T) {
	text := "您好，这是我们的报价：RTX 4090 单卡，按量计费 ￥1.98/小时，包月 ¥1,150。"
	r := Read(text)
	runes := []rune(text)
	found := 0
	for _, e := range r.Evidence {
		if e.Text != string(runes[e.Start:e.End]) {
			t.Errorf("%+v: text is %q", e, string(runes[e.Start:e.End]))
		}
		if e.Field == "hourly" && e.Text == "￥1.98/小时" {
			found++
			if b := strings.Index(text, "￥1.98"); b == e.Start {
				t.Errorf("hourly evidence starts at byte offset %d, not a rune offset", b)
			}
			if want := utf8.RuneCountInString(text[:strings.Index(text, "￥1.98")]); e.Start != want {
				t.Errorf("hourly evidence starts at %d, want rune offset %d", e.Start, want)
			}
		}
		if e.Field == "monthly" && e.Text == "¥1,150" {
			found++
		}
	}
	if found != 2 {
		t.Errorf("evidence of hourly and monthly not found: %+v", r.Evidence)
	}
}

func TestDeterministic(t *testing.T) {
	for _, m := range loadCorpus(t) {
		a, b := Read(m.text), Read(m.text)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two reads differ", m.name)
		}
	}
}

// bigMessage repeats the corpus into a message of n runes.
func bigMessage(t testing.TB, n int) string {
	var b strings.Builder
	msgs := loadCorpus(t)
	for i := 0; utf8.RuneCountInString(b.String()) < n && i < 10000; i++ {
		b.WriteString(msgs[i%len(msgs)].text)
		b.WriteString("\n\n")
	}
	return string([]rune(b.String())[:n])
}

// TestRead20000 reads a 20,000-character message whole, its evidence
// within the text. How long it takes is BenchmarkRead20000's to measure,
// never a test's to assert.
func TestRead20000(t *testing.T) {
	text := bigMessage(t, 20000)
	checkInvariants(t, "20000", text, Read(text))
}

func BenchmarkRead20000(b *testing.B) {
	text := bigMessage(b, 20000)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Read(text)
	}
}

func FuzzRead(f *testing.F) {
	for _, m := range loadCorpus(f) {
		f.Add(m.text)
	}
	for _, s := range []string{"", "¥", "$", "1", "¥1.", "1,", "1-", "¥1-", "-¥1", "万", "1万万", "\x00", "\xff\xfe", "¥1.8–",
		"包月：\n", "包月：\n1", "|a|b|\n|1|2|", "8x", "x8", "H100 x", "¥1/GB/月/天/时", "前 GB", "1 150 150 150 元",
		"１．９８", "𝟙𝟚𝟛", "é\u0301", "İ$1", "ǅ", "\u2028¥1\u2029"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r := Read(text)
		checkInvariants(t, "fuzz", text, r)
		for _, u := range r.Unread {
			if strings.TrimSpace(u) == "" && u != "" {
				t.Errorf("blank unread sentence %q", u)
			}
		}
	})
}

// TestReasonsAreInTheCatalogs: every reason a skip names has its words in
// both languages, so a page can show it.
func TestReasonsAreInTheCatalogs(t *testing.T) {
	c, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range Reasons {
		for _, l := range i18n.Langs {
			if !c.Has(l, id) {
				t.Errorf("%s is missing in %s", id, l)
			}
		}
	}
	seen := map[string]bool{}
	for _, m := range loadCorpus(t) {
		for _, s := range Read(m.text).Skipped {
			seen[s.Reason] = true
		}
	}
	for id := range seen {
		if !slices.Contains(Reasons, id) {
			t.Errorf("skip reason %s is not in Reasons", id)
		}
	}
}

// TestPrecisionTraps: messages that read wrongly unless a rule holds.
func TestPrecisionTraps(t *testing.T) {
	expect(t, "每卡每小时 ¥1.98，8 卡整机", map[string]string{"gpu_count": "8", "currency": "CNY", "hourly": "15.84"})
	expect(t, "8卡服务器，单卡价格 ¥1.98/小时", map[string]string{"gpu_count": "8", "currency": "CNY", "hourly": "15.84"})
	expect(t, "Up to 8 GPUs per node, $2/GPU/hr", map[string]string{"currency": "USD"}, MsgSkipPerGPU)
	expect(t, "For your 16-GPU cluster (2 nodes × 8 H100), the price is $35/hr per node.",
		map[string]string{"gpu_model": "H100", "currency": "USD", "hourly": "35"})
	expect(t, "A100 40G/80G 均有，¥7/小时", map[string]string{"gpu_model": "A100", "currency": "CNY", "hourly": "7"})
	expect(t, "H100 80GB，内存带宽 1008GB/s，内存 512GB", map[string]string{"gpu_model": "H100", "vram_gb": "80", "ram_gb": "512"})
	expect(t, "8 vCPU / 64 GB RAM / 500 GB SSD system disk", map[string]string{"cpu_cores": "8", "ram_gb": "64",
		"included_system_disk_gb": "500"})
	expect(t, "优惠期间 ¥1.5/小时", map[string]string{"currency": "CNY"}, MsgSkipConditional)
	expect(t, "3 个月以上 ¥1,000/月", map[string]string{"currency": "CNY"}, MsgSkipConditional)
	expect(t, "price: $1,500.00/month billed annually", map[string]string{"currency": "USD"}, MsgSkipPeriod)
	expect(t, "We charge $0.01/GB for storage and $0.05/GB egress.", map[string]string{"currency": "USD",
		"egress.status": "charged", "egress.unit": "per_gb", "egress.unit_price": "0.05"})
	expect(t, "带宽：默认 5Mbps，可升级至 100Mbps，每 Mbps ¥20/月", map[string]string{"currency": "CNY",
		"bandwidth.status": "charged", "bandwidth.unit": "per_month", "bandwidth.unit_price": "20", "bandwidth.free_allowance": "5"})
	expect(t, "Snapshots free for the first 50 GB, then $0.03/GB-month.", map[string]string{"currency": "USD",
		"snapshot.status": "charged", "snapshot.unit": "per_month", "snapshot.unit_price": "0.03", "snapshot.free_allowance": "50"})
	expect(t, "押金 5000 元（可退），余额不可提现", map[string]string{"currency": "CNY", "deposit": "5000",
		"deposit_refundable": "true", "balance_withdrawable": "false"})
	expect(t, "All prices are in EUR and exclude 19% VAT.", map[string]string{"currency": "EUR",
		"prices_include_tax": "false", "tax_rate": "0.19"})
	expect(t, "Our A100 is $1.10/hr; the H100 is $2.49/hr.", map[string]string{"currency": "USD"}, MsgSkipConflict)
	expect(t, "GPU 服务器托管费 ¥800/月", map[string]string{"currency": "CNY"})
	expect(t, "流量包：¥100/月 包含 1TB 流量", map[string]string{"currency": "CNY"})
	expect(t, "充值 ¥1000 送 ¥100", map[string]string{"currency": "CNY"})
	expect(t, "我们比 AutoDL 便宜", map[string]string{})
	expect(t, "We need a $500 deposit.", map[string]string{"currency": "USD", "deposit": "500"})
	// The free words beside egress's own price are not read as a free line.
	expect(t, "Data transfer: free inbound, $0.08/GB outbound.", map[string]string{"currency": "USD",
		"egress.status": "charged", "egress.unit": "per_gb", "egress.unit_price": "0.08"})
}
