package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"gpuquote/internal/store"
)

// replicaTargets measures the compare page on two server processes whose
// reads go to the hot standby at o.replica (GPUQUOTE_REPLICA_URLS,
// docs/SCALING.md), each request sent to the two in turn. It waits until
// the standby has replayed the seeded database and both processes use it,
// and reports how many statements each sent to the standby and the primary.
func replicaTargets(ctx context.Context, o options, db string, srv *server, ts []target) ([]result, error) {
	standby, err := withDatabase(o.replica, "gpuquote_bench")
	if err != nil {
		return nil, err
	}
	if err := waitReplayed(ctx, db, standby); err != nil {
		return nil, err
	}
	replicaURL, err := store.URLForRole(standby, store.AppRole{Name: store.DefaultAppRole})
	if err != nil {
		return nil, err
	}
	var procs []*server
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()
	for range 2 {
		p, err := startServer(ctx, o.server, db, "GPUQUOTE_REPLICA_URLS="+replicaURL)
		if err != nil {
			return nil, err
		}
		procs = append(procs, p)
		if err := waitReplicaInUse(ctx, p); err != nil {
			return nil, err
		}
	}
	var out []result
	for _, t := range ts {
		if t.name != "compare" && t.name != "compare-cold" {
			continue
		}
		two := t
		two.name += "-replica"
		two.what = strings.Replace(t.what, "compare page, 20 quotes,", "compare page, 20 quotes, two server processes reading on one standby,", 1)
		base := srv.url
		inner := t.targeter()
		var n atomic.Uint64
		two.custom = func(tgt *vegeta.Target) error {
			if err := inner(tgt); err != nil {
				return err
			}
			tgt.URL = procs[(n.Add(1)-1)%2].url + strings.TrimPrefix(tgt.URL, base)
			return nil
		}
		before := make([][2]float64, len(procs))
		for i, p := range procs {
			before[i] = statements(p)
		}
		r := measure(ctx, o, two)
		for i, p := range procs {
			after := statements(p)
			logf("    process %d: %.0f statements on the standby, %.0f on the primary", i+1, after[0]-before[i][0], after[1]-before[i][1])
		}
		out = append(out, r)
	}
	return out, nil
}

// statements is how many statements p has sent to its replica and to the
// primary.
func statements(p *server) [2]float64 {
	return [2]float64{metricPrefixSum(p.metricsURL, `gpuquote_db_queries_total{pool="replica `),
		metricValue(p.metricsURL, `gpuquote_db_queries_total{pool="primary"}`)}
}

// waitReplayed waits (up to 5 minutes) until the standby has replayed the
// primary's WAL up to where it is now.
func waitReplayed(ctx context.Context, primary, standby string) error {
	pc, err := pgx.Connect(ctx, primary)
	if err != nil {
		return err
	}
	defer pc.Close(context.WithoutCancel(ctx))
	var target string
	if err := pc.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&target); err != nil {
		return err
	}
	want, err := store.ParseLSN(target)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if sc, err := pgx.Connect(ctx, standby); err == nil {
			var got *string
			err = sc.QueryRow(ctx, `SELECT pg_last_wal_replay_lsn()::text`).Scan(&got)
			sc.Close(context.WithoutCancel(ctx))
			if err == nil && got != nil {
				if l, err := store.ParseLSN(*got); err == nil && l >= want {
					logf("the standby has replayed the seeded database (%s)", target)
					return nil
				}
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("the standby did not replay %s within 5 minutes", target)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// waitReplicaInUse waits (up to 30 s) until p's /readyz says its replica
// is in use.
func waitReplicaInUse(ctx context.Context, p *server) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if metricPrefixSum(p.metricsURL, `gpuquote_db_replica_in_use{`) >= 1 {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("server %s: its replica not in use after 30 s", p.url)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
