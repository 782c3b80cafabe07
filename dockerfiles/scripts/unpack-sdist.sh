#!/usr/bin/env bash
# unpack-sdist.sh ARCHIVE DEST VERSION COMMIT
#
# Unpack a release sdist (ARCHIVE, already checked by its sha256: the Dockerfile's
# ADD --checksum) into DEST and prove it is the release the bake file names:
#   - its PKG-INFO's Version is VERSION;
#   - the commit its vcs-versioning file records (<name>/_version.py: commit_id = 'g<hex>',
#     upstream's abbreviation) is a prefix of COMMIT, the full commit of the release tag.
# The archive is removed after it. Prints "<DEST> <Version> <commit_id>" on success.
set -euo pipefail

archive=${1:?archive}; dest=${2:?dest}; version=${3:?version}; commit=${4:?commit}

fail() { echo "unpack-sdist: $*" >&2; exit 1; }

mkdir -p "$dest"
tar -xzf "$archive" -C "$dest" --strip-components=1 --no-same-owner
rm -f "$archive"
[ -f "$dest/PKG-INFO" ] || fail "$archive has no PKG-INFO: not a release sdist"
found=$(sed -n 's/^Version: //p' "$dest/PKG-INFO" | head -n 1)
[ "$found" = "$version" ] || fail "$archive is version '$found', not $version"
name=$(sed -n 's/^Name: //p' "$dest/PKG-INFO" | head -n 1 | tr '-' '_')
recorded=$(sed -n "s/^__commit_id__ = commit_id = 'g\([0-9a-f]\{4,40\}\)'\$/\1/p" \
    "$dest/$name/_version.py" 2>/dev/null | head -n 1)
[ -n "$recorded" ] || fail "$archive records no commit ($name/_version.py commit_id)"
case "$commit" in
    "$recorded"*) ;;
    *) fail "$archive was released from commit $recorded, not $commit" ;;
esac
echo "$dest $found g$recorded"
