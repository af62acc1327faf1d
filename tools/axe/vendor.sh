#!/bin/sh
# Vendors axe-core (MPL-2.0), the accessibility engine the Chromium view
# checks run on every view (tests/viewcheck_chromium_test.go), into
# tests/testdata/axe. Test-only: the binary does not embed it.
# Run from the repository root: tools/axe/vendor.sh [version]
set -eu
version=${1:-4.14.1}
out=tests/testdata/axe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack "axe-core@$version" --silent >/dev/null && tar xzf ./*.tgz)
mkdir -p "$out"
cp "$tmp/package/axe.min.js" "$tmp/package/LICENSE" "$out/"
echo "$version" >"$out/VERSION"
echo "vendored axe-core $version into $out"
