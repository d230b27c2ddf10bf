#!/usr/bin/env bash
# test.sh: what `make test` does — provision what the tests need (a
# throwaway PostgreSQL cluster, Chromium and a CJK font for readable
# screenshots), check formatting,
# go vet and generated code, the allocation guards without -race, then run
# every test with -race.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
die() { printf 'make test: %s\n' "$*" >&2; exit 1; }

step "browser for the browser tests, curl and jq for the API guide"
need=()
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need+=(chromium)
# The API guide's test runs docs/API.md's examples with curl and jq.
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v jq >/dev/null 2>&1 || need+=(jq)
if command -v fc-list >/dev/null 2>&1 && ! fc-list :lang=zh 2>/dev/null | grep -q .; then need+=(fonts-wqy-microhei); fi
if ((${#need[@]})); then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
  else
    die "please install: ${need[*]} (e.g. sudo apt-get install -y ${need[*]})"
  fi
fi
echo "chromium: $( (chromium --version || chromium-browser --version) 2>/dev/null | head -1)"

step "PostgreSQL: a throwaway cluster for the tests (scripts/test-db.sh)"
if [[ -z "${GPUQUOTE_TEST_DATABASE_URL:-}" ]]; then
  started=$(scripts/test-db.sh start)
  test_pg_dir=$(head -1 <<<"$started")
  trap 'scripts/test-db.sh stop "$test_pg_dir"' EXIT
  GPUQUOTE_TEST_DATABASE_URL=$(tail -1 <<<"$started")
fi
echo "tests use $GPUQUOTE_TEST_DATABASE_URL"
export GPUQUOTE_TEST_DATABASE_URL
# Tests that stop and start a private cluster run its binaries as the
# postgres user when we are root.
if [[ $(id -u) -eq 0 ]] && ! id postgres >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
fi

step "gofmt"
unformatted=$(gofmt -l $(find . -name '*.go' -not -path './.data/*' -not -path './bin/*'))
[[ -z "$unformatted" ]] || die "gofmt would change: $unformatted (run make fmt)"

step "generated templ code is up to date"
sum_templ() { find . -name '*_templ.go' -not -path './.data/*' -print0 | sort -z | xargs -0 sha256sum; }
before=$(sum_templ)
go tool templ generate -log-level error
after=$(sum_templ)
[[ "$before" == "$after" ]] || die "go tool templ generate changed *_templ.go: commit the regenerated files"

step "go vet"
go vet ./...

step "allocation guards (without -race, which changes allocation counts)"
go test -count=1 -run 'Allocations$' ./internal/tco

step "tests that check answers by the thousand, without -race (*_norace_test.go)"
# -race finds races in concurrent code and slows every request about
# sevenfold; a walk of every route with hostile values tests answers, so it
# runs here, built without it, and the -race pass below leaves it out.
norace_files=$(find . -name '*_norace_test.go' -not -path './.data/*' | sort)
for f in $norace_files; do
  [[ $(head -1 "$f") == '//go:build !race' ]] || die "$f must begin with //go:build !race"
done
if [[ -n "$norace_files" ]]; then
  norace_tests=$(grep -ho '^func Test[A-Za-z0-9_]*' $norace_files | sed 's/^func //' | paste -sd'|')
  go test -count=1 -run "^($norace_tests)\$" $(for f in $norace_files; do dirname "$f"; done | sort -u)
fi

step "go test -race"
go test -race -count=1 -timeout 30m ./...
