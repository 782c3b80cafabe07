"""What a parsed Dockerfile's stages install, set and take from each other, read the same way
for upstream's files and ours: the ``FROM`` chain of a stage, the apt packages it installs, the
``ENV`` it sets, the ``NAME=value`` flags its build commands get, and the stages or contexts it
copies or mounts from."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from rocm_bake_checks.lint.dockerfile import Dockerfile, Instruction, Stage, csv_options

_APT_INSTALL = re.compile(r"\bapt-get\s+(?:-\S+\s+)*install\b(.*?)(?=&&|\|\||;|\||$)", re.S)
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
# Upstream's compiler-cache switch (``if [ "$USE_SCCACHE" = "1" ]; then ... fi``): what it sets
# is the cache's plumbing (here: with-compiler-cache.sh), not a flag of the build.
_SCCACHE_BLOCK = re.compile(r"if\s+\[\s*\"?\$\{?USE_SCCACHE\}?\"?\s*=\s*\"?1\"?\s*\];\s*then"
                            r".*?\bfi\b", re.S)
# A command substitution ``$(...)`` (one level of nested parentheses), read as one word.
_SUBSTITUTION = re.compile(r"\$\((?:[^()]|\([^()]*\))*\)")
_SEPARATORS = frozenset({"&&", "||", ";", "|", "then", "do", "else", "(", ")", "{", "}"})


@dataclass(frozen=True)
class Flag:
    name: str
    value: str      # as written (quotes removed); may hold $VARIABLES
    line: int


def chain(parsed: Dockerfile, stage: Stage,
          variables: Mapping[str, str] | None = None) -> list[Stage]:
    """``stage`` and the stages of the same file it is built ``FROM``, nearest first (a
    ``FROM name_${ARG}`` resolved with the file's global ARG defaults and ``variables``)."""
    defaults = {n: a.default or "" for n, a in parsed.global_args.items()}
    values = {**defaults, **(variables or {})}
    out = [stage]
    while True:
        name = expand(out[-1].base.name, values)
        parent = parsed.stage(name)
        if parent is None or parent.index >= out[-1].index or parent in out:
            return out
        out.append(parent)


def expand(text: str, values: Mapping[str, str]) -> str:
    return _VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def runs(stage: Stage) -> Iterator[Instruction]:
    return (i for i in stage.instructions if i.keyword == "RUN")


def apt_packages(stage: Stage, values: Mapping[str, str]) -> dict[str, int]:
    """Package name -> line of every ``apt-get install`` of the stage (options dropped, a
    ``name=version`` pin read as its name, ``$VARIABLES`` expanded from ``values``)."""
    found: dict[str, int] = {}
    for instruction in runs(stage):
        body = instruction.body.replace("\\\n", " ")
        for match in _APT_INSTALL.finditer(body):
            for raw in match.group(1).split():
                word = expand(raw.strip("\"'"), values)
                if word and not word.startswith("-"):
                    found.setdefault(word.split("=", 1)[0], instruction.line)
    return found


def env(stage: Stage) -> list[Flag]:
    """The ``ENV`` of one stage, in order (both ``ENV A=1 B=2`` and ``ENV A 1``)."""
    flags: list[Flag] = []
    for instruction in stage.instructions:
        if instruction.keyword != "ENV":
            continue
        words = _words(instruction.body, punctuation=False)
        if words and "=" not in words[0]:
            flags.append(Flag(words[0], " ".join(words[1:]), instruction.line))
            continue
        for word in words:
            name, _, value = word.partition("=")
            flags.append(Flag(name, value, instruction.line))
    return flags


def image_env(parsed: Dockerfile, stage: Stage,
              variables: Mapping[str, str] | None = None) -> dict[str, Flag]:
    """The environment a stage's image has from the ``ENV``s of its chain in this file (a later
    ``ENV`` of a name wins)."""
    out: dict[str, Flag] = {}
    for link in reversed(chain(parsed, stage, variables)):
        for flag in env(link):
            out[flag.name] = flag
    return out


def command_flags(stage: Stage) -> list[Flag]:
    """``NAME=value`` a RUN of the stage puts in a command's environment: ``export NAME=value``
    and ``NAME=value command`` (a bare ``NAME=value &&`` is a shell variable, not counted);
    what upstream's ``USE_SCCACHE`` switch sets is left out."""
    flags: list[Flag] = []
    for instruction in runs(stage):
        body = _SCCACHE_BLOCK.sub(" ", instruction.body.replace("\\\n", " "))
        body = _SUBSTITUTION.sub("$SUBSTITUTION", body)
        words = _words(body)
        for index, word in enumerate(words):
            match = _ASSIGNMENT.match(word)
            if match is None:
                continue
            previous = words[index - 1] if index else "&&"
            prefix = previous in _SEPARATORS or _ASSIGNMENT.match(previous) is not None
            if previous == "export" or (prefix and _prefixes_a_command(words, index)):
                flags.append(Flag(match.group(1), match.group(2), instruction.line))
    return flags


def cmake_options(stage: Stage) -> list[Flag]:
    """The ``-D`` options of every CMake configure of the stage (``cmake -B build
    -DCMAKE_BUILD_TYPE=Release``, ``-D NAME=value`` too; a ``:TYPE`` dropped), each a flag named
    ``-DNAME``; ``cmake --build`` and ``cmake --install`` configure nothing."""
    flags: list[Flag] = []
    for instruction in runs(stage):
        body = _SCCACHE_BLOCK.sub(" ", instruction.body.replace("\\\n", " "))
        words = _words(_SUBSTITUTION.sub("$SUBSTITUTION", body))
        command = ""
        for index, word in enumerate(words):
            if word in _SEPARATORS:
                command = ""
            elif not command and not _ASSIGNMENT.match(word) and word != "with-compiler-cache.sh":
                command = word.rsplit("/", 1)[-1]
            elif command == "cmake" and word in ("--build", "--install", "-E", "-P"):
                command = f"cmake {word}"
            elif command == "cmake" and word.startswith("-D"):
                option = word[2:] or (words[index + 1] if index + 1 < len(words) else "")
                name, sep, value = option.partition("=")
                if sep and name:
                    flags.append(Flag(f"-D{name.split(':', 1)[0]}", value, instruction.line))
    return flags


def _prefixes_a_command(words: list[str], index: int) -> bool:
    """The assignment at ``index`` is followed (after more assignments) by a command word."""
    for word in words[index + 1:]:
        if _ASSIGNMENT.match(word):
            continue
        return word not in _SEPARATORS
    return False


@dataclass(frozen=True)
class Source:
    origin: str       # the stage or named context
    path: str         # what is taken from it
    target: str       # where it lands (COPY) or is mounted (RUN --mount)
    line: int
    keyword: str      # COPY or RUN


def sources(stage: Stage) -> list[Source]:
    """Each ``COPY --from`` and each ``RUN --mount=...,from=`` of the stage."""
    out: list[Source] = []
    for instruction in stage.instructions:
        if instruction.keyword == "COPY":
            words = instruction.body.split()
            for origin in instruction.flags.get("from", []):
                out += [Source(origin, src, words[-1], instruction.line, "COPY")
                        for src in words[:-1]]
        if instruction.keyword == "RUN":
            for mount in instruction.flags.get("mount", []):
                options = csv_options(mount)
                if options.get("from"):
                    source = options.get("source", options.get("src", "")) or "/"
                    target = options.get("target", options.get("dst", ""))
                    out.append(Source(options["from"], source, target, instruction.line, "RUN"))
    return out


def _words(text: str, punctuation: bool = True) -> list[str]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()" if punctuation else "")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:          # an unbalanced quote: fall back to plain words
        return text.split()
