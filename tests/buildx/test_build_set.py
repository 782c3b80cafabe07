"""``inv build --set`` against the installed buildx: a target override without ``=``
(``TARGET.args.NAME``) takes NAME from the environment as ``docker buildx bake --set`` does, and
reaches buildx unchanged; any other key without a value fails as buildx fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_bake.builds import request as build
from rocm_bake.core.errors import RocmBakeError
from tests.buildx.oracle import Outcome, assert_same_error, oracle
from tests.conftest import Buildx, run_cli

BAKE = 'target "a" {\n  args = { X = "1" }\n}\ntarget "b" {\n  inherits = ["a"]\n}\n'

# name: (--set items, targets, environment)
CASES: dict[str, tuple[list[str], list[str], dict[str, str]]] = {
    "args-from-env": (["a.args.FOO"], ["a"], {"FOO": "from-env"}),
    "args-from-env-missing": (["a.args.FOO"], ["a"], {}),
    "args-from-env-empty": (["a.args.FOO"], ["a"], {"FOO": ""}),
    "args-from-env-replaces": (["a.args.X"], ["a"], {"X": "env"}),
    "args-from-env-glob": (["*.args.FOO"], ["a", "b"], {"FOO": "g"}),
    "args-from-env-beside-a-value": (["a.args.FOO", "b.args.BAR=2"], ["a", "b"], {"FOO": "f"}),
    "tags-without-value": (["a.tags"], ["a"], {"tags": "x"}),
}


def _set(items: list[str]) -> list[str]:
    return [arg for item in items for arg in ("--set", item)]


def _inv_build(bake: Path, sets: list[str], targets: list[str],
               env: dict[str, str]) -> tuple[Outcome, list[str]]:
    """What ``inv build --print`` resolves (and the --set items of the command it would run)."""
    request = build.BuildRequest(targets=targets, files=[str(bake)], sets=sets)
    try:
        prepared = build.prepare(request, env)
    except RocmBakeError as exc:
        return Outcome(False, error=str(exc)), []
    argv = prepared.command.argv()
    passed = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--set"]
    return Outcome(True, prepared.plan.to_json()), passed


@pytest.mark.buildx
@pytest.mark.parametrize("name", sorted(CASES))
def test_build_set_as_buildx(name: str, buildx: Buildx, tmp_path: Path) -> None:
    sets, targets, env = CASES[name]
    bake = tmp_path / "docker-bake.hcl"
    bake.write_text(BAKE)
    expected = oracle(buildx, ["--print", *targets, *_set(sets)], tmp_path, env)
    got, passed = _inv_build(bake, sets, targets, env)
    assert got.ok == expected.ok, f"buildx: {expected.error or 'ok'}; inv: {got.error or 'ok'}"
    if expected.ok:
        assert got.data == expected.data
        assert passed == sets, "the override must reach buildx as written"
    else:
        assert_same_error(f"build-set/{name}", got, expected)


def test_set_variable_without_value_is_still_an_error() -> None:
    """A bake variable needs its value: ``--set MAX_JOBS`` names no target field."""
    with pytest.raises(RocmBakeError, match="invalid --set 'MAX_JOBS'"):
        build.BuildRequest(sets=["MAX_JOBS"]).variable_overrides()


@pytest.mark.buildx
def test_inv_build_print_takes_args_from_environment(buildx: Buildx, tmp_path: Path) -> None:
    """The command line itself: ``inv build --print --set a.args.FOO`` with FOO in the
    environment prints what buildx prints."""
    bake = tmp_path / "docker-bake.hcl"
    bake.write_text(BAKE)
    env = {"FOO": "from-env"}
    expected = oracle(buildx, ["--print", "a", "--set", "a.args.FOO"], tmp_path, env)
    result = run_cli(["inv", "build", "--print", "--file", str(bake), "--target", "a",
                      "--set", "a.args.FOO"], env=env)
    assert result.returncode == 0, result.stderr
    assert expected.ok and expected.data["target"]["a"]["args"] == {"FOO": "from-env", "X": "1"}
    assert json.loads(result.stdout) == expected.data
