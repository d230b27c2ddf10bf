package config

import (
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDefaults(t *testing.T) {
	c, err := Parse(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.SessionIdle != 2*time.Hour || c.SessionMax != 168*time.Hour || c.TLS || c.BodyLimit != 1<<20 || !c.Workers {
		t.Fatalf("defaults: %+v", c)
	}
	if c.RequireDatabase() == nil {
		t.Fatal("no DATABASE_URL must be an error")
	}
}

func TestParse(t *testing.T) {
	c, err := Parse(env(map[string]string{
		"DATABASE_URL": "postgres://x@y/z", "GPUQUOTE_ADDR": ":9000", "GPUQUOTE_LOG_LEVEL": "debug",
		"GPUQUOTE_TLS": "true", "GPUQUOTE_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7",
		"GPUQUOTE_SESSION_IDLE": "30m", "GPUQUOTE_SESSION_MAX": "24h", "GPUQUOTE_DB_MAX_CONNS": "4",
		"GPUQUOTE_PUBLIC_URL": "https://gpuquote.example.com/", "GPUQUOTE_WORKERS": "0",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != ":9000" || !c.TLS || len(c.TrustedProxies) != 2 || c.TrustedProxies[1].String() != "192.168.1.7/32" ||
		c.SessionIdle != 30*time.Minute || c.SessionMax != 24*time.Hour || c.DBMaxConns != 4 || c.LogLevel.String() != "DEBUG" ||
		c.BaseURL() != "https://gpuquote.example.com" || c.Workers {
		t.Fatalf("parsed: %+v", c)
	}
}

func TestBaseURLWithoutAPublicURL(t *testing.T) {
	for addr, want := range map[string]string{"127.0.0.1:8080": "http://127.0.0.1:8080", ":9000": "http://localhost:9000",
		"0.0.0.0:8080": "http://localhost:8080", "[::]:8080": "http://localhost:8080"} {
		if got := (Config{Addr: addr}).BaseURL(); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
	if got := (Config{Addr: "10.0.0.5:443", TLS: true}).BaseURL(); got != "https://10.0.0.5:443" {
		t.Errorf("TLS: %s", got)
	}
}

func TestParseReportsEveryBadVariable(t *testing.T) {
	_, err := Parse(env(map[string]string{
		"GPUQUOTE_LOG_LEVEL": "loud", "GPUQUOTE_TLS": "maybe", "GPUQUOTE_TRUSTED_PROXIES": "nonsense",
		"GPUQUOTE_SESSION_IDLE": "-1h", "GPUQUOTE_BODY_LIMIT": "12", "GPUQUOTE_DB_MAX_CONNS": "0",
		"GPUQUOTE_PUBLIC_URL": "javascript:alert(1)",
	}))
	if err == nil {
		t.Fatal("bad configuration accepted")
	}
	for _, k := range []string{"GPUQUOTE_LOG_LEVEL", "GPUQUOTE_TLS", "GPUQUOTE_TRUSTED_PROXIES", "GPUQUOTE_SESSION_IDLE", "GPUQUOTE_BODY_LIMIT", "GPUQUOTE_DB_MAX_CONNS", "GPUQUOTE_PUBLIC_URL"} {
		if !strings.Contains(err.Error(), k) {
			t.Errorf("error does not name %s: %v", k, err)
		}
	}
}

func TestMetricsSettings(t *testing.T) {
	c, err := Parse(env(nil))
	if err != nil || c.MetricsAddr != "" || c.MetricsToken != "" {
		t.Fatalf("metrics must be off by default: %q %q %v", c.MetricsAddr, c.MetricsToken, err)
	}
	token := strings.Repeat("t", 32)
	c, err = Parse(env(map[string]string{"GPUQUOTE_METRICS_ADDR": "127.0.0.1:9464", "GPUQUOTE_METRICS_TOKEN": token}))
	if err != nil || c.MetricsAddr != "127.0.0.1:9464" || c.MetricsToken != token {
		t.Fatalf("parsed: %q %q %v", c.MetricsAddr, c.MetricsToken, err)
	}
	short := "short-secret-value"
	_, err = Parse(env(map[string]string{"GPUQUOTE_METRICS_ADDR": "9464", "GPUQUOTE_METRICS_TOKEN": short}))
	if err == nil || !strings.Contains(err.Error(), "GPUQUOTE_METRICS_ADDR") || !strings.Contains(err.Error(), "GPUQUOTE_METRICS_TOKEN") ||
		strings.Contains(err.Error(), short) {
		t.Fatalf("want both named and the token never echoed: %v", err)
	}
}

// TestUploadSettings: uploads read at once and the wait for one have
// defaults, take their variables (a wait of 0 answers at once), and refuse
// nonsense naming the variable (docs/RULES.md §18.1).
func TestUploadSettings(t *testing.T) {
	c, err := Parse(env(nil))
	if err != nil || c.Uploads != 4 || c.UploadWait != 5*time.Second {
		t.Fatalf("defaults: %d %s %v", c.Uploads, c.UploadWait, err)
	}
	c, err = Parse(env(map[string]string{"GPUQUOTE_UPLOADS": "2", "GPUQUOTE_UPLOAD_WAIT": "0s"}))
	if err != nil || c.Uploads != 2 || c.UploadWait != 0 {
		t.Fatalf("parsed: %d %s %v", c.Uploads, c.UploadWait, err)
	}
	bad := map[string]string{"GPUQUOTE_UPLOADS": "0", "GPUQUOTE_UPLOAD_WAIT": "-1s"}
	_, err = Parse(env(bad))
	for k := range bad {
		if err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("error does not name %s: %v", k, err)
		}
	}
}

// TestProposalQuotaSettings: the proposals one person makes in an hour and
// the bytes of files their proposals not yet published hold have defaults,
// take their variables (0 turns a bound off), and refuse nonsense naming
// the variable (docs/RULES.md §18.1).
func TestProposalQuotaSettings(t *testing.T) {
	c, err := Parse(env(nil))
	if err != nil || c.ProposalsPerHour != 20 || c.ProposalStorage != 50<<20 {
		t.Fatalf("defaults: %d %d %v", c.ProposalsPerHour, c.ProposalStorage, err)
	}
	c, err = Parse(env(map[string]string{"GPUQUOTE_PROPOSALS_PER_HOUR": "0", "GPUQUOTE_PROPOSAL_STORAGE": "1048576"}))
	if err != nil || c.ProposalsPerHour != 0 || c.ProposalStorage != 1<<20 {
		t.Fatalf("parsed: %d %d %v", c.ProposalsPerHour, c.ProposalStorage, err)
	}
	bad := map[string]string{"GPUQUOTE_PROPOSALS_PER_HOUR": "many", "GPUQUOTE_PROPOSAL_STORAGE": "50MiB"}
	_, err = Parse(env(bad))
	for k := range bad {
		if err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("error does not name %s: %v", k, err)
		}
	}
}

func TestReplicaSettings(t *testing.T) {
	c, err := Parse(env(nil))
	if err != nil || len(c.ReplicaURLs) != 0 || c.ReplicaMaxLag != 5*time.Second {
		t.Fatalf("defaults: %q %v %v", c.ReplicaURLs, c.ReplicaMaxLag, err)
	}
	c, err = Parse(env(map[string]string{
		"GPUQUOTE_REPLICA_URLS":    " postgres://a@r1:5432/g , ,postgres://a@r2:5432/g",
		"GPUQUOTE_REPLICA_MAX_LAG": "750ms",
	}))
	if err != nil || len(c.ReplicaURLs) != 2 || c.ReplicaURLs[0] != "postgres://a@r1:5432/g" ||
		c.ReplicaURLs[1] != "postgres://a@r2:5432/g" || c.ReplicaMaxLag != 750*time.Millisecond {
		t.Fatalf("parsed: %q %v %v", c.ReplicaURLs, c.ReplicaMaxLag, err)
	}
	if _, err := Parse(env(map[string]string{"GPUQUOTE_REPLICA_MAX_LAG": "soon"})); err == nil ||
		!strings.Contains(err.Error(), "GPUQUOTE_REPLICA_MAX_LAG") {
		t.Fatalf("a bad lag bound: %v", err)
	}
}
