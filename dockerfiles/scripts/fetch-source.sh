#!/usr/bin/env bash
# fetch-source.sh REPO REF COMMIT DEST [--submodules]
#
# Clone REPO into DEST and check out an immutable revision:
#   - COMMIT (40-hex) given: check out exactly that commit; if REF is a tag it
#     must point at COMMIT (a re-pointed tag fails the build).
#   - COMMIT empty: REF must be a tag (never a branch); check out the commit it
#     points at.  A moving name (main, master, HEAD, latest) needs a COMMIT.
#   - COMMIT abbreviated (4-39 hex: upstream's own short form, declared in the bake
#     file's ABBREVIATED list where no full commit could be had): REF must be a branch;
#     the abbreviation must name exactly one commit, and that commit must be on REF.
#     The full commit is checked out, printed, and appended as "REPO<TAB>SHORT<TAB>FULL"
#     to $FETCH_SOURCE_RECORD (default /wheels/rocm-bake-resolved.tsv), which
#     write-manifest.py puts into the versions manifest.
# Tags are kept in the clone (setuptools_scm / git describe need them) and
# blobs are fetched lazily (--filter=blob:none).  Prints "<DEST> <sha>" on success.
set -euo pipefail

repo=${1:?repo}; ref=${2:-}; commit=${3:-}; dest=${4:?dest}; submodules=${5:-}

fail() { echo "fetch-source: $*" >&2; exit 1; }

short=
if [ -n "$commit" ] && ! printf '%s' "$commit" | grep -Eq '^[0-9a-f]{40}$'; then
    printf '%s' "$commit" | grep -Eq '^[0-9a-f]{4,39}$' \
        || fail "commit '$commit' for $repo is neither a full 40-hex sha nor an abbreviated one"
    [ -n "$ref" ] || fail "abbreviated commit $commit for $repo needs its branch as REF"
    short=$commit
fi
[ -n "$commit" ] || [ -n "$ref" ] || fail "neither a ref nor a commit given for $repo"

[ ! -e "$dest" ] || fail "$dest already exists"
case "$ref" in
    main | master | HEAD | latest) [ -n "$commit" ] || fail "'$ref' is a moving reference" ;;
esac

# Retry transient network failures; never keep a half clone.
for attempt in 1 2 3; do
    git clone --filter=blob:none --no-checkout --quiet "$repo" "$dest" && break
    rm -rf "$dest"
    [ "$attempt" -lt 3 ] || fail "git clone $repo failed 3 times"
    sleep $((attempt * 5))
done
cd "$dest"

if [ -n "$short" ]; then
    git rev-parse -q --verify "refs/remotes/origin/$ref" >/dev/null \
        || fail "abbreviated commit $short for $repo: '$ref' is not a branch of $repo"
    found=$( (git rev-parse --disambiguate="$short" 2>/dev/null || true) | while read -r oid; do
        if [ "$(git cat-file -t "$oid")" = commit ]; then echo "$oid"; fi; done)
    [ -n "$found" ] || fail "abbreviated commit $short is not a commit of $repo"
    [ "$(printf '%s\n' "$found" | wc -l)" -eq 1 ] \
        || fail "abbreviated commit $short is ambiguous in $repo: $(echo $found)"
    git merge-base --is-ancestor "$found" "refs/remotes/origin/$ref" \
        || fail "commit $found ($short) is not on branch $ref of $repo"
    commit=$found
    record=${FETCH_SOURCE_RECORD:-/wheels/rocm-bake-resolved.tsv}
    mkdir -p "$(dirname "$record")"
    printf '%s\t%s\t%s\n' "$repo" "$short" "$commit" >> "$record"
    want=$commit
elif [ -n "$ref" ] && git rev-parse -q --verify "refs/tags/$ref" >/dev/null; then
    tag_commit=$(git rev-parse "refs/tags/$ref^{commit}")
    if [ -n "$commit" ] && [ "$tag_commit" != "$commit" ]; then
        fail "tag $ref of $repo points at $tag_commit, pinned commit is $commit"
    fi
    want=${commit:-$tag_commit}
elif [ -n "$commit" ]; then
    want=$commit          # REF is a branch name or a label: informational only
else
    fail "'$ref' is not a tag of $repo and no commit is pinned (branches are not accepted)"
fi

# A commit no longer on any branch/tag (e.g. a release branch was rewritten) is
# fetched by its sha; GitHub serves any reachable commit that way.
if ! git cat-file -e "$want^{commit}" 2>/dev/null; then
    git fetch --quiet --filter=blob:none origin "$want"
fi
git -c advice.detachedHead=false checkout --quiet --detach "$want"
[ "$(git rev-parse HEAD)" = "$want" ] || fail "HEAD is not $want"
case "$submodules" in
    --submodules) git submodule update --init --recursive --quiet ;;
    '') ;;
    *) fail "unknown option '$submodules' (only --submodules)" ;;
esac
echo "$dest $want"
