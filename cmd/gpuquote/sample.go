package main

import (
	"context"
	"io"

	"gpuquote/internal/sample"
	"gpuquote/internal/store"
)

// loadSampleMarket loads the sample platforms, GPU catalog and HOSTKEY
// quotes (published): package sample holds them, so tests can load the
// same data.
func loadSampleMarket(ctx context.Context, st *store.Store, stdout io.Writer) error {
	return sample.LoadMarket(ctx, st, stdout)
}
