#!/usr/bin/env bash
# run.sh: what `make run` does after building — provision PostgreSQL, migrate,
# load sample data into an empty database, then serve and print the URL.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${DATABASE_URL:-}" ]]; then
  DATABASE_URL=$(scripts/provision-db.sh gpuquote)
fi
export DATABASE_URL
bin/gpuquote migrate
bin/gpuquote seed
exec bin/gpuquote serve
