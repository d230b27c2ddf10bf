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

pg_bin_dir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [[ -x "$d/initdb" && -x "$d/pg_ctl" ]] && { echo "$d"; return 0; }
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"; return 0
  fi
  return 1
}

# can_login HOST PORT: true when user postgres can connect without a password.
can_login() {
  local bindir
  if command -v psql >/dev/null 2>&1; then
    PGCONNECT_TIMEOUT=3 psql -X -q -w -h "$1" -p "$2" -U postgres -d postgres -c 'select 1' >/dev/null 2>&1
    return $?
  fi
  if bindir=$(pg_bin_dir) && [[ -x "$bindir/psql" ]]; then
    PGCONNECT_TIMEOUT=3 "$bindir/psql" -X -q -w -h "$1" -p "$2" -U postgres -d postgres -c 'select 1' >/dev/null 2>&1
    return $?
  fi
  # Without psql, a port that answers is the best evidence we have; the
  # application reports authentication problems itself.
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

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

if ! bindir=$(pg_bin_dir); then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    say "no PostgreSQL binaries found; installing Debian's postgresql package"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2 \
      || die "installing postgresql failed; install it yourself, or run: docker compose up"
    bindir=$(pg_bin_dir) || die "postgresql installed but initdb/pg_ctl not found"
  else
    die "no PostgreSQL found: install PostgreSQL (e.g. 'sudo apt-get install postgresql'), set DATABASE_URL, or run: docker compose up"
  fi
fi

# as_pg runs a command as the user that owns the cluster: postgres when we are root
# (initdb and the server refuse to run as root), otherwise ourselves.
as_pg() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

if [[ $(id -u) -eq 0 ]]; then
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
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

# port_free PORT: nothing answers on 127.0.0.1:PORT.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
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
