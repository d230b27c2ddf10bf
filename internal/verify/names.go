package verify

import (
	"regexp"
	"slices"
	"strings"
)

// modelName is a GPU name broken into what identifies the card.
type modelName struct {
	core       []string // the model proper: "rtx", "4090", "d"
	memoryGB   string   // "80" when the name states a size, else ""
	formFactor string   // "sxm" or "pcie" when the name states one, else ""
}

var (
	// memoryToken is a stated memory size: "80gb", "80g", "141gb".
	memoryToken = regexp.MustCompile(`^([0-9]{1,4})g(?:b|ib)?$`)
	// splitToken separates letters from digits: "a100" → "a", "100"; "4090d" → "4090", "d".
	splitToken = regexp.MustCompile(`[a-z]+|[0-9]+`)
)

// noiseTokens are brand and marketing words that do not change which card
// it is: nvidia-smi says "NVIDIA GeForce RTX 4090" where a catalog says
// "RTX 4090", "Tesla V100-SXM2-32GB" where it says "V100 32GB", and the
// memory type ("HBM3") never tells two models apart.
var noiseTokens = map[string]bool{
	"nvidia": true, "geforce": true, "tesla": true, "quadro": true, "gpu": true,
	"tensor": true, "core": true, "generation": true,
	"hbm": true, "hbm2": true, "hbm2e": true, "hbm3": true, "hbm3e": true,
	"gddr6": true, "gddr6x": true, "gddr7": true,
}

// parseModelName normalises a GPU name: lower case, punctuation to
// spaces, noise dropped, memory size and form factor set aside, letters
// split from digits.
func parseModelName(s string) modelName {
	s = strings.ToLower(s)
	s = strings.ReplaceAll(s, "pci-e", "pcie")
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return ' '
	}, s)
	var m modelName
	toks := strings.Fields(s)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		// "80 GB" written apart is a memory size too.
		if i+1 < len(toks) && (toks[i+1] == "gb" || toks[i+1] == "gib" || toks[i+1] == "g") && isDigits(t) {
			t += "gb"
			i++
		}
		switch {
		case noiseTokens[t]:
		case memoryToken.MatchString(t):
			m.memoryGB = strings.TrimLeft(memoryToken.FindStringSubmatch(t)[1], "0")
		case strings.HasPrefix(t, "sxm"):
			m.formFactor = "sxm"
		case t == "pcie" || t == "pci":
			m.formFactor = "pcie"
		default:
			m.core = append(m.core, splitToken.FindAllString(t, -1)...)
		}
	}
	return m
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// SameModel reports whether the name nvidia-smi printed is the model that
// was ordered (docs/RULES.md §9.1, check 1). The model words must be the same
// ("NVIDIA GeForce RTX 4090" is a "RTX 4090"; "RTX 4090 D", "RTX 4090
// Laptop GPU" and "RTX 3090" are not); a memory size or form factor stated
// by both names must agree ("A100-SXM4-40GB" is not an "A100 80GB"), and
// one stated by only one name is not held against it (nvidia-smi calls an
// H100 SXM "NVIDIA H100 80GB HBM3").
func SameModel(reported, ordered string) bool {
	a, b := parseModelName(reported), parseModelName(ordered)
	if len(a.core) == 0 || !slices.Equal(a.core, b.core) {
		return false
	}
	if a.memoryGB != "" && b.memoryGB != "" && a.memoryGB != b.memoryGB {
		return false
	}
	if a.formFactor != "" && b.formFactor != "" && a.formFactor != b.formFactor {
		return false
	}
	return true
}
