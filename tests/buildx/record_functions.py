"""The bake function cases (tests/fixtures/bake/functions.json) as the real buildx evaluates
them: each case is a function's name and a real HCL expression; the recording beside it is
what ``docker buildx bake --print`` gave for ``target "t" { args = { R = jsonencode(EXPR) } }``,
the ``R`` text verbatim (``value``) or the message of its last ``ERROR:`` line after the file
position (``error``). tests/unit/test_functions.py runs the model on every case and
compares; tests/buildx/test_recorded_functions.py checks the recording against the installed
buildx.

Record again after adding or changing a case (needs ``docker buildx``, no engine):

    python -m tests.buildx.record_functions
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURES, ROOT, Buildx, minimal_env

CASES_FILE = FIXTURES / "bake" / "functions.json"

#: Expressions evaluated in one bake file (one arg each) before falling back to one file each.
BATCH = 100

#: buildx's diagnostic position: ``docker-bake.hcl:3,27-28: ``.
_POSITION = re.compile(r"^ERROR: [^\s:]+\.hcl:\d+,\d+(?:-[\d,]+)?: ")
#: buildx evaluates the file twice and counts the second report: ``, and 1 other diagnostic(s)``.
_MORE = re.compile(r", and \d+ other diagnostic\(s\)$")


def load() -> dict[str, Any]:
    """The cases file: ``{"buildx": VERSION, "cases": [{function, expression, value|error}]}``."""
    data: dict[str, Any] = json.loads(CASES_FILE.read_text(encoding="utf-8"))
    return data


def bake_file(expressions: Sequence[str]) -> str:
    """One target whose arg ``R<i>`` is ``jsonencode`` of the i-th expression."""
    args = "".join(f"    R{i} = jsonencode({expr})\n" for i, expr in enumerate(expressions))
    return f'target "t" {{\n  args = {{\n{args}  }}\n}}\n'


def error_message(stderr: str) -> str:
    """buildx's last ``ERROR:`` line without its file position and count of further
    diagnostics. After a panic in a function buildx prints Go's stack trace inside the message:
    the trace is dropped, the message's end (the output's last line) kept."""
    lines = stderr.strip().splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("ERROR:")]
    rest = lines[starts[-1]:] if starts else lines[-1:]
    message = rest[0] + (rest[-1] if len(rest) > 1 else "")
    return _MORE.sub("", _POSITION.sub("", message, count=1).removeprefix("ERROR: "))


def _run(buildx: Buildx, expressions: Sequence[str], work: Path) -> list[dict[str, str]] | str:
    """``buildx``'s ``R<i>`` texts for the expressions, or its error message (its config
    directory, hence its cli-plugins; bytes, not text: an error quotes the source line, which
    may hold bytes that are not UTF-8)."""
    (work / "docker-bake.hcl").write_text(bake_file(expressions), encoding="utf-8")
    env = minimal_env({"DOCKER_CONFIG": str(buildx.config),
                       "BUILDX_CONFIG": str(buildx.home / "buildx")}, home=buildx.home)
    proc = subprocess.run(["docker", "buildx", "bake", "--progress=plain", "--print", "t"],
                          cwd=work, env=env, capture_output=True, timeout=60, check=False)
    if proc.returncode != 0:
        return error_message(proc.stderr.decode("utf-8", "backslashreplace"))
    data: Any = json.loads(proc.stdout)
    args = data["target"]["t"]["args"]
    return [{"value": args[f"R{i}"]} for i in range(len(expressions))]


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), BATCH):
        yield items[start:start + BATCH]


def evaluate(buildx: Buildx, expressions: Sequence[str]) -> list[dict[str, str]]:
    """For each expression ``{"value": R}`` or ``{"error": MESSAGE}``: expressions run in
    batches; a batch that fails runs again one file per expression (buildx stops at errors)."""
    out: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for chunk in _chunks(expressions):
            batch = _run(buildx, chunk, work)
            if isinstance(batch, list):
                out.extend(batch)
                continue
            for expression in chunk:
                one = _run(buildx, [expression], work)
                out.append(one[0] if isinstance(one, list) else {"error": one})
    return out


class RecordError(Exception):
    """The recording cannot be made (one line for the user)."""


def buildx_version(buildx: Buildx) -> str:
    """``buildx``'s version (``0.29.1+ds1``)."""
    if shutil.which("docker") is None:
        raise RecordError("needs the docker client (bash scripts/engine.sh install)")
    words = buildx.version().split()
    if len(words) < 2:
        raise RecordError("needs docker buildx (bash scripts/engine.sh install)")
    return words[1]


def record(buildx: Buildx, cases: Sequence[dict[str, str]]) -> list[dict[str, str]]:
    """The cases with ``buildx``'s outcome beside each expression."""
    outcomes = evaluate(buildx, [case["expression"] for case in cases])
    return [{"function": case["function"], "expression": case["expression"], **outcome}
            for case, outcome in zip(cases, outcomes, strict=True)]


def main() -> int:
    with tempfile.TemporaryDirectory() as home:
        buildx = Buildx(Path(home))
        try:
            version = buildx_version(buildx)
            cases = record(buildx, load()["cases"])
        except (RecordError, OSError, ValueError, KeyError) as exc:
            print(f"record_functions: {exc}", file=sys.stderr)
            return 2
    text = json.dumps({"buildx": version, "cases": cases}, indent=1, ensure_ascii=False) + "\n"
    tmp = CASES_FILE.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(CASES_FILE)
    print(f"recorded {len(cases)} cases into {CASES_FILE.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
