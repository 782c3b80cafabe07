#!/bin/sh
# The rehearsal's stand-in for the Rust toolchain tarball (RUST_URL cannot be reached here):
# installs rustc and cargo stand-ins into --prefix; rustc --version says the release it
# stands in for.
set -eu
prefix=
for arg in "$@"; do case "$arg" in --prefix=*) prefix=${arg#--prefix=} ;; esac; done
[ -n "$prefix" ] || { echo "install.sh: --prefix is required" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$prefix/bin"
install -m 0755 "$here/rustc" "$here/cargo" "$prefix/bin/"
echo "rehearsal: stand-in Rust toolchain installed into $prefix"
