"""A Dockerfile as BuildKit sees it: global ARGs, stages, their ARGs and what each stage builds
from (``FROM <stage>``, ``COPY --from``, ``RUN --mount=...,from=``).

Parsed with the PyPI ``dockerfile-parse`` package; line numbers are 1-based.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dockerfile_parse import DockerfileParser

from rocm_bake_checks.lint.findings import LintError

_FLAG = re.compile(r"\s*--([A-Za-z-]+)(?:=(\"[^\"]*\"|\S*))?")
_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_REF_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
# Arguments BuildKit defines or consumes without an ARG instruction.
BUILTIN_ARGS = frozenset({
    "HTTP_PROXY", "HTTPS_PROXY", "FTP_PROXY", "NO_PROXY", "ALL_PROXY",
    "http_proxy", "https_proxy", "ftp_proxy", "no_proxy", "all_proxy",
    "SOURCE_DATE_EPOCH",
    "TARGETPLATFORM", "TARGETOS", "TARGETARCH", "TARGETVARIANT",
    "BUILDPLATFORM", "BUILDOS", "BUILDARCH", "BUILDVARIANT",
})


@dataclass(frozen=True)
class ArgDecl:
    name: str
    default: str | None
    line: int


@dataclass(frozen=True)
class Reference:
    """A name a stage builds from: another stage, a named context or an image."""

    name: str
    line: int
    how: str  # "FROM", "COPY --from", "RUN --mount from"


@dataclass(frozen=True)
class Instruction:
    keyword: str
    flags: dict[str, list[str]]
    body: str
    line: int


@dataclass
class Stage:
    index: int
    name: str | None
    base: Reference
    args: dict[str, ArgDecl] = field(default_factory=dict)
    refs: list[Reference] = field(default_factory=list)
    instructions: list[Instruction] = field(default_factory=list)


@dataclass
class Dockerfile:
    path: Path
    global_args: dict[str, ArgDecl] = field(default_factory=dict)
    stages: list[Stage] = field(default_factory=list)

    def expand(self, name: str) -> str:
        """``name`` with each ``$NAME``/``${NAME}`` of a global ARG replaced by its default (as
        BuildKit expands a FROM); a name without a default is left as written."""
        def value(match: re.Match[str]) -> str:
            arg = self.global_args.get(match.group(1) or match.group(2))
            return arg.default if arg is not None and arg.default is not None else match.group(0)
        return _REF_VAR.sub(value, name)

    def stage(self, ref: str) -> Stage | None:
        """The stage a name (case-insensitive, like BuildKit) or an index refers to."""
        if ref.isdigit():
            index = int(ref)
            return self.stages[index] if index < len(self.stages) else None
        for stage in self.stages:
            if stage.name is not None and stage.name == ref.lower():
                return stage
        return None

    def reachable(self, target: Stage) -> list[Stage]:
        """The target stage and every stage it builds from, in file order (a name built of
        global ARGs, ``FROM final_lmcache_${INSTALL_LMCACHE}``, as their defaults make it)."""
        seen = {target.index}
        todo = [target]
        while todo:
            stage = todo.pop()
            for ref in stage.refs:
                dep = self.stage(self.expand(ref.name))
                if dep is not None and dep.index < stage.index and dep.index not in seen:
                    seen.add(dep.index)
                    todo.append(dep)
        return [s for s in self.stages if s.index in seen]


def variables(text: str) -> set[str]:
    """The names ``$NAME``/``${NAME}`` in a piece of Dockerfile text refers to."""
    return set(_VAR.findall(text))


def split_flags(value: str) -> tuple[dict[str, list[str]], str]:
    """Leading ``--flag[=value]`` options of an instruction, and the rest."""
    flags: dict[str, list[str]] = {}
    rest = value
    while True:
        match = _FLAG.match(rest)
        if match is None:
            break
        flags.setdefault(match.group(1).lower(), []).append((match.group(2) or "").strip('"'))
        rest = rest[match.end():]
    return flags, rest.strip()


def csv_options(text: str) -> dict[str, str]:
    """``type=bind,from=x,source=/wheels`` as a dict (a bare key maps to ``""``)."""
    out: dict[str, str] = {}
    for part in text.split(","):
        key, _, value = part.partition("=")
        out[key.strip().lower()] = value.strip()
    return out


def _arg(value: str, line: int) -> list[ArgDecl]:
    decls = []
    for item in value.split():
        name, has_default, default = item.partition("=")
        decls.append(ArgDecl(name, default.strip('"\'') if has_default else None, line))
    return decls


def _from(flags_and_rest: str, index: int, line: int) -> Stage:
    _, rest = split_flags(flags_and_rest)
    words = rest.split()
    if not words:
        raise LintError(f"line {line}: FROM without an image")
    name = words[2].lower() if len(words) >= 3 and words[1].lower() == "as" else None
    return Stage(index, name, Reference(words[0], line, "FROM"))


def _refs(keyword: str, flags: dict[str, list[str]], line: int) -> list[Reference]:
    refs = []
    if keyword in ("COPY", "ADD"):
        refs += [Reference(v, line, "COPY --from") for v in flags.get("from", [])]
    if keyword == "RUN":
        for mount in flags.get("mount", []):
            source = csv_options(mount).get("from")
            if source:
                refs.append(Reference(source, line, "RUN --mount from"))
    return refs


def parse(path: Path) -> Dockerfile:
    """Read a Dockerfile; an unreadable or malformed one is a LintError."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LintError(f"{path}: cannot read Dockerfile: {exc}") from None
    return parse_text(text, path)


def parse_text(text: str, path: Path) -> Dockerfile:
    """A Dockerfile's text (e.g. an upstream file had over HTTP); ``path`` names it."""
    return from_instructions(instructions(text), path)


def instructions(text: str) -> list[tuple[int, str, str]]:
    """(line, keyword, value) of each instruction of a Dockerfile's text, comments left out:
    what the rules read of it (upstream's Dockerfiles are recorded as these, not as text)."""
    parser = DockerfileParser(fileobj=io.BytesIO(text.encode()), env_replace=False)
    return [(int(item["startline"]) + 1, str(item["instruction"]).upper(), str(item["value"]))
            for item in parser.structure if str(item["instruction"]).upper() != "COMMENT"]


def from_instructions(items: Sequence[Sequence[object]], path: Path) -> Dockerfile:
    """The Dockerfile of ``instructions``' (line, keyword, value)s; ``path`` names it."""
    dockerfile = Dockerfile(path)
    for raw_line, raw_keyword, raw_value in items:
        line, keyword, value = int(str(raw_line)), str(raw_keyword), str(raw_value)
        if keyword == "FROM":
            try:
                stage = _from(value, len(dockerfile.stages), line)
            except LintError as exc:
                raise LintError(f"{path}: {exc}") from None
            stage.refs.append(stage.base)
            dockerfile.stages.append(stage)
            continue
        if not dockerfile.stages:
            if keyword == "ARG":
                dockerfile.global_args.update({a.name: a for a in _arg(value, line)})
            continue
        stage = dockerfile.stages[-1]
        if keyword == "ARG":
            stage.args.update({a.name: a for a in _arg(value, line)})
        flags, body = split_flags(value) if keyword in ("RUN", "COPY", "ADD") else ({}, value)
        stage.refs += _refs(keyword, flags, line)
        stage.instructions.append(Instruction(keyword, flags, body, line))
    return dockerfile

