"""``inv bump`` against the local upstream world: the old set bumped to the new one equals
the bake file written by hand for it; each way a bump cannot be done is one line, exit 2 and
nothing written."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import git as gitpython
import pytest

from rocm_bake.model import bakefile
from rocm_bake_checks.bump import abbreviated
from rocm_bake_checks.lint import pins
from tests.buildx.oracle import model, oracle
from tests.bump.conftest import Checkout
from tests.bump.world import BUMP, RELEASE, World, sdist_url
from tests.conftest import ROOT, Buildx
from tests.drift.gitworld import git


def _refused(checkout: Checkout, result_err: str, code: int, pattern: str) -> None:
    assert code == 2, result_err
    lines = result_err.strip().splitlines()
    assert len(lines) == 1, result_err
    assert re.search(pattern, lines[0]), lines[0]
    assert checkout.file.read_text() == (BUMP / "old.hcl").read_text()
    assert not checkout.repo.is_dirty(untracked_files=True)


def test_bump_writes_the_hand_written_new_set(checkout: Checkout) -> None:
    result = checkout.bump()
    assert result.code in (0, 1), result.err
    assert checkout.file.read_text() == (BUMP / "new.hcl").read_text()
    assert "| `PYTORCH_COMMIT` | `a7925a4e477147878c7ca1547dd4a20f36dda156` | " \
           "`1a1bb5fe7972538078e890eb21d48d6f1a5e36f4` | PYTORCH_BRANCH: 1a1bb5f on " \
           "release/2.13 |" in result.out
    assert "25 pin(s) changed" in result.out


def test_the_recipe_read_from_git_at_the_tag_gives_the_same_set(checkout: Checkout) -> None:
    result = checkout.bump(source="git")
    assert result.code in (0, 1), result.err
    assert checkout.file.read_text() == (BUMP / "new.hcl").read_text()


def test_dry_run_prints_the_summary_and_writes_nothing(checkout: Checkout) -> None:
    result = checkout.bump(dry_run=True)
    assert result.code == 1, result.err     # its summary lists what needs a person
    assert "(dry run: nothing written)" in result.out
    assert "| `VLLM_REF` | `v0.28.0` | `v0.33.0` |" in result.out
    assert checkout.file.read_text() == (BUMP / "old.hcl").read_text()


def test_newest_release_when_none_is_asked(checkout: Checkout) -> None:
    result = checkout.bump(vllm="", dry_run=True)
    assert result.code == 1, result.err
    assert result.out.startswith("## Bump to vLLM v0.33.0")


def test_a_tag_that_is_not_there_is_one_line(checkout: Checkout, world: World) -> None:
    world.recipe(AITER_BRANCH="v9.9.9")
    result = checkout.bump()
    _refused(checkout, result.err, result.code,
             r"^error: AITER_COMMIT: cannot resolve 'v9\.9\.9' at git://127\.0\.0\.1:\d+/"
             r"ROCm/aiter\.git")


def _collision(world: World) -> str:
    """A 4-hex abbreviation two commits of release/2.13 share."""
    repo = world.root / "git" / "ROCm/pytorch.git"
    seen: dict[str, str] = {}
    for commit in git(repo, "rev-list", "release/2.13").split():
        if commit[:4] in seen:
            return commit[:4]
        seen[commit[:4]] = commit
    raise AssertionError("no two commits share an abbreviation")


def test_an_ambiguous_abbreviation_is_one_line(checkout: Checkout, world: World) -> None:
    world.recipe(PYTORCH_BRANCH=_collision(world))
    result = checkout.bump()
    _refused(checkout, result.err, result.code,
             r"^error: PYTORCH_COMMIT: cannot resolve '[0-9a-f]{4}' at git://.*ROCm/pytorch\.git"
             r".*ambiguous")


def test_an_abbreviation_not_on_the_branch_is_one_line(checkout: Checkout,
                                                       world: World) -> None:
    world.recipe(PYTORCH_BRANCH=world.ids["ROCm/pytorch"]["v2.14.0-rc1"][:7])
    result = checkout.bump()
    _refused(checkout, result.err, result.code,
             r"^error: PYTORCH_COMMIT: .* is not on branch release/2\.13 of git://")


def test_a_dirty_work_tree_is_one_line(checkout: Checkout) -> None:
    checkout.file.write_text(checkout.file.read_text() + "\n")
    result = checkout.bump()
    assert result.code == 2
    assert result.err.strip() == "error: the work tree is not clean (rocm-bake.hcl modified): " \
                                 "commit or stash first"


def _stage(texts: dict[str, str]) -> dict[str, str]:
    base = texts["Dockerfile.rocm_72_base"]
    base = base.replace("FROM base AS debs_wheel_release",
                        "FROM base AS build_newthing\nRUN pip wheel --no-deps -w /dist .\n\n"
                        "FROM base AS debs_wheel_release\n"
                        "COPY --from=build_newthing /dist /wheels", 1)
    return {**texts, "Dockerfile.rocm_72_base": base}


def _dropped(texts: dict[str, str]) -> dict[str, str]:
    base = "\n".join(line for line in texts["Dockerfile.rocm_72_base"].splitlines()
                     if not line.startswith("ARG TRITON_BRANCH="))
    return {**texts, "Dockerfile.rocm_72_base": base}


@pytest.mark.parametrize(("edit", "pattern"), [
    (_stage, r"^error: upstream's Dockerfile\.rocm_72_base stage build_newthing builds "
             r"something; no component or waiver here answers it"),
    (_dropped, r"^error: TRITON_COMMIT: upstream dropped ARG TRITON_BRANCH \(docker/"
               r"Dockerfile\.rocm_72_base at vLLM 0\.33\.0\)$"),
], ids=["unmapped-stage", "dropped-pin"])
def test_the_recipe_itself_refused(checkout: Checkout, world: World,
                                   edit: Callable[[dict[str, str]], dict[str, str]],
                                   pattern: str) -> None:
    world.recipe(edit)
    result = checkout.bump()
    _refused(checkout, result.err, result.code, pattern)


def test_only_one_group_moves(checkout: Checkout) -> None:
    result = checkout.bump(only="nixl")
    assert result.code in (0, 1), result.err
    changed = [line for line in result.out.splitlines() if line.startswith("| `")]
    assert [line.split("`")[1] for line in changed] == ["UCX_COMMIT", "UCX_REF", "NIXL_COMMIT",
                                                        "NIXL_REF"]


def test_only_refuses_a_set_that_breaks_coherence(checkout: Checkout) -> None:
    result = checkout.bump(only="vllm")
    _refused(checkout, result.err, result.code,
             r"^error: --only vllm breaks coherence rule vllm-torch: .*torch==2\.13\.0; "
             r"PYTORCH_VERSION is 2\.12\.0$")


def test_branch_commits_the_result(checkout: Checkout) -> None:
    result = checkout.bump(branch="bump-vllm")
    assert result.code in (0, 1), result.err
    assert checkout.repo.active_branch.name == "bump-vllm"
    assert not checkout.repo.is_dirty(untracked_files=True)
    assert str(checkout.repo.head.commit.message).startswith("bump: vLLM v0.33.0")
    shown = subprocess.run(["git", "show", "main:rocm-bake.hcl"], cwd=checkout.root,
                           capture_output=True, text=True, check=True).stdout
    assert shown == (BUMP / "old.hcl").read_text()


def _abbreviated(checkout: Checkout, short: str) -> None:
    """The old set with PYTORCH_COMMIT in upstream's abbreviated form, declared as such."""
    text = checkout.file.read_text()
    text = text.replace('default     = "a7925a4e477147878c7ca1547dd4a20f36dda156"',
                        f'default     = "{short}"')
    text = text.replace('condition     = can(regex("^[0-9a-f]{40}$", PYTORCH_COMMIT))',
                        'condition     = can(regex("^[0-9a-f]{40}$", PYTORCH_COMMIT)) || '
                        '(contains(ABBREVIATED, "PYTORCH_COMMIT") && '
                        'can(regex("^[0-9a-f]{4,39}$", PYTORCH_COMMIT)))')
    text = text.replace('variable "PYTORCH_REPO" {', 'variable "ABBREVIATED" {\n'
                        '  type    = list(string)\n  default = ["PYTORCH_COMMIT"]\n}\n\n'
                        'variable "PYTORCH_REPO" {', 1)
    checkout.file.write_text(text)
    checkout.repo.git.commit("-qam", "abbreviated pin")


def test_resolve_replaces_an_abbreviated_pin_with_its_full_commit(checkout: Checkout) -> None:
    _abbreviated(checkout, "a7925a4")
    before = bakefile.load([checkout.file], {})
    assert abbreviated.declared(before) == ["PYTORCH_COMMIT"]
    assert abbreviated.warnings(before) == [
        "PYTORCH_COMMIT = 'a7925a4' is upstream's abbreviated commit (declared in ABBREVIATED); "
        "the build resolves it on PYTORCH_REF: where the host is reachable, `inv bump "
        "--resolve` replaces it with the full commit"]
    result = checkout.bump(resolve=True)
    assert result.code == 0, result.err
    assert result.out == "PYTORCH_COMMIT: a7925a4 -> a7925a4e477147878c7ca1547dd4a20f36dda156\n"
    after = bakefile.load([checkout.file], {})
    assert after.value("PYTORCH_COMMIT") == "a7925a4e477147878c7ca1547dd4a20f36dda156"
    assert abbreviated.declared(after) == [] and abbreviated.warnings(after) == []


def test_resolve_refuses_an_abbreviation_off_its_branch(checkout: Checkout,
                                                        world: World) -> None:
    _abbreviated(checkout, world.ids["ROCm/pytorch"]["v2.14.0-rc1"][:7])
    before = checkout.file.read_text()
    result = checkout.bump(resolve=True)
    assert result.code == 2
    assert re.match(r"^error: PYTORCH_COMMIT: cannot resolve '[0-9a-f]{7}' on release/2\.12 at "
                    r"git://.*is not on branch release/2\.12", result.err), result.err
    assert checkout.file.read_text() == before


@pytest.fixture
def clone(world: World, tmp_path: Path) -> Iterator[Checkout]:
    """A clone of this checkout's HEAD (Dockerfiles, locks, the conformance snapshot) with
    the old set's bake file committed in it."""
    tree = tmp_path / "clone"
    git(ROOT, "clone", "--quiet", "--no-hardlinks", str(ROOT), str(tree))
    checkout = Checkout.__new__(Checkout)
    checkout.root, checkout.world, checkout.file = tree, world, tree / "rocm-bake.hcl"
    shutil.copy(BUMP / "old.hcl", checkout.file)
    checkout.repo = gitpython.Repo(tree)
    with checkout.repo.config_writer() as config:
        config.set_value("user", "name", "Test")
        config.set_value("user", "email", "test@example.invalid")
    checkout.repo.git.commit("-qam", "old set")
    with checkout.repo:     # its git processes end with the test
        yield checkout


def test_the_snapshot_step_records_the_release_files(clone: Checkout) -> None:
    result = clone.bump(steps=("snapshot",))
    assert result.code in (0, 1), result.err
    assert not [n for n in result.out.splitlines() if n.startswith("- snapshot:")], result.out
    snapshot = json.loads((clone.root / "src/rocm_bake_checks/lint/upstream-metadata.json")
                          .read_text())
    commit = "eb92cadbe97727901db1af7ed206c51a6effa1d5"
    key = (f"GET https://raw.githubusercontent.com/vllm-project/vllm/{commit}/docker/"
           "Dockerfile.rocm_72_base [text/plain] [instructions]")
    read = snapshot["answers"][key]["value"]
    assert ["ARG", 'PYTORCH_BRANCH="1a1bb5f" # release/2.13 as of 09/17'] in \
        [i[1:] for i in read["value"]]
    assert not any("body" in a.get("value", {}) for a in snapshot["answers"].values())
    assert not any("2cf0a6915ce544dc493a0990f2ea38d81601128a" in k for k in snapshot["answers"])


def test_flash_attention_and_mori_follow_upstream_once_they_are_components(
        checkout: Checkout, world: World) -> None:
    old_fa = "0" * 40           # old.hcl's FA_COMMIT, MORI_REF v1.1.0
    before = bakefile.load([checkout.file], {})
    assert (before.value("FA_COMMIT"), before.value("MORI_COMMIT")) == (
        old_fa, world.ids["ROCm/mori"]["v1.1.0"])
    result = checkout.bump()
    assert result.code in (0, 1), result.err
    after = bakefile.load([checkout.file], {})
    assert {n: after.value(n) for n in ("FA_REPO", "FA_COMMIT", "FA_REF", "MORI_COMMIT",
                                        "MORI_REF")} == {
        "FA_REPO": "https://github.com/Dao-AILab/flash-attention.git",
        "FA_COMMIT": world.ids["Dao-AILab/flash-attention"]["main"],
        "FA_REF": "vllm-v0.33.0",
        "MORI_COMMIT": world.ids["ROCm/mori"]["v1.2.3.post1"], "MORI_REF": "v1.2.3.post1"}
    assert "| `FA_COMMIT` | `" + old_fa + "` | `" in result.out


def _with_sdist_pins(checkout: Checkout) -> str:
    """old.hcl with vLLM's sdist pins as rocm-bake.hcl has them (v0.28.0's file on PyPI)."""
    old = bakefile.load([ROOT / "rocm-bake.hcl"], {})
    text = checkout.file.read_text()
    block = "".join(
        f'variable "{name}" {{\n  type    = string\n  default = "{old.value(name)}"\n}}\n\n'
        for name in ("VLLM_SDIST_URL", "VLLM_SDIST_SHA256"))
    text = text.replace('variable "VLLM_REF" {', block + 'variable "VLLM_REF" {', 1)
    checkout.file.write_text(text)
    checkout.repo.git.commit("-qam", "vLLM pinned by its sdist")
    return text


def test_the_sdist_pins_move_with_vllm(checkout: Checkout, world: World) -> None:
    _with_sdist_pins(checkout)
    result = checkout.bump()
    assert result.code in (0, 1), result.err
    after = bakefile.load([checkout.file], {})
    body = world.sdists[RELEASE]
    assert after.value("VLLM_SDIST_URL") == sdist_url(RELEASE, body)   # PyPI's, not rewritten
    assert after.value("VLLM_SDIST_SHA256") == hashlib.sha256(body).hexdigest()
    assert "| `VLLM_SDIST_SHA256` | `f4c33c2503d52bb411146afa9618a4f48bed68912f617e6803ac8d76e4c7" \
           "4112` | `" in result.out        # rocm-bake.hcl's, v0.33.0's real sdist


def test_a_git_bump_cannot_move_the_sdist_pins(checkout: Checkout) -> None:
    text = _with_sdist_pins(checkout)
    result = checkout.bump(source="git")
    assert result.code == 2, result.err
    assert result.err.startswith("error: VLLM_SDIST_URL: ") and \
        "bump with --source sdist to move it" in result.err, result.err
    assert checkout.file.read_text() == text


@pytest.mark.buildx
def test_the_bumped_file_is_lint_clean_and_buildx_equal(checkout: Checkout,
                                                        buildx: Buildx) -> None:
    # issue 40: the v0.28.0 set bumped to v0.33.0's is a bake file buildx and the model read
    # alike, for every group and every arch at once, and the pin policy passes on it
    result = checkout.bump()
    assert result.code in (0, 1), result.err
    env = {"GPU_ARCHS": "gfx950,gfx1201,gfx1250"}
    groups = [b.label for b in bakefile.load([checkout.file], {}).namespace.declared.blocks
              if b.type == "group"]
    assert "all" in groups
    for group in groups:
        args = ["-f", "rocm-bake.hcl", "--print", group]
        expected = oracle(buildx, args, checkout.root, env)
        assert expected.ok, expected.error
        assert model(args, checkout.root, env).data == expected.data, group
    listed = ["-f", "rocm-bake.hcl", "--list=type=variables,format=json"]
    assert model(listed, checkout.root, env).data == oracle(buildx, listed, checkout.root,
                                                             env).data
    assert pins.check_variables(bakefile.load([checkout.file], {}), checkout.root) == []
