package store_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
	"gpuquote/internal/webhook"
)

// TestPriceJumpEvent: a next version whose hourly price moved more than
// 30 % from the previous one enqueues quote.price_jump with both prices;
// a smaller move does not; every publication enqueues quote.published
// (docs/RULES.md §24.7, §7.2).
func TestPriceJumpEvent(t *testing.T) {
	t.Parallel()
	st := testutil.Store(t)
	ctx := context.Background()
	if _, err := st.CreateWebhookEndpoint(ctx, user.SystemActor, time.Now(), webhook.Endpoint{Kind: webhook.KindWeCom,
		URL: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k", Events: []string{webhook.QuotePublished, webhook.QuotePriceJump}}); err != nil {
		t.Fatal(err)
	}
	p := testfactory.Platform(t, st, market.Platform{})
	g := testfactory.GPUModel(t, st, market.GPUModel{})
	v1 := testfactory.Published(t, st, quote.Quote{PlatformID: p.ID, GPUModelID: g.ID, Hourly: testfactory.ND("1.00")})
	v2 := testfactory.NextVersion(t, st, v1.ID, func(q *quote.Quote) { q.Hourly = testfactory.ND("1.20") })
	v3 := testfactory.NextVersion(t, st, v2.ID, func(q *quote.Quote) { q.Hourly = testfactory.ND("2.00") })
	rows, err := st.Pool().Query(ctx, `SELECT type, entity_id, payload FROM webhook_events ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	var jump webhook.QuoteObject
	for rows.Next() {
		var typ string
		var id int64
		var payload []byte
		if err := rows.Scan(&typ, &id, &payload); err != nil {
			t.Fatal(err)
		}
		got = append(got, typ+"#"+map[int64]string{v1.ID: "v1", v2.ID: "v2", v3.ID: "v3"}[id])
		if typ == webhook.QuotePriceJump {
			if err := json.Unmarshal(payload, &jump); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []string{"quote.published#v1", "quote.published#v2", "quote.price_jump#v3", "quote.published#v3"}
	if len(got) != len(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
	if !jump.HourlyJump || jump.MonthlyJump || jump.PreviousID != v2.ID || jump.PrevHourly == nil || *jump.PrevHourly != "1.2" ||
		jump.Hourly == nil || *jump.Hourly != "2" || jump.HourlyMove != "66.7" || jump.Path != "/quotes/"+strconv.FormatInt(v3.ID, 10) {
		t.Fatalf("jump payload %+v", jump)
	}
}
