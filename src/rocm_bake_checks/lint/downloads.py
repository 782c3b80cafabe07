"""Downloads and Python packages fetched during a build.

- ``download-sha256``: every ``curl``/``wget`` in a RUN line or in a shell script of the build
  context is verified by sha256 in the same place; every remote ``ADD`` has
  ``--checksum=sha256:``.
- ``pip-pin``: every requirement a RUN line installs by name is an exact ``==`` version, and so
  is every line of a requirements/constraints file in the build context (local wheels, paths
  and the fetched sources' own ``-r`` files are not names).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

from rocm_bake_checks.lint.bakemodel import relative
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.findings import Finding

# curl/wget in command position (not, say, a package name in an apt-get install list).
_DOWNLOAD = re.compile(r"(?:^|&&|\|\||;|\||\(|\bthen|\bdo|\bexec)\s*(?:\w+=\S*\s+)*(curl|wget)\s",
                       re.M)
_VERIFIED = re.compile(r"sha256sum|sha256")
_PIP_INSTALL = re.compile(r"\bpip3?\s+install\b(.*?)(?:&&|\|\||;|\||$)", re.S)
# pip's options that take a value (install and wheel): the token after one is not a requirement.
PIP_OPTIONS_WITH_VALUE = frozenset({
    "-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url",
    "--extra-index-url", "-f", "--find-links", "-t", "--target", "--prefix", "--root",
    "--upgrade-strategy", "--platform", "--python-version", "--implementation", "--abi",
    "--progress-bar", "--log", "--cache-dir", "--src", "-C", "--config-settings",
    "--global-option", "--no-binary", "--only-binary", "--report", "--trusted-host",
    "-w", "--wheel-dir",
})
_REQUIREMENT_LINE = re.compile(r"^[A-Za-z0-9._\-\[\],]+==[^\s;]+(\s*;.*)?(\s+--hash=\S+)*$")


def _tokens(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=False)
    except ValueError:
        return text.split()


def pip_operands(command: str) -> list[str]:
    """The arguments of one ``pip install`` that are not options or an option's value."""
    out = []
    skip = False
    for token in _tokens(command):
        if skip:
            skip = False
        elif token in PIP_OPTIONS_WITH_VALUE:
            skip = True
        else:
            out.append(token)
    return out


def unpinned_requirements(command: str) -> list[str]:
    """Requirements named in the arguments of one ``pip install`` that are not ``==`` pins."""
    out = []
    for token in pip_operands(command):
        if token.startswith("-") or token.startswith("$") or "/" in token or token == ".":
            continue
        if token.endswith((".whl", ".tar.gz", ".zip")) or "==" in token:
            continue
        out.append(token)
    return out


def check_dockerfiles(paths: list[Path], files: Dockerfiles, root: Path) -> list[Finding]:
    found: list[Finding] = []
    for name, _, instruction in files.instructions(paths, root):
        found.extend(_instruction(name, instruction.keyword, instruction.flags,
                                  instruction.body, instruction.line))
    return found


def _instruction(name: str, keyword: str, flags: dict[str, list[str]], body: str,
                 line: int) -> Iterator[Finding]:
    checksums = flags.get("checksum", [])
    if keyword == "ADD" and re.search(r"(^|\s)https?://", body) \
            and not any(c.startswith("sha256:") for c in checksums):
        yield Finding(name, line, "download-sha256",
                          "ADD of a URL without --checksum=sha256:...")
    if keyword != "RUN":
        return
    if _DOWNLOAD.search(body) and not _VERIFIED.search(body):
        yield Finding(name, line, "download-sha256",
                      "RUN downloads with curl/wget but verifies no sha256 in the same step")
    for match in _PIP_INSTALL.finditer(body):
        for requirement in unpinned_requirements(match.group(1)):
            yield Finding(name, line, "pip-pin",
                          f"pip installs '{requirement}' without an exact == version")


def check_context_files(contexts: list[Path], root: Path) -> list[Finding]:
    """Shell scripts and requirements files shipped in the build contexts."""
    found: list[Finding] = []
    for context in sorted(set(contexts)):
        if not context.is_dir():
            continue
        for script in sorted(context.rglob("*.sh")):
            found.extend(_script(script, root))
        for requirements in sorted(context.rglob("*.txt")):
            if "requirements" in requirements.name or "constraints" in requirements.name \
                    or requirements.parent.name == "requirements":
                found.extend(_requirements(requirements, root))
    return found


def _script(path: Path, root: Path) -> Iterator[Finding]:
    text = path.read_text(encoding="utf-8", errors="replace")
    if _VERIFIED.search(text):
        return
    for number, line in enumerate(text.splitlines(), 1):
        if not line.lstrip().startswith("#") and _DOWNLOAD.search(line):
            yield Finding(relative(path, root), number, "download-sha256",
                          "script downloads with curl/wget and verifies no sha256")


def _requirements(path: Path, root: Path) -> Iterator[Finding]:
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if not _REQUIREMENT_LINE.match(line):
            yield Finding(relative(path, root), number, "pip-pin",
                          f"'{line}' is not an exact name==version requirement")
