package sample

import (
	"context"
	"fmt"
	"io"
	"time"

	"gpuquote/internal/avail"
	"gpuquote/internal/store"
	"gpuquote/internal/user"
)

// The sample availability records (docs/RULES.md §18.2): a handful of
// attempts, each marked as sample data in its note, so the compare page
// shows what such records look like. The guides say AutoDL's popular cards
// are scarce at peak hours: its RTX 4090 attempts in the evening fail or
// wait, those in the morning succeed at once. Times are UTC (China's
// evening peak is around 12:00–15:00 UTC).

const sampleAvailNote = "示例数据 sample data — "

var sampleAvailability = []struct {
	platform, gpu string
	daysBefore    int
	hourUTC       int
	count         int
	obtained      bool
	wait          int
	note          string
}{
	{"AutoDL", "GeForce RTX 4090", 3, 13, 1, false, 40, "晚高峰 4090 全部售罄，等待 40 分钟后放弃 / evening peak, sold out, gave up after 40 min"},
	{"AutoDL", "GeForce RTX 4090", 5, 1, 1, true, 0, "上午开机即得 / morning, available at once"},
	{"AutoDL", "GeForce RTX 4090", 12, 14, 2, true, 25, "晚高峰排队 25 分钟拿到两张 / evening peak, two cards after 25 min"},
	{"AutoDL", "GeForce RTX 4090", 20, 12, 1, false, 90, "晚高峰反复刷新 90 分钟无卡 / evening peak, none for 90 min"},
	{"AutoDL", "GeForce RTX 4090", 45, 2, 1, true, 2, "上午 2 分钟拿到 / morning, 2 min"},
	{"HOSTKEY", "Radeon AI PRO R9700", 8, 9, 1, true, 15, "按小时档开通约 15 分钟 / hourly tier, provisioned in about 15 min"},
	{"HOSTKEY", "Radeon AI PRO R9700", 60, 9, 1, true, 30, "首次开通需人工审核 / first order needed a manual check"},
}

// LoadAvailability loads the sample availability records (after
// LoadMarket, whose platforms and GPU models they name), dated the days
// before today, the day they are loaded, so that they stay inside the
// statistics' 90-day window for weeks (docs/RULES.md §18.2), and says so
// on stdout.
func LoadAvailability(ctx context.Context, st *store.Store, stdout io.Writer, today time.Time) error {
	day := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)
	platforms, gpus, err := st.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	pids, gids := map[string]int64{}, map[string]int64{}
	for _, p := range platforms {
		for _, n := range p.Names {
			pids[n] = p.ID
		}
	}
	for _, g := range gpus {
		for _, n := range g.Names {
			gids[n] = g.ID
		}
	}
	for _, a := range sampleAvailability {
		pid, gid := pids[a.platform], gids[a.gpu]
		if pid == 0 || gid == 0 {
			return fmt.Errorf("sample availability: no platform %q or GPU model %q", a.platform, a.gpu)
		}
		at := day.AddDate(0, 0, -a.daysBefore).Add(time.Duration(a.hourUTC) * time.Hour)
		if _, err := st.CreateAvailabilityRecord(ctx, user.SystemActor, avail.Input{PlatformID: pid, GPUModelID: gid, AttemptedAt: at,
			GPUCount: a.count, Obtained: a.obtained, WaitMinutes: a.wait, Note: sampleAvailNote + a.note}); err != nil {
			return fmt.Errorf("sample availability %s %s: %w", a.platform, a.gpu, err)
		}
	}
	fmt.Fprintf(stdout, "loaded %d sample availability records (examples dated before %s: replace them with your own)\n",
		len(sampleAvailability), day.Format(time.DateOnly))
	return nil
}
