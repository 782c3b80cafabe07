"""Fetches in a RUN that no pin fixes: what they get depends on the day of the build.

- ``apt-pin``: ``apt-get install`` / ``apt install`` of a package without ``=VERSION``, in a
  step that names no snapshot archive (snapshot.debian.org / snapshot.ubuntu.com);
- ``apt-repository``: ``add-apt-repository`` -- a PPA or repository whose contents change
  (and drop old builds);
- ``git-commit``: ``git clone`` / ``git fetch`` in a step that names no commit (40 hex
  digits or a ``*_COMMIT`` build arg) to check out or check; a ``git fetch <remote> <ref>``
  of a branch or tag (``${X_REF}``, ``main``) whose step then checks out no commit (``git
  checkout ${X_COMMIT}``), though it names one elsewhere; a ``fetch-source.sh REPO REF
  COMMIT DEST`` whose COMMIT is not a commit (empty, or ``${X_REF}``);
- ``setup-requires``: ``setup.py`` run in a step with network and a package index:
  setuptools fetches ``setup_requires`` from PyPI into ``.eggs``, unpinned. Run it with
  ``RUN --network=none`` or ``PIP_NO_INDEX=1`` (what it needs installed beforehand, pinned).

- ``build-download``: a build whose own setup downloads by URL with no sha256: a stage that
  fetched a source listed in ``BUILD_DOWNLOADS`` (by its commit arg) and builds it without
  the switch that turns the download off.

curl/wget are ``download-sha256`` (downloads.py); pip requirements are ``pip-pin``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

from rocm_bake_checks.lint.bakemodel import relative
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.findings import Finding

# A command word: at the start of the text or after a shell separator or keyword.
_START = r"(?:^|&&|\|\||;|\||\(|\bthen|\bdo|\bexec|\bxargs)\s*(?:\w+=\S*\s+)*"
_APT_INSTALL = re.compile(_START + r"apt(?:-get)?\s+(?:-\S+\s+)*install\b(.*?)(?=&&|\|\||;|\||$)",
                          re.M | re.S)
_SNAPSHOT = re.compile(r"snapshot\.(?:debian\.org|ubuntu\.com)|--snapshot\b")
_ADD_REPOSITORY = re.compile(_START + r"add-apt-repository\b(.*?)(?=&&|\|\||;|\||$)",
                             re.M | re.S)
_GIT_FETCH = re.compile(_START + r"git\s+(?:-C\s+\S+\s+)?(clone|fetch)\b", re.M)
_COMMIT = re.compile(r"\b[0-9a-f]{40}\b|\$\{?\w*_COMMIT\b")
_A_COMMIT = re.compile(r"^(?:[0-9a-f]{40}|\$\{?\w*_COMMIT\}?)$")
# One shell command of a RUN: up to the next separator.
_COMMAND = re.compile(r"[^&|;]+")
_GIT_SUBCOMMAND = re.compile(r"^git\s+(?:-C\s+\S+\s+|-c\s+\S+\s+)*(\w[\w-]*)\b(.*)$", re.S)
# git fetch options that take a value as the next word.
_FETCH_VALUE_OPTIONS = frozenset({"--depth", "--filter", "--deepen", "--shallow-since",
                                  "--shallow-exclude", "-j", "--jobs", "--upload-pack",
                                  "--negotiation-tip", "-o", "--server-option"})
_SETUP_PY = re.compile(_START + r"(?:\S*/)?(?:with-compiler-cache\.sh\s+)?"
                       r"python[0-9.]*\s+(?:-\S+\s+)*setup\.py\b", re.M)
_NO_INDEX = re.compile(r"\bPIP_NO_INDEX=(?:1|true|yes)\b|--no-index\b")
_BUILD = re.compile(r"\bpip3?\s+wheel\b|\bsetup\.py\b")

# Upstream builds that download during their own setup: the commit arg of the source (as
# fetch-source.sh gets it), the variable that keeps the setup offline, what it downloads.
BUILD_DOWNLOADS = (
    ("TRITON_COMMIT", "TRITON_OFFLINE_BUILD",
     "Triton's setup.py downloads its LLVM build by URL with no sha256 check"),
)


def check(paths: list[Path], files: Dockerfiles, root: Path) -> list[Finding]:
    found: list[Finding] = []
    for path in paths:
        name = relative(path, root)
        for stage in files.get(path).stages:
            fetched: list[tuple[str, str, str]] = []
            for instruction in stage.instructions:
                if instruction.keyword != "RUN":
                    continue
                found.extend(_run(name, instruction.flags, instruction.body, instruction.line))
                found.extend(_build_downloads(name, fetched, instruction.body,
                                              instruction.line))
                fetched += [known for known in BUILD_DOWNLOADS
                            if "fetch-source.sh" in instruction.body
                            and re.search(r"\$\{?" + known[0] + r"\b", instruction.body)]
    return found


def _build_downloads(name: str, fetched: list[tuple[str, str, str]], body: str,
                     line: int) -> Iterator[Finding]:
    if not _BUILD.search(body):
        return
    for commit, switch, what in fetched:
        if not re.search(rf"\b{switch}=(?:1|ON|true)\b", body):
            yield Finding(name, line, "build-download",
                          f"builds the source fetched at ${{{commit}}}: {what} (pin it, then "
                          f"{switch}=1)")


def _run(name: str, flags: dict[str, list[str]], body: str, line: int) -> Iterator[Finding]:
    if not _SNAPSHOT.search(body):
        unpinned = [p for m in _APT_INSTALL.finditer(body) for p in _apt_packages(m.group(1))]
        if unpinned:
            yield Finding(name, line, "apt-pin",
                          f"apt installs {', '.join(unpinned)} without =VERSION from no "
                          "snapshot: the archive of the build day decides")
    for match in _ADD_REPOSITORY.finditer(body):
        repository = " ".join(t for t in _tokens(match.group(1)) if not t.startswith("-"))
        yield Finding(name, line, "apt-repository",
                      f"add-apt-repository {repository or '?'}: its contents change and old "
                      "builds are dropped; pin what it installs by version")
    kinds = sorted({m.group(1) for m in _GIT_FETCH.finditer(body)})
    if kinds and not _COMMIT.search(body):
        yield Finding(name, line, "git-commit",
                      f"git {'/'.join(kinds)} names no commit (40 hex digits or a *_COMMIT "
                      "arg) to check out: the branch of the build day decides")
    else:
        yield from _fetched_refs(name, line, body)
    offline = flags.get("network", []) == ["none"]
    if _SETUP_PY.search(body) and not offline and not _NO_INDEX.search(body):
        yield Finding(name, line, "setup-requires",
                      "setup.py runs with network and a package index: setuptools fetches "
                      "its setup_requires from PyPI into .eggs, unpinned (RUN --network=none "
                      "or PIP_NO_INDEX=1)")


def _commands(body: str) -> list[list[str]]:
    """The words of each shell command of a RUN (continuations joined, quotes kept off)."""
    joined = body.replace("\\\n", " ")
    return [words for m in _COMMAND.finditer(joined) if (words := _tokens(m.group(0).strip()))]


def _fetch_refs(words: list[str]) -> list[str]:
    """The refspecs of a ``git fetch`` command's words (after its remote)."""
    operands: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in _FETCH_VALUE_OPTIONS
        else:
            operands.append(word)
    return operands[1:]


def _commit_of(ref: str) -> str:
    """The commit pin that goes with a ref pin (``${X_REF}`` -> ``${X_COMMIT}``)."""
    match = re.fullmatch(r"\$\{?(\w+)_REF\}?", ref)
    return f"${{{match.group(1)}_COMMIT}}" if match else "${<NAME>_COMMIT}"


def _fetched_refs(name: str, line: int, body: str) -> Iterator[Finding]:
    """A fetch of a branch or tag in a step that names a commit elsewhere: the commit must be
    what is fetched or checked out, not only mentioned."""
    commands = _commands(body)
    checked_out = any(
        m and m.group(1) in ("checkout", "switch", "reset")
        and any(_A_COMMIT.match(w) for w in _tokens(m.group(2)))
        for words in commands if (m := _GIT_SUBCOMMAND.match(" ".join(words))))
    for words in commands:
        if words[0].endswith("fetch-source.sh"):
            ref, commit = [*words[2:4], "", ""][:2]
            if not _A_COMMIT.match(commit):
                given = f"'{commit}'" if commit else "an empty string"
                yield Finding(name, line, "git-commit",
                              f"fetch-source.sh is given {given} as its COMMIT, not "
                              f"the pinned commit: pass {_commit_of(ref)}"
                              " (fetch-source.sh REPO REF COMMIT DEST; the REF is only checked "
                              "against it)")
            continue
        match = _GIT_SUBCOMMAND.match(" ".join(words))
        if not match or match.group(1) != "fetch" or checked_out:
            continue
        refs = _fetch_refs(_tokens(match.group(2)))
        moving = [r for r in refs if not _A_COMMIT.match(r.split(":")[0].lstrip("+"))]
        if moving:
            yield Finding(name, line, "git-commit",
                          f"git fetch of {', '.join(moving)}: a branch or tag, not the pinned "
                          "commit, and the step checks out no commit: fetch the commit (git "
                          f"fetch --depth 1 origin {_commit_of(moving[0])}, then git checkout "
                          "FETCH_HEAD, as upstream does) or use fetch-source.sh REPO REF "
                          "COMMIT DEST")


def _tokens(text: str) -> list[str]:
    try:
        return shlex.split(text.replace("\\\n", " "), comments=False)
    except ValueError:
        return text.split()


def _apt_packages(arguments: str) -> list[str]:
    """The packages of one apt install that carry no ``=VERSION`` (options and local .debs
    are not packages; ``PKG/RELEASE`` is not a version either)."""
    out = []
    for token in _tokens(arguments):
        if token.startswith(("-", "/", "./")) or "=" in token or token.endswith(".deb"):
            continue
        out.append(token)
    return out
