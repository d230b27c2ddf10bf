package server

import (
	"net/http"
	"net/http/pprof"
)

// handlePprof adds Go's runtime profiles under /debug/pprof/ to mux, the
// metrics listener's (docs/RULES.md §16.6): the index, cmdline, symbol, CPU
// profile and execution trace by name, and every named profile (heap,
// allocs, goroutine, mutex, block, …). The site's own port never serves
// them: they show the command line, every goroutine's stack and what the
// heap holds. A CPU profile or trace lasts less than the listener's write
// timeout (metricsWriteTimeout): up to 60 seconds.
func handlePprof(mux *http.ServeMux) {
	mux.HandleFunc("GET /debug/pprof/", pprof.Index) // the index, and named profiles by their name
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("POST /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
}
