package main

import (
	"context"
	"io"
	"time"

	"gpuquote/internal/sample"
	"gpuquote/internal/store"
)

// loadSampleMarket loads the sample platforms, GPU catalog and HOSTKEY
// quotes (published), then the sample own-hardware options with their
// electricity prices, the sample platform facts and availability records: package sample holds them, so tests can load the
// same data.
func loadSampleMarket(ctx context.Context, st *store.Store, stdout io.Writer) error {
	if err := sample.LoadMarket(ctx, st, stdout); err != nil {
		return err
	}
	if err := sample.LoadOwn(ctx, st, stdout); err != nil {
		return err
	}
	if err := sample.LoadFacts(ctx, st, stdout); err != nil {
		return err
	}
	// The attempts are dated the days before the day of loading.
	return sample.LoadAvailability(ctx, st, stdout, time.Now().UTC())
}
