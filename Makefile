# gpuquote — the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
GO    ?= go
BIN   := bin/gpuquote
# DB_NAME is the database make run uses (created by migrate when missing).
DB_NAME ?= gpuquote
# REPLICA=1: make run also starts a hot standby and serves reads from it;
# make bench also measures two server processes reading on a standby.
REPLICA ?=

.PHONY: run test test-quick bench soak build generate fmt vet clean

## run: provision PostgreSQL if needed, migrate, load sample data into an empty database, serve (REPLICA=1: with a hot standby for reads)
run: build
	@REPLICA="$(REPLICA)" scripts/run.sh "$(DB_NAME)"

## test: provision PostgreSQL and Chromium, check formatting, vet and generated code, run every test with -race
test:
	@scripts/test.sh

## test-quick: the inner loop, go test without -race on a throwaway cluster (PKG=./internal/quote for one package)
PKG ?= ./...
test-quick:
	@scripts/test.sh quick $(PKG)

## bench: measure the main pages under load against ceilings served by the same binary (docs/PERFORMANCE.md; REPLICA=1: also two processes on a standby)
bench: generate
	@REPLICA="$(REPLICA)" scripts/bench.sh

## soak: hold the compare page and the evaluation API together at about 70 % of capacity for 10 minutes
soak: generate
	@scripts/bench.sh soak 10m

## build: compile the server into bin/gpuquote
build: generate
	$(GO) build -trimpath -o $(BIN) ./cmd/gpuquote

## generate: regenerate templ components and the generated API client (committed; make test fails when they are stale)
generate:
	$(GO) tool templ generate -log-level error
	$(GO) generate ./internal/apiclient

## fmt: format Go and templ sources
fmt:
	gofmt -w $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.data/*')
	$(GO) tool templ fmt web

vet:
	$(GO) vet ./...

clean:
	rm -rf bin
