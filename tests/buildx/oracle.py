"""Run the same bake request through buildx and through the project's model, and compare."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_bake import bakefile
from rocm_bake.errors import RocmBakeError
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
        data["group"] = {name: {**group, "targets": sorted(group["targets"])}
                         for name, group in data["group"].items()}
    return data
