package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"gpuquote/internal/testutil"
)

// freeAddr returns a loopback address nothing listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeMetricsOnTheirOwnAddress: serve with GPUQUOTE_METRICS_ADDR
// answers /metrics there and 404 for it on the site's port
// (docs/RULES.md §16.6).
func TestServeMetricsOnTheirOwnAddress(t *testing.T) {
	_, url := testutil.DB(t)
	addr, metricsAddr := freeAddr(t), freeAddr(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GPUQUOTE_RUN_MAIN=1", "GPUQUOTE_ARGS=serve", "DATABASE_URL="+url,
		"GPUQUOTE_ADDR="+addr, "GPUQUOTE_METRICS_ADDR="+metricsAddr, "GPUQUOTE_LOG_LEVEL=error")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready within 30 s:\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, body := get(t, "http://"+addr+"/metrics"); code != http.StatusNotFound || strings.Contains(body, "go_goroutines") {
		t.Errorf("the site's port serves /metrics: %d %.80q", code, body)
	}
	if code, body := get(t, "http://"+metricsAddr+"/metrics"); code != http.StatusOK || !strings.Contains(body, "\ngo_goroutines ") ||
		!strings.Contains(body, `route="/metrics"`) {
		t.Errorf("the metrics address: %d %.200q", code, body)
	}
	if code, _ := get(t, "http://"+metricsAddr+"/login"); code != http.StatusNotFound {
		t.Errorf("the metrics address serves the site: %d", code)
	}
}
