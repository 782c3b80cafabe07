"""inv verify-repro: build one target twice from empty caches and compare the image digests."""

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
    "file": "bake file (repeatable; default: rocm-bake.hcl)",
    "set_": "NAME=VALUE sets a bake variable; TARGET.FIELD=VALUE is passed to buildx --set",
    "runs": "how many builds to compare (default 2)",
    "keep": "keep the OCI tarballs and build logs in this directory",
    "expect": "an expectation file (from --record): the digest must be the recorded one",
    "record": "write the expectation of a reproducible result to this file",
})
@reports_errors
def verify_repro(c: Context, target: str, file: list[str], set_: list[str], runs: int = 2,
                 keep: str = "", expect: str = "", record: str = "") -> None:
    """Build TARGET twice with --no-cache and SOURCE_DATE_EPOCH; same image digest or not.

    When they differ: the first differing layer, its build step and its differing files.
    With --expect FILE the digest must also be the one recorded there (on any machine); when
    it is not, a differing input (a `*_IMAGE` base image, by its layers) is named, else the
    first differing layer and its files. --record FILE writes that expectation.
    Then the arch audit of the image's OCI tarball: its cell's arch, exactly (one `arch:` line).

    Exit status: 0 reproducible (and as expected) with the right archs, 1 the digests differ,
    the digest is not the expected one or an ELF carries a wrong arch, 2 it could not run or
    the image could not be audited.
    """
    from rocm_bake.model import bakefile
    from rocm_bake.reproducible import verify as repro

    files = list(file) or [bakefile.DEFAULT_FILE]
    with tempfile.TemporaryDirectory(prefix="rocm-bake-repro-") as scratch:
        workdir = Path(keep) if keep else Path(scratch)
        verdict = repro.verify(target, files, workdir, sets=set_, runs=runs,
                               expect=Path(expect) if expect else None,
                               record=Path(record) if record else None)
    print(f"{verdict.target}: SOURCE_DATE_EPOCH={verdict.source_date_epoch}")
    for number, image in enumerate(verdict.images, 1):
        print(f"build {number}: {image.digest}")
    if verdict.arch_audit is not None:
        for line in verdict.arch_audit.lines():
            print(f"arch: {line}")
    if not verdict.reproducible:
        for line in [*verdict.differences(), *verdict.layer_changes]:
            print(line)
        raise Exit(f"verify-repro: {target} is not reproducible", code=EXIT_DIFFERENT)
    print(f"reproducible: {verdict.images[0].digest}")
    if verdict.unexpected:
        for line in verdict.unexpected:
            print(line)
        raise Exit(f"verify-repro: {target} is not the expected image ({expect}); it "
                   "reproduces here, so what differs above is an input or a file of the "
                   f"build: if you changed it on purpose, record it with --record {expect}",
                   code=EXIT_DIFFERENT)
    if verdict.unexpected is not None:
        print(f"as expected: {expect}")
    if record:
        print(f"recorded: {record}")
    if verdict.exit_code:
        raise Exit(f"verify-repro: the arch audit of {target} failed (the arch: line)",
                   code=verdict.exit_code)
