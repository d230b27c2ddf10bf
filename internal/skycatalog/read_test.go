package skycatalog_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gpuquote/internal/quote"
	"gpuquote/internal/skycatalog"
)

// fixture reads a real catalog file kept in testdata (README.md there
// names where each comes from).
func fixture(t *testing.T, cloud string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "skypilot", cloud, "vms.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func read(t *testing.T, b []byte) skycatalog.Catalog {
	t.Helper()
	c, p := skycatalog.Read(bytes.NewReader(b))
	if p.Any() {
		t.Fatalf("problems: %+v", p)
	}
	return c
}

func offer(t *testing.T, c skycatalog.Catalog, instanceType string) skycatalog.Offer {
	t.Helper()
	var found []skycatalog.Offer
	for _, o := range c.Offers {
		if o.InstanceType == instanceType {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d offers of %s, want 1", len(found), instanceType)
	}
	return found[0]
}

func dec(d interface{ String() string }) string { return d.String() }

// lambdaRegions are the 17 regions of every instance type in the Lambda
// file, sorted.
var lambdaRegions = []string{"asia-northeast-1", "asia-northeast-2", "asia-south-1", "australia-east-1", "europe-central-1",
	"europe-south-1", "me-west-1", "us-east-1", "us-east-2", "us-east-3", "us-midwest-1", "us-south-1", "us-south-2",
	"us-south-3", "us-west-1", "us-west-2", "us-west-3"}

func TestReadLambdaCatalog(t *testing.T) {
	c := read(t, fixture(t, "lambda"))
	// 19 instance types × 17 regions; the first is CPU only.
	if c.Rows != 323 || c.NoGPURows != 17 || c.GPURows != 306 || c.FractionalRows != 0 {
		t.Fatalf("rows %d, no GPU %d, GPU %d, fractional %d; want 323, 17, 306, 0", c.Rows, c.NoGPURows, c.GPURows, c.FractionalRows)
	}
	if len(c.Offers) != 18 || c.Folded() != 288 {
		t.Fatalf("%d offers, %d folded; want 18 and 288", len(c.Offers), c.Folded())
	}
	for _, o := range c.Offers {
		if o.Rows != 17 || !slices.Equal(o.Regions, lambdaRegions) {
			t.Errorf("%s folds %d rows in regions %v; want 17 in every region", o.InstanceType, o.Rows, o.Regions)
		}
		if o.SpotHourly.Valid {
			t.Errorf("%s has a spot price %s; the file gives none", o.InstanceType, o.SpotHourly.Decimal)
		}
	}
	v100 := offer(t, c, "gpu_8x_v100")
	if v100.GPUName != "V100" || v100.GPUCount != 8 || *v100.VCPUs != 92 || dec(v100.MemoryGiB.Decimal) != "448" ||
		dec(v100.Hourly) != "4.4" || dec(v100.VRAMGiB.Decimal) != "16" {
		t.Errorf("gpu_8x_v100 = %+v", v100)
	}
	// GpuInfo's TotalGpuMemoryInMiB is one card's here; SizeInMiB is what
	// is read: 8 × A100 of 40 GiB, not 5 GiB each.
	if a100 := offer(t, c, "gpu_8x_a100"); dec(a100.VRAMGiB.Decimal) != "40" || dec(a100.Hourly) != "10.32" {
		t.Errorf("gpu_8x_a100: VRAM %s, hourly %s; want 40 and 10.32", a100.VRAMGiB.Decimal, a100.Hourly)
	}
	if gh := offer(t, c, "gpu_1x_gh200"); dec(gh.VRAMGiB.Decimal) != "96" || dec(gh.Hourly) != "1.49" {
		t.Errorf("gpu_1x_gh200: VRAM %s, hourly %s; want 96 and 1.49", gh.VRAMGiB.Decimal, gh.Hourly)
	}
	// Two instance types alike in every figure stay two offers.
	sxm, pcie := offer(t, c, "gpu_1x_a100_sxm4"), offer(t, c, "gpu_1x_a100")
	if !sxm.Hourly.Equal(pcie.Hourly) || sxm.GPUName != pcie.GPUName {
		t.Errorf("the two 1x A100 types differ: %+v, %+v", sxm, pcie)
	}
	want := "asia-northeast-1, asia-northeast-2, asia-south-1, australia-east-1, europe-central-1, … +12"
	if got := skycatalog.RegionText(v100.Regions); got != want {
		t.Errorf("region text %q, want %q", got, want)
	}
}

func TestReadRunPodCatalog(t *testing.T) {
	c := read(t, fixture(t, "runpod"))
	// 47 instance types × 25 availability zones in 8 regions; the extra
	// AvailabilityZone column is not read, so zones of one region fold.
	if c.Rows != 1175 || c.GPURows != 1175 || c.NoGPURows != 0 {
		t.Fatalf("rows %d, GPU %d, no GPU %d; want 1175, 1175, 0", c.Rows, c.GPURows, c.NoGPURows)
	}
	if len(c.Offers) != 47 || c.Folded() != 1128 {
		t.Fatalf("%d offers, %d folded; want 47 and 1128", len(c.Offers), c.Folded())
	}
	regions := []string{"CA", "CZ", "IS", "NL", "NO", "RO", "SE", "US"}
	for _, o := range c.Offers {
		if o.Rows != 25 || !slices.Equal(o.Regions, regions) {
			t.Errorf("%s folds %d rows in %v", o.InstanceType, o.Rows, o.Regions)
		}
		// RunPod's GpuInfo is the card's name: no memory stated.
		if o.VRAMGiB.Valid {
			t.Errorf("%s has VRAM %s from a GpuInfo that states none", o.InstanceType, o.VRAMGiB.Decimal)
		}
	}
	if got := skycatalog.RegionText(regions); got != "CA, CZ, IS, NL, NO, RO, SE, US" {
		t.Errorf("region text %q", got)
	}
	h100 := offer(t, c, "8x_H100-SXM_SECURE")
	if h100.GPUCount != 8 || *h100.VCPUs != 160 || dec(h100.MemoryGiB.Decimal) != "640" || dec(h100.Hourly) != "23.92" ||
		dec(h100.SpotHourly.Decimal) != "21.52" {
		t.Errorf("8x_H100-SXM_SECURE = %+v", h100)
	}
	if sxm := offer(t, c, "1x_A100-80GB-SXM_SECURE"); sxm.SpotHourly.Valid {
		t.Errorf("1x_A100-80GB-SXM_SECURE has spot %s; the file's SpotPrice is empty", sxm.SpotHourly.Decimal)
	}
	// The file says what it says, even a spot price above the price.
	if l40s := offer(t, c, "1x_L40S_SECURE"); dec(l40s.Hourly) != "0.43" || dec(l40s.SpotHourly.Decimal) != "0.86" {
		t.Errorf("1x_L40S_SECURE: hourly %s, spot %s; want 0.43 and 0.86", l40s.Hourly, l40s.SpotHourly.Decimal)
	}
}

// reorder returns the file with its data rows in reverse and its columns
// in reverse (the header too), the header's case changed.
func reorder(t *testing.T, b []byte) []byte {
	t.Helper()
	rows := readCSV(t, b)
	for i := range rows {
		slices.Reverse(rows[i])
	}
	for i := range rows[0] {
		rows[0][i] = strings.ToUpper(rows[0][i])
	}
	data := rows[1:]
	slices.Reverse(data)
	return writeCSV(t, append([][]string{rows[0]}, data...))
}

// TestReadIsDeterministic: the same offers whatever the order of rows and
// columns, and the header's case.
func TestReadIsDeterministic(t *testing.T) {
	for _, cloud := range []string{"lambda", "runpod"} {
		b := fixture(t, cloud)
		a, z := read(t, b), read(t, reorder(t, b))
		if !reflect.DeepEqual(a, z) {
			t.Errorf("%s: reordered file reads differently", cloud)
		}
		if again := read(t, b); !reflect.DeepEqual(a, again) {
			t.Errorf("%s: reading twice differs", cloud)
		}
	}
}

func problemIDs(p quote.CSVProblems) []string {
	var out []string
	for _, m := range p.File {
		out = append(out, m.ID)
	}
	return out
}

func TestReadRefusesAMissingColumn(t *testing.T) {
	rows := readCSV(t, fixture(t, "lambda"))
	i := slices.Index(rows[0], "Price")
	for j := range rows {
		rows[j] = slices.Delete(rows[j], i, i+1)
	}
	c, p := skycatalog.Read(bytes.NewReader(writeCSV(t, rows)))
	if len(c.Offers) != 0 || len(p.File) != 1 || p.File[0].ID != "import.error.missing_columns" {
		t.Fatalf("offers %d, problems %v", len(c.Offers), problemIDs(p))
	}
	if got := p.File[0].Args; !reflect.DeepEqual(got, []any{"Columns", "Price"}) {
		t.Errorf("args %v, want the column named", got)
	}
	// An optional column may be missing: no spot prices, no VRAM.
	rows = readCSV(t, fixture(t, "lambda"))
	for _, col := range []string{"SpotPrice", "GpuInfo"} {
		i := slices.Index(rows[0], col)
		for j := range rows {
			rows[j] = slices.Delete(rows[j], i, i+1)
		}
	}
	c = read(t, writeCSV(t, rows))
	if len(c.Offers) != 18 || c.Offers[0].VRAMGiB.Valid {
		t.Errorf("without GpuInfo: %d offers, VRAM %v", len(c.Offers), c.Offers[0].VRAMGiB)
	}
}

// setCell changes the cell of column col in data row n (1 is the first
// after the header).
func setCell(t *testing.T, b []byte, n int, col, v string) []byte {
	t.Helper()
	rows := readCSV(t, b)
	rows[n][slices.Index(rows[0], col)] = v
	return writeCSV(t, rows)
}

func TestReadRefusesBadRows(t *testing.T) {
	lambda := fixture(t, "lambda")
	// Data row 20 is the third gpu_8x_v100 row: file row 21.
	cases := []struct {
		col, value, id string
	}{
		{"Price", "4,4", "form.error.comma_decimal"},
		{"Price", "4.4.4", "form.error.number"},
		{"Price", "", "form.required"},
		{"Price", "4.1234567", "form.error.places.6"},
		{"Price", "1e3", "form.error.number"},
		{"SpotPrice", "-1", "form.error.negative"},
		{"AcceleratorCount", "eight", skycatalog.MsgCount},
		{"AcceleratorCount", "2048", "form.error.range"},
		{"vCPUs", "9.5", skycatalog.MsgWhole},
		{"InstanceType", "", "form.required"},
		{"Region", "", "form.required"},
		{"GpuInfo", "{'Gpus': [{'Name': 'V100'", skycatalog.MsgGpuInfo},
	}
	for _, tc := range cases {
		c, p := skycatalog.Read(bytes.NewReader(setCell(t, lambda, 20, tc.col, tc.value)))
		if len(c.Offers) != 0 {
			t.Errorf("%s=%q: %d offers kept from a refused file", tc.col, tc.value, len(c.Offers))
		}
		if p.BadRows != 1 || len(p.Rows) != 1 {
			t.Errorf("%s=%q: %d bad rows, %d problems; want one", tc.col, tc.value, p.BadRows, len(p.Rows))
			continue
		}
		if r := p.Rows[0]; r.Row != 21 || r.Column != tc.col || r.ID != tc.id {
			t.Errorf("%s=%q: problem %+v, want row 21, column %s, %s", tc.col, tc.value, r, tc.col, tc.id)
		}
	}
	// A row with too few fields is a problem of its own row.
	b := bytes.Replace(lambda, []byte("gpu_1x_a10,A10,1.0,30.0,200.0,0.75,europe-central-1,"), []byte("gpu_1x_a10,A10,"), 1)
	if _, p := skycatalog.Read(bytes.NewReader(b)); len(p.Rows) != 1 || p.Rows[0].ID != "import.error.field_count.other" {
		t.Errorf("short row: %+v", p)
	}
}

func TestReadSkipsRowsWithoutWholeGPUs(t *testing.T) {
	b := []byte("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n" +
		"cpu,,,4,16,0.2,r1,,\n" +
		"zero,T4,0,4,16,0.2,r1,,\n" +
		"quarter,MI25,0.25,8,28,0.4,r1,,\n" +
		"one,T4,1,4,16,0.5,r2,\"{'Gpus': [{'Name': 'T4', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 15360}}], 'TotalGpuMemoryInMiB': 15360}\",0.2\n" +
		"one,T4,1,4,16,0.5,r1,\"{'Gpus': [{'Name': 'T4', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 15360}}], 'TotalGpuMemoryInMiB': 15360}\",0.2\n" +
		"one,T4,1,4,16,0.55,r3,\"{'Gpus': [{'Name': 'T4', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 15360}}], 'TotalGpuMemoryInMiB': 15360}\",0.2\n")
	c := read(t, b)
	if c.Rows != 6 || c.NoGPURows != 2 || c.FractionalRows != 1 || c.GPURows != 3 || len(c.Offers) != 2 || c.Folded() != 1 {
		t.Fatalf("%+v", c)
	}
	// A price that differs by region is an offer of its own.
	if o := c.Offers[0]; dec(o.Hourly) != "0.5" || !slices.Equal(o.Regions, []string{"r1", "r2"}) || dec(o.VRAMGiB.Decimal) != "15" {
		t.Errorf("first offer %+v", o)
	}
	if o := c.Offers[1]; dec(o.Hourly) != "0.55" || !slices.Equal(o.Regions, []string{"r3"}) {
		t.Errorf("second offer %+v", o)
	}
}

func TestReadGpuInfoMemory(t *testing.T) {
	header := "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo\n"
	cases := []struct{ info, want string }{
		{"A100-80GB", ""}, // a bare name
		{"", ""},
		{"{'Gpus': [{'Name': 'A10G', 'Count': 4, 'MemoryInfo': {'SizeInMiB': 24576}}], 'TotalGpuMemoryInMiB': 98304}", "24"},
		// Without a card's size, the total shared by the count.
		{"{'Gpus': [{'Name': 'X', 'Count': 4}], 'TotalGpuMemoryInMiB': 98304}", "24"},
		// A size in MiB that is not a whole GiB: 2 places.
		{"{'Gpus': [{'Name': 'T4', 'MemoryInfo': {'SizeInMiB': 15360.0}}]}", "15"},
		{"{'Gpus': [{'Name': 'M60', 'MemoryInfo': {'SizeInMiB': 8129}}]}", "7.94"},
		// Gigabytes written where MiB belong: no card has 0.08 GiB.
		{"{'Gpus': [{'Name': 'A100 PCIe', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 80}}], 'TotalGpuMemoryInMiB': 80}", ""},
		// Cards of two sizes: no one figure.
		{"{'Gpus': [{'MemoryInfo': {'SizeInMiB': 16384}}, {'MemoryInfo': {'SizeInMiB': 32768}}]}", ""},
		{"{\"Gpus\": [{\"MemoryInfo\": {\"SizeInMiB\": 16384}}], \"Extra\": None, 'Flag': True}", "16"},
	}
	for _, tc := range cases {
		info := `"` + strings.ReplaceAll(tc.info, `"`, `""`) + `"`
		c := read(t, []byte(header+"x,A10G,4,4,16,1.5,r1,"+info+"\n"))
		got := ""
		if v := c.Offers[0].VRAMGiB; v.Valid {
			got = v.Decimal.String()
		}
		if got != tc.want {
			t.Errorf("GpuInfo %s: VRAM %q, want %q", tc.info, got, tc.want)
		}
	}
}

func TestReadFileProblems(t *testing.T) {
	cases := map[string]struct {
		file string
		id   string
	}{
		"empty":     {"", "import.error.empty"},
		"header":    {"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n", "import.error.empty"},
		"no GPU":    {"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\ncpu,,,4,16,0.2,r1\n", skycatalog.MsgNoGPURows},
		"twice":     {"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,price\n", "import.error.duplicate_columns"},
		"bad quote": {"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n\"x,T4,1,4,16,0.2,r1\n", "import.error.csv"},
	}
	for name, tc := range cases {
		_, p := skycatalog.Read(strings.NewReader(tc.file))
		if ids := problemIDs(p); len(ids) != 1 || ids[0] != tc.id {
			t.Errorf("%s: problems %v, want %s", name, ids, tc.id)
		}
	}
}
