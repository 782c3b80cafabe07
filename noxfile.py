# /// script
# dependencies = ["nox>=2025.2.9", "python-hcl2>=8.1,<9"]
# ///
"""nox sessions: one isolated build session per GPU arch of rocm-bake.hcl, plus tests and lint.

    nox -l                                  # list sessions
    nox -s build-gfx950 -- --dry-run        # arguments after -- go to `inv build`

The arch list comes from the bake file itself (ALL_ARCHS), read by the project's own model.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "src"))

from rocm_bake.model import graph  # noqa: E402  (the library, read from the checkout)

nox.options.sessions = ["tests", "lint"]
nox.options.reuse_existing_virtualenvs = True

# The dev tools, as pyproject.toml's dependency group says (it also pulls rocm-bake[lint]).
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
DEV = nox.project.dependency_groups(PYPROJECT, "dev")


def _build_session(arch: str) -> None:
    @nox.session(name=f"build-{arch}")
    def build(session: nox.Session) -> None:
        session.install("-e", ".")
        session.run("inv", "build", "--arch", arch, *session.posargs)

    build.__doc__ = f"Build the {arch} cell: inv build --arch {arch} [posargs]"


for _arch in graph.supported_archs([str(ROOT / "rocm-bake.hcl")], env={}):
    _build_session(_arch)


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (unit tests first); needs scripts/engine.sh for the engine tests."""
    session.install("-e", ".", *DEV)
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, mypy --strict, hadolint on dockerfiles/ and inv lint (bake <-> Dockerfile, pins)."""
    session.install("-e", ".", *DEV)
    session.run("ruff", "check", ".")
    session.run("mypy")
    dockerfiles = sorted(str(p) for p in (ROOT / "dockerfiles").glob("*.Dockerfile"))
    session.run("hadolint", *dockerfiles)
    session.run("inv", "lint")
