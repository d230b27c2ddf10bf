#!/usr/bin/env bash
# test-db.sh start | stop DIR — the throwaway PostgreSQL cluster make test
# runs its tests on.
#
#   start  creates a cluster in a new folder (in memory, under /dev/shm,
#          when that is a writable tmpfs with 2 GiB free; else under
#          $TMPDIR), starts it on a free loopback port with durability off
#          (fsync, full_page_writes and synchronous_commit: what a crash
#          would lose is thrown away anyway), prints the folder on the first
#          line and the URL of its "postgres" database on the second.
#   stop   stops the cluster in DIR at once and removes DIR.
#
# Tests create a database per test from a migrated template; on a durable
# server each creation and drop is a round of fsyncs, here it is memory.
set -euo pipefail

say() { printf 'test-db: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

root_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$root_dir/scripts/pg-lib.sh"

case "${1:-}" in
start)
  bindir=$(need_pg_bin_dir)
  [[ $(id -u) -eq 0 ]] && need_postgres_user
  parent=${TMPDIR:-/tmp}
  if [[ -d /dev/shm && -w /dev/shm ]] && (($(df -Pk /dev/shm | awk 'NR==2 {print $4}') > 2 * 1024 * 1024)); then
    parent=/dev/shm
  fi
  dir=$(mktemp -d "$parent/gpuquote-test-pg.XXXXXX")
  chmod 755 "$dir"
  [[ $(id -u) -eq 0 ]] && chown postgres:postgres "$dir"
  as_pg "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --no-locale --no-sync >/dev/null \
    || die "initdb failed in $dir"
  port=
  for ((p = 54340; p <= 54399; p++)); do
    if port_free "$p"; then port=$p; break; fi
  done
  [[ -n "$port" ]] || die "ports 54340 to 54399 are all taken"
  as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=300" \
    start >/dev/null || die "the test cluster did not start; see $dir/server.log"
  printf '%s\npostgres://postgres@127.0.0.1:%s/postgres?sslmode=disable\n' "$dir" "$port"
  ;;
stop)
  dir=${2:?usage: test-db.sh stop DIR}
  [[ -f "$dir/data/PG_VERSION" ]] || die "$dir holds no cluster"
  bindir=$(need_pg_bin_dir)
  as_pg "$bindir/pg_ctl" -D "$dir/data" -w -t 30 -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  ;;
*)
  die "usage: test-db.sh start | stop DIR"
  ;;
esac
