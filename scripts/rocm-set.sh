#!/usr/bin/env bash
# rocm-set.sh - the newest coherent ROCm MAJOR.x set of Debian packages: one ROCm version that
# every wanted package has, read from apt Packages lists.  Sourced by hip-toolchain.sh and
# cachestack.sh (after engine.sh); run as a program for tests:
#   scripts/rocm-set.sh MAJOR 'PKG...' SUITE=PACKAGES_FILE...
# prints the set (see rocm_set); exit status 2 with one line when there is none.
set -Eeuo pipefail

# rocm_upstream DEBIAN_VERSION: the ROCm version a Debian version packages: no epoch, no
# Debian revision, nothing from the first + or ~ (7.2.4+dfsg-1~exp1 -> 7.2.4).
rocm_upstream() {
    local v=$1
    case "$v" in *:*) v=${v#*:} ;; esac
    case "$v" in *-*) v=${v%-*} ;; esac
    printf '%s\n' "${v%%[+~]*}"
}

# rocm_set MAJOR 'PKG...' SUITE=PACKAGES_FILE...: the newest ROCm version MAJOR.* that every
# PKG has in one of the lists, and for each PKG its newest Debian version of that ROCm version
# (any suite).  Prints the set on stdout:
#   ROCM_VERSION
#   PKG=DEBIAN_VERSION SUITE        one line per PKG, in the order given
# None (no MAJOR.x at all, only another major, no version all PKGs share): dies with one line
# naming what each list has of each PKG.
rocm_set() {
    local major=$1 wanted=$2
    shift 2
    local -a pkgs rows=()
    read -r -a pkgs <<<"$wanted"
    local arg suites=() row
    for arg in "$@"; do
        [ -r "${arg#*=}" ] || die "rocm_set: cannot read the Packages list ${arg#*=}"
        suites+=("${arg%%=*}")
        while IFS= read -r row; do rows+=("$row"); done < <(
            awk -v suite="${arg%%=*}" -v want=" $wanted " '
                function emit() { if (p != "" && index(want, " " p " ")) print p, v, suite; p = ""; v = "" }
                /^Package:/ { p = $2 }
                /^Version:/ { v = $2 }
                /^$/ { emit() }
                END { emit() }' "${arg#*=}")
    done
    # Every ROCm version MAJOR.* a package has, newest first; the first one all packages share.
    local -A has=()
    local p v s r
    for row in "${rows[@]}"; do
        read -r p v s <<<"$row"
        r=$(rocm_upstream "$v")
        if [[ "$r" =~ ^${major}(\.[0-9]+)+$ ]]; then has["$r"]+=" $p "; fi
    done
    local chosen="" ok
    for r in $(printf '%s\n' "${!has[@]}" | sort -rV); do
        ok=1
        for p in "${pkgs[@]}"; do
            case "${has[$r]}" in *" $p "*) ;; *) ok=0 ;; esac
        done
        if [ "$ok" = 1 ]; then chosen=$r && break; fi
    done
    [ -n "$chosen" ] || die "no ROCm $major.x version that all of ${pkgs[*]} have in ${suites[*]}; found: $(rocm_found "${pkgs[*]}" "${rows[@]}")"
    printf '%s\n' "$chosen"
    local best best_suite q
    for p in "${pkgs[@]}"; do
        best="" best_suite=""
        for row in "${rows[@]}"; do
            read -r q v s <<<"$row"
            [ "$q" = "$p" ] && [ "$(rocm_upstream "$v")" = "$chosen" ] || continue
            if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then
                best=$v best_suite=$s
            fi
        done
        printf '%s=%s %s\n' "$p" "$best" "$best_suite"
    done
}

# rocm_found 'PKG...' ROW...: "PKG VERSION (SUITE), ...; PKG none; ..." for the error line.
rocm_found() {
    local -a pkgs
    read -r -a pkgs <<<"$1"
    shift
    local p row r v s out="" seen
    for p in "${pkgs[@]}"; do
        seen=""
        for row in "$@"; do
            read -r r v s <<<"$row"
            if [ "$r" = "$p" ]; then seen+="${seen:+, }$v ($s)"; fi
        done
        out+="${out:+; }$p ${seen:-none}"
    done
    printf '%s\n' "$out"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    # shellcheck source=engine.sh
    . "$(dirname "${BASH_SOURCE[0]}")/engine.sh"
    PROG=rocm-set.sh
    [ "$#" -ge 3 ] || die "usage: $PROG MAJOR 'PKG...' SUITE=PACKAGES_FILE..."
    rocm_set "$@"
fi
