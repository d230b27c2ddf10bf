package server_test

import (
	"os"
	"testing"

	"gpuquote/internal/testutil"
)

// TestMain runs the tests, then stops the Chromium the browser tests share.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
