"""``--record FILE`` / ``--offline FILE``: every answer a run got, keyed by its query.

Keys name what was asked in the bake file's own terms (the declared URL, before any
``--rewrite``), so a snapshot recorded against mirrors or local servers replays against the
real bake file. Failures are recorded too: replaying a snapshot gives the same verdicts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_bake.core import atomic, redact
from rocm_bake.core.errors import UsageError

FORMAT = "rocm-bake-drift-snapshot/1"


@dataclass
class Snapshot:
    recorded_at: str
    answers: dict[str, Any] = field(default_factory=dict)
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": FORMAT, "recorded_at": self.recorded_at}
        if self.note:
            out["note"] = self.note
        out["answers"] = dict(sorted(self.answers.items()))
        return out

    def save(self, path: Path) -> None:
        text = json.dumps(self.to_json(), indent=1, sort_keys=False) + "\n"
        atomic.write_text(path, redact.text(text))


def load(path: Path) -> Snapshot:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read snapshot {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"snapshot {path} is not valid JSON (line {exc.lineno}: {exc.msg})") \
            from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"snapshot {path} is not a {FORMAT} file")
    answers = data.get("answers")
    recorded = data.get("recorded_at")
    if not isinstance(answers, dict) or not isinstance(recorded, str):
        raise UsageError(f"snapshot {path} lacks 'answers' or 'recorded_at'")
    return Snapshot(recorded, answers, str(data.get("note", "")))
