"""Fixtures for the drift tests: the running upstream world and a runner for the checker."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rocm_bake.core.clock import SYSTEM
from rocm_bake.core.errors import RocmBakeError
from rocm_bake_checks.drift.settings import DriftSettings
from tasks import versions
from tests.drift import upstream
from tests.drift.upstream import Upstream


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Upstream]:
    with upstream.running(tmp_path_factory.mktemp("upstream")) as running:
        yield running


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> dict[str, Any]:
        data = json.loads(self.out)
        assert isinstance(data, dict)
        return data

    def pin(self, name: str) -> dict[str, Any]:
        data = self.json()
        for finding in [*data["pins"], *data["coherence"]]:
            if finding["name"] == name:
                return dict(finding)
        raise AssertionError(f"{name} not in {[f['name'] for f in data['pins']]}")


class Checker:
    """Runs ``inv version-check`` in-process (its task's run, tasks/versions.py) on a small bake
    file against the world."""

    def __init__(self, world: Upstream, tmp: Path) -> None:
        self.world = world
        self.tmp = tmp
        self.cache = tmp / "cache"

    def bake(self, text: str, name: str = "drift.hcl") -> Path:
        path = self.tmp / name
        path.write_text(text)
        return path

    def run(self, text: str | None = None, env: Mapping[str, str] | None = None,
            **options: Any) -> Run:
        files = [str(self.bake(text))] if text is not None else options.pop("files")
        defaults: dict[str, Any] = {"files": files, "rewrites": self.world.rewrites(),
                                    "cache_dir": str(self.cache), "output": "json",
                                    "deadline": 60.0, "retries": 1, "max_wait": 5.0}
        clock = options.pop("clock", SYSTEM)
        defaults.update(options)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = versions.check(DriftSettings(**defaults), dict(env or {}), clock)
            except RocmBakeError as exc:
                print(f"error: {exc}", file=err)
                code = exc.exit_code
        return Run(code, out.getvalue(), err.getvalue())


@pytest.fixture
def checker(world: Upstream, tmp_path: Path) -> Checker:
    return Checker(world, tmp_path)


def variable(name: str, value: str) -> str:
    return f'variable "{name}" {{\n  default = "{value}"\n}}\n'


def source(name: str, **fields: str | list[str] | bool) -> str:
    """``NAME_SOURCE = { ... }`` from keyword fields (strings are written as HCL strings)."""
    lines = []
    for key, value in fields.items():
        if isinstance(value, bool):
            rendered = "true" if value else "false"
        elif isinstance(value, list):
            rendered = "[" + ", ".join(json.dumps(v) for v in value) + "]"
        elif value.startswith("{"):
            rendered = value
        else:
            rendered = json.dumps(value)
        lines.append(f"  {key} = {rendered}")
    return f"{name}_SOURCE = {{\n" + "\n".join(lines) + "\n}\n"


def pin(name: str, value: str, **fields: str | list[str] | bool) -> str:
    return variable(name, value) + source(name, **fields)
