"""Run the same bake request through buildx and through the project's model, and compare."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model import bakefile
from tests.buildx.wording import ERROR_WORDING
from tests.conftest import Buildx

DEFAULT_FILES = ("docker-bake.hcl", "docker-bake.override.hcl")


@dataclass
class Request:
    """A bake command line, split into what the model takes."""

    files: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    overrides: list[str] = field(default_factory=list)
    push: bool = False
    list_variables: bool = False

    @classmethod
    def parse(cls, args: list[str]) -> Request:
        request = cls()
        items = iter(args)
        for arg in items:
            if arg in ("-f", "--file"):
                request.files.append(next(items))
            elif arg == "--set":
                request.overrides.append(next(items))
            elif arg == "--push":
                request.push = True
            elif arg.startswith("--list"):
                request.list_variables = True
            elif arg != "--print":
                request.targets.append(arg)
        return request


@dataclass
class Outcome:
    ok: bool
    data: Any = None
    error: str = ""


def model(args: list[str], cwd: Path, env: dict[str, str]) -> Outcome:
    request = Request.parse(args)
    files = request.files or [f for f in DEFAULT_FILES if (cwd / f).exists()]
    try:
        definition = bakefile.load([cwd / f for f in files], env)
        if request.list_variables:
            return Outcome(True, [v.record() for v in definition.variables()])
        plan = definition.plan(request.targets, request.overrides, request.push)
        return Outcome(True, plan.to_json())
    except RocmBakeError as exc:
        return Outcome(False, error=str(exc))


def oracle(buildx: Buildx, args: list[str], cwd: Path, env: dict[str, str]) -> Outcome:
    result = buildx.bake(args, cwd, env)
    if result.returncode != 0:
        errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR:")]
        return Outcome(False, error=(errors or [result.stderr.strip()[-300:]])[-1])
    return Outcome(True, result.json())


def groups_as_sets(data: Any) -> Any:
    """For matrices of more than one axis buildx lists generated names in Go map order."""
    if isinstance(data, dict) and "group" in data:
        data = dict(data)
        data["group"] = {name: {**group, "targets": _sorted_or_null(group["targets"])}
                         for name, group in data["group"].items()}
    return data


def _sorted_or_null(items: list[str] | None) -> list[str] | None:
    return None if items is None else sorted(items)


#: Where an error says where it is: buildx's HCL range ``FILE:LINE,COL-...: `` or the model's
#: ``FILE:LINE:COL: `` / ``FILE:LINE: `` / ``FILE: `` (a bake file is named ``*.hcl``/``*.json``).
_LOCATION = re.compile(r"(?P<file>[^\s:]+\.(?:hcl|json))"
                       r"(?::(?P<line>\d+)(?:[:,](?P<column>\d+)(?:-[\d,]+)?)?)?: ")
_MORE_DIAGNOSTICS = re.compile(r", and \d+ other diagnostic\(s\)$")
_CLAUSE_END = re.compile(r"; |: ")
_NOTE = re.compile(r" \([^()]*\)$")


@dataclass(frozen=True)
class ErrorGist:
    """What an error means, for comparing the model's with buildx's."""

    file: str | None
    line: int | None
    column: int | None
    clause: str

    def matches(self, other: ErrorGist) -> bool:
        """Same file name and line, same column where both give one, same first clause."""
        columns = self.column is None or other.column is None or self.column == other.column
        return ((self.file, self.line, self.clause) == (other.file, other.line, other.clause)
                and columns)


def error_gist(error: str) -> ErrorGist:
    """The normalised form of an error message, buildx's (its last ``ERROR:`` line) or the
    model's: where it is and what it says first.

    - ``ERROR: `` is dropped.
    - The location: the bake file by *name* (buildx prints the path it was given, the model
      the path it opened), the line, and the column (buildx's range ``L,C-L,C`` gives its
      start); each ``None`` when the message has none.
    - The first clause: the text after the location, without buildx's trailing ``, and N
      other diagnostic(s)``, up to the first ``; `` or ``: ``, case-folded, its whitespace
      collapsed, a final ``.`` and a final parenthesised note (the model's ``(target t)``)
      dropped. For an HCL diagnostic (``Summary; Detail``) that is
      the summary; for any other error its leading statement (``unknown key``,
      ``failed to find target nope``).
    """
    text = error.strip().removeprefix("ERROR: ")
    file = line = column = None
    where = _LOCATION.match(text)
    if where:
        file = Path(where["file"]).name
        line = int(where["line"]) if where["line"] else None
        column = int(where["column"]) if where["column"] else None
        text = text[where.end():]
    text = _MORE_DIAGNOSTICS.sub("", text)
    clause = " ".join(_CLAUSE_END.split(text, maxsplit=1)[0].split()).rstrip(".")
    return ErrorGist(file, line, column, _NOTE.sub("", clause).casefold())


def assert_same_error(case: str, got: Outcome, expected: Outcome) -> None:
    """Both refused the request: the model's error must mean what buildx's does (same
    ``error_gist``), unless ``case`` is a listed wording exception (``wording.ERROR_WORDING``,
    each with its reason); a listed case that agrees again must leave the list."""
    assert got.error, "an error must say what is wrong"
    same = error_gist(got.error).matches(error_gist(expected.error))
    if case in ERROR_WORDING:
        assert not same, f"{case} now agrees with buildx: remove it from ERROR_WORDING"
        return
    assert same, f"the errors differ\nbuildx: {expected.error}\nmodel:  {got.error}"
