#!/usr/bin/env bash
# bench.sh [soak DURATION]: what `make bench` and `make soak` do — build the
# server and the load tool, give them a private database on the PostgreSQL
# that provision-db.sh finds (or makes), and measure. Results go to
# docs/PERFORMANCE.md. Traffic stays on loopback. With REPLICA=1 the
# database is a throwaway cluster with a hot standby of it (test-db.sh,
# standby.sh), and the compare page is measured again on two server
# processes whose reads go to the standby.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/gpuquote ./cmd/gpuquote
go build -o bin/gpuquote-bench ./cmd/gpuquote-bench
if [[ "${REPLICA:-}" == 1 ]]; then
  started=$(scripts/test-db.sh start)
  cluster=$(head -1 <<<"$started")
  url=$(tail -1 <<<"$started")
  trap 'scripts/standby.sh stop "$cluster/standby" >/dev/null 2>&1 || true; scripts/test-db.sh stop "$cluster"' EXIT
  standby=$(scripts/standby.sh start "$url" "$cluster/standby")
else
  url=$(scripts/provision-db.sh postgres)
fi
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n "$(git status --porcelain 2>/dev/null)" ]]; then
  commit="$commit + uncommitted changes"
fi
args=(-database "$url" -server bin/gpuquote -commit "$commit" -out docs/PERFORMANCE.md)
if [[ "${1:-}" == soak ]]; then
  args+=(-soak "${2:-10m}")
fi
if [[ "${REPLICA:-}" == 1 ]]; then
  bin/gpuquote-bench "${args[@]}" -replica "$standby"
  exit
fi
exec bin/gpuquote-bench "${args[@]}"
