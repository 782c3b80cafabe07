"""Commit pins, coherence, policy, outputs, ETags, tokens, record/offline and --pr."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from rocm_bake_checks.drift import docs
from tests.drift.conftest import Checker, pin, variable
from tests.drift.upstream import Upstream
from tests.drift.webworld import Route, World

GH = "https://github.com"
V3 = r"^v(?P<version>[0-9]+\.[0-9]+\.[0-9]+)$"


# -- commit pins ---------------------------------------------------------------------------
def test_commit_behind_newest_release_names_the_tags(checker: Checker) -> None:
    commit = checker.world.pins["NIXL_COMMIT"]
    finding = checker.run(pin("NIXL_COMMIT", commit, git=f"{GH}/ai-dynamo/nixl.git",
                              tags=r"^v?(?P<version>[0-9]+\.[0-9]+\.[0-9]+.*)$")
                          ).pin("NIXL_COMMIT")
    assert finding["status"] == "behind"
    assert finding["detail"] == ("3 commits behind v1.4.0; based on v1.3.2; first released in "
                                 "v1.4.0"), finding


def test_commit_on_a_release_branch_whose_head_moved(checker: Checker) -> None:
    commit = checker.world.pins["PYTORCH_COMMIT"]
    text = pin("PYTORCH_COMMIT", commit, git=f"{GH}/ROCm/pytorch.git",
               tags=r"^v(?P<version>2\.13\.0)$", branch="release/2.13")
    finding = checker.run(text).pin("PYTORCH_COMMIT")
    assert finding["status"] == "behind", finding
    assert finding["behind"] == "release/2.13 head moved: 2 commits since the pin"


def test_a_first_fetch_lists_the_refs_and_a_cached_repository_asks_ls_remote(
        checker: Checker) -> None:
    """One connection per repository: the blob-less fetch's refs, or ls-remote once cached."""
    commit = checker.world.pins["PYTORCH_COMMIT"]
    text = pin("PYTORCH_COMMIT", commit, git=f"{GH}/ROCm/pytorch.git",
               tags=r"^v(?P<version>2\.13\.0)$", branch="release/2.13")
    listing = f"git ls-remote {GH}/ROCm/pytorch.git  ->  "
    first = checker.run(text, explain="PYTORCH_COMMIT", output="table").out
    again = checker.run(text, explain="PYTORCH_COMMIT", output="table").out
    asked = f"{checker.world.git_url}ROCm/pytorch.git (sent there by --rewrite https://github.com/=)"
    assert re.search(re.escape(listing) + r"\d+ tags, 1 branch from the blob-less fetch of " +
                     re.escape(asked), first), first
    assert re.search(re.escape(listing) + r"\d+ tags, \d+ branches listed by ls-remote of " +
                     re.escape(asked), again), again
    assert first.splitlines()[2] == again.splitlines()[2]    # the same verdict


def test_a_commit_pins_branch_that_does_not_exist(checker: Checker) -> None:
    commit = checker.world.pins["PYTORCH_COMMIT"]
    finding = checker.run(pin("PYTORCH_COMMIT", commit, git=f"{GH}/ROCm/pytorch.git",
                              tags=r"^v(?P<version>2\.13\.0)$", branch="release/9.99")
                          ).pin("PYTORCH_COMMIT")
    assert finding["status"] == "pin not found upstream", finding
    assert finding["detail"] == "branch release/9.99 does not exist upstream"


def test_commit_at_branch_head_is_up_to_date(checker: Checker) -> None:
    head = checker.world.repos["ROCm/pytorch"].heads["release/2.13"]
    finding = checker.run(pin("PYTORCH_COMMIT", head, git=f"{GH}/ROCm/pytorch.git",
                              tags=r"^v(?P<version>2\.13\.0)$", branch="release/2.13")
                          ).pin("PYTORCH_COMMIT")
    assert finding["status"] == "up to date", finding
    assert finding["detail"].startswith("head of release/2.13"), finding


def test_unknown_commit_is_not_found_without_a_full_clone(checker: Checker) -> None:
    result = checker.run(pin("VLLM_COMMIT", "0123456789" * 4, git=f"{GH}/vllm-project/vllm.git",
                             tags=V3))
    assert result.pin("VLLM_COMMIT")["status"] == "pin not found upstream"
    assert result.code == 1
    cached = list((checker.cache / "git").glob("*.git"))
    assert cached, "the history is kept in the cache directory"
    config = (cached[0] / "config").read_text()
    assert "partialclonefilter = blob:none" in config
    objects = subprocess.run(["git", "--git-dir", str(cached[0]), "cat-file",
                              "--batch-all-objects", "--batch-check"], capture_output=True,
                             text=True, check=True).stdout
    assert " blob " not in objects, "a blob-less fetch fetched blobs"


def test_branch_pin_that_does_not_exist(checker: Checker) -> None:
    result = checker.run(pin("UCX_BRANCH", "v1.99.x", git=f"{GH}/openucx/ucx.git", pin="branch"))
    assert result.pin("UCX_BRANCH")["status"] == "pin not found upstream"


# -- coherence -----------------------------------------------------------------------------
def coherent_world(world: Upstream, **overrides: str) -> str:
    values = {"PYTORCH_REPO": f"{GH}/ROCm/pytorch.git", "PYTORCH_COMMIT": world.pins[
        "PYTORCH_COMMIT"], "TRITON_COMMIT": world.pins["TRITON_COMMIT"],
        "VLLM_REPO": f"{GH}/vllm-project/vllm.git", "VLLM_COMMIT": world.pins["VLLM_COMMIT"],
        "PYTORCH_VERSION": "2.13.0", "ROCM_VERSION": "7.2.3"}
    values.update(overrides)
    return "".join(variable(k, v) for k, v in values.items()) + pin(
        "TORCH_PIN", "2.13.0", pypi="torch",
        wheels='{ index = ["https://download.pytorch.org/whl/rocm7.2"], variant = "rocm7.2" }')


def test_coherent_pins(checker: Checker) -> None:
    result = checker.run(coherent_world(checker.world))
    for rule in ("triton-pin", "vllm-torch", "rocm-labels"):
        assert result.pin(rule)["status"] == "holds", result.pin(rule)


def test_triton_pin_disagrees_with_torch(checker: Checker) -> None:
    result = checker.run(coherent_world(checker.world, TRITON_COMMIT="f" * 40))
    finding = result.pin("triton-pin")
    assert finding["status"] == "incoherent" and result.code == 1
    assert ".ci/docker/ci_commit_pins/triton.txt" in finding["detail"]


def test_vllm_wants_another_torch(checker: Checker) -> None:
    finding = checker.run(coherent_world(checker.world, PYTORCH_VERSION="2.11.0")
                          ).pin("vllm-torch")
    assert finding["status"] == "incoherent"
    assert "wants torch==2.13.0; PYTORCH_VERSION is 2.11.0" in finding["detail"]


def test_rocm_label_disagrees_with_rocm_version(checker: Checker) -> None:
    finding = checker.run(coherent_world(checker.world, ROCM_VERSION="7.0.2")
                          ).pin("rocm-labels")
    assert finding["status"] == "incoherent"
    assert "TORCH_PIN_SOURCE +rocm7.2" in finding["detail"]


def test_arch_lists(checker: Checker) -> None:
    base = ('ALL_ARCHS = ["gfx950", "gfx1201"]\nSKIP = { "gfx1201/aiter" = "why" }\n'
            'ARCHS = { aiter = [] }\n'
            'variable "GPU_ARCHS" {\n  default = ["gfx950"]\n}\n'
            'ARCH_ARGS = { for a in ALL_ARCHS : a => { PYTORCH_ROCM_ARCH = a, '
            'HCC_AMDGPU_TARGET = a } }\n')
    assert checker.run(base).pin("arch-lists")["status"] == "holds"
    bad = base.replace('"gfx1201/aiter"', '"gfx90a/aiter"').replace(
        "HCC_AMDGPU_TARGET = a", 'HCC_AMDGPU_TARGET = "${a};gfx942"')
    finding = checker.run(bad).pin("arch-lists")
    assert finding["status"] == "incoherent"
    assert "SKIP key gfx90a/aiter" in finding["detail"]
    assert "ARCH_ARGS[gfx950].HCC_AMDGPU_TARGET" in finding["detail"]


# -- policy --------------------------------------------------------------------------------
def test_allow_minor_behind(checker: Checker) -> None:
    result = checker.run(pin("TRITON_VERSION", "3.7.1", pypi="triton",
                             allow_behind="{ minor = 2 }"))
    finding = result.pin("TRITON_VERSION")
    assert finding["status"] == "behind (within policy)" and result.code == 0, finding
    result = checker.run(pin("TRITON_VERSION", "3.6.0", pypi="triton",
                             allow_behind="{ minor = 2 }"))
    assert result.pin("TRITON_VERSION")["status"] == "behind" and result.code == 1


def test_allow_commits_behind(checker: Checker) -> None:
    text = pin("NIXL_COMMIT", checker.world.pins["NIXL_COMMIT"], git=f"{GH}/ai-dynamo/nixl.git",
               tags=r"^v?(?P<version>[0-9]+\.[0-9]+\.[0-9]+.*)$", allow_behind="{ commits = 3 }")
    result = checker.run(text)
    assert result.pin("NIXL_COMMIT")["status"] == "behind (within policy)" and result.code == 0
    result = checker.run(text.replace("commits = 3", "commits = 2"))
    assert result.pin("NIXL_COMMIT")["status"] == "behind" and result.code == 1


def test_waiver_with_expiry(checker: Checker) -> None:
    live = pin("TRITON_VERSION", "3.0.0", pypi="triton",
               waiver='{ until = "2999-01-01", reason = "blocked on ROCm 8" }')
    result = checker.run(live)
    finding = result.pin("TRITON_VERSION")
    assert finding["status"] == "waived" and result.code == 0
    assert finding["policy"] == "waived until 2999-01-01: blocked on ROCm 8"
    expired = live.replace("2999-01-01", "2020-01-01")
    result = checker.run(expired)
    finding = result.pin("TRITON_VERSION")
    assert finding["status"] == "behind" and result.code == 1
    assert finding["policy"] == "waiver expired on 2020-01-01"


def test_waiver_never_hides_could_not_check(checker: Checker) -> None:
    result = checker.run(pin("X_VERSION", "1.0.0", pypi="never-published",
                             waiver='{ until = "2999-01-01", reason = "x" }'))
    assert result.pin("X_VERSION")["status"] == "could not check" and result.code == 2


# -- outputs -------------------------------------------------------------------------------
def test_explain_shows_queries_candidates_rules_and_winner(checker: Checker) -> None:
    text = pin("AITER_REF", "v0.1.19", git=f"{GH}/ROCm/aiter.git",
               tags=r"^v(?P<version>[0-9].*)$")
    out = checker.run(text, output="table", explain="AITER_REF").out
    assert "AITER_REF = v0.1.19" in out
    assert "git ls-remote https://github.com/ROCm/aiter.git  ->  183 tags, " in out
    assert f"listed by ls-remote of {checker.world.git_url}ROCm/aiter.git (sent there by " \
        "--rewrite https://github.com/=)" in out
    assert "candidates (183 seen, " in out
    assert "winner: v0.1.26 (0.1.26): highest by PEP 440 public version" in out


def test_explain_unknown_name_is_one_line_exit_2(checker: Checker) -> None:
    result = checker.run(pin("TRITON_VERSION", "3.9.0", pypi="triton"), explain="NOPE")
    assert result.code == 2
    assert result.err.strip().startswith("error: --explain NOPE: no such pin")


def test_table_markdown_and_step_summary(checker: Checker, tmp_path: Path) -> None:
    text = pin("TRITON_VERSION", "3.7.1", pypi="triton")
    table = checker.run(text, output="table")
    assert re.search(r"^DRIFT +TRITON_VERSION ", table.out, re.M) and "exit 1" in table.out
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    markdown = checker.run(text, output="markdown", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert markdown.out.startswith("### rocm-bake pin drift")
    assert re.search(r"^\| DRIFT +\| TRITON_VERSION +\| 3\.7\.1 +\| behind +\| 3\.9\.0 +\|",
                     markdown.out, re.M), markdown.out
    assert summary.read_text() == "earlier step\n" + markdown.out


def test_docs_page_written_atomically_and_checked(checker: Checker) -> None:
    text = pin("TRITON_VERSION", "3.7.1", pypi="triton")
    assert checker.run(text, docs=True).code == 1   # drift: written anyway
    page = checker.tmp / "docs" / "reference" / "variables.md"
    assert re.search(r"^\| `TRITON_VERSION` +\| `3\.7\.1` +\|", page.read_text(), re.M)
    assert [p.name for p in page.parent.iterdir()] == ["variables.md"]
    snapshot = checker.tmp / "snap.json"
    checker.run(text, record=str(snapshot))
    assert checker.run(text, offline=str(snapshot), docs=True).code == 1
    assert checker.run(text, offline=str(snapshot), docs=True, check=True).code == 0
    page.write_text(page.read_text().replace("3.7.1", "3.7.0"))
    stale = checker.run(text, offline=str(snapshot), docs=True, check=True)
    assert stale.code == 1 and "is stale" in stale.err


def test_docs_page_says_whether_it_is_live_or_a_replayed_example(checker: Checker) -> None:
    """A live page says when it checked; a page replayed from a snapshot says at its top that
    it is an example, naming the snapshot (never a path of this machine), when it was recorded
    and its note; --docs-file writes the page elsewhere (the lanes' live page)."""
    text = pin("TRITON_VERSION", "3.7.1", pypi="triton")
    live = checker.tmp / "live.md"
    assert checker.run(text, docs=True, docs_file=str(live)).code == 1
    assert not (checker.tmp / "docs" / "reference" / "variables.md").exists()
    lines = live.read_text().splitlines()
    assert lines[0] == "# Bake variables"
    assert next(line for line in lines[1:] if line.startswith(("Checked", "!!!"))).startswith(
        "Checked live against the upstreams at ")
    snapshot = checker.tmp / "snap.json"
    checker.run(text, record=str(snapshot))
    data = json.loads(snapshot.read_text())
    snapshot.write_text(json.dumps({**data, "note": "A synthetic <world>."}))
    example = checker.tmp / "example.md"
    assert checker.run(text, offline=str(snapshot), docs=True, docs_file=str(example)).code == 1
    page = example.read_text()
    label = page.split("## Pins")[0]
    assert '!!! warning "An example, not a live check"' in label
    assert "replayed from the snapshot `snap.json` (recorded " in label
    assert str(checker.tmp) not in page
    assert "A synthetic &lt;world&gt;." in label and docs.LIVE_ARTIFACT in label
    assert checker.run(text, offline=str(snapshot), docs=True, docs_file=str(example),
                       check=True).code == 0
    misused = checker.run(text, docs_file=str(example))
    assert misused.code == 2 and "--docs-file says where --docs writes" in misused.err


# -- caching, tokens, snapshots --------------------------------------------------------------
def test_second_run_is_answered_from_the_etag_cache(checker: Checker) -> None:
    route = checker.world.web.pypi("etag-project", World.sdists("etag-project", "1.0.0"))
    text = pin("E_VERSION", "1.0.0", pypi="etag-project")
    first = checker.run(text).json()
    second = checker.run(text).json()
    assert first["answered_from_cache"] == 0
    assert second["answered_from_cache"] == 1 and route.conditional_hits == 1
    assert second["pins"][0]["status"] == "up to date"


def test_github_token_is_sent_and_never_printed(checker: Checker) -> None:
    token = "ghp_s3cretTOKENvalue"
    checker.world.web.add("/repos/private/repo/releases?per_page=100", Route(
        '[{"tag_name": "v2.0.0", "assets": []}]', token=token))
    text = pin("P_VERSION", "2.0.0", github="private/repo")
    snapshot = checker.tmp / "snap.json"
    result = checker.run(text, env={"GITHUB_TOKEN": token}, record=str(snapshot))
    assert result.pin("P_VERSION")["status"] == "up to date"
    explained = checker.run(text, env={"GITHUB_TOKEN": token}, output="table",
                            explain="P_VERSION")
    for text_out in (result.out, result.err, explained.out, snapshot.read_text()):
        assert token not in text_out
    no_token = checker.run(text, cache_dir=str(checker.tmp / "other"))
    assert no_token.pin("P_VERSION")["detail"].startswith("HTTP 401")


def test_record_then_offline_is_deterministic(checker: Checker, world: Upstream) -> None:
    text = (pin("AITER_REF", "v0.1.19", git=f"{GH}/ROCm/aiter.git") +
            pin("NIXL_COMMIT", world.pins["NIXL_COMMIT"], git=f"{GH}/ai-dynamo/nixl.git",
                tags=r"^v?(?P<version>[0-9]+\.[0-9]+\.[0-9]+.*)$") +
            pin("TORCH_VERSION", "2.12.0", pypi="torch") +
            pin("BAD_VERSION", "1.0.0", pypi="not-there"))
    snapshot = checker.tmp / "snap.json"
    live = checker.run(text, record=str(snapshot))
    dead = ["https://github.com/=git://127.0.0.1:9/", "https://pypi.org=http://127.0.0.1:9"]
    replays = [checker.run(text, offline=str(snapshot), rewrites=dead) for _ in range(2)]
    assert replays[0].out == replays[1].out and replays[0].code == live.code == 2
    assert [p["status"] for p in replays[0].json()["pins"]] == \
        [p["status"] for p in live.json()["pins"]]
    missing = checker.run(text + pin("NEW_VERSION", "1.0", pypi="new"), offline=str(snapshot))
    assert "offline: the snapshot has no answer for GET https://pypi.org/pypi/new/json" in \
        missing.pin("NEW_VERSION")["detail"]


# -- --pr BASE_REF ---------------------------------------------------------------------------
def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


def _pr_repo(checker: Checker, base: str) -> Path:
    repo = checker.tmp / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "rocm-bake.hcl").write_text(base)
    git(repo, "add", "rocm-bake.hcl")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def test_pr_reports_only_drift_it_introduces(checker: Checker) -> None:
    base = (pin("TRITON_VERSION", "3.7.1", pypi="triton") +
            pin("VLLM_VERSION", "0.33.0", pypi="vllm") +
            pin("TORCH_VERSION", "2.9.1", pypi="torch"))
    repo = _pr_repo(checker, base)
    # VLLM_VERSION now drifts; TRITON_VERSION changes but drifted on the base already;
    # TORCH_VERSION is left as it was.
    (repo / "rocm-bake.hcl").write_text(base.replace("0.33.0", "0.32.0").replace("3.7.1", "3.7.0"))
    seen = len(checker.world.web.requests)
    result = checker.run(files=[str(repo / "rocm-bake.hcl")], pr="main")
    asked = [path for path, _ in checker.world.web.requests[seen:]]
    data = result.json()
    assert [p["name"] for p in data["pins"]] == ["VLLM_VERSION"]
    assert data["not_reported"] == ["TRITON_VERSION"] and result.code == 1
    assert data["unchanged"] == ["TORCH_VERSION"]
    assert "/pypi/vllm/json" in asked and "/pypi/torch/json" not in asked, asked
    clean = checker.run(files=[str(repo / "rocm-bake.hcl")], pr="main", output="table")
    assert "not reported (already drifting on the base ref): TRITON_VERSION" in clean.out
    assert "not checked (unchanged since the base ref): TORCH_VERSION" in clean.out
    bad = checker.run(files=[str(repo / "rocm-bake.hcl")], pr="no-such-ref")
    assert bad.code == 2 and "--pr no-such-ref: cannot read rocm-bake.hcl" in bad.err


def test_pr_that_changes_no_pin_asks_upstream_nothing(checker: Checker) -> None:
    """A pull request that leaves every pin as it was: exit 0 with the pins named as not
    checked, and not one request (upstream may be unreachable from the runner)."""
    base = pin("TRITON_VERSION", "3.7.1", pypi="triton") + pin("VLLM_VERSION", "0.33.0",
                                                                pypi="vllm")
    repo = _pr_repo(checker, base)
    (repo / "rocm-bake.hcl").write_text(base + 'variable "MAX_JOBS" {\n  default = "8"\n}\n')
    result = checker.run(files=[str(repo / "rocm-bake.hcl")], pr="main",
                         rewrites=["https://pypi.org=http://127.0.0.1:9"])
    data = result.json()
    assert result.code == 0 and data["pins"] == [] and data["coherence"] == []
    assert data["unchanged"] == ["TRITON_VERSION", "VLLM_VERSION"] and data["requests"] == 0
    table = checker.run(files=[str(repo / "rocm-bake.hcl")], pr="main", output="table")
    assert "pins: none checked; exit 0" in table.out


def test_snapshot_json_is_stable(checker: Checker) -> None:
    snapshot = checker.tmp / "snap.json"
    checker.run(pin("TRITON_VERSION", "3.7.1", pypi="triton"), record=str(snapshot))
    data = json.loads(snapshot.read_text())
    assert data["format"] == "rocm-bake-drift-snapshot/1"
    assert list(data["answers"]) == ["GET https://pypi.org/pypi/triton/json"]


def test_history_of_immutable_commits_is_answered_from_the_cache(checker: Checker) -> None:
    text = pin("NIXL_COMMIT", checker.world.pins["NIXL_COMMIT"], git=f"{GH}/ai-dynamo/nixl.git",
               tags=r"^v?(?P<version>[0-9]+\.[0-9]+\.[0-9]+.*)$")
    first = checker.run(text, output="table", explain="NIXL_COMMIT").out
    second = checker.run(text, output="table", explain="NIXL_COMMIT").out
    assert "git history" in first and "->  blob-less fetch" in first
    assert "->  answered from the cache (immutable commits)" in second
    assert "3 commits behind v1.4.0" in second
