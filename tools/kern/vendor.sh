#!/bin/sh
# Vendors the KERN UX design system (@kern-ux/native, EUPL-1.2, the open UX
# standard of German administration) into handlers/ui/kern, from which the
# binary embeds it: the pages never load it from a third-party address.
# Run from the repository root: tools/kern/vendor.sh [version]
set -eu
version=${1:-2.7.2}
out=handlers/ui/kern
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack "@kern-ux/native@$version" --silent >/dev/null && tar xzf ./*.tgz)
mkdir -p "$out/fonts"
cp "$tmp/package/dist/kern.min.css" "$out/kern.min.css"
cp "$tmp/package/LICENSE.md" "$out/LICENSE.md"
for f in Regular Italic SemiBold Bold; do
	cp "$tmp/package/dist/fonts/fira-sans/FiraSans-$f.woff2" "$out/fonts/FiraSans-$f.woff2"
done
cp "$tmp/package/dist/fonts/fira-sans/"*OFL* "$out/fonts/" 2>/dev/null || true
echo "$version" >"$out/VERSION"
echo "vendored @kern-ux/native $version into $out"
