package web

// DashboardView is the editors' dashboard.
type DashboardView struct {
	Page       Page
	Published  int
	Drafts     int
	StaleTotal int
	JumpTotal  int
	// Stale are current quotes past the re-check age, oldest first.
	Stale      []DashboardQuote
	StalePager Pager
	// Jumps are the newest current quotes that moved more than 30 %.
	Jumps []DashboardJump
}

// DashboardQuote is one quote of a dashboard list, already formatted.
type DashboardQuote struct {
	QuoteID    int64
	PlatformID int64
	GPUModelID int64
	Platform   string
	GPU        string
	GPUCount   int
	Label      string
	Currency   string
	AsOf       string
	AgeDays    int
	Hourly     string
	Monthly    string
}

// DashboardJump is a current quote with the previous sample it jumped from.
type DashboardJump struct {
	DashboardQuote
	PrevID      int64
	PrevAsOf    string
	PrevHourly  string
	PrevMonthly string
	Changes     []string
}
