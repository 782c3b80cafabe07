"""The resolution family follows the rehearsal: on the tree as it is both pass, and each of the
rehearsal's deliberate bad cases (tests/rehearse/badcases.py) the family stops at the step the
rehearsal stops at (tests/rehearse/test_rehearse.py: the same cell, Dockerfile and RUN), naming
the distribution at fault.  No engine: the family replays the copy's pip installs offline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocm_bake_checks.lint import bakemodel, upstream
from rocm_bake_checks.lint.locks import resolution
from tests.conftest import ROOT
from tests.rehearse.badcases import CASES, tree

FINDING = re.compile(r"^(\S+?):(\d+): (resolve-[a-z-]+): (.*)$")


def findings(root: Path) -> list[str]:
    bake = root / "rocm-bake.hcl"
    definition = bakemodel.load([bake])
    return [str(f) for f in resolution.check(definition, [bake],
                                             bakemodel.targets(definition, root), root,
                                             upstream.Metadata(upstream.Settings()))]


def test_the_tree_as_it_is_resolves() -> None:
    assert findings(ROOT) == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_family_stops_each_bad_case_where_the_rehearsal_does(name: str,
                                                                 tmp_path: Path) -> None:
    case = CASES[name]
    copy = tree(tmp_path)
    case.make(copy)
    line = case.line(copy)
    found = findings(copy)
    at_step = [f for f in found if f.startswith(f"{case.dockerfile}:{line}: ")]
    assert at_step, "\n".join(found)
    assert any(re.search(rf"[:,] {case.cell}[,: ]", f) and re.search(case.names, f)
               for f in at_step), "\n".join(at_step)
