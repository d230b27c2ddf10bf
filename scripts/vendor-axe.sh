#!/usr/bin/env bash
# vendor-axe.sh refreshes internal/testutil/axe/axe.min.js from the npm
# package axe-core@4.10.3 (Deque Systems, MPL-2.0) and checks the version
# string inside the file. Only the tests load it (testutil.Axe injects it
# into the pages a browser test opens); the server never serves it.
set -euo pipefail
version=4.10.3
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "axe-core@$version" >/dev/null && tar xzf "axe-core-$version.tgz")
head -c 200 "$tmp/package/axe.min.js" | grep -q "axe v$version" || { echo "unexpected axe-core version" >&2; exit 1; }
cp "$tmp/package/axe.min.js" "$root/internal/testutil/axe/axe.min.js"
cp "$tmp/package/LICENSE" "$root/internal/testutil/axe/axe.LICENSE.txt"
cp "$tmp/package/LICENSE-3RD-PARTY.txt" "$root/internal/testutil/axe/axe.LICENSE-3RD-PARTY.txt"
echo "internal/testutil/axe/axe.min.js is axe-core $version"
