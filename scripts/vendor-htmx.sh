#!/usr/bin/env bash
# vendor-htmx.sh refreshes static/js/htmx.min.js from the npm package
# htmx.org@2.0.11 (the 2.x line; 4.x is a different API) and checks the
# version string inside the file.
set -euo pipefail
version=2.0.11
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "htmx.org@$version" >/dev/null && tar xzf "htmx.org-$version.tgz")
grep -q "version:\"$version\"" "$tmp/package/dist/htmx.min.js" || { echo "unexpected htmx version" >&2; exit 1; }
cp "$tmp/package/dist/htmx.min.js" "$root/static/js/htmx.min.js"
cp "$tmp/package/LICENSE" "$root/static/js/htmx.LICENSE.txt"
echo "static/js/htmx.min.js is htmx $version"
