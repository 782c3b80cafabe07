"""inv verify-repro: build one target twice from empty caches and compare the images."""

from __future__ import annotations

import tempfile
from pathlib import Path

from invoke.context import Context
from invoke.exceptions import Exit
from invoke.tasks import task

from tasks._cli import reports_errors

EXIT_DIFFERENT = 1


@task(iterable=["file", "set_"], help={
    "target": "the one target to check, e.g. vllm-gfx950 (it must pass SOURCE_DATE_EPOCH)",
    "image": "instead of a target: a published image, HOST[:PORT]/REPOSITORY:TAG, rebuilt from "
             "its provenance (cell and pins, inv inspect) and compared with the registry's",
    "file": "bake file (repeatable; default: rocm-bake.hcl)",
    "set_": "NAME=VALUE sets a bake variable; TARGET.FIELD=VALUE is passed to buildx --set",
    "runs": "how many builds to compare (default 2)",
    "keep": "keep the OCI tarballs and build logs in this directory",
    "expect": "an expectation file (from --record): the image must be the recorded one",
    "record": "write the expectation of a reproducible result to this file (the other "
              "engines' encodings it records for the same image are kept)",
    "cache_invariant": "build TARGET once per compiler-cache cell (CACHE_TYPE=none, ccache cold "
                       "then warm, sccache cold then warm): every image must be the same",
})
@reports_errors
def verify_repro(c: Context, target: str = "", file: list[str] | None = None,
                 set_: list[str] | None = None, runs: int = 2, keep: str = "", expect: str = "",
                 record: str = "", image: str = "", cache_invariant: bool = False) -> None:
    """Build TARGET twice with --no-cache and SOURCE_DATE_EPOCH; the same image or not.

    The image is its identity: the digest of its config without the history (every layer's
    diff_id, the runtime config), the same on any engine. Its manifest digest is this
    engine's encoding (the layers' compression, the history's texts), printed with the
    engine's Docker and BuildKit versions (`encoding:`), never compared across engines.
    When the builds differ: the first differing layer, its build step and its differing files.
    With --expect FILE the identity must also be the one recorded there (on any machine and
    engine); when it is not, a differing input (a `*_IMAGE` base image, by its layers) is
    named, else the first differing layer and its files. --record FILE writes that
    expectation, with this engine's encoding beside those of other engines the file records.
    Then the arch audit of the image's OCI tarball: its cell's arch, exactly (one `arch:` line).

    With --image REF instead of a target: the published image is rebuilt once from what its
    provenance says made it (the cell of its versions statement, its pins as the bake
    variables) and its identity (its config, read from the registry) compared with the
    rebuild's: "agrees", or the first differing layer and its files (the published image read
    with skopeo). Each side's manifest digest is printed with its engine (the pushing one, as
    its versions statement records it): on another engine they differ, and that is no
    disagreement. That is a release's check against the cached nightly's image.

    Every build here is of the release trust tier: no shared cache is read or written (no
    cache-from, no compiler-cache store; one named, CACHE_STORE_URL say, is refused in one
    line).

    With --cache-invariant: TARGET built once per compiler-cache cell, every RUN step run
    again each time (a new BUILDKIT_SANDBOX_HOSTNAME: the layer cache never serves them, the
    compiler cache does): CACHE_TYPE=none, ccache cold (new, empty cache mounts: a new
    BUILDKIT_CACHE_MOUNT_NS; no other build's are touched) then warm (the same mounts),
    sccache cold then warm. One line per cell: its
    identity and the cache's own hits and misses; every identity must be the first's (and the
    --expect one), else the first differing layer and its files (the object file a hit
    changed); a warm cell must be all hits.

    Exit status: 0 reproducible (and as expected) with the right archs, 1 the images differ,
    the image is not the expected one, a cache cell changed the image or a warm one missed, a
    published image disagrees with its rebuild or an
    ELF carries a wrong arch, 2 it could not run or the image could not be audited.
    """
    from rocm_bake.core.errors import UsageError
    from rocm_bake.model import bakefile
    from rocm_bake.reproducible import verify as repro

    files = list(file or []) or [bakefile.DEFAULT_FILE]
    if image:
        if target:
            raise UsageError("verify-repro takes a --target or an --image, not both")
        _verify_published(image, files, keep)
        return
    if not target:
        raise UsageError("verify-repro needs a --target (or an --image)")
    set_ = list(set_ or [])
    if cache_invariant:
        _verify_cache_invariant(target, files, set_, keep, expect, record)
        return
    with tempfile.TemporaryDirectory(prefix="rocm-bake-repro-") as scratch:
        workdir = Path(keep) if keep else Path(scratch)
        verdict = repro.verify(target, files, workdir, sets=set_, runs=runs,
                               expect=Path(expect) if expect else None,
                               record=Path(record) if record else None)
    print(f"{verdict.target}: SOURCE_DATE_EPOCH={verdict.source_date_epoch}")
    for number, built in enumerate(verdict.images, 1):
        print(f"build {number}: {built.identity} (manifest {built.digest})")
    if verdict.arch_audit is not None:
        for line in verdict.arch_audit.lines():
            print(f"arch: {line}")
    if not verdict.reproducible:
        for line in [*verdict.differences(), *verdict.layer_changes]:
            print(line)
        raise Exit(f"verify-repro: {target} is not reproducible", code=EXIT_DIFFERENT)
    print(f"reproducible: {verdict.images[0].identity}")
    print(verdict.encoding)
    if not verdict.one_encoding:
        print("the builds' manifests differ: this engine encoded the same image differently "
              "each time (its compressor), so a rebuild here gives another manifest digest")
    _expectation(target, verdict.unexpected, expect, record,
                 "; it reproduces here, so what differs above is an input or a file of the "
                 f"build: if you changed it on purpose, record it with --record {expect}")
    if verdict.exit_code:
        raise Exit(f"verify-repro: the arch audit of {target} failed (the arch: line)",
                   code=verdict.exit_code)


def _verify_published(image: str, files: list[str], keep: str) -> None:
    from rocm_bake.reproducible import verify as repro

    with tempfile.TemporaryDirectory(prefix="rocm-bake-repro-") as scratch:
        result = repro.verify_published(image, files, Path(keep) if keep else Path(scratch))
    print(f"{result.reference}: cell {result.cell}, pins "
          + " ".join(f"{k}={v}" for k, v in sorted(result.pins.items())))
    print(f"published: {result.identity} (manifest {result.digest}, "
          f"{result.engine or 'its engine not recorded'})")
    print(f"rebuilt:   {result.rebuilt.identity} (manifest {result.rebuilt.digest}, "
          f"{result.rebuilt_engine})")
    if not result.agrees:
        for line in result.changes:
            print(line)
        raise Exit(f"verify-repro: {image} is not what its provenance rebuilds",
                   code=EXIT_DIFFERENT)
    same = result.digest == result.rebuilt.digest
    print(f"agrees: {result.identity}" + ("" if same else " (the manifests differ: each is "
                                          "its engine's encoding of the same image)"))


def _verify_cache_invariant(target: str, files: list[str], sets: list[str], keep: str,
                            expect: str, record: str) -> None:
    from rocm_bake.reproducible import verify as repro

    with tempfile.TemporaryDirectory(prefix="rocm-bake-repro-") as scratch:
        verdict = repro.verify_cache_invariant(target, files, Path(keep) if keep else
                                               Path(scratch), sets,
                                               expect=Path(expect) if expect else None,
                                               record=Path(record) if record else None)
    for build in verdict.builds:
        print(build.line())
    if not verdict.invariant:
        for line in verdict.changes:
            print(line)
        raise Exit(f"verify-repro: the compiler cache changes {target}", code=EXIT_DIFFERENT)
    print(f"cache-invariant: {verdict.builds[0].image.identity}")
    _expectation(target, verdict.unexpected, expect, record)
    if verdict.warm_misses:
        raise Exit(f"verify-repro: {', '.join(verdict.warm_misses)} compiled instead of "
                   "hitting the cache", code=EXIT_DIFFERENT)


def _expectation(target: str, unexpected: tuple[str, ...] | None, expect: str, record: str,
                 why: str = "") -> None:
    """How the build compares with --expect (each difference, then exit 1) and what --record
    wrote."""
    if unexpected:
        for line in unexpected:
            print(line)
        raise Exit(f"verify-repro: {target} is not the expected image ({expect}){why}",
                   code=EXIT_DIFFERENT)
    if unexpected is not None:
        print(f"as expected: {expect}")
    if record:
        print(f"recorded: {record}")
