"""``inv version-check --images``: drift of what is already in the registry.

Every published cell image (a tag whose attestations hold rocm-bake's versions statement, see
:mod:`rocm_bake.oci.provenance`) with the pins it was built from, against the bake file in effect
("built from VLLM_COMMIT 2cf0a69; bake file pins 3abc…") and against upstream: the pins it was
built from are checked by the same drift session as ``inv version-check`` (the bake files
evaluated with the image's pin values), so the upstream verdict is today's, for those values.

Exit status as ``inv version-check``: 0 every image is built from the bake file's pins and
none of them drifts upstream, 1 an image is stale (a pin differs from the bake file, or the
value it was built from drifts upstream), 2 an image or a pin could not be checked.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_bake.core import atomic
from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model import bakefile
from rocm_bake.oci import provenance
from rocm_bake.oci.registry import Reference, Registry
from rocm_bake_checks.drift.model import Finding, Status
from rocm_bake_checks.drift.render import MARKS, short

EXIT_CODES = "0 every image current, 1 an image stale, 2 could not check"
# The drift session's verdict on the pins NAMES of a definition (``Session.check``'s findings).
UpstreamCheck = Callable[[bakefile.Definition, Sequence[str]], list[Finding]]


@dataclass
class PinRow:
    """One pin of one image: what it was built from, what the bake file pins, upstream."""

    name: str
    built: str | None          # None: the image records no such pin
    bake: str | None           # None: the bake file has no such pin
    upstream: Finding | None = None

    @property
    def differs(self) -> bool:
        return self.built != self.bake

    def sentence(self) -> str:
        if self.built is None:
            return (f"{self.name}: not recorded in the image; bake file pins "
                    f"{short(self.bake or '')}")
        if self.bake is None:
            return f"built from {self.name} {short(self.built)}; the bake file has no such pin"
        if self.differs:
            return f"built from {self.name} {short(self.built)}; bake file pins {short(self.bake)}"
        return f"{self.name} {short(self.built)} as the bake file pins"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "built": self.built, "bake": self.bake,
                "differs": self.differs,
                "upstream": self.upstream.to_json() if self.upstream else None}


@dataclass
class ImageVerdict:
    reference: str
    platform: str = ""
    digest: str = ""
    cell: str = ""
    pins_from: str = ""
    rows: list[PinRow] = field(default_factory=list)
    error: str = ""

    @property
    def stale(self) -> bool:
        return any(row.differs for row in self.rows) or any(
            row.upstream is not None and row.upstream.status.is_drift for row in self.rows)

    @property
    def unchecked(self) -> bool:
        return bool(self.error) or any(
            row.upstream is not None and row.upstream.status is Status.UNCHECKED
            for row in self.rows)

    @property
    def verdict(self) -> str:
        return "ERROR" if self.unchecked else "stale" if self.stale else "current"

    def sentences(self) -> list[str]:
        """What differs, in the user's terms (every pin when nothing does)."""
        if self.error:
            return [f"cannot check: {self.error}"]
        differing = [row for row in self.rows if row.differs]
        out = [row.sentence() for row in differing] or [
            f"built from the bake file's pins ({len(self.rows)})"]
        out += [f"upstream: {row.name} {short(row.built or '')}: "
                f"{MARKS[row.upstream.status]} ({row.upstream.status.value}"
                + (f", newest {row.upstream.newest}" if row.upstream.newest else "") + ")"
                for row in self.rows if row.upstream is not None and row.built is not None
                and row.upstream.status not in (Status.UNTRACKED, Status.UP_TO_DATE)]
        return out

    def to_json(self) -> dict[str, Any]:
        return {"reference": self.reference, "platform": self.platform, "digest": self.digest,
                "cell": self.cell, "pins_from": self.pins_from, "verdict": self.verdict,
                "stale": self.stale, "error": self.error,
                "pins": [row.to_json() for row in self.rows]}


@dataclass
class ImagesReport:
    registry: str
    images: list[ImageVerdict]
    other_tags: int = 0         # tags without rocm-bake's versions statement (caches, others)

    def exit_code(self) -> int:
        if any(image.unchecked for image in self.images):
            return 2
        return 1 if any(image.stale for image in self.images) else 0

    def to_json(self) -> dict[str, Any]:
        return {"registry": self.registry, "exit_code": self.exit_code(),
                "images": [image.to_json() for image in self.images],
                "other_tags": self.other_tags}


def check(registry: Registry, files: Sequence[str], env: Mapping[str, str],
          upstream: UpstreamCheck | None, prefix: str = "") -> ImagesReport:
    """Every published cell image of ``registry`` (under the repository path ``prefix``)
    against the bake files and upstream."""
    definition = bakefile.load(files, env)
    bake = provenance.bake_pins(definition)
    variables = {v.name for v in definition.variables()}
    report = ImagesReport(registry.host + (f"/{prefix}" if prefix else ""), [])
    for reference, made in published(registry, report, prefix):
        if isinstance(made, str):
            report.images.append(ImageVerdict(str(reference), error=made))
            continue
        verdict = ImageVerdict(str(reference), made.platform, made.digest, made.cell,
                               made.pins_from)
        names = sorted(set(made.pins) | set(bake))
        verdict.rows = [PinRow(n, made.pins.get(n), bake.get(n)) for n in names]
        if upstream is not None:
            _upstream(verdict, made.pins, files, env, variables, upstream)
        report.images.append(verdict)
    return report


def _upstream(verdict: ImageVerdict, pins: Mapping[str, str], files: Sequence[str],
              env: Mapping[str, str], variables: set[str], upstream: UpstreamCheck) -> None:
    """The pin values the image was built from, checked upstream (the bake files evaluated
    with them)."""
    overrides = {k: v for k, v in pins.items() if k in variables}
    built = bakefile.load(files, {**env, **overrides})
    findings = {f.name: f for f in upstream(built, sorted(pins)) if f.name in pins}
    for row in verdict.rows:
        if row.built is not None:
            row.upstream = findings.get(row.name)


def published(registry: Registry, report: ImagesReport, prefix: str = ""
              ) -> Iterator[tuple[Reference, provenance.Made | str]]:
    """Every tag of every repository (under ``prefix``) that holds a versions statement (one
    platform image at a time), or the error that kept it from being read; other tags are
    counted only."""
    for repository in sorted(registry.repositories()):
        if prefix and not (repository + "/").startswith(prefix + "/"):
            continue
        for tag in sorted(registry.tags(repository)):
            reference = Reference(registry.host, repository, tag)
            try:
                made = provenance.read(registry, reference)
            except provenance.ProvenanceError:
                report.other_tags += 1
                continue
            except RocmBakeError as exc:
                yield reference, str(exc)
                continue
            ours = [m for m in made if m.versions]
            if not ours:
                report.other_tags += 1
            for record in ours:
                yield reference, record


def table(report: ImagesReport) -> str:
    """One block per image: its verdict, then what differs, one sentence a line."""
    if not report.images:
        return (f"no published cell image in {report.registry} "
                f"({report.other_tags} other tag(s) without rocm-bake provenance)")
    lines = []
    for image in report.images:
        head = f"{image.verdict:8} {image.reference}"
        if image.cell:
            head += f" ({image.cell}, {image.platform})"
        lines.append(head)
        lines += [f"         {sentence}" for sentence in image.sentences()]
    counts = {v: sum(1 for i in report.images if i.verdict == v)
              for v in ("current", "stale", "ERROR")}
    lines.append(f"{len(report.images)} image(s) in {report.registry}: "
                 + ", ".join(f"{n} {v}" for v, n in counts.items() if n)
                 + (f"; {report.other_tags} other tag(s) without rocm-bake provenance"
                    if report.other_tags else ""))
    return "\n".join(lines)


def as_json(report: ImagesReport) -> str:
    return json.dumps(report.to_json(), indent=2)


def write(report: ImagesReport, path: Path) -> None:
    """The report as JSON in ``path`` (the nightly page reads it), atomically."""
    atomic.write_text(path, as_json(report) + "\n")
