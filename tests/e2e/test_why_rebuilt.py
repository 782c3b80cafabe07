"""End to end: `inv why-rebuilt` on the real engine. Each test builds its own cell of
tests/e2e/rebuilt (a copy, core-RUN) twice with `inv build`, changing one input between the
two builds, and `inv why-rebuilt` must name exactly that input, and the first step the second
build did not take from the cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.conftest import ROOT, Result, run_cli

CELL_DIR = Path(__file__).parent / "rebuilt"
SCRIPT = "dockerfiles/scripts/with-compiler-cache.sh"
NEW_COMMIT = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"
STEP = "[stage-0 {}] "


class Cell:
    """A test's own copy of the cell: its files, its file records, its name."""

    def __init__(self, tmp_path: Path, engine: str) -> None:
        self.run = f"t{uuid.uuid4().hex[:10]}"
        self.name = f"core-{self.run}"
        self.dir = tmp_path / "cell"
        shutil.copytree(CELL_DIR, self.dir)
        self.env = {"DOCKER_HOST": engine, "RUN": self.run,
                    "XDG_STATE_HOME": str(tmp_path / "state")}

    def inv(self, *args: str) -> Result:
        return run_cli(["inv", "--search-root", str(ROOT), *args], cwd=self.dir, env=self.env)

    def build(self, *sets: str) -> None:
        result = self.inv("build", "--file", "docker-bake.hcl", "--target", self.name,
                          *(f"--set={s}" for s in sets))
        assert result.returncode == 0, result.stderr[-2000:]

    def why(self) -> list[str]:
        """The explanation's lines; its JSON says the same."""
        result = self.inv("why-rebuilt", "--file", "docker-bake.hcl", self.name)
        assert result.returncode == 0, result.stderr
        as_json = self.inv("why-rebuilt", "--file", "docker-bake.hcl", self.name, "--json")
        assert as_json.returncode == 0, as_json.stderr
        data = json.loads(as_json.stdout)
        lines = result.stdout.splitlines()
        assert lines[0].startswith(f"{self.name}: build {data['new']['id']} (")
        assert [f"first step not cached: {data['first_uncached']}",
                *(c["sentence"] for c in data["causes"])] == lines[1:]
        return lines[1:]

    def docker(self, *args: str, stdin: str | None = None) -> str:
        proc = subprocess.run(["docker", *args], input=stdin, capture_output=True, text=True,
                              env={**os.environ, "DOCKER_HOST": self.env["DOCKER_HOST"]},
                              timeout=600, check=False)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return proc.stdout.strip()


@pytest.fixture
def cell(tmp_path: Path, engine: str) -> Cell:
    return Cell(tmp_path, engine)


@pytest.mark.engine
def test_a_pin_change(cell: Cell) -> None:
    cell.build()
    cell.build(f"PYTORCH_COMMIT={NEW_COMMIT}")
    assert cell.why() == [
        f'first step not cached: {STEP.format("4/5")}RUN --network=none echo "{NEW_COMMIT}" '
        "> /commit",
        "PYTORCH_COMMIT changed 6bbd260 → 1a2b3c4"]


@pytest.mark.engine
def test_a_build_arg_change(cell: Cell) -> None:
    cell.build()
    cell.build("MAX_JOBS=48")
    assert cell.why() == [
        f'first step not cached: {STEP.format("5/5")}RUN --network=none echo "48" > /jobs',
        "build arg MAX_JOBS changed 32 → 48"]


@pytest.mark.engine
def test_a_context_file_change(cell: Cell) -> None:
    cell.build()
    with (cell.dir / SCRIPT).open("a") as script:
        script.write(f"# {cell.run}\n")
    cell.build()
    assert cell.why() == [
        f"first step not cached: {STEP.format('3/5')}COPY --from=scripts . /opt/rocm-bake/bin/",
        f"{SCRIPT} changed"]


@pytest.mark.engine
def test_a_base_digest_change(cell: Cell, tmp_path: Path) -> None:
    base = f"rocm-bake-e2e/rebuilt-base:{cell.run}"
    digests = []
    for marker in ("one", "two"):      # two bases of one tag, differing by one file
        context = tmp_path / f"base-{marker}"
        context.mkdir()
        (context / "marker").write_text(marker + "\n")
        cell.docker("buildx", "build", "--quiet", "--tag", base, "--file", "-", str(context),
                    stdin="FROM rocm-bake/busybox:test\nCOPY marker /marker\n")
        digests.append(cell.docker("image", "inspect", "--format", "{{.Id}}", base))
        cell.build(f"BASE_IMAGE={base}")
    assert digests[0] != digests[1]
    try:
        assert cell.why() == [
            f'first step not cached: {STEP.format("2/5")}RUN --network=none echo "{cell.run}" '
            "> /cell",
            f"the base image digest changed ({base}: {digests[0][:19]} → {digests[1][:19]})"]
    finally:
        cell.docker("image", "rm", base)


@pytest.mark.engine
def test_a_lost_cache_with_no_input_change(cell: Cell) -> None:
    cell.build()
    cell.build()                                  # every step cached: hot
    cell.docker("builder", "prune", "--all", "--force")
    cell.build()                                  # the same inputs, no layer cache: cold
    assert cell.why() == [
        f'first step not cached: {STEP.format("2/5")}RUN --network=none echo "{cell.run}" '
        "> /cell",
        "no input changed: the layer cache was not available (hot → cold)"]


@pytest.mark.engine
def test_it_cannot_explain_one_build_nor_an_unknown_cell(cell: Cell) -> None:
    unknown = cell.inv("why-rebuilt", "--file", "docker-bake.hcl", "core-nope")
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == f"error: unknown cell 'core-nope'; valid cells: {cell.name}"
    cell.build()
    once = cell.inv("why-rebuilt", "--file", "docker-bake.hcl", cell.name)
    assert once.returncode == 2
    assert once.stderr.strip() == (
        f"error: {cell.name} has 1 completed build(s) in the buildx history; why-rebuilt "
        f"compares two (build it again: inv build {cell.name})")
