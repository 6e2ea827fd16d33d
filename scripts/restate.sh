#!/usr/bin/env bash
# Installs the Restate server (issue 17) from the npm registry into rectify's cache and prints
# the binary's path: `@restatedev/restate-server-linux-x64` (BSL 1.1, free to self-host) holds
# one static binary. Pinned; npm checks the tarball against the registry's integrity hash.
#
# Usage: scripts/restate.sh   (prints the path of `restate-server`)
set -euo pipefail
version=1.7.12
case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) package=@restatedev/restate-server-linux-x64 ;;
    Linux-aarch64) package=@restatedev/restate-server-linux-arm64 ;;
    *) echo "restate.sh: no Restate server package for $(uname -s)-$(uname -m)" >&2; exit 2 ;;
esac
cache="${RECTIFY_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rectify}/restate/$version"
binary="$cache/package/bin/restate-server"
if [ ! -x "$binary" ]; then
    mkdir -p "$cache"
    work=$(mktemp -d "$cache/.fetch.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    (cd "$work" && npm pack --silent "$package@$version" >/dev/null 2>"$work/npm.log") || {
        cat "$work/npm.log" >&2
        echo "restate.sh: npm pack $package@$version failed" >&2
        exit 1
    }
    tar -xzf "$work"/*.tgz -C "$work"
    rm -rf "$cache/package"
    mv "$work/package" "$cache/package"
fi
"$binary" --version >/dev/null
echo "$binary"
