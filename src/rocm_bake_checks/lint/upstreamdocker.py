"""Upstream's own Dockerfiles for the conformance family (``upstream-dockerfiles.toml``'s
``[dockerfiles]``): which files at the pinned commit, which of their stages are the base, the
runtime image and the release, and which stage here builds what each upstream build stage
builds.  The files come through the same ``upstream.Metadata`` as the build metadata (cached,
recorded, replayed offline from the committed snapshot)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rocm_bake_checks.lint import upstream
from rocm_bake_checks.lint.dockerfile import Dockerfile, Stage, from_instructions, instructions
from rocm_bake_checks.lint.findings import LintError
from rocm_bake_checks.lint.policy import header_lines

_IMPLIED = re.compile(r"^\s*\[\[\s*dockerfiles\.implied\s*\]\]\s*(?:#.*)?$")


@dataclass(frozen=True)
class Mapped:
    ours: str                    # "dockerfiles/x.Dockerfile:stage"
    wheels: tuple[str, ...]


@dataclass(frozen=True)
class Implied:
    flag: str                    # NAME=value
    package: str = ""            # ... when the stage's base apt-installs this package
    stage: str = ""              # ... when the stage copies from this upstream stage
    why: str = ""
    applies: tuple[str, ...] = ()  # the mapped upstream stages it is counted for (all: empty)
    line: int = 1                # its [[dockerfiles.implied]] header in the config


@dataclass(frozen=True)
class Settings:
    files: Mapping[str, str]     # key -> URL template ({VARIABLE}s)
    base_stages: tuple[str, ...]
    final: str
    release: tuple[str, ...]
    ours_base: str
    ours_final: str
    ours_export: str
    stages: Mapping[str, Mapped]
    implied: tuple[Implied, ...]
    config: Path
    stages_line: int             # the [dockerfiles.stages] header: where its findings point


def load(path: Path = upstream.DOCKERFILES) -> Settings | None:
    """The ``[dockerfiles]`` table of ``path``; None when it has none."""
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text).get("dockerfiles")
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LintError(f"{path}: {exc}") from None
    if data is None:
        return None
    header = "[dockerfiles.stages]"
    implied_lines = header_lines(text, _IMPLIED)
    line = next((n for n, t in enumerate(text.splitlines(), 1) if t.strip() == header), 1)
    try:
        return Settings(
            files={str(k): str(v) for k, v in data["files"].items()},
            base_stages=tuple(str(s) for s in data["base-stages"]), final=str(data["final"]),
            release=tuple(str(s) for s in data["release"]),
            ours_base=str(data["ours-base"]), ours_final=str(data["ours-final"]),
            ours_export=str(data["ours-export"]),
            stages={str(k): Mapped(str(v["ours"]), tuple(str(w) for w in v.get("wheels", [])))
                    for k, v in data.get("stages", {}).items()},
            implied=tuple(Implied(str(i["flag"]), str(i.get("package", "")),
                                  str(i.get("stage", "")), str(i.get("why", "")),
                                  tuple(str(a) for a in i.get("for", [])),
                                  implied_lines[n] if n < len(implied_lines) else 1)
                          for n, i in enumerate(data.get("implied", []))),
            config=path, stages_line=line)
    except (KeyError, TypeError, AttributeError) as exc:
        raise LintError(f"{path}: [dockerfiles]: malformed entry ({exc})") from None


def split(ref: str, where: str) -> tuple[str, str]:
    """``"FILE:STAGE"`` -> (FILE, STAGE); a missing ``:`` is a LintError naming ``where``."""
    file, sep, stage = ref.rpartition(":")
    if not sep or not file or not stage:
        raise LintError(f"{where}: {ref!r} is not FILE:STAGE")
    return file, stage


@dataclass
class Upstream:
    """Upstream's Dockerfiles, parsed, with the settings that say how to read them."""

    settings: Settings
    files: dict[str, Dockerfile]
    urls: dict[str, str]

    def stage(self, ref: str) -> tuple[Dockerfile, Stage]:
        key, name = split(ref, f"{self.settings.config} [dockerfiles]")
        parsed = self.files.get(key)
        if parsed is None:
            raise LintError(f"{self.settings.config}: [dockerfiles]: {ref}: no file {key!r} "
                            f"in [dockerfiles.files] ({', '.join(sorted(self.files))})")
        found = parsed.stage(name)
        if found is None:
            raise LintError(f"{ref}: upstream {self.urls[key]} has no stage {name!r}")
        return parsed, found

    def name(self, ref: str) -> str:
        """``Dockerfile.rocm_base stage build_amdsmi`` for ``rocm_base:build_amdsmi``."""
        key, stage = split(ref, str(self.settings.config))
        return f"{self.urls[key].rsplit('/', 1)[-1]} stage {stage}"


def fetch(settings: Settings, metadata: upstream.Metadata,
          variables: Mapping[str, object]) -> Upstream:
    files: dict[str, Dockerfile] = {}
    urls: dict[str, str] = {}
    for key, template in settings.files.items():
        url = upstream.resolve(template, variables, f"[dockerfiles.files] {key}")
        urls[key] = url
        items = metadata.fact(url, "instructions",
                              lambda text: [list(i) for i in instructions(text)])
        files[key] = from_instructions(items, Path(url.rsplit("/", 1)[-1]))
    return Upstream(settings, files, urls)
