package sample

import (
	"context"
	"fmt"
	"io"
	"time"

	"gpuquote/internal/facts"
	"gpuquote/internal/store"
	"gpuquote/internal/user"
)

// The sample platform facts (docs/RULES.md §18.3): what the guides say of
// the sample platforms' environment, support and data safety, each marked
// as sample data and sourced "guide, 2026" with the day the samples were
// recorded. Everything the guides do not say stays unknown (never
// recorded), so it becomes a question for the vendor.

const sampleFactSource = "guide, 2026: " + guideSource

// sampleFacts are the recorded facts, by the platform's Chinese name.
var sampleFacts = []struct {
	platform string
	f        facts.Fact
}{
	{"AutoDL 算力云", facts.Fact{Kind: facts.Preinstalled, Value: facts.Yes,
		Note: "示例数据：成熟镜像，预装框架。Sample data: mature images with frameworks preinstalled."}},
	{"晨涧云", facts.Fact{Kind: facts.Desktop, Value: facts.Yes,
		Note: "示例数据：可选桌面系统。Sample data: a desktop OS option."}},
	{"晨涧云", facts.Fact{Kind: facts.PaymentProtection, Value: facts.Yes,
		Note: "示例数据：起家于淘宝店铺，纠纷可诉诸平台交易保障。Sample data: sold through a Taobao shop, so disputes can be taken to the marketplace."}},
}

// LoadFacts loads the sample platform facts (after LoadMarket, whose
// platforms they name) and says so on stdout.
func LoadFacts(ctx context.Context, st *store.Store, stdout io.Writer) error {
	platforms, _, err := st.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	ids := map[string]int64{}
	for _, p := range platforms {
		ids[p.Names[0]] = p.ID
	}
	for _, s := range sampleFacts {
		id, ok := ids[s.platform]
		if !ok {
			return fmt.Errorf("sample fact %s: no platform %q", s.f.Kind, s.platform)
		}
		f := s.f
		f.PlatformID, f.Source, f.AsOf, f.Sample = id, sampleFactSource, sampleRecorded, true
		if _, err := st.CreatePlatformFact(ctx, user.SystemActor, f, sampleRecorded); err != nil {
			return fmt.Errorf("sample fact %s of %s: %w", f.Kind, s.platform, err)
		}
	}
	fmt.Fprintf(stdout, "loaded %d sample platform facts (from the guides, dated %s; the rest are unknown)\n",
		len(sampleFacts), sampleRecorded.Format(time.DateOnly))
	return nil
}
