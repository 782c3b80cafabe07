#!/bin/sh
# compiler-identity.sh COMPILER
#
# One line naming the compiler COMPILER runs now: "<name> <sha256>", the name it is run by
# (its driver mode: clang and clang++ are one binary) and the sha256 of the file it resolves to
# at this moment (symlinks and update-alternatives followed). COMPILER is a compiler, or one of
# install-compiler-wrappers.sh's wrappers: those name the compiler they run on a "# runs:" line,
# and the identity is that compiler's, not the wrapper's.
#
# Two uses, both so a compiler cache keys on the compiler that really runs:
#   - ccache's compiler_check (with-compiler-cache.sh sets CCACHE_COMPILERCHECK to
#     "compiler-identity.sh %compiler%"): the ccache manual (compiler_check, "a command
#     string") says that when the compiler ccache is given "actually isn't the real compiler but
#     another compiler wrapper", hashing its mtime or content cannot see a compiler change, and a
#     command that identifies the compiler is the safer choice; ccache runs it at every call;
#   - the "# identity:" line of each wrapper, which with-compiler-cache.sh brings up to date at
#     the start of each command: sccache has no such setting and hashes the file it is given
#     (mozilla/sccache#235: compilers "bottoming out in scripts may not cache correctly"), plus
#     the __VERSION__ its preprocessor probe reads (mozilla/sccache#922) -- not enough for two
#     builds of one version.
# COMPILER_IDENTITY_MEMO (a directory, optional): sha256s kept by the resolved file's device,
# inode, size, mtime and ctime (to the nanosecond), as ccache's own inode cache keeps file
# hashes, so a call does not read a 100 MB clang again; with-compiler-cache.sh gives each
# command a fresh one.
set -eu

compiler=${1:?usage: compiler-identity.sh COMPILER}
target=$compiler
case "$(head -c 2 "$compiler")" in
    '#!')
        runs=$(sed -n 's/^# runs: //p' "$compiler")
        [ -z "$runs" ] || target=$runs ;;
esac
case "$target" in
    */*) ;;
    *) target=$(command -v "$target") ;;
esac
[ -f "$target" ] || { echo "compiler-identity: $target: no such compiler" >&2; exit 2; }

# The file the compiler resolves to now (stat -L, sha256sum: symlinks followed); a memo hit
# costs one stat.
memo=${COMPILER_IDENTITY_MEMO:-}
if [ -n "$memo" ]; then
    key=$memo/$(stat -L -c '%d %i %s %y %z' "$target")
    if [ -f "$key" ]; then
        read -r sum < "$key"
    else
        sum=$(sha256sum < "$target" | cut -c1-64)
        mkdir -p "$memo"
        tmp=$(mktemp "$memo/.new.XXXXXX")
        printf '%s\n' "$sum" > "$tmp"
        mv -f "$tmp" "$key"
    fi
else
    sum=$(sha256sum < "$target" | cut -c1-64)
fi
printf '%s %s\n' "${target##*/}" "$sum"
