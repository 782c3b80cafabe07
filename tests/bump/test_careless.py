"""``inv bump`` in careless hands and against hostile input (issue 41): the commit holds
exactly the bump, a value never reaches git as an option, and every way it cannot be done is
one line, exit status 2 and nothing written; a dry run's status is what its help says."""

from __future__ import annotations

import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.bump.conftest import Checkout, Result
from tests.bump.test_bump import _refused
from tests.bump.world import BUMP, RELEASE
from tests.conftest import ROOT, minimal_env

SECRET = "api-token: s3cr3t-canary-4f1d\n"


def _no_new_ref(checkout: Checkout) -> None:
    assert [h.name for h in checkout.repo.heads] == ["main"]
    assert checkout.repo.active_branch.name == "main"


def test_a_branch_bump_refuses_an_untracked_file_it_would_commit(checkout: Checkout) -> None:
    canary = checkout.root / "notes.txt"
    canary.write_text(SECRET)
    result = checkout.bump(branch="bump/x")
    assert result.code == 2, result.err
    assert result.err.strip() == ("error: the work tree has untracked files (notes.txt) that "
                                  "--branch would commit: commit, remove or ignore them first")
    assert checkout.file.read_text() == (BUMP / "old.hcl").read_text()
    _no_new_ref(checkout)
    assert canary.read_text() == SECRET
    logged = subprocess.run(["git", "log", "--all", "--format=%H", "--", "notes.txt"],
                            cwd=checkout.root, capture_output=True, text=True, check=True)
    assert logged.stdout == ""


def test_a_branch_bump_commits_what_it_wrote_beside_an_ignored_file(
        checkout: Checkout) -> None:
    (checkout.root / ".gitignore").write_text("notes.txt\n")
    checkout.repo.git.add(".gitignore")
    checkout.repo.index.commit("ignore the notes")
    (checkout.root / "notes.txt").write_text(SECRET)
    result = checkout.bump(branch="bump/x")
    assert result.code in (0, 1), result.err
    files = checkout.repo.git.show("--name-only", "--format=", "HEAD").split()
    assert files == ["rocm-bake.hcl"]
    assert checkout.repo.active_branch.name == "bump/x"


@pytest.mark.parametrize("name", ["--orphan", "bad..name", "-b", "x y", "@{-1}", "main~1"])
def test_a_branch_name_git_would_misread_is_one_line(checkout: Checkout, name: str) -> None:
    result = checkout.bump(branch=name)
    _refused(checkout, result.err, result.code, "^" + re.escape(
        f"error: --branch {name!r}: not a valid branch name (git check-ref-format)") + "$")
    _no_new_ref(checkout)


def test_an_existing_branch_is_one_line_and_left_as_it_is(checkout: Checkout) -> None:
    checkout.repo.create_head("bump/x")
    result = checkout.bump(branch="bump/x")
    assert result.code == 2 and result.err == "error: --branch bump/x: the branch exists " \
                                              "already\n", result.err
    assert checkout.repo.active_branch.name == "main"
    assert checkout.file.read_text() == (BUMP / "old.hcl").read_text()


def test_a_dry_run_listing_findings_for_a_person_exits_1_as_the_bump_would(
        checkout: Checkout) -> None:
    dry = checkout.bump(dry_run=True)
    needs = dry.out.split("### Needs a person", 1)[1].split("###", 1)[0]
    listed = [line for line in needs.splitlines() if line.startswith("- ")]
    assert listed and listed != ["- nothing"], dry.out
    assert dry.code == 1, dry
    assert checkout.file.read_text() == (BUMP / "old.hcl").read_text()
    assert checkout.bump().code == dry.code     # the same plan written: the same status


def test_a_cache_dir_that_is_a_file_is_one_line(checkout: Checkout, tmp_path: Path) -> None:
    taken = tmp_path / "cache-file"
    taken.write_text("not a directory\n")
    result = checkout.bump(cache_dir=str(taken))
    _refused(checkout, result.err, result.code,
             "^" + re.escape(f"error: --cache-dir {taken}: {taken} is not a directory") + "$")
    assert taken.read_text() == "not a directory\n"


# -- the command as a user runs it -----------------------------------------------------------------
def _inv(checkout: Checkout, args: list[str], python: list[str] | None = None,
         stdout: int | None = subprocess.PIPE) -> Result:
    """``inv bump ARGS`` in the checkout (its tasks from this repository)."""
    command = [*(python or [sys.executable, "-m", "invoke"]), "--search-root", str(ROOT),
               "bump", *args]
    proc = subprocess.run(command, cwd=checkout.root, env=minimal_env(), stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=600, check=False)
    return Result(proc.returncode, proc.stdout or "", proc.stderr)


def _world_args(checkout: Checkout) -> list[str]:
    args = ["--vllm", RELEASE, "--cache-dir", str(checkout.root.parent / "cache"),
            "--steps", ""]
    for rewrite in checkout.world.rewrites():
        args += ["--rewrite", rewrite]
    return args


def _without(tmp_path: Path, distribution: str) -> list[str]:
    """A Python whose site directory is this one's without ``distribution`` (its package and
    its metadata): what ./inv installs, with no extra."""
    site = tmp_path / "site"
    site.mkdir()
    purelib = Path(sysconfig.get_paths()["purelib"])
    for entry in purelib.iterdir():
        if not entry.name.lower().startswith(distribution):
            (site / entry.name).symlink_to(entry)
    return [sys.executable, "-S", "-c",
            f"import site, sys; site.addsitedir({str(site)!r}); "
            "from invoke.main import program; sys.argv[0] = 'inv'; program.run()"]


def test_without_the_lint_extra_it_is_one_line_naming_it(checkout: Checkout,
                                                         tmp_path: Path) -> None:
    python = _without(tmp_path, "dockerfile_parse")
    result = _inv(checkout, ["--dry-run"], python)
    assert result.code == 2, result
    assert result.err == ("error: inv bump needs the 'lint' extra (missing: dockerfile-parse): "
                          "pip install 'rocm-bake[lint]' (in a checkout: pip install -e "
                          "'.[lint]')\n"), result.err


def test_a_full_stdout_is_one_line(checkout: Checkout) -> None:
    with open("/dev/full", "w") as full:
        result = _inv(checkout, ["--dry-run", *_world_args(checkout)], stdout=full.fileno())
    assert result.code == 2, result
    assert result.err == "error: cannot write the report to stdout: No space left on device\n"
    assert checkout.file.read_text() == (BUMP / "old.hcl").read_text()


def test_the_branch_option_as_a_user_types_it(checkout: Checkout) -> None:
    result = _inv(checkout, ["--branch=--orphan", *_world_args(checkout)])
    assert result.code == 2 and result.err == ("error: --branch '--orphan': not a valid branch "
                                               "name (git check-ref-format)\n"), result
    _no_new_ref(checkout)
