"""The upstream side of the conformance rules: which metadata file of which source, at the
pinned version (``upstream.toml``), fetched through the drift layer's ``Web``/``Fetcher``, so
it is cached, recordable (``--record``) and replayable (``--offline``, the default for
``inv lint``: the committed snapshot ``upstream-metadata.json``, which holds what the rules
read of each file, never its text: ``Metadata.fact``); files the caller already holds
(``Held``: ``inv bump``'s release) are answered from memory, recorded the same way."""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from rocm_bake.core.errors import RocmBakeError
from rocm_bake_checks.drift import snapshot as snapshots
from rocm_bake_checks.drift.fetch import Deadline, Fetcher, UnavailableError
from rocm_bake_checks.drift.model import Explanation
from rocm_bake_checks.drift.web import Web, WebSettings
from rocm_bake_checks.lint.findings import LintError

CONFIG = Path(__file__).with_name("upstream.toml")
DOCKERFILES = Path(__file__).with_name("upstream-dockerfiles.toml")
SNAPSHOT = Path(__file__).with_name("upstream-metadata.json")
TEXT_ACCEPT = "text/plain, */*;q=0.1"
_PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")


@dataclass(frozen=True)
class Component:
    name: str
    dockerfile: str
    base: str
    build_system: str
    installs: tuple[str, ...] = ()
    runtime: tuple[str, ...] = ()
    pins: str = ""     # the script a stage runs to pin a runtime file to the cell's wheels


@dataclass(frozen=True)
class Built:
    packages: tuple[str, ...]
    version: str = ""
    requires_from: tuple[str, ...] = ()   # COMPONENT:PATH files declaring them (locks.built)
    false: tuple[str, ...] = ()      # setup.py names the build never sets (locks.built)
    without_marker: tuple[str, ...] = ()   # a published wheel's markers the build drops
    # of ``false``: the names its build without GPU kernels sets ([supported-archs]
    # without-kernels; locks.built reads that build's requirements with them true)
    without_kernels: tuple[str, ...] = ()


@dataclass(frozen=True)
class NearestCopy:
    """A source file a stage installs, read where its copy at the pin could not be had: the
    requirement lines of another stored copy (``repo``/``path`` at ``commit``), standing in
    for ``file`` at the bake variable ``pin`` (upstream.toml ``[[nearest-copy]]``)."""

    dockerfile: str
    file: str
    pin: str
    repo: str
    path: str
    commit: str
    nearest: str
    requires: tuple[str, ...]

    def origin(self, variables: Mapping[str, object]) -> str:
        """Where the lines come from, for the lock's header."""
        pinned = str(variables.get(self.pin) or "")
        return (f"{self.repo} {self.path} at {self.commit} (a stored copy standing in for "
                f"{self.file} at {self.pin} {pinned[:12]}: {self.nearest})")


@dataclass(frozen=True)
class Config:
    components: tuple[Component, ...]
    built: Mapping[str, Built]
    pypi_packages: Mapping[str, tuple[str, ...]]
    copies: tuple[NearestCopy, ...] = ()


@dataclass(frozen=True)
class Held:
    """Upstream files the caller already holds (``inv bump``: the release it read), for the
    declared URLs under ``prefix``: ``text(path)`` is the file at the path after it (None: it
    has none; a RocmBakeError: it cannot be had). Read from memory and recorded like a fetched
    answer (``--record``), never asked over the network; ``where`` names what holds them."""

    prefix: str
    text: Callable[[str], str | None]
    where: str

    def answer(self, url: str) -> tuple[str, str]:
        """(content type, body) of the file ``url`` names; UnavailableError when it has none."""
        path = url[len(self.prefix):]
        try:
            text = self.text(path)
        except RocmBakeError as exc:
            raise UnavailableError(str(exc)) from None
        except UnicodeDecodeError:
            raise UnavailableError(f"{path} in {self.where} is not UTF-8 text") from None
        if text is None:
            raise UnavailableError(f"{self.where} has no {path}")
        return "text/plain; charset=utf-8", text


@dataclass
class Settings:
    """How the metadata is had: replayed from ``offline`` (default: the committed snapshot),
    or fetched (``offline=None``), optionally recorded to ``record``."""

    offline: Path | None = SNAPSHOT
    record: Path | None = None
    rewrites: tuple[tuple[str, str], ...] = ()
    timeout: float = 20.0
    deadline: float = 120.0
    cache_dir: Path | None = None
    config: Path = CONFIG
    dockerfiles: Path | None = DOCKERFILES   # upstream's Dockerfiles (None: not compared)
    held: tuple[Held, ...] = ()   # files the caller holds, answered from memory
    errors: list[str] = field(default_factory=list)


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def load_config(path: Path = CONFIG) -> Config:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LintError(f"{path}: {exc}") from None
    try:
        components = tuple(Component(
            name=str(c["name"]), dockerfile=str(c["dockerfile"]), base=str(c["base"]),
            build_system=str(c["build-system"]),
            installs=tuple(str(f) for f in c.get("installs", [])),
            runtime=tuple(str(f) for f in c.get("runtime", [])),
            pins=str(c.get("pins", "")))
            for c in data.get("component", []))
        hand_written = [k for k, v in data.get("built", {}).items() if "requires" in v]
        if hand_written:
            raise LintError(f"{path}: [built] {hand_written[0]}: `requires` is hand-written; "
                            "name where its source declares them (requires-from)")
        built = {canonical(k): Built(tuple(v.get("packages", ())), str(v.get("version", "")),
                                     tuple(str(r) for r in v.get("requires-from", [])),
                                     tuple(str(r) for r in v.get("false", [])),
                                     tuple(str(r) for r in v.get("without-marker", [])),
                                     tuple(str(r) for r in v.get("without-kernels", [])))
                 for k, v in data.get("built", {}).items()}
        pypi = {canonical(k): tuple(v) for k, v in data.get("pypi-packages", {}).items()}
        copies = tuple(_copy(c, path) for c in data.get("nearest-copy", []))
    except (KeyError, TypeError, AttributeError) as exc:
        raise LintError(f"{path}: malformed entry ({exc})") from None
    return Config(components, built, pypi, copies)


def _copy(entry: Mapping[str, object], path: Path) -> NearestCopy:
    requires = entry["requires"]
    if not isinstance(requires, list) or not requires:
        raise LintError(f"{path}: [[nearest-copy]] {entry.get('repo')} {entry.get('path')}: "
                        "`requires` must list the copy's requirement lines")
    for line in requires:
        try:
            Requirement(str(line))
        except InvalidRequirement:
            raise LintError(f"{path}: [[nearest-copy]] {entry['repo']} {entry['path']}: "
                            f"{line!r} is no requirement (PEP 508)") from None
    commit = str(entry["commit"])
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        raise LintError(f"{path}: [[nearest-copy]] {entry['repo']} {entry['path']}: commit "
                        f"{commit!r} is not a full 40-hex commit")
    return NearestCopy(str(entry["dockerfile"]), str(entry["file"]), str(entry["pin"]),
                       str(entry["repo"]), str(entry["path"]), commit, str(entry["nearest"]),
                       tuple(str(line) for line in requires))


@dataclass(frozen=True)
class Launcher:
    """A component whose upstream ``file`` (under ``base``) decides its compiler launcher,
    and how (``way``: lint.launchers); ``line``: of its ``launcher`` key in upstream.toml."""

    name: str
    base: str
    file: str
    way: str
    line: int


def launchers(path: Path = CONFIG) -> list[Launcher]:
    """The [[component]] entries of upstream.toml with a ``launcher`` (and its
    ``launcher-way``)."""
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LintError(f"{path}: {exc}") from None
    lines = text.splitlines()
    out = []
    for c in data.get("component", []):
        if "launcher" not in c:
            continue
        if "launcher-way" not in c:
            raise LintError(f"{path}: component {c.get('name')}: launcher without launcher-way")
        start = next((n for n, line in enumerate(lines)
                      if re.fullmatch(rf'name\s*=\s*"{re.escape(str(c["name"]))}"', line.strip())),
                     0)
        line = next((n + 1 for n in range(start, len(lines))
                     if lines[n].strip().startswith("launcher ")), start + 1)
        out.append(Launcher(str(c["name"]), str(c["base"]), str(c["launcher"]),
                            str(c["launcher-way"]), line))
    return out


def resolve(template: str, variables: Mapping[str, object], where: str) -> str:
    """``{VARIABLE}`` replaced by the bake variable's value; an unknown one is an error."""
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        found = variables.get(name)
        if not isinstance(found, str) or not found:
            raise LintError(f"{where}: {{{name}}} is not a non-empty bake variable")
        return found
    return _PLACEHOLDER.sub(value, template)


class Metadata:
    """What the rules read of upstream files by URL (``fact``), through one drift ``Fetcher``
    for the whole lint run: recorded and replayed as those facts, never as the files' text."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        offline = snapshots.load(settings.offline) if settings.offline is not None else None
        self.record = (snapshots.Snapshot(datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
                       if settings.record is not None else None)
        deadline = Deadline(settings.deadline)
        self.fetcher = Fetcher(deadline, offline=offline, record=self.record)
        self.web = Web(WebSettings(timeout=settings.timeout, rewrites=settings.rewrites,
                                   cache_dir=settings.cache_dir), self.fetcher, deadline)

    def fact(self, url: str, label: str, extract: Callable[[str], Any]) -> Any:
        """What ``extract`` reads from the file (JSON-able: requirement lines, an arch list, a
        yes/no): recorded and replayed under the GET's key plus ``[label]``, with the sha256 of
        the text it was read from, never the text itself (upstream's files are read, not
        kept)."""
        held = next((h for h in self.settings.held if url.startswith(h.prefix)), None)

        def summarize(response: dict[str, Any], _: str) -> dict[str, Any]:
            body = response.get("body")
            if not isinstance(body, str):
                raise UnavailableError("no text in the answer")
            return {"sha256": hashlib.sha256(body.encode()).hexdigest(), "value": extract(body)}

        try:
            answer = self.web.get_summary(url, TEXT_ACCEPT, Explanation(), label, summarize,
                                          None if held is None else lambda: held.answer(url))
        except UnavailableError as exc:
            raise LintError(f"upstream metadata {url}: {exc}{self._hint()}") from None
        if not isinstance(answer, dict) or "value" not in answer:
            raise LintError(f"upstream metadata {url} ({label}): no recorded value")
        return answer["value"]

    def _hint(self) -> str:
        return (" (not in the recorded snapshot: re-record it with "
                "`inv lint --online --record src/rocm_bake_checks/lint/upstream-metadata.json`)"
                if self.settings.offline is not None else "")

    def save(self) -> None:
        if self.record is not None and self.settings.record is not None:
            self.record.note = ("upstream build metadata for `inv lint` (family conformance); "
                                "keys are the declared URLs and what is read of each: the "
                                "facts, with the sha256 of the file they were read from, "
                                "never its text")
            try:
                self.record.save(self.settings.record)
            except (OSError, RocmBakeError) as exc:
                raise LintError(f"cannot write {self.settings.record}: {exc}") from None
