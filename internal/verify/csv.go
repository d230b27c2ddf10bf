package verify

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// field is what a CSV column fills in a Sample.
type field int

const (
	fIgnore field = iota
	fName
	fMemTotal
	fMemUsed
	fPowerDraw
	fPowerLimit
	fClockSM
	fClockMaxSM
	fUtil
	fTemp
	fThrottle
	fIndex
	fGPUID
	fDriver
	fTimestamp
)

// column is one known --query-gpu field; when two columns fill the same
// field, the lower rank wins (power.draw over power.draw.instant).
type column struct {
	f    field
	rank int
}

// csvFields are the --query-gpu field names Parse understands, as the
// header prints them (units stripped). nvidia-smi prints the canonical
// name of an alias (clocks.sm → clocks.current.sm) and newer drivers call
// throttle reasons "clocks_event_reasons"; both spellings are here.
// Other columns (timestamp, pstate, …) are allowed and ignored.
var csvFields = map[string]column{
	"name":                           {fName, 0},
	"gpu_name":                       {fName, 0},
	"memory.total":                   {fMemTotal, 0},
	"memory.used":                    {fMemUsed, 0},
	"power.draw":                     {fPowerDraw, 0},
	"power.draw.average":             {fPowerDraw, 1},
	"power.draw.instant":             {fPowerDraw, 2},
	"enforced.power.limit":           {fPowerLimit, 0},
	"power.limit":                    {fPowerLimit, 1},
	"clocks.sm":                      {fClockSM, 0},
	"clocks.current.sm":              {fClockSM, 0},
	"clocks.max.sm":                  {fClockMaxSM, 0},
	"utilization.gpu":                {fUtil, 0},
	"temperature.gpu":                {fTemp, 0},
	"clocks_throttle_reasons.active": {fThrottle, 0},
	"clocks_event_reasons.active":    {fThrottle, 0},
	"clocks_throttle_reasons":        {fThrottle, 1},
	"index":                          {fIndex, 0},
	"pci.bus_id":                     {fGPUID, 0},
	"gpu_bus_id":                     {fGPUID, 0},
	"uuid":                           {fGPUID, 1},
	"gpu_uuid":                       {fGPUID, 1},
	"serial":                         {fGPUID, 2},
	"driver_version":                 {fDriver, 0},
	"timestamp":                      {fTimestamp, 0},
}

// NoHeaderColumns are the readings of header-less CSV, in order: the
// query the trial page asks users to run, after its index column.
var NoHeaderColumns = []string{"name", "memory.total", "memory.used", "power.draw", "power.limit",
	"clocks.sm", "clocks.max.sm", "utilization.gpu", "temperature.gpu", "clocks_throttle_reasons.active"}

// NoHeaderOrders are the column orders header-less CSV may have
// (docs/RULES.md §9.3), the recommended one first: the readings after
// index or pci.bus_id, which tell the cards apart so that repeated rows
// of one card are samples of it, or the readings alone, where rows that
// nothing tells apart are settled by csvState.finish.
var NoHeaderOrders = [][]string{
	append([]string{"index"}, NoHeaderColumns...),
	append([]string{"pci.bus_id"}, NoHeaderColumns...),
	NoHeaderColumns,
}

// Query is the --query-gpu value of the recommended column order.
func Query() string { return strings.Join(NoHeaderOrders[0], ",") }

// NoHeaderOrderList names the accepted header-less column orders, each as
// --query-gpu takes it, for messages.
func NoHeaderOrderList() []string {
	out := make([]string, len(NoHeaderOrders))
	for i, o := range NoHeaderOrders {
		out[i] = strings.Join(o, ",")
	}
	return out
}

// noHeaderLayouts are the layouts of NoHeaderOrders.
var noHeaderLayouts = func() []layout {
	out := make([]layout, len(NoHeaderOrders))
	for i, o := range NoHeaderOrders {
		out[i] = newLayout(o)
	}
	return out
}()

// busID matches a PCI bus id as nvidia-smi prints it: 00000000:3B:00.0.
var busID = regexp.MustCompile(`^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]$`)

// noHeaderRow picks the order of NoHeaderOrders a header-less row is in:
// the first whose column count it has and whose first column, where it is
// index or pci.bus_id, holds one. got is the row's column count when none
// fits.
func noHeaderRow(t string) (lay layout, cells []string, got int) {
	for _, l := range noHeaderLayouts {
		c, n := splitRow(t, len(l.cols))
		if c == nil {
			got = n
			continue
		}
		switch l.cols[0] {
		case fIndex:
			if _, err := strconv.Atoi(c[0]); err != nil {
				continue
			}
		case fGPUID:
			if !busID.MatchString(c[0]) {
				continue
			}
		}
		return l, c, len(c)
	}
	return layout{}, nil, got
}

// isSeparator is a line a user puts between two captures pasted one after
// the other: a row of dashes, equals signs or stars ("---"), or a comment
// ("# idle", "# under load"). It ends a sample like a blank line.
func isSeparator(t string) bool {
	if strings.HasPrefix(t, "#") {
		return true
	}
	if len(t) < 3 {
		return false
	}
	for _, r := range t {
		if r != '-' && r != '=' && r != '*' && r != '_' && !isSpace(r) {
			return false
		}
	}
	return true
}

// layout is the meaning of each column of a CSV row.
type layout struct {
	names []string // the column names, for error messages
	cols  []field  // what each column fills (fIgnore for a losing alias)
	has   map[field]bool
}

// headerCell matches one header cell: a field name, optionally followed by
// its unit in brackets ("memory.total [MiB]").
var headerCell = regexp.MustCompile(`^([a-z][a-z0-9_.]*)(?:\s*\[[^\]]*\])?$`)

// headerNames returns the field names of a CSV header line, or nil when
// the line is not a header (it must name at least one known field).
func headerNames(t string) []string {
	t = strings.TrimSpace(t)
	if t == "" {
		return nil
	}
	cells := strings.Split(t, ",")
	names := make([]string, len(cells))
	known := false
	for i, c := range cells {
		m := headerCell.FindStringSubmatch(strings.ToLower(strings.TrimSpace(c)))
		if m == nil {
			return nil
		}
		names[i] = m[1]
		if _, ok := csvFields[m[1]]; ok {
			known = true
		}
	}
	if !known {
		return nil
	}
	return names
}

// isCSVHeader reports whether t is a --format=csv header line.
func isCSVHeader(t string) bool { return headerNames(t) != nil }

// newLayout maps column names to fields, keeping the best-ranked column
// of each field.
func newLayout(names []string) layout {
	l := layout{names: names, cols: make([]field, len(names)), has: map[field]bool{}}
	best := map[field]int{}
	at := map[field]int{}
	for i, n := range names {
		c, ok := csvFields[n]
		if !ok {
			continue
		}
		if r, seen := best[c.f]; seen && r <= c.rank {
			continue
		}
		if j, seen := at[c.f]; seen {
			l.cols[j] = fIgnore
		}
		best[c.f], at[c.f] = c.rank, i
		l.cols[i] = c.f
		l.has[c.f] = true
	}
	return l
}

// splitRow splits a CSV row into want cells. nvidia-smi separates cells
// with ", ", so a decimal comma inside a value ("350,00 W") is safe; a row
// without spaces after its commas is split on bare commas. got is the
// count found when it is not want.
func splitRow(t string, want int) (cells []string, got int) {
	a := strings.Split(t, ", ")
	if len(a) != want {
		b := strings.Split(t, ",")
		if len(b) != want {
			if strings.Contains(t, ", ") {
				return nil, len(a)
			}
			return nil, len(b)
		}
		a = b
	}
	for i := range a {
		a[i] = strings.TrimFunc(a[i], isSpace)
	}
	return a, want
}

// csvState tracks sample boundaries while reading rows.
type csvState struct {
	sampleCounter
	sample   int
	rows     int             // rows in the current sample
	seen     map[string]bool // GPU keys in the current sample
	gpus     map[int]bool    // GPU numbers in the current sample
	start    time.Time       // the timestamp of the current sample's first row
	pending  bool            // a blank or header line ended the current sample
	boundary bool            // something told samples apart: a GPU key, a timestamp, a separator
}

// sameIteration is how far apart two rows' timestamps may be and still
// belong to one pass of nvidia-smi's loop: one pass queries every GPU
// within milliseconds, and -l loops at least a second apart.
const sameIteration = 500 * time.Millisecond

// snapshotMaxGPUs is the most GPUs one machine shows (an HGX-2 has 16):
// more rows than that with nothing telling samples apart are a loop.
const snapshotMaxGPUs = 16

// rowID is what a row says about which GPU and which pass it belongs to.
type rowID struct {
	key   string    // index, bus id or uuid; "" when none was queried
	index int       // the index column, -1 without one
	at    time.Time // the timestamp column, zero without one
}

// next returns the sample and GPU numbers of a row. A row starts a new
// sample after a separator, when its GPU key or GPU number already
// occurred in the current one, or when its timestamp moved on.
func (st *csvState) next(id rowID) (sample, gpu int) {
	gpu = st.rows
	if id.index >= 0 {
		gpu = id.index
	}
	newSample := st.pending || st.gpus[gpu] || (id.key != "" && st.seen[id.key])
	if !id.at.IsZero() && !st.start.IsZero() {
		if d := id.at.Sub(st.start); d >= sameIteration || d <= -sameIteration {
			newSample = true
		}
	}
	if (st.pending && st.rows > 0) || id.key != "" || !id.at.IsZero() {
		st.boundary = true
	}
	if st.rows > 0 && newSample {
		st.sample++
		st.rows = 0
		st.seen = map[string]bool{}
		st.gpus = map[int]bool{}
		st.start = time.Time{}
		if id.index < 0 {
			gpu = 0
		}
	}
	st.pending = false
	if id.key != "" {
		st.seen[id.key] = true
	}
	if st.rows == 0 {
		st.start = id.at
	}
	st.gpus[gpu] = true
	st.rows++
	return st.sample, gpu
}

// finish settles rows that nothing told apart: up to snapshotMaxGPUs
// rows are one snapshot of that many GPUs (nvidia-smi lists each GPU
// once); more are a loop over what is taken to be one GPU, since a
// machine has no more GPUs than that. Adding index (or timestamp) to
// --query-gpu removes the guess.
func (st *csvState) finish() {
	if st.boundary || st.sample > 0 || len(st.samples) <= snapshotMaxGPUs {
		return
	}
	for i := range st.samples {
		st.samples[i].Sample, st.samples[i].GPU = i, 0
	}
}

// parseCSV reads --query-gpu output with or without its header. A sample
// ends at a blank line, at a repeated header, when a GPU named by an
// index, pci.bus_id or uuid column comes round again, or when the
// timestamp column moves on; rows nothing tells apart are settled by
// finish.
func parseCSV(lines []line) (Report, error) {
	r := Report{Format: FormatCSVNoHeader}
	var header *layout // the last header's layout; nil before any header
	st := &csvState{seen: map[string]bool{}, gpus: map[int]bool{}}
	first := true
	for _, ln := range lines {
		t := strings.TrimSpace(ln.text)
		if t == "" || isSeparator(t) {
			st.pending = true
			continue
		}
		if names := headerNames(t); names != nil {
			if first {
				r.Format = FormatCSV
			}
			first = false
			l := newLayout(names)
			header = &l
			st.pending = true
			continue
		}
		first = false
		var (
			lay   layout
			cells []string
			got   int
		)
		if header != nil {
			lay = *header
			if cells, got = splitRow(t, len(lay.cols)); cells == nil {
				return Report{}, parseErr(ln.n, "verify.parse.columns", "Got", strconv.Itoa(got), "Want", strconv.Itoa(len(lay.cols)),
					"Columns", strings.Join(lay.names, ", "))
			}
		} else if lay, cells, got = noHeaderRow(t); cells == nil {
			return Report{}, parseErr(ln.n, "verify.parse.columns_noheader", "Got", strconv.Itoa(got),
				"Orders", strings.Join(NoHeaderOrderList(), " | "))
		}
		s, id, err := readRow(ln.n, lay, cells, &r)
		if err != nil {
			if pe, ok := err.(*ParseError); ok && header == nil && pe.MessageID == "verify.parse.bad_value" {
				// Without a header the column order was a guess from the
				// count: a value out of place may be a column missing or
				// added, so the message names the accepted orders too.
				pe.MessageID = "verify.parse.bad_value_noheader"
				pe.Args["Orders"] = strings.Join(NoHeaderOrderList(), " | ")
			}
			return Report{}, err
		}
		s.Sample, s.GPU = st.next(id)
		if err := st.add(s, ln.n); err != nil {
			return Report{}, err
		}
	}
	if len(st.samples) == 0 {
		return Report{}, parseErr(0, "verify.parse.no_gpu")
	}
	st.finish()
	r.Samples = st.samples
	return r, nil
}

// maxNameLen bounds a GPU name; real ones are under 40 characters.
const maxNameLen = 100

// nvidia-smi's timestamp column, e.g. "2026/03/10 09:12:45.123".
const timestampLayout = "2006/01/02 15:04:05.000"

// readRow fills a Sample from one row's cells, and says which GPU and
// pass the row belongs to when an index, bus id or timestamp column does.
func readRow(n int, lay layout, cells []string, r *Report) (s Sample, id rowID, err error) {
	id.index = -1
	bad := func(i int) error {
		return parseErr(n, "verify.parse.bad_value", "Field", lay.names[i], "Value", echo(cells[i]))
	}
	var ids [2]string
	for i, f := range lay.cols {
		v := cells[i]
		var ok bool
		switch f {
		case fName:
			if !notAvailable(v) {
				if utf8.RuneCountInString(v) > maxNameLen {
					return s, rowID{}, bad(i)
				}
				s.Name = v
			}
			ok = true
		case fMemTotal:
			s.MemoryTotalMiB, ok = parseReading(v, unitMiB)
		case fMemUsed:
			s.MemoryUsedMiB, ok = parseReading(v, unitMiB)
		case fPowerDraw:
			s.PowerDrawW, ok = parseReading(v, unitWatt)
		case fPowerLimit:
			s.PowerLimitW, ok = parseReading(v, unitWatt)
		case fClockSM:
			s.ClockSMMHz, ok = parseReading(v, unitMHz)
		case fClockMaxSM:
			s.ClockMaxSMMHz, ok = parseReading(v, unitMHz)
		case fUtil:
			s.UtilizationGPUPct, ok = parseReading(v, unitPercent)
		case fTemp:
			s.TemperatureC, ok = parseReading(v, unitCelsius)
		case fThrottle:
			s.ThrottleReasons, s.ThrottleKnown, ok = parseThrottleMask(v)
		case fIndex:
			if notAvailable(v) {
				ok = true
				break
			}
			x, aerr := strconv.Atoi(v)
			ok = aerr == nil && x >= 0 && x < 1024
			if ok {
				id.index = x
				ids[0] = "index:" + strconv.Itoa(x)
			}
		case fGPUID:
			ok = true
			if !notAvailable(v) {
				ids[1] = "id:" + strings.ToLower(v)
			}
		case fTimestamp:
			// An unreadable timestamp only loses the hint it gives.
			ok = true
			if t, terr := time.Parse(timestampLayout, v); terr == nil {
				id.at = t
			}
		case fDriver:
			ok = true
			if !notAvailable(v) && r.DriverVersion == "" && len(v) <= 40 {
				r.DriverVersion = v
			}
		default:
			ok = true
		}
		if !ok {
			return s, rowID{}, bad(i)
		}
	}
	for _, k := range ids {
		if k != "" {
			id.key = k
			break
		}
	}
	return s, id, nil
}
