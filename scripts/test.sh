#!/usr/bin/env bash
# test.sh: what `make test` does — provision what the tests need (a
# throwaway PostgreSQL cluster, Chromium and a CJK font for readable
# screenshots), check formatting,
# go vet and generated code, the allocation guards without -race, then run
# every test with -race.
#
# test.sh quick [PACKAGES]: the inner loop — the throwaway cluster and
# go test without -race for PACKAGES (default ./...), nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
# Builds leave this checkout's path out of what they compile, so a fresh
# clone elsewhere finds what an earlier run compiled in Go's build cache,
# and the newcomer test's `make run` (built -trimpath) reuses the test
# builds' packages.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"

step() { printf '\n==> %s (at %ds)\n' "$*" "$SECONDS"; }
die() { printf 'make test: %s\n' "$*" >&2; exit 1; }

# oaslint installs the two OpenAPI linters TestOpenAPILinters runs
# (internal/apispec), at the versions tools/oaslint/package-lock.json pins,
# from the npm registry; again only when the lock file changed.
oaslint() {
  command -v npm >/dev/null 2>&1 || die "please install Node.js and npm (e.g. sudo apt-get install -y nodejs npm): the OpenAPI linters need them"
  local stamp=tools/oaslint/node_modules/.gpuquote-lock.sha256 want
  want=$(sha256sum tools/oaslint/package-lock.json | cut -d' ' -f1)
  if [[ ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
    npm ci --prefix tools/oaslint --no-audit --no-fund --ignore-scripts --loglevel=error
    echo "$want" >"$stamp"
  fi
}

if [[ $mode == quick ]]; then
  shift
  if [[ -z "${GPUQUOTE_TEST_DATABASE_URL:-}" ]]; then
    started=$(scripts/test-db.sh start)
    test_pg_dir=$(head -1 <<<"$started")
    trap 'scripts/test-db.sh stop "$test_pg_dir"' EXIT
    export GPUQUOTE_TEST_DATABASE_URL=$(tail -1 <<<"$started")
  fi
  oaslint
  go test -count=1 "${@:-./...}"
  exit
fi

step "browser for the browser tests, curl and jq for the API guide, npm for the OpenAPI linters"
need=()
# The browser tests prefer Chromium's old headless shell (Debian's chromium-headless-shell):
# no window to draw, so it starts and renders faster than the full browser's headless mode.
if ! command -v chromium-headless-shell >/dev/null 2>&1; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1 &&
    { apt-cache show chromium-headless-shell >/dev/null 2>&1 ||
      { apt-get update -qq && apt-cache show chromium-headless-shell >/dev/null 2>&1; }; }; then
    need+=(chromium-headless-shell)
  else
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need+=(chromium)
  fi
fi
# The API guide's test runs docs/API.md's examples with curl and jq.
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v jq >/dev/null 2>&1 || need+=(jq)
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
if command -v fc-list >/dev/null 2>&1 && ! fc-list :lang=zh 2>/dev/null | grep -q .; then need+=(fonts-wqy-microhei); fi
if ((${#need[@]})); then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
  else
    die "please install: ${need[*]} (e.g. sudo apt-get install -y ${need[*]})"
  fi
fi
echo "chromium: $( (chromium-headless-shell --version || chromium --version || chromium-browser --version) 2>/dev/null | head -1)"

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

step "the OpenAPI linters (npm ci in tools/oaslint when its lock file changed)"
oaslint

step "gofmt"
unformatted=$(gofmt -l $(find . -name '*.go' -not -path './.data/*' -not -path './bin/*'))
[[ -z "$unformatted" ]] || die "gofmt would change: $unformatted (run make fmt)"

step "generated templ code is up to date"
sum_templ() { find . -name '*_templ.go' -not -path './.data/*' -print0 | sort -z | xargs -0 sha256sum; }
before=$(sum_templ)
go tool templ generate -log-level error
after=$(sum_templ)
[[ "$before" == "$after" ]] || die "go tool templ generate changed *_templ.go: commit the regenerated files"

step "allocation guards (without -race, which changes allocation counts)"
go test -count=1 -run 'Allocations$' ./internal/tco

# Two passes of the tests and go vet, at once, so neither core waits:
#  - with -race, every test but the browser tests and those in
#    *_norace_test.go files;
#  - without -race, those: -race finds races in concurrent server code and
#    slows every request several times over, while a browser test checks
#    what a page shows (Chromium does most of its work) and the route walk
#    and the route policy table send thousands of requests one after
#    another to check their answers. What they could race on (the
#    server's caches, pools and background work) runs under -race in the
#    first pass's tests.
step "go vet, the tests with -race, and the browser tests and *_norace_test.go without it, at once"
norace_files=$(find . -name '*_norace_test.go' -not -path './.data/*' | sort)
for f in $norace_files; do
  [[ $(head -1 "$f") == '//go:build !race' ]] || die "$f must begin with //go:build !race"
done
norace_tests=$(grep -ho '^func Test[A-Za-z0-9_]*' $norace_files /dev/null | sed 's/^func //' | paste -sd'|')
norace_pkgs=$( { for f in $norace_files; do dirname "$f"; done
  grep -rl --include='*_test.go' '^func TestBrowser' . | grep -v '^./.data/' | xargs -r -n1 dirname; } | sort -u)
logs=$(mktemp -d)
trap 'rm -rf "$logs"; ${test_pg_dir:+scripts/test-db.sh stop "$test_pg_dir"}' EXIT
go vet ./... >"$logs/vet" 2>&1 &
vet_pid=$!
go test -count=1 -timeout 30m -run "^(TestBrowser.*${norace_tests:+|$norace_tests})\$" $norace_pkgs >"$logs/norace" 2>&1 &
norace_pid=$!
race_rc=0
go test -race -count=1 -timeout 30m -skip '^TestBrowser' ./... || race_rc=$?
echo "(the tests with -race ended at ${SECONDS}s)"
vet_rc=0; wait "$vet_pid" || vet_rc=$?
norace_rc=0; wait "$norace_pid" || norace_rc=$?
echo "(the tests without -race ended by ${SECONDS}s)"
step "go vet"
cat "$logs/vet"
step "the browser tests and *_norace_test.go, without -race"
cat "$logs/norace"
((vet_rc == 0)) || die "go vet failed"
((race_rc == 0)) || die "go test -race failed"
((norace_rc == 0)) || die "the tests without -race failed"
echo "make test: everything passed in ${SECONDS}s"
