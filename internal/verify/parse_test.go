package verify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/shopspring/decimal"
)

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// nd is a reading written as nvidia-smi's figure; "" is N/A.
func nd(s string) decimal.NullDecimal {
	if s == "" {
		return decimal.NullDecimal{}
	}
	return decimal.NullDecimal{Decimal: decimal.RequireFromString(s), Valid: true}
}

func sameReading(a, b decimal.NullDecimal) bool {
	return a.Valid == b.Valid && (!a.Valid || a.Decimal.Equal(b.Decimal))
}

// want is what one sample must hold; readings as strings, "" for N/A.
type want struct {
	sample, gpu                                     int
	name                                            string
	total, used, draw, limit, sm, maxSM, util, temp string
	reasons                                         []string
	known                                           bool
}

func checkSample(t *testing.T, got Sample, w want) {
	t.Helper()
	if got.Sample != w.sample || got.GPU != w.gpu || got.Name != w.name {
		t.Errorf("sample %d gpu %d name %q, want %d %d %q", got.Sample, got.GPU, got.Name, w.sample, w.gpu, w.name)
	}
	for _, r := range []struct {
		field string
		got   decimal.NullDecimal
		want  string
	}{
		{"memory.total", got.MemoryTotalMiB, w.total}, {"memory.used", got.MemoryUsedMiB, w.used},
		{"power.draw", got.PowerDrawW, w.draw}, {"power.limit", got.PowerLimitW, w.limit},
		{"clocks.sm", got.ClockSMMHz, w.sm}, {"clocks.max.sm", got.ClockMaxSMMHz, w.maxSM},
		{"utilization.gpu", got.UtilizationGPUPct, w.util}, {"temperature.gpu", got.TemperatureC, w.temp},
	} {
		if !sameReading(r.got, nd(r.want)) {
			t.Errorf("sample %d gpu %d %s = %v (valid %v), want %q", got.Sample, got.GPU, r.field, r.got.Decimal, r.got.Valid, r.want)
		}
	}
	if got.ThrottleKnown != w.known || !slices.Equal(got.ThrottleReasons, w.reasons) && (len(got.ThrottleReasons) > 0 || len(w.reasons) > 0) {
		t.Errorf("sample %d gpu %d throttle %v known %v, want %v known %v", got.Sample, got.GPU, got.ThrottleReasons, got.ThrottleKnown, w.reasons, w.known)
	}
}

func TestParseFixtures(t *testing.T) {
	cases := []struct {
		file    string
		format  Format
		samples int // Sample entries
		rounds  int // distinct sample numbers
		gpus    int // distinct GPU numbers
		driver  string
		spot    map[int]want // by position in Samples
	}{
		{file: "rtx4090_healthy.csv", format: FormatCSV, samples: 7, rounds: 7, gpus: 1, spot: map[int]want{
			0: {0, 0, "NVIDIA GeForce RTX 4090", "24564", "2", "17.84", "450", "210", "3105", "0", "34", []string{"gpu_idle"}, true},
			5: {5, 0, "NVIDIA GeForce RTX 4090", "24564", "21871", "449.32", "450", "2685", "3105", "99", "69", []string{"sw_power_cap"}, true},
		}},
		{file: "rtx3090_throttled.csv", format: FormatCSVNoHeader, samples: 5, rounds: 5, gpus: 1, spot: map[int]want{
			1: {1, 0, "NVIDIA GeForce RTX 3090", "24576", "22870", "40.21", "350", "420", "2100", "100", "47", []string{"hw_slowdown", "hw_power_brake_slowdown"}, true},
		}},
		{file: "a100_80gb_noheader_units.csv", format: FormatCSVNoHeader, samples: 4, rounds: 1, gpus: 4, spot: map[int]want{
			3: {0, 3, "NVIDIA A100-SXM4-80GB", "81920", "4", "62.41", "400", "210", "1410", "0", "31", []string{"gpu_idle"}, true},
		}},
		{file: "idle_noise_oversell.csv", format: FormatCSV, samples: 8, rounds: 8, gpus: 1, spot: map[int]want{
			3: {3, 0, "NVIDIA GeForce RTX 4090", "24564", "0", "241.66", "450", "2655", "3105", "64", "54", []string{}, true},
		}},
		{file: "zh_locale_crlf_bom.csv", format: FormatCSV, samples: 2, rounds: 1, gpus: 2, spot: map[int]want{
			0: {0, 0, "NVIDIA GeForce RTX 4090", "24564", "21871", "412.35", "450", "2745", "3105", "100", "64", []string{}, true},
			1: {0, 1, "NVIDIA GeForce RTX 4090", "24564", "21871", "438.90", "450", "2715", "3105", "99", "67", []string{}, true},
		}},
		{file: "h100_x2_query.txt", format: FormatQuery, samples: 2, rounds: 1, gpus: 2, driver: "525.125.06", spot: map[int]want{
			0: {0, 0, "NVIDIA H100 80GB HBM3", "81559", "0", "70.84", "700", "345", "1980", "0", "29", []string{"gpu_idle"}, true},
			1: {0, 1, "NVIDIA H100 80GB HBM3", "81559", "76898", "689.92", "700", "1755", "1980", "100", "63", []string{"sw_power_cap"}, true},
		}},
		{file: "h200_x4_query_loop.txt", format: FormatQuery, samples: 8, rounds: 2, gpus: 4, driver: "550.127.05", spot: map[int]want{
			1: {0, 1, "NVIDIA H200", "143771", "131022", "699.12", "700", "1755", "1980", "100", "59", []string{"sw_power_cap"}, true},
			6: {1, 2, "NVIDIA H200", "143771", "131022", "681.13", "700", "1845", "1980", "99", "62", []string{}, true},
		}},
		{file: "a100_vgpu_slice_query.txt", format: FormatQuery, samples: 1, rounds: 1, gpus: 1, driver: "550.90.07", spot: map[int]want{
			0: {0, 0, "NVIDIA A100DX-40C", "40960", "0", "", "", "1410", "1410", "0", "", nil, false},
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			r, err := Parse(fixture(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if r.Format != c.format {
				t.Errorf("format %s, want %s", r.Format, c.format)
			}
			if len(r.Samples) != c.samples {
				t.Fatalf("%d samples, want %d", len(r.Samples), c.samples)
			}
			rounds, gpus := map[int]bool{}, map[int]bool{}
			for _, s := range r.Samples {
				rounds[s.Sample], gpus[s.GPU] = true, true
			}
			if len(rounds) != c.rounds || len(gpus) != c.gpus {
				t.Errorf("%d sample numbers and %d GPUs, want %d and %d", len(rounds), len(gpus), c.rounds, c.gpus)
			}
			if r.DriverVersion != c.driver {
				t.Errorf("driver %q, want %q", r.DriverVersion, c.driver)
			}
			for i, w := range c.spot {
				checkSample(t, r.Samples[i], w)
			}
		})
	}
}

// TestParseUTF16 reads what Windows PowerShell's "nvidia-smi ... > out.csv"
// writes: UTF-16LE with a byte-order mark and CRLF.
func TestParseUTF16(t *testing.T) {
	text := strings.ReplaceAll(fixture(t, "rtx4090_healthy.csv"), "\n", "\r\n")
	u := utf16.Encode([]rune(text))
	b := []byte{0xFF, 0xFE}
	for _, x := range u {
		b = append(b, byte(x), byte(x>>8))
	}
	r, err := Parse(string(b))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := Parse(fixture(t, "rtx4090_healthy.csv"))
	if len(r.Samples) != len(plain.Samples) || r.Samples[6].PowerDrawW.Decimal.String() != "447.85" {
		t.Errorf("UTF-16 input read as %+v", r.Samples)
	}
}

func TestParseVariants(t *testing.T) {
	row := "NVIDIA GeForce RTX 4090, 24564 MiB, 2 MiB, 17.84 W, 450.00 W, 210 MHz, 3105 MHz, 0 %, 34, 0x0000000000000001"
	nounits := "NVIDIA GeForce RTX 4090, 24564, 2, 17.84, 450.00, 210, 3105, 0, 34, 0x0000000000000001"
	header := "name, memory.total [MiB], memory.used [MiB], power.draw [W], power.limit [W], clocks.current.sm [MHz], clocks.max.sm [MHz], utilization.gpu [%], temperature.gpu, clocks_throttle_reasons.active"
	base := want{0, 0, "NVIDIA GeForce RTX 4090", "24564", "2", "17.84", "450", "210", "3105", "0", "34", []string{"gpu_idle"}, true}
	cases := []struct {
		name, text string
		format     Format
		n          int
		w          want // the first sample
		last       *want
	}{
		{"noheader", row, FormatCSVNoHeader, 1, base, nil},
		{"nounits", nounits, FormatCSVNoHeader, 1, base, nil},
		{"header, CRLF, BOM, trailing spaces", "\uFEFF" + header + "  \r\n" + row + "   \r\n", FormatCSV, 1, base, nil},
		{"old CR line ends", header + "\r" + row + "\r", FormatCSV, 1, base, nil},
		{"repeated header starts a sample", header + "\n" + row + "\n" + row + "\n" + header + "\n" + row + "\n" + row + "\n", FormatCSV, 4, base,
			&want{1, 1, "NVIDIA GeForce RTX 4090", "24564", "2", "17.84", "450", "210", "3105", "0", "34", []string{"gpu_idle"}, true}},
		{"N/A spellings", "name, memory.total [MiB], memory.used [MiB], power.draw [W], power.limit [W], clocks.sm [MHz], clocks.max.sm [MHz], utilization.gpu [%], temperature.gpu, clocks_throttle_reasons.active\n" +
			"NVIDIA GeForce RTX 4090, 24564 MiB, [N/A], [Not Supported], N/A, [Unknown Error], [Insufficient Permissions], Not Supported, , [N/A]",
			FormatCSV, 1, want{0, 0, "NVIDIA GeForce RTX 4090", "24564", "", "", "", "", "", "", "", nil, false}, nil},
		{"GiB and GHz", "name, memory.total, memory.used, power.draw, power.limit, clocks.sm, clocks.max.sm, utilization.gpu, temperature.gpu, clocks_throttle_reasons.active\n" +
			"NVIDIA GeForce RTX 4090, 24 GiB, 0.5 GiB, 17.84 W, 450 W, 0.21 GHz, 3.105 GHz, 0 %, 34 C, 0x1",
			FormatCSV, 1, want{0, 0, "NVIDIA GeForce RTX 4090", "24576", "512", "17.84", "450", "210", "3105", "0", "34", []string{"gpu_idle"}, true}, nil},
		{"columns in another order, extra columns, index", "index, pstate, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n" +
			"0, P2, NVIDIA A100-SXM4-80GB, 100 %, 70000 MiB, 81920 MiB\n1, P0, NVIDIA A100-SXM4-80GB, 98 %, 70010 MiB, 81920 MiB\n" +
			"0, P2, NVIDIA A100-SXM4-80GB, 97 %, 70000 MiB, 81920 MiB\n1, P0, NVIDIA A100-SXM4-80GB, 96 %, 70010 MiB, 81920 MiB\n",
			FormatCSV, 4, want{0, 0, "NVIDIA A100-SXM4-80GB", "81920", "70000", "", "", "", "", "100", "", nil, false},
			&want{1, 1, "NVIDIA A100-SXM4-80GB", "81920", "70010", "", "", "", "", "96", "", nil, false}},
		{"index from nvidia-smi -i 3", "index, name, memory.total [MiB]\n3, NVIDIA H200, 143771 MiB\n3, NVIDIA H200, 143771 MiB\n",
			FormatCSV, 2, want{0, 3, "NVIDIA H200", "143771", "", "", "", "", "", "", "", nil, false},
			&want{1, 3, "NVIDIA H200", "143771", "", "", "", "", "", "", "", nil, false}},
		{"bus id tells GPUs apart", "pci.bus_id, name, memory.total [MiB]\n00000000:18:00.0, NVIDIA H100 80GB HBM3, 81559 MiB\n00000000:2A:00.0, NVIDIA H100 80GB HBM3, 81559 MiB\n00000000:18:00.0, NVIDIA H100 80GB HBM3, 81559 MiB\n",
			FormatCSV, 3, want{0, 0, "NVIDIA H100 80GB HBM3", "81559", "", "", "", "", "", "", "", nil, false},
			&want{1, 0, "NVIDIA H100 80GB HBM3", "81559", "", "", "", "", "", "", "", nil, false}},
		{"timestamps group a loop's passes", "timestamp, name, memory.total [MiB]\n" +
			"2026/03/12 02:14:01.112, NVIDIA L40S, 46068 MiB\n2026/03/12 02:14:01.118, NVIDIA L40S, 46068 MiB\n" +
			"2026/03/12 02:14:02.120, NVIDIA L40S, 46068 MiB\n2026/03/12 02:14:02.125, NVIDIA L40S, 46068 MiB\n",
			FormatCSV, 4, want{0, 0, "NVIDIA L40S", "46068", "", "", "", "", "", "", "", nil, false},
			&want{1, 1, "NVIDIA L40S", "46068", "", "", "", "", "", "", "", nil, false}},
		{"newer drivers: clocks_event_reasons, power.draw.instant", "name, power.draw.instant [W], power.draw [W], clocks_event_reasons.active\nNVIDIA L4, 70.01 W, 72.30 W, 0x0000000000000004\n",
			FormatCSV, 1, want{0, 0, "NVIDIA L4", "", "", "72.30", "", "", "", "", "", []string{"sw_power_cap"}, true}, nil},
		{"unnamed bits are kept", "name, clocks_throttle_reasons.active\nNVIDIA L4, 0x0000000000000A04\n",
			FormatCSV, 1, want{0, 0, "NVIDIA L4", "", "", "", "", "", "", "", "", []string{"sw_power_cap", "unknown_0x200", "unknown_0x800"}, true}, nil},
		{"a lone dot is a decimal point; 1.234,5 is grouped", "name, memory.total [MiB], power.draw [W]\nNVIDIA H200, 143.771 MiB, 1.234,5 W\n",
			FormatCSV, 1, want{0, 0, "NVIDIA H200", "143.771", "", "1234.5", "", "", "", "", "", nil, false}, nil},
		{"full-width digits", "name, memory.total [MiB], utilization.gpu [%]\nNVIDIA H200, １４３７７１ MiB, ９９ ％\n",
			FormatCSV, 1, want{0, 0, "NVIDIA H200", "143771", "", "", "", "", "", "99", "", nil, false}, nil},
		{"bare commas", "NVIDIA GeForce RTX 4090,24564,2,17.84,450.00,210,3105,0,34,0x0000000000000001", FormatCSVNoHeader, 1, base, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Parse(c.text)
			if err != nil {
				t.Fatal(err)
			}
			if r.Format != c.format || len(r.Samples) != c.n {
				t.Fatalf("format %s with %d samples, want %s with %d", r.Format, len(r.Samples), c.format, c.n)
			}
			checkSample(t, r.Samples[0], c.w)
			if c.last != nil {
				checkSample(t, r.Samples[len(r.Samples)-1], *c.last)
			}
		})
	}
}

// TestParseSampleNumbering covers rows that nothing tells apart: a few
// are one snapshot of several GPUs, many are a loop over one GPU.
func TestParseSampleNumbering(t *testing.T) {
	row := "NVIDIA GeForce RTX 4090, 24564, 2, 17.84, 450.00, 210, 3105, 0, 34, 0x1\n"
	r, err := Parse(strings.Repeat(row, 8))
	if err != nil {
		t.Fatal(err)
	}
	if last := r.Samples[7]; last.Sample != 0 || last.GPU != 7 {
		t.Errorf("8 rows: last is sample %d GPU %d, want a snapshot of 8 GPUs", last.Sample, last.GPU)
	}
	r, err = Parse(strings.Repeat(row, 30))
	if err != nil {
		t.Fatal(err)
	}
	if last := r.Samples[29]; last.Sample != 29 || last.GPU != 0 {
		t.Errorf("30 rows: last is sample %d GPU %d, want sample 29 of GPU 0", last.Sample, last.GPU)
	}
	// Blank lines separate samples of a two-GPU machine.
	r, err = Parse(row + row + "\n" + row + row + "\n\n" + row + row)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, s := range r.Samples {
		got = append(got, s.Sample*10+s.GPU)
	}
	if !slices.Equal(got, []int{0, 1, 10, 11, 20, 21}) {
		t.Errorf("sample*10+gpu = %v", got)
	}
}

func TestParseErrors(t *testing.T) {
	header := "name, memory.total [MiB], power.draw [W]"
	cases := []struct {
		name, text string
		line       int
		id         string
		args       map[string]string
	}{
		{"empty", "", 0, "verify.parse.empty", nil},
		{"blank", " \r\n\t\n", 0, "verify.parse.empty", nil},
		{"BOM only", "\uFEFF", 0, "verify.parse.empty", nil},
		{"too large", strings.Repeat("x", MaxInputBytes+1), 0, "verify.parse.too_large", map[string]string{"MaxKiB": "1024"}},
		{"prose", "hello\nworld", 1, "verify.parse.unknown_format", nil},
		{"prose after blank lines", "\n\n  hello", 3, "verify.parse.unknown_format", nil},
		{"summary table", fixture(t, "rtx4090_summary_table.txt"), 0, "verify.parse.summary_table", nil},
		{"binary", "name, memory.total\n\xff\xfe\x00x", 2, "verify.parse.not_text", nil},
		{"NUL", "name, memory.total [MiB]\nNVIDIA A10\x00, 1 MiB", 2, "verify.parse.not_text", nil},
		{"noheader column count", "NVIDIA GeForce RTX 4090, 24564 MiB, 2 MiB", 1, "verify.parse.columns_noheader", map[string]string{"Got": "3"}},
		{"row longer than header", header + "\nNVIDIA H200, 143771 MiB, 700 W, extra", 2, "verify.parse.columns", map[string]string{"Got": "4", "Want": "3"}},
		{"garbage number", header + "\nNVIDIA H200, lots MiB, 700 W", 2, "verify.parse.bad_value", map[string]string{"Field": "memory.total", "Value": "lots MiB"}},
		{"wrong unit", header + "\nNVIDIA H200, 143771 MiB, 700 MHz", 2, "verify.parse.bad_value", map[string]string{"Field": "power.draw", "Value": "700 MHz"}},
		{"negative", header + "\nNVIDIA H200, -1 MiB, 700 W", 2, "verify.parse.bad_value", map[string]string{"Field": "memory.total"}},
		{"exponent", header + "\nNVIDIA H200, 1e9 MiB, 700 W", 2, "verify.parse.bad_value", nil},
		{"bad grouping", header + "\nNVIDIA H200, 1,43,771 MiB, 700 W", 2, "verify.parse.bad_value", nil},
		{"two decimal points", header + "\nNVIDIA H200, 143771 MiB, 7.0.0 W", 2, "verify.parse.bad_value", nil},
		{"bad bitmask", "name, clocks_throttle_reasons.active\nNVIDIA L4, Active", 2, "verify.parse.bad_value", map[string]string{"Field": "clocks_throttle_reasons.active"}},
		{"bitmask too long", "name, clocks_throttle_reasons.active\nNVIDIA L4, 0x00000000000000000004", 2, "verify.parse.bad_value", nil},
		{"bad index", "index, name\n-1, NVIDIA L4", 2, "verify.parse.bad_value", map[string]string{"Field": "index"}},
		{"long value is cut in the message", header + "\nNVIDIA H200, " + strings.Repeat("9x", 100) + ", 700 W", 2, "verify.parse.bad_value", nil},
		{"header only", header + "\n\n", 0, "verify.parse.no_gpu", nil},
		{"query without GPU blocks", "==============NVSMI LOG==============\n\nTimestamp : now\nDriver Version : 550.1\n", 0, "verify.parse.no_gpu", nil},
		{"query bad reading", "GPU 00000000:18:00.0\n    Product Name : NVIDIA H100 80GB HBM3\n    FB Memory Usage\n        Total : eighty MiB\n", 4, "verify.parse.bad_value", map[string]string{"Field": "Total", "Value": "eighty MiB"}},
		{"too many samples", "name, utilization.gpu\n" + strings.Repeat("NVIDIA L4, 1\n", MaxSamples+1), MaxSamples + 2, "verify.parse.too_many_samples", map[string]string{"Max": "20000"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Parse(c.text)
			pe, ok := err.(*ParseError)
			if !ok {
				t.Fatalf("err = %v (%T), report %+v; want a *ParseError", err, err, r)
			}
			if pe.Line != c.line || pe.MessageID != c.id {
				t.Errorf("line %d %s, want line %d %s (%v)", pe.Line, pe.MessageID, c.line, c.id, pe)
			}
			for k, v := range c.args {
				if pe.Args[k] != v {
					t.Errorf("arg %s = %v, want %q", k, pe.Args[k], v)
				}
			}
			if c.line > 0 && pe.Args["Line"] != itoa(c.line) {
				t.Errorf("Line arg %v", pe.Args["Line"])
			}
			if v, ok := pe.Args["Value"].(string); ok && len([]rune(v)) > maxValueEcho+1 {
				t.Errorf("value echoed at length %d", len([]rune(v)))
			}
			if len(r.Samples) != 0 {
				t.Errorf("samples returned with an error")
			}
			if !strings.Contains(pe.Error(), c.id) {
				t.Errorf("Error() = %q", pe.Error())
			}
		})
	}
}

// TestParseQuerySections: only the card's own sections count, not a MIG
// device's memory or the memory's power readings.
func TestParseQuerySections(t *testing.T) {
	text := `GPU 00000000:18:00.0
    Product Name                          : NVIDIA A100-SXM4-80GB
    vGPU Software Licensed Product
        Product Name                      : NVIDIA Virtual Compute Server
    Clocks Throttle Reasons
        Idle                              : Not Active
        SW Thermal Slowdown               : Active
        Some Future Reason                : Active
    FB Memory Usage
        Total                             : 81920 MiB
        Used                              : 10 MiB
    MIG Devices
        Device 0
            FB Memory Usage
                Total                     : 9984 MiB
                Used                      : 5000 MiB
    GPU Power Readings
        Power Draw                        : N/A
        Instantaneous Power Draw          : 90.00 W
        Average Power Draw                : 88.50 W
        Current Power Limit               : 400.00 W
    GPU Memory Power Readings
        Power Draw                        : 30.00 W
    Clocks
	SM                                    : 1410 MHz
`
	r, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	checkSample(t, r.Samples[0], want{0, 0, "NVIDIA A100-SXM4-80GB", "81920", "10", "88.50", "400", "1410", "", "", "",
		[]string{"sw_thermal_slowdown", "some_future_reason"}, true})
}
