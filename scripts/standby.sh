#!/usr/bin/env bash
# standby.sh start PRIMARY_URL DIR | stop DIR — a hot standby of a local
# PostgreSQL server, for reads on replicas (docs/SCALING.md).
#
#   start  makes DIR a base backup of the server PRIMARY_URL names
#          (pg_basebackup -R: the standby streams the primary's WAL from
#          then on) unless DIR already holds one, starts it on the first
#          free loopback port from 54319 to 54328 unless it runs already,
#          and prints the URL of its "postgres" database. The primary must
#          let user postgres in for replication without a password (a
#          cluster made by provision-db.sh or test-db.sh does).
#   stop   stops the standby in DIR (its data stays, so start resumes it).
set -euo pipefail

say() { printf 'standby: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

root_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$root_dir/scripts/pg-lib.sh"

case "${1:-}" in
start)
  primary=${2:?usage: standby.sh start PRIMARY_URL DIR}
  dir=${3:?usage: standby.sh start PRIMARY_URL DIR}
  [[ "$primary" =~ @([^:/@]+):([0-9]+)/ ]] || die "cannot find host:port in the primary's URL"
  phost=${BASH_REMATCH[1]} pport=${BASH_REMATCH[2]}
  bindir=$(need_pg_bin_dir)
  [[ $(id -u) -eq 0 ]] && need_postgres_user
  if [[ -f "$dir/postmaster.pid" ]]; then
    port=$(sed -n 4p "$dir/postmaster.pid" 2>/dev/null || true)
    if [[ "$port" =~ ^[0-9]+$ ]] && can_login 127.0.0.1 "$port"; then
      say "the standby in $dir runs already (port $port)"
      printf 'postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable\n' "$port"
      exit 0
    fi
  fi
  if [[ ! -f "$dir/standby.signal" ]]; then
    [[ -e "$dir" && -n "$(ls -A "$dir" 2>/dev/null)" ]] && die "$dir is not empty and holds no standby"
    mkdir -p "$dir"
    chmod 700 "$dir"
    [[ $(id -u) -eq 0 ]] && chown postgres:postgres "$dir"
    say "taking a base backup of $phost:$pport into $dir"
    # (A primary whose socket lies in its data folder makes pg_basebackup
    # warn that it skips the socket: that is all it skips.)
    as_pg "$bindir/pg_basebackup" -D "$dir" -R -X stream -c fast -h "$phost" -p "$pport" -U postgres -w \
      2> >(grep -v 'skipping special file' >&2) \
      || die "pg_basebackup failed: the primary must allow replication connections from user postgres"
  fi
  port=
  for ((p = 54319; p <= 54328; p++)); do
    if port_free "$p"; then port=$p; break; fi
  done
  [[ -n "$port" ]] || die "ports 54319 to 54328 are all taken"
  # A hot standby refuses to start with fewer connections than its primary
  # allows.
  conns=$("$bindir/psql" -X -A -t -w -h "$phost" -p "$pport" -U postgres -d postgres -c 'SHOW max_connections' 2>/dev/null || echo 100)
  [[ "$conns" =~ ^[0-9]+$ ]] || conns=100
  say "starting the standby on 127.0.0.1:$port"
  as_pg "$bindir/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c hot_standby=on -c max_connections=$conns" start >/dev/null \
    || die "the standby did not start; see $dir/server.log"
  printf 'postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable\n' "$port"
  ;;
stop)
  dir=${2:?usage: standby.sh stop DIR}
  [[ -f "$dir/standby.signal" ]] || die "$dir holds no standby"
  bindir=$(need_pg_bin_dir)
  as_pg "$bindir/pg_ctl" -D "$dir" -w -t 30 -m fast stop >/dev/null 2>&1 || true
  ;;
*)
  die "usage: standby.sh start PRIMARY_URL DIR | stop DIR"
  ;;
esac
