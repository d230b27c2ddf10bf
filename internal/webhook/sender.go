package webhook

import (
	"context"
	"log/slog"
	"time"

	"gpuquote/internal/loop"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcome is what one DeliverNext did.
type Outcome int

// The outcomes of Queue.DeliverNext.
const (
	// None: nothing was due (or every due delivery is held by another
	// process).
	None Outcome = iota
	Delivered
	// Retry: the attempt failed and another is planned.
	Retry
	// GaveUp: the attempt failed and was the last, or the endpoint is
	// no longer active.
	GaveUp
)

// Backoff is the wait after the attempts-th failure (docs/RULES.md §24.7):
// 30 s, then doubling (1 min, 2 min, 4 min, …), at most 6 h.
func Backoff(attempts int) time.Duration {
	wait := 30 * time.Second
	for i := 1; i < attempts && wait < 6*time.Hour; i++ {
		wait *= 2
	}
	return min(wait, 6*time.Hour)
}

// GiveUpAfter bounds how long an event is retried: a failure whose next
// attempt would come later than this after the event is the last.
const GiveUpAfter = 24 * time.Hour

// NextAttempt is the queue's retry rule: when to try delivery d again after
// its attempts-th failure at now, or give up.
func NextAttempt(d Delivery, attempts int, now time.Time) (time.Time, bool) {
	next := now.Add(Backoff(attempts))
	if next.After(d.EventAt.Add(GiveUpAfter)) {
		return time.Time{}, true
	}
	return next, false
}

// Queue is the delivery queue as the sender uses it; the store implements
// it. DeliverNext takes the oldest due delivery no other process holds
// (FOR UPDATE SKIP LOCKED), calls send with it while holding it, and
// records the attempt and its outcome in the same transaction, the next
// attempt's time from retry.
type Queue interface {
	DeliverNext(ctx context.Context, now time.Time, send func(Delivery) Attempt,
		retry func(d Delivery, attempts int, now time.Time) (time.Time, bool)) (Outcome, error)
	WebhooksWaiting(ctx context.Context) (int, error)
}

// Sender works through the delivery queue.
type Sender struct {
	Queue  Queue
	Client *Client
	Now    func() time.Time
	Log    *slog.Logger

	waiting                    prometheus.Gauge
	delivered, retried, gaveUp prometheus.Counter
}

// NewSender makes a sender with its metrics.
func NewSender(q Queue, c *Client, now func() time.Time, log *slog.Logger) *Sender {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return &Sender{Queue: q, Client: c, Now: now, Log: log,
		waiting: prometheus.NewGauge(prometheus.GaugeOpts{Name: "gpuquote_webhook_waiting",
			Help: "Webhook deliveries neither delivered nor given up, as of the sender's last pass."}),
		delivered: prometheus.NewCounter(prometheus.CounterOpts{Name: "gpuquote_webhook_delivered_total",
			Help: "Webhook deliveries the receiver accepted."}),
		retried: prometheus.NewCounter(prometheus.CounterOpts{Name: "gpuquote_webhook_retried_total",
			Help: "Failed webhook attempts after which the delivery is tried again later."}),
		gaveUp: prometheus.NewCounter(prometheus.CounterOpts{Name: "gpuquote_webhook_failed_total",
			Help: "Webhook deliveries given up."}),
	}
}

// Collectors are the sender's metrics, for the server's registry.
func (s *Sender) Collectors() []prometheus.Collector {
	return []prometheus.Collector{s.waiting, s.delivered, s.retried, s.gaveUp}
}

// Pass is what one pass did.
type Pass struct{ Delivered, Retried, GaveUp int }

// MaxPerPass bounds one pass: the rest waits for the next.
const MaxPerPass = 100

// DeliverDue makes the attempts due at now, at most MaxPerPass, one
// delivery at a time, each held by this process alone while it is sent.
// Tests drive the sender with it, at the "now" they choose.
func (s *Sender) DeliverDue(ctx context.Context, now time.Time) (Pass, error) {
	var p Pass
	send := func(d Delivery) Attempt { return s.Client.Send(ctx, d, now) }
	for range MaxPerPass {
		if ctx.Err() != nil {
			return p, ctx.Err()
		}
		out, err := s.Queue.DeliverNext(ctx, now, send, NextAttempt)
		if err != nil {
			return p, err
		}
		switch out {
		case None:
			return p, s.count(ctx)
		case Delivered:
			p.Delivered++
			s.delivered.Inc()
		case Retry:
			p.Retried++
			s.retried.Inc()
		case GaveUp:
			p.GaveUp++
			s.gaveUp.Inc()
		}
	}
	return p, s.count(ctx)
}

func (s *Sender) count(ctx context.Context) error {
	n, err := s.Queue.WebhooksWaiting(ctx)
	if err != nil {
		return err
	}
	s.waiting.Set(float64(n))
	return nil
}

// Run delivers what is due every interval until ctx is cancelled.
func (s *Sender) Run(ctx context.Context, every time.Duration) {
	loop.Every(ctx, every, func() {
		p, err := s.DeliverDue(ctx, s.Now())
		if err != nil && ctx.Err() == nil {
			s.Log.Warn("webhook: delivery pass", "err", err)
		} else if p.Delivered+p.Retried+p.GaveUp > 0 {
			s.Log.Info("webhook: delivery pass", "delivered", p.Delivered, "retried", p.Retried, "gave_up", p.GaveUp)
		}
	})
}
