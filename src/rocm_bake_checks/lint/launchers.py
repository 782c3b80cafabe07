"""How each component's own build chooses a compiler launcher, against CACHE_TYPE.

- ``cache-launcher`` (family ``caching``): a RUN that compiles under ``with-compiler-cache.sh``
  leaves the choice to it: it names no cache tool itself (``-D*_COMPILER_LAUNCHER=``,
  ``USE_CCACHE=1``/``ON``, ``CC=``/``CXX=`` a bare host compiler, ``sccache``/``ccache`` run
  directly). ``CC="${COMPILER_LAUNCHER:+...}gcc"`` (the autotools spelling of the choice) and a
  compiler that reaches the cache by its own route (``CXX=hipcc``) are fine.
- ``launcher-upstream`` (family ``conformance``): a component whose upstream file decides the
  launcher (upstream.toml: ``launcher`` = that file, ``launcher-way`` = how it decides) still
  decides that way at the pin, and with-compiler-cache.sh answers that way:

    ``path:TOOL,...``   it runs the first TOOL found on PATH (vLLM's setup.py: sccache, else
                        ccache): the file looks each TOOL up (``which("TOOL")``) and sets a
                        ``*_COMPILER_LAUNCHER``; the wrapper hides the tools not chosen;
    ``env:NAME``        an environment switch turns a cache on by itself (PyTorch's
                        ``USE_CCACHE``): the file reads NAME; the wrapper exports ``NAME=0``;
    ``cc``              the compiler comes from CC/CXX (autotools' ``AC_PROG_CC``, UCX's
                        make): the wrapper points CC and CXX at its host wrappers.

  An upstream file that decides some other way (it names a launcher tool or
  ``COMPILER_LAUNCHER`` the declaration does not cover) is a finding too.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path

from rocm_bake_checks.lint import upstream
from rocm_bake_checks.lint.bakemodel import relative
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.findings import Finding, LintError

WRAPPER = "with-compiler-cache.sh"
WRAPPER_PATH = Path("dockerfiles") / "scripts" / WRAPPER
TOOLS = ("sccache", "ccache")
_COMPILES = re.compile(r"\bpip3?\s+wheel\b|\bpython3?\s+-m\s+build\b|\bsetup\.py\b"
                       r"|\bcmake\b|\bmake\b|\bninja\b")
_OWN_CHOICE = (
    (re.compile(r"-D\s*CMAKE_\w+_COMPILER_LAUNCHER="), "sets a CMake compiler launcher"),
    (re.compile(r"\bUSE_CCACHE=(?:1|ON|on|true)\b"), "turns PyTorch's USE_CCACHE on"),
    (re.compile(r"(?:^|[\s'\"])(?:CC|CXX)=[\"']?(?:/usr/bin/)?(?:cc|gcc|c\+\+|g\+\+|clang|clang\+\+)"
                r"(?:-\d+)?(?=[\s'\"]|$)"), "sets CC/CXX to a host compiler, past the cache"),
    (re.compile(r"(?:^|[\s;&|(])(?:s?ccache)\s+(?!--)"), "runs a cache tool itself"),
)
# What with-compiler-cache.sh must do for each way an upstream file decides.
_ANSWERS = {"path": ("hide_tools", "a PATH without the cache tools not chosen"),
            "env": ("export {name}=0", "{name}=0"),
            "cc": ("host_compiler CC", "CC/CXX pointed at the host wrappers")}


def check_recipes(paths: list[Path], files: Dockerfiles, root: Path) -> list[Finding]:
    """``cache-launcher``: compile RUNs under the wrapper that choose a cache themselves."""
    found = []
    for name, _, instruction in files.instructions(paths, root):
        body = instruction.body
        if (instruction.keyword != "RUN" or WRAPPER not in body
                or not _COMPILES.search(body)):
            continue
        for pattern, what in _OWN_CHOICE:
            if pattern.search(body.replace(WRAPPER, "")):
                found.append(Finding(name, instruction.line, "cache-launcher",
                                     f"RUN {what}: CACHE_TYPE ({WRAPPER}) chooses "
                                     "the compiler cache of every compile"))
    return found


def parse_way(text: str, where: str) -> tuple[str, tuple[str, ...]]:
    """``path:sccache,ccache`` -> ("path", ("sccache", "ccache")); ``env:USE_CCACHE``;
    ``cc``."""
    kind, _, rest = text.partition(":")
    args = tuple(a for a in rest.split(",") if a)
    if kind == "path" and args and all(a in TOOLS for a in args):
        return kind, args
    if kind == "env" and len(args) == 1 and re.fullmatch(r"[A-Z][A-Z0-9_]*", args[0]):
        return kind, args
    if kind == "cc" and not args:
        return kind, args
    raise LintError(f"{where}: launcher-way must be path:TOOL[,TOOL] (TOOLs of "
                    f"{', '.join(TOOLS)}), env:NAME or cc, got {text!r}")


def _decides(kind: str, args: tuple[str, ...], text: str) -> list[str]:
    """What the upstream ``text`` lacks of the declared way, and what it does besides."""
    wrong = []
    if kind == "path":
        for tool in args:
            if not re.search(rf"which\(\s*[\"']{tool}[\"']\s*\)", text):
                wrong.append(f"no longer looks {tool} up on PATH")
        if "COMPILER_LAUNCHER" not in text:
            wrong.append("sets no *_COMPILER_LAUNCHER")
    elif kind == "env" and args[0] not in text:
        wrong.append(f"no longer reads {args[0]}")
    elif kind == "cc" and "AC_PROG_CC" not in text:
        wrong.append("no longer takes the compiler from CC (AC_PROG_CC)")
    named = {t for t in TOOLS if re.search(rf"[\"'=]{t}[\"'\s]", text)}
    extra = sorted(named - set(args)) if kind == "path" else sorted(named)
    if extra and (kind != "env" or "COMPILER_LAUNCHER" in text):
        wrong.append(f"also chooses {', '.join(extra)} as a launcher")
    return wrong


def check_upstream(config_path: Path, variables: Mapping[str, object], root: Path,
                   metadata: upstream.Metadata) -> list[Finding]:
    """``launcher-upstream``: every component with a ``launcher`` in upstream.toml."""
    wrapper = (root / WRAPPER_PATH).read_text(encoding="utf-8") \
        if (root / WRAPPER_PATH).is_file() else ""
    config = relative(config_path, root)
    found = []
    for entry in upstream.launchers(config_path):
        where = f"upstream.toml: component {entry.name}"
        kind, args = parse_way(entry.way, where)
        url = f"{upstream.resolve(entry.base, variables, where).rstrip('/')}/{entry.file}"
        problems = metadata.fact(url, f"launcher {entry.way}",
                                 functools.partial(_decides, kind, args))
        for problem in problems:
            found.append(Finding(config, entry.line, "launcher-upstream",
                                 f"{entry.name}: {entry.file} at the pin {problem} "
                                 f"(declared launcher-way {entry.way})"))
        needle, what = _ANSWERS[kind]
        needle, what = needle.format(name=args[0] if args else ""), \
            what.format(name=args[0] if args else "")
        if needle not in wrapper:
            found.append(Finding(config, entry.line, "launcher-upstream",
                                 f"{entry.name}: {entry.file} decides by {entry.way}, and "
                                 f"{WRAPPER_PATH} does not answer it ({what})"))
    return found
