// Package migrations embeds the forward-only goose SQL migrations of the
// gpuquote schema. Each file runs in its own transaction.
package migrations

import "embed"

// FS holds every *.sql migration, named NNNNN_description.sql.
//
//go:embed *.sql
var FS embed.FS
