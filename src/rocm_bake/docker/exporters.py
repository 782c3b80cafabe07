"""How every build exports its images: as ``inv verify-repro`` does, so that what is published
is what reproduces.

A target that passes a ``SOURCE_DATE_EPOCH`` build arg gets ``rewrite-timestamp=true`` and
OCI media types on each of its image outputs (``type=image``/``registry``/``docker``/``oci``),
and so the image ``inv verify-repro`` records (its identity; the manifest digest on the
same engine). On the ``docker`` driver (the project's
engine, containerd image store) the image exporter always unpacks into the engine, which
BuildKit refuses together with ``rewrite-timestamp`` ("conflicts with unpack"). So:

- a push is ``type=image,push=true,store=false``: the registry gets the reproducible image,
  the engine keeps none (``inv inspect`` and the arch audit read the registry);
- an image loaded into the engine (buildx's default without an output, or ``type=docker``
  without a dest) is written as a ``type=docker`` archive into a scratch directory and then
  loaded (``docker load``): the engine's image ID is the reproducible manifest digest.

Outputs that are no image (``local``, ``tar``, ``cacheonly``) stay as they are, and so does a
target without ``SOURCE_DATE_EPOCH`` (nothing to clamp its timestamps to: its images are not
reproducible and ``inv verify-repro`` refuses it; :func:`unclamped` names them).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model.bake.resolve import Plan

EPOCH_ARG = "SOURCE_DATE_EPOCH"
IMAGE_KINDS = ("image", "registry", "docker", "oci")
# What a reproducible image export adds to an exporter's attributes (verify-repro's too).
REPRODUCIBLE = {"oci-mediatypes": "true", "rewrite-timestamp": "true"}


def reproducible(output: Mapping[str, Any], load_to: Path | None) -> dict[str, str]:
    """The exporter attributes of one output, made reproducible (the one place that says
    them). ``load_to`` is where an image the engine should load is written first (None: a
    build that loads nothing, a fleet cell's push)."""
    attrs = {str(k): str(v) for k, v in output.items()}
    kind = attrs.get("type", "")
    if kind not in IMAGE_KINDS:
        return attrs
    if kind == "registry":
        attrs = {**attrs, "type": "image", "push": "true"}
    if attrs["type"] == "image" and attrs.get("push", "").lower() == "true":
        return {**attrs, "store": "false", **REPRODUCIBLE}
    if attrs["type"] == "image" or (attrs["type"] == "docker" and not attrs.get("dest")):
        # Into the engine: through an archive that `docker load` reads afterwards.
        if load_to is None:
            raise RocmBakeError(f"a type={kind} output loads the image into the engine, which "
                                "this build cannot do reproducibly: push it (type=registry)")
        attrs = {k: v for k, v in attrs.items() if k not in ("push", "store", "unpack")}
        return {**attrs, "type": "docker", "dest": str(load_to), **REPRODUCIBLE}
    return {**attrs, **REPRODUCIBLE}


@dataclass(frozen=True)
class Exports:
    """The ``--set TARGET.output=...`` overrides of a build, and the archives to load after it."""

    overrides: tuple[str, ...] = ()
    loads: Mapping[str, Path] = field(default_factory=dict)   # target -> its archive


def plan_exports(plan: Plan, scratch: Path | None) -> Exports:
    """The reproducible outputs of every target the plan exports (linked targets only fill the
    build cache); an image the engine should load goes to ``scratch/<target>.tar`` (None: the
    build may load none)."""
    overrides: list[str] = []
    loads: dict[str, Path] = {}
    for name, target in plan.targets.items():
        if target.linked or not _epoch(target.fields):
            continue
        outputs = list(target.get("output") or []) or [{"type": "docker"}]
        archive = scratch / f"{name}.tar" if scratch is not None else None
        new = [reproducible(o, archive) for o in outputs]
        if new == [{str(k): str(v) for k, v in o.items()} for o in outputs]:
            continue
        overrides += [f"{name}.output={csv_line(o)}" for o in new]
        if archive is not None and any(o.get("dest") == str(archive) for o in new):
            loads[name] = archive
    return Exports(tuple(overrides), loads)


def unclamped(plan: Plan) -> list[str]:
    """The targets that export an image but pass no SOURCE_DATE_EPOCH."""
    return [name for name, target in plan.targets.items()
            if not target.linked and not _epoch(target.fields)
            and any(str(o.get("type", "")) in IMAGE_KINDS
                    for o in (target.get("output") or [{"type": "docker"}]))]


def _epoch(fields: Mapping[str, Any]) -> str:
    return str((fields.get("args") or {}).get(EPOCH_ARG) or "")


def csv_line(attrs: Mapping[str, str]) -> str:
    """An exporter's attributes as buildx reads them (CSV: a value with a comma is quoted),
    its type first."""
    ordered = sorted(attrs.items(), key=lambda item: item[0] != "type")
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(f"{k}={v}" for k, v in ordered)
    return buffer.getvalue()


def oci_archive(dest: Path) -> str:
    """verify-repro's output: an OCI layout tarball (``reproducible`` of ``type=oci``)."""
    return csv_line(reproducible({"type": "oci", "dest": str(dest)}, dest))

