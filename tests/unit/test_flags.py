"""A task's flags declared once (rocm_bake.core.flags): ``inv version-check``'s flags are the
fields of ``DriftSettings``, each with its help line and its default's kind, and what invoke's
own parser makes of a command line maps back onto the dataclass (tasks/_cli.py: flags_task,
from_flags). Run in a fresh interpreter that imports ``tasks`` (which wraps its stdout)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from rocm_bake.core.flags import CHOICES, HELP, MANY, NAME, OPTIONAL, flag, flags
from rocm_bake.model import bakefile
from rocm_bake_checks.drift import settings
from rocm_bake_checks.drift.settings import DriftSettings
from tests.conftest import ROOT

PROBE = """
import dataclasses, json, sys
import tasks
from invoke.parser import Parser, ParserContext
from rocm_bake_checks.drift.settings import DriftSettings
from tasks._cli import from_flags

task = tasks.ns.tasks["version-check"]
arguments = {a.name: [a.help, a.kind.__name__, a.optional] for a in task.get_arguments()}
parsed = []
for argv in json.loads(sys.argv[1]):
    context = ParserContext(name="version-check", args=task.get_arguments())
    result = Parser(contexts=[context]).parse_argv(["version-check", *argv])
    parsed.append(dataclasses.asdict(from_flags(DriftSettings, result[0].as_kwargs)))
print(json.dumps({"arguments": arguments, "parsed": parsed}))
"""

CASES: list[tuple[list[str], dict[str, Any]]] = [
    ([], {"files": ["rocm-bake.hcl"], "rewrites": [], "only": [], "output": "table",
          "images": None, "deadline": 120.0, "workers": 32, "fleet": "fleet.toml"}),
    (["--markdown"], {"output": "markdown"}),
    (["--json", "--markdown"], {"output": "json"}),   # as the task always chose
    (["--images"], {"images": ""}),                      # given alone: fleet.toml's registry
    (["--images=127.0.0.1:5000/nightly"], {"images": "127.0.0.1:5000/nightly"}),
    (["--file", "a.hcl", "--file", "b.hcl", "--rewrite", "https://x/=http://y/",
      "--only", "A_REF, B_REF", "--only", "C_REF"],
     {"files": ["a.hcl", "b.hcl"], "rewrites": ["https://x/=http://y/"],
      "only": ["A_REF", "B_REF", "C_REF"]}),
    (["--deadline", "5", "--workers", "3", "--max-wait", "0", "--docs", "--check",
      "--docs-file", "page.md", "--list-undeclared"],
     {"deadline": 5.0, "workers": 3, "max_wait": 0.0, "docs": True, "check": True,
      "docs_file": "page.md", "list_undeclared": True}),
]


@pytest.fixture(scope="module")
def probed() -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps([c[0] for c in CASES])],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def test_the_tasks_flags_are_the_settings_fields(probed: dict[str, Any]) -> None:
    expected = {}
    for field in flags(DriftSettings):
        meta = field.metadata
        for choice, help_line in meta[CHOICES].items():
            expected[choice] = [help_line, "bool", False]
        if meta[CHOICES]:
            continue
        kind = "list" if meta[MANY] else \
            "str" if field.default is None else type(field.default).__name__
        expected[meta[NAME] or field.name] = [meta[HELP], kind, meta[OPTIONAL]]
    assert probed["arguments"] == expected
    assert len(expected) == 25   # inv version-check's flags


@pytest.mark.parametrize("index", range(len(CASES)))
def test_what_invoke_parses_maps_onto_the_settings(probed: dict[str, Any], index: int) -> None:
    parsed = probed["parsed"][index]
    for name, value in CASES[index][1].items():
        assert parsed[name] == value, (CASES[index][0], name)
        assert type(parsed[name]) is type(value), (CASES[index][0], name)


def test_the_default_bake_file_is_the_bake_models() -> None:
    assert settings.DEFAULT_FILE == bakefile.DEFAULT_FILE


@pytest.mark.parametrize(("args", "error"), [
    (([1], "help"), "a repeatable flag's default is []"),
    (("x",), "a flag has a help line"),
])
def test_a_flag_is_declared_whole(args: tuple[Any, ...], error: str) -> None:
    with pytest.raises(ValueError, match=error.replace("[", r"\[").replace("]", r"\]")):
        flag(*args)
