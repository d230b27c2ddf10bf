#!/usr/bin/env bash
# run.sh: what `make run` does after building — provision PostgreSQL, migrate
# as the tables' owner (which also creates and grants the least-privileged
# serving role), load sample data into an empty database, then serve as the
# serving role and print the URL. The first argument names the database
# (default gpuquote; `make run DB_NAME=…`).
set -euo pipefail
cd "$(dirname "$0")/.."
dbname=${1:-gpuquote}
owner=${GPUQUOTE_OWNER_DATABASE_URL:-}
if [[ -z "$owner" ]]; then
  owner=$(scripts/provision-db.sh "$dbname") # DATABASE_URL when set, else a local server
fi
export GPUQUOTE_OWNER_DATABASE_URL=$owner
bin/gpuquote migrate
bin/gpuquote seed
DATABASE_URL=$(bin/gpuquote app-url)
export DATABASE_URL
exec bin/gpuquote serve
