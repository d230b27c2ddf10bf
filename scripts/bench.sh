#!/usr/bin/env bash
# bench.sh [soak DURATION]: what `make bench` and `make soak` do — build the
# server and the load tool, give them a private database on the PostgreSQL
# that provision-db.sh finds (or makes), and measure. Results go to
# docs/PERFORMANCE.md. Traffic stays on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/gpuquote ./cmd/gpuquote
go build -o bin/gpuquote-bench ./cmd/gpuquote-bench
url=$(scripts/provision-db.sh postgres)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n "$(git status --porcelain 2>/dev/null)" ]]; then
  commit="$commit + uncommitted changes"
fi
args=(-database "$url" -server bin/gpuquote -commit "$commit" -out docs/PERFORMANCE.md)
if [[ "${1:-}" == soak ]]; then
  args+=(-soak "${2:-10m}")
fi
exec bin/gpuquote-bench "${args[@]}"
