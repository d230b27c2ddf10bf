# pg-lib.sh: what provision-db.sh and test-db.sh share — finding (or, as
# root on Debian, installing) PostgreSQL's programs, running them as the
# user that owns a cluster, and telling whether a port answers. Sourced;
# expects say and die.

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

# need_pg_bin_dir prints the folder of initdb and pg_ctl, installing
# Debian's postgresql package first when there are none and we are root.
need_pg_bin_dir() {
  local bindir
  if bindir=$(pg_bin_dir); then
    echo "$bindir"
    return 0
  fi
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    say "no PostgreSQL binaries found; installing Debian's postgresql package"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2 \
      || die "installing postgresql failed; install it yourself, or run: docker compose up"
    pg_bin_dir || die "postgresql installed but initdb/pg_ctl not found"
    return 0
  fi
  die "no PostgreSQL found: install PostgreSQL (e.g. 'sudo apt-get install postgresql'), set DATABASE_URL, or run: docker compose up"
}

# need_postgres_user makes the postgres user exist (as root: initdb and the
# server refuse to run as root, so they run as that user).
need_postgres_user() {
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
}

# as_pg runs a command as the user that owns the cluster: postgres when we are root
# (initdb and the server refuse to run as root), otherwise ourselves.
as_pg() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}


# port_free PORT: nothing answers on 127.0.0.1:PORT.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
