"""The bump world (session-wide) and a runner of ``inv bump``'s library in a fresh checkout."""

from __future__ import annotations

import contextlib
import io
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git
import pytest

from rocm_bake.core.clock import SYSTEM
from rocm_bake.core.errors import RocmBakeError
from rocm_bake_checks.bump import abbreviated
from rocm_bake_checks.bump import run as bumping
from tests.bump import world as bumpworld
from tests.bump.world import BUMP, World


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with bumpworld.running(tmp_path_factory.mktemp("bump-world")) as running:
        yield running


@dataclass
class Result:
    code: int
    out: str
    err: str


class Checkout:
    """A git work tree holding the old set's bake file (tests/fixtures/bump/old.hcl)."""

    def __init__(self, root: Path, world: World) -> None:
        self.root = root
        self.world = world
        self.file = root / "rocm-bake.hcl"
        shutil.copy(BUMP / "old.hcl", self.file)
        self.repo = git.Repo.init(root, initial_branch="main")
        with self.repo.config_writer() as config:
            config.set_value("user", "name", "Test")
            config.set_value("user", "email", "test@example.invalid")
        self.repo.git.add("--all")
        self.repo.index.commit("old set")

    def bump(self, **options: Any) -> Result:
        defaults: dict[str, Any] = {"file": self.file, "root": self.root,
                                    "vllm": bumpworld.RELEASE, "rewrites": self.world.rewrites(),
                                    "cache_dir": str(self.root.parent / "cache"),
                                    "timeout": 60.0, "steps": ()}
        defaults.update(options)
        resolve = defaults.pop("resolve", False)
        clock = defaults.pop("clock", SYSTEM)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                if resolve:
                    code, text = abbreviated.resolve(bumping.Options(**defaults))
                else:
                    code, text = bumping.run(bumping.Options(**defaults), clock=clock)
                print(text, end="")
            except RocmBakeError as exc:
                print(getattr(exc, "report", ""), end="")   # what the task prints first
                print(f"error: {exc}", file=err)
                code = exc.exit_code
        return Result(code, out.getvalue(), err.getvalue())


@pytest.fixture
def checkout(world: World, tmp_path: Path) -> Iterator[Checkout]:
    (tmp_path / "tree").mkdir()
    made = Checkout(tmp_path / "tree", world)
    # GitPython keeps ``git cat-file`` processes per Repo: closed here, they end with the
    # test. A Repo left to the cyclic garbage collector has its pipes and processes finalized
    # in any order, before GitPython ends them: a ResourceWarning, an error in this suite.
    with made.repo:
        yield made
    world.recipe()      # a test that changed the published recipe puts it back
