"""Regenerate src/rocm_bake_checks/drift/snapshots/upstream.json: the checker records a real
run against the local upstream world (fixture tag names + realistic data,
tests/drift/upstream.py), with
the commit pins pointed at the world's commits; those commits are then renamed to the real
pins of rocm-bake.hcl, so ``inv version-check --offline`` replays it on the real file.

    .venv/bin/python -m tests.drift.make_snapshot
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from rocm_bake.model import bakefile
from rocm_bake_checks.drift import run
from rocm_bake_checks.drift.settings import DriftSettings
from tests.conftest import ROOT
from tests.drift import upstream, worldpins

SNAPSHOT = ROOT / "src" / "rocm_bake_checks" / "drift" / "snapshots" / "upstream.json"
RECORDED_AT = "2026-08-20T12:00:00+00:00"
NOTE = ("Synthetic upstream state for offline runs and the docs page: tag names from "
        "tests/fixtures/upstream (plus realistic tags where those snapshots stop early), "
        "recorded by a real run against local servers; commit ids other than the pins are "
        "synthetic. Regenerate: .venv/bin/python -m tests.drift.make_snapshot")


def generate(path: Path = SNAPSHOT) -> None:
    real = bakefile.load([ROOT / "rocm-bake.hcl"], {})
    with tempfile.TemporaryDirectory() as tmp, upstream.running(Path(tmp)) as world:
        pins = worldpins.derive(ROOT / "rocm-bake.hcl", world.repos, world.pins)
        env = {**os.environ, **pins}
        recorded = Path(tmp) / "recorded.json"
        run.check(DriftSettings(files=[str(ROOT / "rocm-bake.hcl")],
                                rewrites=world.rewrites(), record=str(recorded),
                                cache_dir=str(Path(tmp) / "cache")), env)
        text = recorded.read_text()
    for name, world_commit in pins.items():
        text = text.replace(world_commit, str(real.value(name)))
    data = json.loads(text)
    data["recorded_at"] = RECORDED_AT
    data = {"format": data["format"], "recorded_at": RECORDED_AT, "note": NOTE,
            "answers": data["answers"]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    generate()
    print(f"wrote {SNAPSHOT}")
