"""The checks buildx makes while turning resolved targets into build options, which it does
already for ``--print``: stdin contexts, shm-size, platforms, outputs, annotations, ulimits."""

from __future__ import annotations

import re
from decimal import Decimal

from rocm_bake.core.errors import UsageError
from rocm_bake.model.bake import goparse, platforms
from rocm_bake.model.bake.target import Target
from rocm_bake.model.hcl import values

_ULIMITS = {"core", "cpu", "data", "fsize", "locks", "memlock", "msgqueue", "nice", "nofile",
            "nproc", "rss", "rtprio", "rttime", "sigpending", "stack"}
_INT64 = re.compile(r"^[+-]?\d+$")
_ANNOTATION_TYPE = re.compile(r"^([a-z-]+)(?:\[([A-Za-z0-9_/-]+)\])?$")
_ANNOTATION_TYPES = {"", "index", "index-descriptor", "manifest", "manifest-descriptor"}


def check(target: Target) -> None:
    """Raise what buildx's toBuildOpt raises for this target."""
    name = target.name
    for field in ("context", "dockerfile"):
        if target.get(field) == "-":
            raise UsageError(f"{field} from stdin not allowed in bake (target {name})")
    shm = target.get("shm-size")
    if shm is not None and not _mem_bytes(shm):
        raise UsageError(f"invalid value {shm} for membytes key shm-size (target {name})")
    refused = platforms.problem(target.get("platforms") or [])
    if refused:
        raise UsageError(f"{refused} (target {name})")
    _check_outputs(target)
    for annotation in target.get("annotations") or []:
        _check_annotation(annotation, name)
    for ulimit in target.get("ulimits") or []:
        _check_ulimit(ulimit, name)


def _mem_bytes(text: str) -> bool:
    """Whether docker/go-units' RAMInBytes (parseSize) reads the text."""
    sep = max(text.rfind(c) for c in "0123456789. ")
    if sep < 0:
        return False
    number, suffix = (text[:sep + 1], text[sep + 1:]) if text[sep] != " " else (
        text[:sep], text[sep + 1:])
    size = goparse.parse_float(number)
    if not isinstance(size, Decimal) or size < 0:
        return False
    suffix = suffix.lower()
    if not suffix:
        return True
    if len(suffix) > 3:
        return False
    if suffix[0] == "b":
        return len(suffix) == 1
    if suffix[0] not in "kmgtp":
        return False
    return len(suffix) == 1 or suffix[1:] in ("b", "ib")


def _check_ulimit(text: str, target: str) -> None:
    kind, sep, limits = text.partition("=")
    if not sep:
        raise UsageError(f"invalid ulimit argument: {text} (target {target})")
    if kind not in _ULIMITS:
        raise UsageError(f"invalid ulimit type: {kind} (target {target})")
    values = limits.split(":")
    if len(values) > 2:
        raise UsageError(f"too many limit value arguments - {limits} (target {target})")
    if not all(_INT64.match(v) and -(2**63) <= int(v) < 2**63 for v in values):
        raise UsageError(f"invalid ulimit value {limits} (target {target})")
    if len(values) == 2 and int(values[0]) > int(values[1]):
        raise UsageError(f"ulimit soft limit must be less than or equal to hard limit: "
                         f"{text} (target {target})")


def _check_outputs(target: Target) -> None:
    stdout = False
    for output in target.get("output") or []:
        kind, dest = output.get("type", ""), output.get("dest", "")
        if not kind:
            raise UsageError(f"type is required for output (target {target.name})")
        to_dir = kind == "local"
        to_file = kind == "tar"
        if kind in ("oci", "docker"):
            tar = output.get("tar", "true").lower() not in ("0", "f", "false")
            to_file, to_dir = tar, not tar
        if to_dir and not dest:
            raise UsageError(f"dest is required for {kind} exporter (target {target.name})")
        if to_dir and dest == "-":
            raise UsageError(f"dest cannot be stdout for {kind} exporter (target {target.name})")
        if to_file and (dest == "-" or (not dest and kind != "docker")):
            if stdout:
                raise UsageError(f"multiple outputs configured to write to stdout (target "
                                 f"{target.name})")
            stdout = True


def _check_annotation(text: str, target: str) -> None:
    key, sep, _ = text.partition("=")
    if not sep:
        raise UsageError(f"invalid annotation {values.go_quote(text)}, expected key=value "
                         f"(target {target})")
    types, colon, _ = key.partition(":")
    if not colon:
        return
    for part in types.split(","):
        match = _ANNOTATION_TYPE.match(part)
        if match is None or match.group(1) not in _ANNOTATION_TYPES:
            raise UsageError(f"invalid annotation type {part!r} (target {target})")
