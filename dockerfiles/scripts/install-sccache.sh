#!/usr/bin/env bash
# install-sccache.sh VERSION [SHA256]
#
# Install the sccache release VERSION (x86_64-unknown-linux-musl tarball of mozilla/sccache)
# into /usr/local/bin.  Fails closed: only versions in the allow-list below install, the
# download must match the listed sha256, and a SHA256 given by the caller (the bake file's
# SCCACHE_SHA256) must be the listed one too.  Add a version only together with its sha256.
set -euo pipefail

version=${1:?usage: install-sccache.sh VERSION [SHA256]}
expected_by_caller=${2:-}
target=x86_64-unknown-linux-musl

fail() { echo "install-sccache: $*" >&2; exit 1; }

[ "$(uname -m)" = x86_64 ] || fail "only x86_64 is allow-listed (this is $(uname -m))"
case "$version" in
    0.14.0) sha256=8424b38cda4ecce616a1557d81328f3d7c96503a171eab79942fad618b42af44 ;;
    *) fail "sccache $version is not in the allow-list (known: 0.14.0)" ;;
esac
if [ -n "$expected_by_caller" ] && [ "$expected_by_caller" != "$sha256" ]; then
    fail "sha256 $expected_by_caller given for sccache $version, the allow-list says $sha256"
fi

# The rehearsal (inv rehearse, docs/rehearsal.md) cannot reach GitHub: its stand-in base image
# names a stand-in binary here, which is installed in the download's place and listed.  No
# production base sets it.
if [ -n "${ROCM_BAKE_REHEARSAL_SCCACHE:-}" ]; then
    install -m 0755 "$ROCM_BAKE_REHEARSAL_SCCACHE" /usr/local/bin/sccache
    echo "rehearsal: stand-in sccache for v${version} (${sha256}): $(sccache --version)"
    exit 0
fi

tarball="sccache-v${version}-${target}.tar.gz"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
curl -fsSL --retry 3 -o "$work/$tarball" \
    "https://github.com/mozilla/sccache/releases/download/v${version}/${tarball}"
printf '%s  %s\n' "$sha256" "$work/$tarball" | sha256sum --check --strict --quiet - \
    || fail "sha256 mismatch for $tarball"
tar -xzf "$work/$tarball" -C "$work"
install -m 0755 "$work/sccache-v${version}-${target}/sccache" /usr/local/bin/sccache
sccache --version
