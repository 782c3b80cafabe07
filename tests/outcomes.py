"""A run's outcomes: the skips the suite accepts (tests/skips.toml), the counts of each pytest
run and the closing summary of scripts/test.sh.

tests/conftest.py turns every skip whose reason tests/skips.toml does not list into a failure
and, when ``$ROCM_BAKE_TEST_RECORD`` names a file, appends the run's counts and skips to it.
scripts/test.sh gives each stage its own record file and reads them back with:

    python -m tests.outcomes stage FILE NAME ok|failed SECONDS   the stage's line, counts
    python -m tests.outcomes summary FILE...                      every skip with its reason,
                                                                  the totals (last line)
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SKIPS = Path(__file__).resolve().parent / "skips.toml"
RECORD = "ROCM_BAKE_TEST_RECORD"


class SkipsError(Exception):
    """tests/skips.toml is malformed."""


@dataclass(frozen=True)
class Allowed:
    """One accepted skip: its exact reason text or a pattern (``re.search``), and why."""

    reason: str
    pattern: bool
    why: str

    def matches(self, reason: str) -> bool:
        return bool(re.search(self.reason, reason)) if self.pattern else reason == self.reason


def load(path: Path = SKIPS) -> list[Allowed]:
    """The ``[[skip]]`` entries of ``path``: each has ``reason`` or ``pattern``, and ``why``."""
    try:
        entries = tomllib.loads(path.read_text(encoding="utf-8")).get("skip", [])
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SkipsError(f"{path}: {exc}") from None
    out = []
    for number, entry in enumerate(entries, 1):
        text = entry.get("reason", entry.get("pattern"))
        if set(entry) not in ({"reason", "why"}, {"pattern", "why"}) or not str(entry["why"]):
            raise SkipsError(f"{path}: skip #{number} needs `reason` or `pattern`, and `why`")
        try:
            re.compile(str(text))
        except re.error as exc:
            raise SkipsError(f"{path}: skip #{number}: bad pattern: {exc}") from None
        out.append(Allowed(str(text), "pattern" in entry, str(entry["why"])))
    return out


def why(reason: str, allowed: list[Allowed]) -> str | None:
    """Why a skip for ``reason`` is acceptable, or None when tests/skips.toml does not say."""
    return next((a.why for a in allowed if a.matches(reason)), None)


def skip_reason(longrepr: object) -> str:
    """The reason of a skipped report (pytest keeps ``(path, line, "Skipped: REASON")``)."""
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else longrepr
    return str(text).removeprefix("Skipped: ")


@dataclass
class Outcome:
    """One pytest run's counts (errors count as failed) and its skips (test, reason, why)."""

    passed: int = 0
    failed: int = 0
    skipped: int = 0
    skips: list[dict[str, str]] = field(default_factory=list)


def append(path: Path, outcome: Outcome) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(asdict(outcome)) + "\n")


@dataclass
class Stage:
    name: str = ""
    ok: bool = True
    seconds: int = 0
    runs: list[Outcome] = field(default_factory=list)

    def total(self) -> Outcome:
        return Outcome(sum(r.passed for r in self.runs), sum(r.failed for r in self.runs),
                       sum(r.skipped for r in self.runs), [s for r in self.runs for s in r.skips])


def read(path: Path) -> Stage:
    """A stage's record: its pytest runs, then the stage line scripts/test.sh added."""
    stage = Stage()
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    for line in lines:
        data: dict[str, Any] = json.loads(line)
        if "stage" in data:
            stage.name, stage.ok, stage.seconds = data["stage"], data["ok"], data["seconds"]
        else:
            stage.runs.append(Outcome(**data))
    return stage


def counts(outcome: Outcome) -> str:
    return f"{outcome.passed} passed, {outcome.failed} failed, {outcome.skipped} skipped"


def stage_line(path: Path, name: str, ok: bool, seconds: int) -> str:
    """Record how the stage ended; its line with the counts of its pytest runs."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"stage": name, "ok": ok, "seconds": seconds}) + "\n")
    stage = read(path)
    tests = counts(stage.total()) if stage.runs else "no pytest run"
    return f"-- {name}: {'ok' if ok else 'FAILED'} ({tests}; {seconds} s)"


def summary(paths: Sequence[Path]) -> tuple[list[str], bool]:
    """The closing lines: failed stages, every skip with its reason, then the totals (a stage
    that failed with no failing test, such as ruff, counts as one failure)."""
    stages = [read(p) for p in paths]
    totals = [s.total() for s in stages]
    lines = []
    failed = [s for s in stages if not s.ok]
    if failed:
        lines += [f"FAILED stages ({len(failed)}):", *(f"  {s.name}" for s in failed)]
    skips = [skip for total in totals for skip in total.skips]
    lines.append(f"skips ({len(skips)}, each allowed by tests/skips.toml)" + (":" if skips else
                                                                           ": none"))
    lines += [f"  {s['test']}: {s['reason']} -- {s['why']}" for s in skips]
    untested = sum(1 for s, t in zip(stages, totals, strict=True) if not s.ok and not t.failed)
    lines.append(f"{sum(t.passed for t in totals)} passed, "
                 f"{sum(t.failed for t in totals) + untested} failed, {len(skips)} skipped")
    return lines, not failed


def main(argv: Sequence[str]) -> int:
    if len(argv) == 5 and argv[0] == "stage":
        print(stage_line(Path(argv[1]), argv[2], argv[3] == "ok", int(argv[4])), flush=True)
        return 0
    if argv and argv[0] == "summary":
        lines, ok = summary([Path(p) for p in argv[1:]])
        print("\n".join(lines), flush=True)
        return 0 if ok else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

