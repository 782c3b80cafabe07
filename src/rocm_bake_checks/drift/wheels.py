"""Wheel rules and the wheel verdict: is there a wheel of the pinned version for our Python,
our platform and our ROCm variant? Files are judged by ``parse_wheel_filename``; a CUDA or CPU
build (``+cu126``, ``+cpu``, or a plain PyPI torch wheel, which is a CUDA build) never
satisfies a ROCm pin. A yanked file (PEP 592) counts as pip counts it: never as the newest,
and for the pinned version (an exact pin) only when every fitting file of it is yanked."""

from __future__ import annotations

import re

from packaging.tags import Tag
from packaging.utils import (
    InvalidWheelFilename,
    canonicalize_name,
    parse_wheel_filename,
)
from packaging.version import Version

from rocm_bake.net import simpleindex
from rocm_bake.net.simpleindex import IndexFile
from rocm_bake_checks.drift import versions
from rocm_bake_checks.drift.declarations import PinSpec, WheelSpec
from rocm_bake_checks.drift.fetch import UnavailableError
from rocm_bake_checks.drift.model import Candidate, Explanation, Finding, Status
from rocm_bake_checks.drift.sources import github, index
from rocm_bake_checks.drift.versions import Pick
from rocm_bake_checks.drift.web import Web

MANYLINUX = re.compile(r"^manylinux_(\d+)_(\d+)_(\w+)$")
LEGACY = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}


def judge(filename: str, package: str, spec: WheelSpec) -> Pick:
    """Keep a file only if it is a wheel of ``package`` that fits the declared build."""
    if not filename.endswith(".whl"):
        return Pick(filename, None, "not a wheel")
    try:
        name, version, _build, tags = parse_wheel_filename(filename)
    except InvalidWheelFilename:
        return Pick(filename, None, "not a valid wheel file name")
    if package and canonicalize_name(name) != canonicalize_name(package):
        return Pick(filename, version, f"another project ({name})")
    if spec.python and not any(_python_fits(t, spec.python) for t in tags):
        found = ",".join(sorted({t.interpreter for t in tags}))
        return Pick(filename, version, f"built for {found}, not {spec.python}")
    if spec.platform and not any(_platform_fits(t.platform, spec.platform) for t in tags):
        found = ",".join(sorted({t.platform for t in tags}))
        return Pick(filename, version, f"built for {found}, not {spec.platform}")
    reason = versions.foreign_variant(version, None, spec.variant)
    return Pick(filename, version, reason)


def _python_fits(tag: Tag, python: str) -> bool:
    if tag.interpreter in (python, "py3", f"py{python.removeprefix('cp')}"):
        return True
    if tag.abi == "abi3" and tag.interpreter.startswith("cp3"):
        return int(tag.interpreter[3:] or 0) <= int(python.removeprefix("cp3") or 0)
    return False


def _platform_fits(found: str, wanted: str) -> bool:
    if found in (wanted, "any"):
        return True
    want = MANYLINUX.match(wanted)
    if want is None:
        return False
    arch = want[3]
    have = MANYLINUX.match(found)
    if have is not None:
        return have[3] == arch and (int(have[1]), int(have[2])) <= (int(want[1]), int(want[2]))
    legacy, _, legacy_arch = found.partition("_")
    if legacy in LEGACY and legacy_arch == arch:
        return LEGACY[legacy] <= (int(want[1]), int(want[2]))
    return found == f"linux_{arch}"


def files(web: Web, spec: WheelSpec, package: str, log: Explanation) -> list[IndexFile]:
    """Every file the declared wheel locations hold for ``package`` (yanked ones marked)."""
    out: list[IndexFile] = []
    for root in spec.index:
        out.extend(index.project_page(web, root, package, log))
    for url in spec.listing:
        out.extend(IndexFile(name, "") for name in index.listing_files(web, url, log))
    if spec.github:
        for names in github.releases(web, spec.github, log).files.values():
            out.extend(IndexFile(name, "") for name in names)
    return out


def picks(found: list[IndexFile], package: str, spec: WheelSpec, pinned: Version) -> list[Pick]:
    """Each file judged; a fitting yanked one dropped as pip drops it (PEP 592), unless it is
    of the pinned version and every fitting file of that version is yanked (an exact pin)."""
    judged = [judge(f.filename, package, spec) for f in found]
    pinned_files = [f for f, p in zip(found, judged, strict=True)
                    if not p.dropped and p.version is not None
                    and Version(p.version.public) == Version(pinned.public)]
    taken = set(simpleindex.installable(pinned_files, exact=True))
    return [Pick(p.raw, p.version, f.why_yanked)
            if f.yanked is not None and not p.dropped and f not in taken else p
            for f, p in zip(found, judged, strict=True)]


def verdict(web: Web, pin: PinSpec, pinned: Version | None, spec: WheelSpec) -> Finding:
    """The ``NAME[wheel]`` row: a fitting wheel of the pinned version, or why there is none."""
    package = spec.package or pin.package
    where = ", ".join([*spec.index, *spec.listing, *([f"github:{spec.github}"]
                                                     if spec.github else [])])
    finding = Finding(f"{pin.name}[wheel]", pin.value, "wheel", Status.UNCHECKED, "",
                      upstream=where)
    log = finding.explanation
    if pinned is None:
        finding.detail = f"{pin.value!r} is not a version"
        return finding
    try:
        found = files(web, spec, package, log)
    except UnavailableError as exc:
        finding.detail = str(exc)
        return finding
    judged = picks(found, package, spec, pinned)
    log.candidates = [Candidate(p.raw, str(p.version or ""), p.dropped) for p in judged]
    kept = [p for p in judged if not p.dropped and p.version is not None]
    want = _describe(package, pinned, spec)
    matches = [p for p in kept if p.version is not None
               and Version(p.version.public) == Version(pinned.public)]
    newest = max(kept, key=lambda p: versions.sort_key(p.version), default=None)  # type: ignore[arg-type]
    if newest is not None and newest.version is not None:
        finding.newest = str(newest.version)
        finding.newest_version = newest.version.public
    if matches:
        best = max(matches, key=lambda p: versions.sort_key(p.version))  # type: ignore[arg-type]
        newer = newest is not None and newest.version is not None and best.version is not None \
            and versions.sort_key(newest.version) > versions.sort_key(best.version)
        finding.status = Status.AVAILABLE if newer else Status.UP_TO_DATE
        yanked = next((f.why_yanked for f in found if f.filename == best.raw and f.yanked
                       is not None), "")
        finding.detail = f"wheel available: {best.raw}" + (
            f" ({yanked}: taken only for the exact pin, as pip takes it)" if yanked else "") + (
            f"; a newer wheel exists: {finding.newest}" if newer else "")
        log.winner = f"{best.raw}: the pinned version, for {want}"
        return finding
    finding.status = Status.NOT_FOUND
    near = [p for p in judged if p.version is not None
            and Version(p.version.public) == Version(pinned.public)]
    seen = "; ".join(f"{p.raw} ({p.dropped})" for p in near[:3]) or f"{len(found)} files seen"
    finding.detail = f"no wheel {want} ({seen})"
    log.winner = f"none: no file of {pinned.public} passed every rule"
    return finding


def _describe(package: str, pinned: Version, spec: WheelSpec) -> str:
    parts = [f"{package} {pinned.public}"]
    parts.extend(x for x in (f"+{spec.variant}" if spec.variant else "", spec.python,
                             spec.platform) if x)
    return " ".join(parts)
