package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Reads on hot standbys (docs/RULES.md §20.7). Every statement of the store
// goes through a dbRouter: writes, transactions that may write and every
// statement of a request that is not a read go to the primary; a plain
// SELECT (or a read-only transaction) of a request marked as a read goes to
// one replica chosen for the whole request, when one is in use and has
// replayed past what the reader last wrote.

// LSN is a position in PostgreSQL's write-ahead log.
type LSN uint64

// ParseLSN reads PostgreSQL's text form of a pg_lsn ("16/B374D848").
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("not a WAL position: %q", s)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("not a WAL position: %q", s)
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("not a WAL position: %q", s)
	}
	return LSN(h<<32 | l), nil
}

// String is PostgreSQL's text form of the position.
func (l LSN) String() string {
	return strings.ToUpper(strconv.FormatUint(uint64(l)>>32, 16) + "/" + strconv.FormatUint(uint64(l)&0xFFFFFFFF, 16))
}

// ReplicaCheckEvery is how often a serving process asks the primary for its
// WAL position and every replica for its replay position.
const ReplicaCheckEvery = time.Second

// replica is one hot standby's pool and what its last check found.
type replica struct {
	name    string
	pool    *pgxpool.Pool
	queries atomic.Uint64

	mu      sync.Mutex
	checked bool
	up      bool
	standby bool
	replay  LSN
	lag     time.Duration
	inUse   bool
}

// lsnSample is the primary's WAL position as seen at a check.
type lsnSample struct {
	at  time.Time
	lsn LSN
}

// dbRouter sends each statement to the primary or to a replica.
type dbRouter struct {
	primary  *pgxpool.Pool
	replicas []*replica
	maxLag   time.Duration
	now      func() time.Time
	next     atomic.Uint64

	primaryQueries atomic.Uint64
	// fallbacks count the reads that could have gone to a replica but went
	// to the primary, by why: none in use (down or lagging) or none yet
	// past the reader's own last write.
	fallbackNone  atomic.Uint64
	fallbackOwn   atomic.Uint64
	replicaErrors atomic.Uint64

	mu      sync.Mutex
	samples []lsnSample
}

func newRouter(primary *pgxpool.Pool) *dbRouter {
	return &dbRouter{primary: primary, maxLag: 5 * time.Second, now: time.Now}
}

// RequestReads is what one request's statements share: whether its plain
// reads may go to a replica, the WAL position its reader must see, the
// replica chosen for it, and whether it wrote.
type RequestReads struct {
	replicas bool
	after    LSN
	wrote    atomic.Bool
	once     sync.Once
	chosen   *replica
}

// Wrote says whether a statement of the request went to the primary as a
// write (or a transaction that may write).
func (r *RequestReads) Wrote() bool { return r != nil && r.wrote.Load() }

type readsKey struct{}

// Reads marks ctx as one request's: with replicas true its plain reads may
// go to a replica that has replayed at least after (the reader's last
// write); every write it makes is remembered (RequestReads.Wrote) and sends
// its later reads to the primary.
func (s *Store) Reads(ctx context.Context, replicas bool, after LSN) (context.Context, *RequestReads) {
	r := &RequestReads{replicas: replicas && len(s.pool.replicas) > 0, after: after}
	return context.WithValue(ctx, readsKey{}, r), r
}

// HasReplicas says whether replicas were configured.
func (s *Store) HasReplicas() bool { return len(s.pool.replicas) > 0 }

// WriteLSN is the primary's current WAL position: after a commit, at least
// the commit's.
func (s *Store) WriteLSN(ctx context.Context) (LSN, error) {
	var text string
	if err := s.pool.primary.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&text); err != nil {
		return 0, err
	}
	return ParseLSN(text)
}

// OpenReplicas opens a pool on each hot standby's URL (no connection is
// made yet: a standby that is down is only skipped). maxLag is how far
// behind the primary a replica may be and still serve reads.
func (s *Store) OpenReplicas(ctx context.Context, urls []string, maxConns int32, maxLag time.Duration) error {
	for i, u := range urls {
		pc, err := PoolConfig(u, maxConns)
		if err != nil {
			return fmt.Errorf("replica %d: GPUQUOTE_REPLICA_URLS cannot be parsed as PostgreSQL connection strings", i+1)
		}
		pc.ConnConfig.ConnectTimeout = 2 * time.Second
		pool, err := pgxpool.NewWithConfig(ctx, pc)
		if err != nil {
			return fmt.Errorf("replica %d: %w", i+1, err)
		}
		name := net.JoinHostPort(pc.ConnConfig.Host, strconv.Itoa(int(pc.ConnConfig.Port)))
		s.pool.replicas = append(s.pool.replicas, &replica{name: name, pool: pool})
	}
	if maxLag > 0 {
		s.pool.maxLag = maxLag
	}
	return nil
}

// CloseReplicas closes the replicas' pools.
func (s *Store) CloseReplicas() {
	for _, r := range s.pool.replicas {
		r.pool.Close()
	}
}

// RunReplicaChecks checks the replicas every interval until ctx ends.
func (s *Store) RunReplicaChecks(ctx context.Context, every time.Duration) {
	if len(s.pool.replicas) == 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		s.CheckReplicas(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// CheckReplicas asks the primary for its WAL position and each replica
// whether it is a standby and how far it has replayed. A replica is as far
// behind as the oldest primary position (of those seen at the checks of the
// last maxLag and a little more) it has not replayed yet; it is in use when
// it answered, is a standby, and is no more than maxLag behind. With the
// primary unreachable no lag can be told, and no replica is used.
func (s *Store) CheckReplicas(ctx context.Context) {
	d := s.pool
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	now := d.now()
	lsn, err := s.WriteLSN(cctx)
	primaryOK := err == nil
	if primaryOK {
		d.mu.Lock()
		d.samples = append(d.samples, lsnSample{at: now, lsn: lsn})
		keep := 0
		for keep < len(d.samples)-1 && now.Sub(d.samples[keep].at) > d.maxLag+3*ReplicaCheckEvery {
			keep++
		}
		d.samples = append(d.samples[:0], d.samples[keep:]...)
		d.mu.Unlock()
	}
	var wg sync.WaitGroup
	for _, r := range d.replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var standby bool
			var replay *string
			err := r.pool.QueryRow(cctx, `SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text`).Scan(&standby, &replay)
			r.mu.Lock()
			defer r.mu.Unlock()
			r.checked, r.up, r.standby = true, err == nil, standby
			if err != nil || replay == nil {
				r.inUse = false
				return
			}
			if lsn, err := ParseLSN(*replay); err == nil {
				r.replay = lsn
			}
			if !primaryOK {
				r.inUse = false
				return
			}
			r.lag = d.behind(r.replay, now)
			r.inUse = standby && r.lag <= d.maxLag
		}()
	}
	wg.Wait()
}

// behind is how long the primary has been past replay: since the oldest
// sample beyond it (zero when none is).
func (d *dbRouter) behind(replay LSN, now time.Time) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range d.samples {
		if s.lsn > replay {
			return now.Sub(s.at)
		}
	}
	return 0
}

// ReplicaState is one replica as the last check saw it.
type ReplicaState struct {
	Name    string
	Checked bool
	Up      bool
	Standby bool
	InUse   bool
	Lag     time.Duration
	Replay  LSN
	Queries uint64
}

// Replicas is every configured replica's state, in configuration order.
func (s *Store) Replicas() []ReplicaState {
	out := make([]ReplicaState, len(s.pool.replicas))
	for i, r := range s.pool.replicas {
		r.mu.Lock()
		out[i] = ReplicaState{Name: r.name, Checked: r.checked, Up: r.up, Standby: r.standby, InUse: r.inUse,
			Lag: r.lag, Replay: r.replay, Queries: r.queries.Load()}
		r.mu.Unlock()
	}
	return out
}

// RouterStats are the router's counters: statements sent to the primary,
// reads that fell back to it, and replica statements that failed to connect
// and were sent to the primary instead.
type RouterStats struct {
	PrimaryQueries, FallbackNoReplica, FallbackOwnWrite, ReplicaErrors uint64
}

// RouterStats reads the counters.
func (s *Store) RouterStats() RouterStats {
	d := s.pool
	return RouterStats{PrimaryQueries: d.primaryQueries.Load(), FallbackNoReplica: d.fallbackNone.Load(),
		FallbackOwnWrite: d.fallbackOwn.Load(), ReplicaErrors: d.replicaErrors.Load()}
}

// pick chooses the request's replica once: round robin over those in use
// that have replayed past the reader's last write; nil for the primary.
func (d *dbRouter) pick(r *RequestReads) *replica {
	r.once.Do(func() {
		n := len(d.replicas)
		start := int(d.next.Add(1))
		usable := false
		for i := range n {
			c := d.replicas[(start+i)%n]
			c.mu.Lock()
			inUse, replay := c.inUse, c.replay
			c.mu.Unlock()
			if !inUse {
				continue
			}
			usable = true
			if replay >= r.after {
				r.chosen = c
				return
			}
		}
		if usable {
			d.fallbackOwn.Add(1)
		} else {
			d.fallbackNone.Add(1)
		}
	})
	return r.chosen
}

// plainRead says whether sql only reads: a SELECT, or a WITH query none
// of whose parts changes rows, that takes no lock and calls nothing that
// writes. Only such a statement may go to a replica.
func plainRead(sql string) bool {
	if v, ok := plainReads.Load(sql); ok {
		return v.(bool)
	}
	ok := isPlainRead(sql)
	if plainReadsKept.Add(1) <= maxPlainReadsKept {
		plainReads.Store(sql, ok)
	}
	return ok
}

// plainReads keeps plainRead's answer per statement text (the store's
// statements are a bounded set; dynamic ones stop being kept past the
// bound).
var (
	plainReads     sync.Map
	plainReadsKept atomic.Int64
)

const maxPlainReadsKept = 4096

func isPlainRead(sql string) bool {
	s := strings.TrimLeft(sql, " \t\r\n(")
	if len(s) < 6 {
		return false
	}
	switch strings.ToUpper(s[:4]) {
	case "SELE":
		if !strings.EqualFold(s[:6], "SELECT") {
			return false
		}
	case "WITH":
		if changesRows.MatchString(s) {
			return false
		}
	default:
		return false
	}
	return !writesOrLocks.MatchString(s)
}

var (
	changesRows   = regexp.MustCompile(`(?i)\b(INSERT|UPDATE|DELETE|MERGE)\b`)
	writesOrLocks = regexp.MustCompile(`(?i)\bFOR\s+(UPDATE|SHARE|NO\s+KEY\s+UPDATE|KEY\s+SHARE)\b|\b(nextval|setval|set_config|pg_advisory\w*|pg_notify)\s*\(`)
)

// reader is where a read goes: a replica, or nil for the primary (and the
// write mark set when it is not a read at all).
func (d *dbRouter) reader(ctx context.Context, sql string, read bool) *replica {
	r, _ := ctx.Value(readsKey{}).(*RequestReads)
	if r == nil {
		return nil
	}
	if !read {
		r.wrote.Store(true)
		return nil
	}
	if !r.replicas || r.wrote.Load() {
		return nil
	}
	return d.pick(r)
}

// connFailed says whether err is a failure to reach the server (the
// statement never ran), so it may be sent to the primary instead.
func connFailed(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// The standby shutting down, or a conflict with recovery.
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || pe.Code == "40001" && strings.Contains(pe.Message, "recovery")
	}
	var ne net.Error
	return errors.As(err, &ne) || pgconn.SafeToRetry(err) || errors.Is(err, net.ErrClosed)
}

// failed marks a replica down until its next check.
func (d *dbRouter) failed(c *replica) {
	d.replicaErrors.Add(1)
	c.mu.Lock()
	c.up, c.inUse = false, false
	c.mu.Unlock()
}

func (d *dbRouter) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	d.reader(ctx, sql, false)
	d.primaryQueries.Add(1)
	return d.primary.Exec(ctx, sql, args...)
}

func (d *dbRouter) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if c := d.reader(ctx, sql, plainRead(sql)); c != nil {
		c.queries.Add(1)
		rows, err := c.pool.Query(ctx, sql, args...)
		if !connFailed(err) {
			return rows, err
		}
		d.failed(c)
	}
	d.primaryQueries.Add(1)
	return d.primary.Query(ctx, sql, args...)
}

func (d *dbRouter) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if c := d.reader(ctx, sql, plainRead(sql)); c != nil {
		c.queries.Add(1)
		return replicaRow{d: d, c: c, ctx: ctx, sql: sql, args: args}
	}
	d.primaryQueries.Add(1)
	return d.primary.QueryRow(ctx, sql, args...)
}

// replicaRow scans a row read on a replica, reading it from the primary
// instead when the replica cannot be reached.
type replicaRow struct {
	d    *dbRouter
	c    *replica
	ctx  context.Context
	sql  string
	args []any
}

func (r replicaRow) Scan(dest ...any) error {
	err := r.c.pool.QueryRow(r.ctx, r.sql, r.args...).Scan(dest...)
	if !connFailed(err) {
		return err
	}
	r.d.failed(r.c)
	r.d.primaryQueries.Add(1)
	return r.d.primary.QueryRow(r.ctx, r.sql, r.args...).Scan(dest...)
}

func (d *dbRouter) Begin(ctx context.Context) (pgx.Tx, error) {
	d.reader(ctx, "", false)
	d.primaryQueries.Add(1)
	return d.primary.Begin(ctx)
}

// BeginTx begins a read-only transaction on the request's replica when it
// may read there; any other on the primary.
func (d *dbRouter) BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error) {
	if c := d.reader(ctx, "", opts.AccessMode == pgx.ReadOnly); c != nil {
		c.queries.Add(1)
		tx, err := c.pool.BeginTx(ctx, opts)
		if !connFailed(err) {
			return tx, err
		}
		d.failed(c)
	}
	d.primaryQueries.Add(1)
	return d.primary.BeginTx(ctx, opts)
}
