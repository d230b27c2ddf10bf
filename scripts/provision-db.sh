#!/usr/bin/env bash
# provision-db.sh [DBNAME] prints the URL of database DBNAME (default
# "postgres") on a PostgreSQL server that gpuquote and its tests can use,
# making a server exist if needed. The database itself is created by
# "gpuquote migrate" when missing. Messages go to stderr; only the URL goes to
# stdout.
#
# Order of preference:
#   1. DATABASE_URL when set (used as given);
#   2. a PostgreSQL answering at 127.0.0.1:5432 that lets user "postgres" in
#      without a password;
#   3. this checkout's private cluster under ./.data/postgres (trust auth on
#      loopback only): the one already running there, else started on the
#      first free port from 54329 to 54339 (a cluster of another checkout on
#      54329 is never mistaken for this one); created first with the
#      installed PostgreSQL binaries, and when none are installed and we are
#      root, Debian's "postgresql" package is installed before that.
#      GPUQUOTE_PRIVATE_PG=1 skips step 2.
# Anything else ends with one clear message naming what to install.
set -euo pipefail

say() { printf 'provision-db: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

root_dir=$(cd "$(dirname "$0")/.." && pwd)
data_dir="$root_dir/.data/postgres"
first_private_port=54329
last_private_port=54339
dbname=${1:-postgres}

if [[ -n "${DATABASE_URL:-}" ]]; then
  printf '%s\n' "$DATABASE_URL"
  exit 0
fi

. "$root_dir/scripts/pg-lib.sh"

if [[ "${GPUQUOTE_PRIVATE_PG:-}" != 1 ]] && can_login 127.0.0.1 5432; then
  say "using PostgreSQL at 127.0.0.1:5432"
  printf 'postgres://postgres@127.0.0.1:5432/%s?sslmode=disable\n' "$dbname"
  exit 0
fi

# The private cluster of this checkout, when it runs: postmaster.pid names
# its port on the fourth line.
if [[ -f "$data_dir/postmaster.pid" ]]; then
  running_port=$(sed -n 4p "$data_dir/postmaster.pid" 2>/dev/null || true)
  if [[ "$running_port" =~ ^[0-9]+$ ]] && can_login 127.0.0.1 "$running_port"; then
    say "using the private cluster in .data/postgres (port $running_port)"
    printf 'postgres://postgres@127.0.0.1:%s/%s?sslmode=disable\n' "$running_port" "$dbname"
    exit 0
  fi
fi

bindir=$(need_pg_bin_dir)

if [[ $(id -u) -eq 0 ]]; then
  need_postgres_user
  # The postgres user must be able to reach the data folder.
  if ! runuser -u postgres -- test -x "$root_dir"; then
    die "user postgres cannot enter $root_dir; make it world-searchable (chmod o+x on each parent) or set DATABASE_URL"
  fi
fi

mkdir -p "$data_dir"
if [[ ! -f "$data_dir/PG_VERSION" ]]; then
  say "creating a private cluster in .data/postgres"
  [[ $(id -u) -eq 0 ]] && chown postgres:postgres "$data_dir"
  chmod 700 "$data_dir"
  as_pg "$bindir/initdb" -D "$data_dir" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null \
    || as_pg "$bindir/initdb" -D "$data_dir" -U postgres --auth=trust --encoding=UTF8 --no-locale >/dev/null \
    || die "initdb failed in .data/postgres"
fi

private_port=
for ((p = first_private_port; p <= last_private_port; p++)); do
  if port_free "$p"; then private_port=$p; break; fi
done
[[ -n "$private_port" ]] || die "ports $first_private_port to $last_private_port are all taken; free one, or set DATABASE_URL"

say "starting the private cluster on 127.0.0.1:$private_port"
as_pg "$bindir/pg_ctl" -D "$data_dir" -l "$data_dir/server.log" -w -t 30 \
  -o "-c listen_addresses=127.0.0.1 -p $private_port -k $data_dir" start >/dev/null \
  || die "the private cluster did not start; see .data/postgres/server.log"

printf 'postgres://postgres@127.0.0.1:%s/%s?sslmode=disable\n' "$private_port" "$dbname"
