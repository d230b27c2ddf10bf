#!/usr/bin/env bash
# run.sh: what `make run` does after building — provision PostgreSQL, migrate
# as the tables' owner (which also creates and grants the least-privileged
# serving role), load sample data into an empty database, then serve as the
# serving role and print the URL. The first argument names the database
# (default gpuquote; `make run DB_NAME=…`). With REPLICA=1 (`make run
# REPLICA=1`) the database is this checkout's private cluster and a hot
# standby of it is started in .data/standby (scripts/standby.sh); serve
# sends its reads there (GPUQUOTE_REPLICA_URLS, docs/SCALING.md).
set -euo pipefail
cd "$(dirname "$0")/.."
dbname=${1:-gpuquote}
owner=${GPUQUOTE_OWNER_DATABASE_URL:-}
if [[ "${REPLICA:-}" == 1 && -z "$owner" && -z "${DATABASE_URL:-}" ]]; then
  export GPUQUOTE_PRIVATE_PG=1 # a standby is made from this checkout's own cluster
fi
if [[ -z "$owner" ]]; then
  owner=$(scripts/provision-db.sh "$dbname") # DATABASE_URL when set, else a local server
fi
export GPUQUOTE_OWNER_DATABASE_URL=$owner
bin/gpuquote migrate
bin/gpuquote seed
DATABASE_URL=$(bin/gpuquote app-url)
export DATABASE_URL
if [[ "${REPLICA:-}" == 1 ]]; then
  standby=$(scripts/standby.sh start "$owner" "$PWD/.data/standby")
  [[ "$standby" =~ @127\.0\.0\.1:([0-9]+)/ ]] || { echo "run: no port in the standby's URL" >&2; exit 1; }
  sport=${BASH_REMATCH[1]}
  [[ "$DATABASE_URL" =~ ^(.*@)[^/@]+(/.*)$ ]] || { echo "run: cannot read the serving role's URL" >&2; exit 1; }
  # The standby has the primary's roles: the serving role's URL on its port.
  export GPUQUOTE_REPLICA_URLS="${BASH_REMATCH[1]}127.0.0.1:$sport${BASH_REMATCH[2]}"
  echo "run: reads go to the standby on 127.0.0.1:$sport (stop it with: scripts/standby.sh stop .data/standby)" >&2
fi
exec bin/gpuquote serve
