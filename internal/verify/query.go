package verify

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// gpuHeaderRE is the line that opens one GPU's block in nvidia-smi -q:
// "GPU " and the PCI bus id ("00000000:18:00.0"; older drivers "0000:18:00.0").
var gpuHeaderRE = regexp.MustCompile(`^GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]$`)

// gpuBlockHeader reports whether a line opens a GPU block.
func gpuBlockHeader(text string) bool { return gpuHeaderRE.MatchString(strings.TrimSpace(text)) }

// indentOf measures a line's indentation, tabs stopping every eight columns.
func indentOf(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r == '\t':
			n = (n/8 + 1) * 8
		case isSpace(r):
			n++
		default:
			return n
		}
	}
	return n
}

// frame is an open section of the report ("FB Memory Usage").
type frame struct {
	indent int
	name   string
}

// queryGPU collects one GPU block; ranks remember which alias filled a
// field, so "Power Draw" wins over "Instantaneous Power Draw".
type queryGPU struct {
	s     Sample
	ranks map[field]int
}

// parseQuery reads nvidia-smi -q. Each "GPU <bus id>" block is one GPU;
// a repeated report banner (nvidia-smi -q -l) or a bus id seen again
// starts the next sample. Sections are tracked by indentation, so only
// the card's own figures count: "FB Memory Usage" of the GPU, not of a
// MIG device inside it; "Power Draw" of "GPU Power Readings", not of
// "GPU Memory Power Readings".
func parseQuery(lines []line) (Report, error) {
	r := Report{Format: FormatQuery}
	var (
		counter   sampleCounter
		cur       *queryGPU
		curLine   int
		gpuIndent int
		stack     []frame
		sample    int
		pos       int
		seenBus   = map[string]bool{}
	)
	flush := func() error {
		if cur == nil {
			return nil
		}
		sort.SliceStable(cur.s.ThrottleReasons, func(i, j int) bool {
			return reasonRank(cur.s.ThrottleReasons[i]) < reasonRank(cur.s.ThrottleReasons[j])
		})
		err := counter.add(cur.s, curLine)
		cur = nil
		return err
	}
	nextSample := func() {
		if pos > 0 {
			sample++
		}
		pos = 0
		seenBus = map[string]bool{}
	}
	for _, ln := range lines {
		t := strings.TrimSpace(ln.text)
		if t == "" {
			continue
		}
		indent := indentOf(ln.text)
		if isQueryBanner(t) {
			if err := flush(); err != nil {
				return Report{}, err
			}
			nextSample()
			continue
		}
		if gpuHeaderRE.MatchString(t) {
			if err := flush(); err != nil {
				return Report{}, err
			}
			bus := strings.ToLower(t[len("GPU "):])
			if seenBus[bus] {
				nextSample()
			}
			seenBus[bus] = true
			cur = &queryGPU{s: Sample{Sample: sample, GPU: pos}, ranks: map[field]int{}}
			curLine, gpuIndent, stack = ln.n, indent, nil
			pos++
			continue
		}
		key, val, isKV := strings.Cut(t, ":")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if cur != nil && indent <= gpuIndent {
			// Back at the top level: the block is over.
			if err := flush(); err != nil {
				return Report{}, err
			}
		}
		if cur == nil {
			if isKV {
				preamble(&r, key, val)
			}
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		if !isKV || val == "" {
			stack = append(stack, frame{indent: indent, name: strings.ToLower(key)})
			continue
		}
		if err := cur.assign(ln.n, stack, key, val); err != nil {
			return Report{}, err
		}
	}
	if err := flush(); err != nil {
		return Report{}, err
	}
	if len(counter.samples) == 0 {
		return Report{}, parseErr(0, "verify.parse.no_gpu")
	}
	r.Samples = counter.samples
	return r, nil
}

// preamble reads the report's header lines before the first GPU block.
func preamble(r *Report, key, val string) {
	if notAvailable(val) || len(val) > 40 {
		return
	}
	switch strings.ToLower(key) {
	case "driver version":
		if r.DriverVersion == "" {
			r.DriverVersion = val
		}
	case "cuda version":
		if r.CUDAVersion == "" {
			r.CUDAVersion = val
		}
	}
}

// queryReading says which field a (section, key) pair of the report fills,
// the reading's unit and the alias rank.
type queryReading struct {
	f    field
	u    unit
	rank int
}

// queryReadings maps "section|key" (lower case; the section empty for a
// line directly under the GPU) to the field it fills. "Power Readings" is
// the section's name before driver 530, "GPU Power Readings" after; the
// current limit is "Current Power Limit" now, "Enforced Power Limit" or
// "Power Limit" before.
var queryReadings = map[string]queryReading{
	"fb memory usage|total":                       {fMemTotal, unitMiB, 0},
	"fb memory usage|used":                        {fMemUsed, unitMiB, 0},
	"gpu power readings|power draw":               {fPowerDraw, unitWatt, 0},
	"gpu power readings|average power draw":       {fPowerDraw, unitWatt, 1},
	"gpu power readings|instantaneous power draw": {fPowerDraw, unitWatt, 2},
	"gpu power readings|current power limit":      {fPowerLimit, unitWatt, 0},
	"gpu power readings|enforced power limit":     {fPowerLimit, unitWatt, 1},
	"gpu power readings|power limit":              {fPowerLimit, unitWatt, 2},
	"power readings|power draw":                   {fPowerDraw, unitWatt, 0},
	"power readings|average power draw":           {fPowerDraw, unitWatt, 1},
	"power readings|instantaneous power draw":     {fPowerDraw, unitWatt, 2},
	"power readings|current power limit":          {fPowerLimit, unitWatt, 0},
	"power readings|enforced power limit":         {fPowerLimit, unitWatt, 1},
	"power readings|power limit":                  {fPowerLimit, unitWatt, 2},
	"clocks|sm":                                   {fClockSM, unitMHz, 0},
	"max clocks|sm":                               {fClockMaxSM, unitMHz, 0},
	"utilization|gpu":                             {fUtil, unitPercent, 0},
	"temperature|gpu current temp":                {fTemp, unitCelsius, 0},
}

// assign stores one "Key : Value" line of a GPU block.
func (g *queryGPU) assign(n int, stack []frame, key, val string) error {
	lkey := strings.ToLower(key)
	section := ""
	switch len(stack) {
	case 0:
		if lkey == "product name" {
			if notAvailable(val) {
				return nil
			}
			if utf8.RuneCountInString(val) > maxNameLen {
				return parseErr(n, "verify.parse.bad_value", "Field", key, "Value", echo(val))
			}
			g.s.Name = val
		}
		return nil
	case 1:
		section = stack[0].name
	default:
		return nil // deeper sections (MIG devices, ECC details) are not the card's figures
	}
	if section == "clocks event reasons" || section == "clocks throttle reasons" {
		g.reason(lkey, val)
		return nil
	}
	q, ok := queryReadings[section+"|"+lkey]
	if !ok {
		return nil
	}
	if r, seen := g.ranks[q.f]; seen && r <= q.rank {
		return nil
	}
	d, ok := parseReading(val, q.u)
	if !ok {
		return parseErr(n, "verify.parse.bad_value", "Field", key, "Value", echo(val))
	}
	if !d.Valid {
		// N/A under one name must not hide a reading under another
		// ("Power Draw : N/A" beside "Instantaneous Power Draw : 72 W").
		return nil
	}
	g.ranks[q.f] = q.rank
	switch q.f {
	case fMemTotal:
		g.s.MemoryTotalMiB = d
	case fMemUsed:
		g.s.MemoryUsedMiB = d
	case fPowerDraw:
		g.s.PowerDrawW = d
	case fPowerLimit:
		g.s.PowerLimitW = d
	case fClockSM:
		g.s.ClockSMMHz = d
	case fClockMaxSM:
		g.s.ClockMaxSMMHz = d
	case fUtil:
		g.s.UtilizationGPUPct = d
	case fTemp:
		g.s.TemperatureC = d
	}
	return nil
}

// reason records one line of "Clocks Event Reasons": "Active" or "Not
// Active"; N/A leaves the reasons unknown. A reason the table does not
// name is kept under a name made from its words.
func (g *queryGPU) reason(lkey, val string) {
	var active bool
	switch strings.ToLower(val) {
	case "active":
		active = true
	case "not active":
	default:
		return
	}
	g.s.ThrottleKnown = true
	if g.s.ThrottleReasons == nil {
		g.s.ThrottleReasons = []string{}
	}
	if !active {
		return
	}
	name, ok := queryReasonNames[lkey]
	if !ok {
		name = slug(lkey)
	}
	for _, x := range g.s.ThrottleReasons {
		if x == name {
			return
		}
	}
	g.s.ThrottleReasons = append(g.s.ThrottleReasons, name)
}

// slug turns words into a lower-case name with underscores, at most 40 bytes.
func slug(s string) string {
	var b strings.Builder
	us := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			us = false
		} else if !us && b.Len() > 0 {
			b.WriteByte('_')
			us = true
		}
		if b.Len() >= 40 {
			break
		}
	}
	out := strings.TrimSuffix(b.String(), "_")
	if out == "" {
		return "other"
	}
	return out
}
