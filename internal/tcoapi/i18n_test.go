package tcoapi

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gpuquote/internal/catalog"
	"gpuquote/internal/tco"
)

var (
	tomlEntry   = regexp.MustCompile(`^"([a-z0-9_.]+)"\s*=\s*"((?:[^"\\]|\\.)*)"\s*$`)
	placeholder = regexp.MustCompile(`\{\{\s*\.([A-Za-z]+)\s*\}\}`)
)

// readMessages parses one of the flat message files: comments, blank lines
// and `"id" = "text"` lines only, every ID once.
func readMessages(t *testing.T, name string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "i18n", "locales", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := tomlEntry.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("%s:%d: not a flat quoted entry: %s", name, n, line)
			continue
		}
		if _, dup := out[m[1]]; dup {
			t.Errorf("%s:%d: %s defined twice", name, n, m[1])
		}
		if strings.TrimSpace(m[2]) == "" {
			t.Errorf("%s:%d: %s is empty", name, n, m[1])
		}
		out[m[1]] = m[2]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func placeholders(s string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

// errorArgs is the template data each error code is created with.
var errorArgs = map[string][]string{
	tco.CodeInvalidJSON:         {"Offset"},
	tco.CodeBodyTooLarge:        {"Max"},
	tco.CodeTooDeep:             {"Max"},
	tco.CodeWrongType:           {"Expected"},
	tco.CodeTooManyDecimals:     {"Max"},
	tco.CodeTooLarge:            {"Max"},
	tco.CodeIntOutOfRange:       {"Max", "Min"},
	tco.CodeHoursOutOfRange:     {"Max"},
	tco.CodeOutOfRange:          {"Max", "Min"},
	tco.CodeTooLong:             {"Max"},
	tco.CodeTooMany:             {"Max"},
	tco.CodeUnknownCurrency:     {"Value"},
	tco.CodeUnknownItem:         {"Value"},
	tco.CodeDuplicateItem:       {"Item"},
	tco.CodeUnknownUnit:         {"Value"},
	tco.CodeUnitNotAllowed:      {"Allowed", "Item", "Unit"},
	tco.CodeUnknownStatus:       {"Value"},
	tco.CodeUnknownSharing:      {"Value"},
	tco.CodeUnknownGranularity:  {"Value"},
	tco.CodeUnknownBetweenRuns:  {"Value"},
	tco.CodeUnknownTask:         {"Value"},
	tco.CodeUnknownPrecision:    {"Value"},
	tco.CodePrecisionNotForTask: {"Precision", "Task"},
	tco.CodePriceOnFreeLine:     {"Status"},
	tco.CodeFXRateRequired:      {"From", "To"},
	tco.CodeDuplicateReference:  {"Item", "Unit"},
	tco.CodeUnknownSource:       {"Value"},
	tco.CodeAllowanceNotAllowed: {"Item"},
	tco.CodeCurrencyMismatch:    {"Own", "Quote"},
	tco.CodeUnknownBillItem:     {"Value"},
}

// TestMessageCatalogs checks that every message ID the packages refer to
// exists in both locale files, that both files hold the same IDs with the
// same template fields, and that error messages use only the data their
// code supplies.
func TestMessageCatalogs(t *testing.T) {
	zh := readMessages(t, "tco.zh-CN.toml")
	en := readMessages(t, "tco.en.toml")

	ids := catalog.MessageIDs()
	for _, code := range tco.ErrorCodes {
		ids = append(ids, tco.MessagePrefix+code)
	}
	for _, id := range ids {
		if _, ok := zh[id]; !ok {
			t.Errorf("zh-CN lacks %s", id)
		}
		if _, ok := en[id]; !ok {
			t.Errorf("en lacks %s", id)
		}
	}
	for id := range zh {
		if _, ok := en[id]; !ok {
			t.Errorf("%s is in zh-CN only", id)
		}
	}
	for id := range en {
		if _, ok := zh[id]; !ok {
			t.Errorf("%s is in en only", id)
		}
	}
	for id, zhText := range zh {
		pz, pe := placeholders(zhText), placeholders(en[id])
		if strings.Join(pz, ",") != strings.Join(pe, ",") {
			t.Errorf("%s: zh-CN uses %v, en uses %v", id, pz, pe)
		}
		if code, ok := strings.CutPrefix(id, tco.MessagePrefix); ok {
			allowed := map[string]bool{}
			for _, a := range errorArgs[code] {
				allowed[a] = true
			}
			for _, p := range pz {
				if !allowed[p] {
					t.Errorf("%s uses {{.%s}}, which the code does not supply", id, p)
				}
			}
		}
	}
	// Every error code documented with args above is a real code.
	known := map[string]bool{}
	for _, c := range tco.ErrorCodes {
		known[c] = true
	}
	for c := range errorArgs {
		if !known[c] {
			t.Errorf("errorArgs names unknown code %s", c)
		}
	}
	// The Chinese file is Chinese: most entries contain CJK.
	cjk := 0
	for _, s := range zh {
		for _, r := range s {
			if r >= 0x4e00 && r <= 0x9fff {
				cjk++
				break
			}
		}
	}
	if cjk < len(zh)*8/10 {
		t.Errorf("only %d of %d zh-CN entries contain Chinese", cjk, len(zh))
	}
}
