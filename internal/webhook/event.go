// Package webhook tells other systems what happened in gpuquote
// (docs/RULES.md §24.7, §24.8): the events, the endpoints that subscribe to
// them, the signed JSON body of a generic endpoint and the messages of the
// group chat bots (企业微信, 钉钉, 飞书), the address policy that keeps
// deliveries off private networks, and the sender that works through the
// delivery queue. It never imports the store: the sender reads and writes
// the queue through the Queue interface, which the store implements.
package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"
)

// The event types an endpoint may subscribe to.
const (
	QuotePublished  = "quote.published"
	QuotePriceJump  = "quote.price_jump"
	WatchMatched    = "watch.matched"
	ReportApproved  = "report.approved"
	BillOvercharged = "bill.overcharged"
)

// EventTypes lists every event type, in the order the pages offer them.
var EventTypes = []string{QuotePublished, QuotePriceJump, WatchMatched, ReportApproved, BillOvercharged}

// ValidEventType reports whether t is one of EventTypes.
func ValidEventType(t string) bool {
	for _, e := range EventTypes {
		if e == t {
			return true
		}
	}
	return false
}

// The kinds of endpoint: a generic receiver of signed JSON, or the group
// chat bot of one vendor.
const (
	KindGeneric  = "generic"
	KindWeCom    = "wecom"
	KindDingTalk = "dingtalk"
	KindFeishu   = "feishu"
)

// Kinds lists every kind, in the order the pages offer them.
var Kinds = []string{KindGeneric, KindWeCom, KindDingTalk, KindFeishu}

// ValidKind reports whether k is one of Kinds.
func ValidKind(k string) bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// Event is one thing that happened, as a write hands it to
// store.EnqueueEvent in its own transaction: its type, the id of what it
// is about (a quote, a report, a bill, a watch), when, and the object a
// receiver gets as data.object (one of the *Object types below, or any
// value that marshals to a JSON object).
type Event struct {
	Type     string
	EntityID int64
	At       time.Time
	Object   any
}

// EventID is the public id of stored event id: "evt_" and the number. It
// is the same on every attempt, so a receiver can drop a repeat.
func EventID(id int64) string { return "evt_" + strconv.FormatInt(id, 10) }

// Envelope is the body a generic endpoint receives.
type Envelope struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Created int64  `json:"created"`
	Data    struct {
		Object json.RawMessage `json:"object"`
	} `json:"data"`
}

// QuoteObject is data.object of quote.published: the version published.
// Prices are decimal strings in the quote's currency; a price the quote
// does not offer is null. Path is the quote's page on the site; URL is it
// in full when the server knows its public address (GPUQUOTE_PUBLIC_URL).
type QuoteObject struct {
	ID          int64   `json:"id"`
	SeriesID    int64   `json:"series_id"`
	Version     int     `json:"version"`
	PlatformID  int64   `json:"platform_id"`
	PlatformZH  string  `json:"platform_name_zh"`
	PlatformEN  string  `json:"platform_name_en"`
	GPUModelID  int64   `json:"gpu_model_id"`
	GPU         string  `json:"gpu"`
	GPUCount    int     `json:"gpu_count"`
	Label       string  `json:"label"`
	Currency    string  `json:"currency"`
	Hourly      *string `json:"hourly"`
	Monthly     *string `json:"monthly"`
	AsOf        string  `json:"as_of"`
	PublishedAt string  `json:"published_at"`
	Path        string  `json:"path"`
	URL         string  `json:"url,omitempty"`
	PreviousID  int64   `json:"previous_id,omitempty"`
	PrevHourly  *string `json:"previous_hourly,omitempty"`
	PrevMonthly *string `json:"previous_monthly,omitempty"`
	PrevAsOf    string  `json:"previous_as_of,omitempty"`
	HourlyJump  bool    `json:"hourly_jump,omitempty"`
	MonthlyJump bool    `json:"monthly_jump,omitempty"`
	JumpPercent string  `json:"jump_threshold_percent,omitempty"`
	HourlyMove  string  `json:"hourly_change_percent,omitempty"`
	MonthlyMove string  `json:"monthly_change_percent,omitempty"`
}

// ReportObject is data.object of report.approved.
type ReportObject struct {
	ID         int64  `json:"id"`
	Number     string `json:"number"`
	Revision   int    `json:"revision"`
	Title      string `json:"title"`
	Currency   string `json:"currency"`
	ApprovedBy string `json:"approved_by"`
	ApprovedAt string `json:"approved_at"`
	Comment    string `json:"comment"`
	Path       string `json:"path"`
	URL        string `json:"url,omitempty"`
}

// BillObject is data.object of bill.overcharged. Totals are decimal
// strings in the bill's currency.
type BillObject struct {
	ID           int64  `json:"id"`
	ReportID     int64  `json:"report_id"`
	ReportNumber string `json:"report_number"`
	QuoteID      int64  `json:"quote_id"`
	Platform     string `json:"platform"`
	Month        string `json:"month"`
	Revision     int    `json:"revision"`
	Currency     string `json:"currency"`
	Billed       string `json:"billed_total"`
	Expected     string `json:"expected_total"`
	Overcharge   string `json:"overcharge_total"`
	Path         string `json:"path"`
	URL          string `json:"url,omitempty"`
}

// WatchObject is data.object of watch.matched, which the watches feature
// emits through store.EnqueueEvent (EntityID: the watch's id): the watch
// that matched, whose it is, and the quote version that matched it, as
// quote.published describes a version.
type WatchObject struct {
	Watch struct {
		ID    int64  `json:"id"`
		Name  string `json:"name"`
		Owner string `json:"owner"`
	} `json:"watch"`
	Reason    string      `json:"reason"`
	Quote     QuoteObject `json:"quote"`
	MatchedAt string      `json:"matched_at"`
	Path      string      `json:"path"`
	URL       string      `json:"url,omitempty"`
}

// NewSecret is a generic endpoint's signing secret: "whsec_" and 32 random
// bytes in unpadded URL-safe base64. The whole string is the HMAC key.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b)
}
