"""scripts/lane.sh: the steps read from the real pr.yml, the decoy docker socket (a real docker
client against it), and a small workflow run for real in a clone with the decoy in place."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.conftest import AS_ROOT, ROOT, missing
from tests.lane import decoy, workflow

CONTEXT = {"github.base_ref": "main", "github.workspace": "/ws"}


def test_the_pr_lane_is_read_from_the_real_workflow() -> None:
    job = workflow.load(ROOT / ".github" / "workflows" / "pr.yml", CONTEXT)
    assert job.env["CACHE_TIER"] == "pr"                  # the lane names its trust tier
    assert not any(name.startswith("SCCACHE_") for name in job.env)   # nothing reads them
    runs = [step.run.strip() if step.run else None for step in job.steps]
    assert runs[1] is None                               # actions/checkout: the clone
    assert runs[0] is not None and runs[0].startswith("apt-get update")
    assert runs[3:8] == ["bash scripts/test.sh", ".venv/bin/inv lint",
                         ".venv/bin/inv version-check --pr origin/main --markdown",
                         ".venv/bin/inv docs --check",
                         ".venv/bin/inv version-check --docs --docs-file variables.md "
                         "|| test -s variables.md"]
    assert job.steps[3].env == {"CI": "true"}
    assert job.steps[7].always and not job.steps[6].always
    assert job.steps[8].upload == workflow.Upload("variables-page", "variables.md", True)


@pytest.mark.parametrize(("step", "named"), [
    ("run: echo ${{ secrets.TOKEN }}", "cannot evaluate ${{ secrets.TOKEN }}"),
    ("uses: actions/cache@v4",
     "only actions/checkout@... (as the clone) and actions/upload-artifact@... are run here"),
    ("run: make\n        if: failure()", "cannot evaluate if: failure() here"),
    ("uses: actions/upload-artifact@v6\n        with:\n          path: a", "needs name and path"),
])
def test_what_cannot_run_here_is_named(tmp_path: Path, step: str, named: str) -> None:
    path = tmp_path / "pr.yml"
    path.write_text(f"jobs:\n  checks:\n    steps:\n      - {step}\n")
    with pytest.raises(workflow.WorkflowError, match=named.replace("$", r"\$")
                       .replace("{", r"\{").replace("}", r"\}").replace(".", r"\.")
                       .replace("(", r"\(").replace(")", r"\)")):
        workflow.load(path, CONTEXT)


def test_the_decoy_answers_ping_and_records_every_request(tmp_path: Path) -> None:
    if shutil.which("docker") is None or shutil.which("curl") is None:
        missing("the docker client and curl", "bash scripts/engine.sh install")
    sock = tmp_path / "docker.sock"
    with decoy.serve(sock) as requests:
        ping = subprocess.run(["curl", "-sS", "--unix-socket", str(sock), "http://docker/_ping"],
                              capture_output=True, text=True, timeout=30, check=False)
        version = subprocess.run(["docker", "version", "--format", "{{.Server.Version}}"],
                                 env={**os.environ, "DOCKER_HOST": f"unix://{sock}",
                                      "DOCKER_CONFIG": str(tmp_path)},
                                 capture_output=True, text=True, timeout=60, check=False)
        seen = list(requests)
    assert ping.stdout == "OK"
    assert version.returncode != 0
    assert decoy.REFUSAL in version.stderr               # the client shows why
    assert seen[0].startswith("GET /_ping (curl/")
    assert any(r.startswith("GET /v1.") and "/version (Docker-Client/" in r for r in seen), seen
    assert not sock.exists()


def _repo(tmp_path: Path, steps: str) -> Path:
    repo = tmp_path / "project"
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "pr.yml").write_text(
        "env:\n  FROM_WORKFLOW: w\njobs:\n  checks:\n    runs-on: ubuntu-24.04\n"
        "    steps:\n      - uses: actions/checkout@v5\n        with:\n          fetch-depth: 0\n"
        + steps)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for argv in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-qm", "lane"]):
        subprocess.run(["git", *argv], cwd=repo, env=env, check=True, timeout=30)
    return repo


def _lane(repo: Path) -> subprocess.CompletedProcess[str]:
    if os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("curl") is None:
        missing("root, unshare and curl (the lane's mount namespace)", AS_ROOT)
    before = Path("/var/run/docker.sock").exists()
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "lane.sh"), "pr", str(repo)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert Path("/var/run/docker.sock").exists() == before     # the machine's is untouched
    return proc


def test_the_lane_runs_the_steps_in_a_clone_as_the_workflow_would(tmp_path: Path) -> None:
    repo = _repo(tmp_path, """\
      - name: where and with what
        env:
          FROM_STEP: ${{ github.base_ref }}
        run: |
          echo "ws=$GITHUB_WORKSPACE pwd=$PWD ci=$CI env=$FROM_WORKFLOW,$FROM_STEP"
          echo "beside=$(ls .. | tr '\\n' ' ')"
          git rev-parse --verify -q origin/main >/dev/null && echo "origin/main exists"
          git config --global --add safe.directory "$GITHUB_WORKSPACE"
          echo "docker.sock: $(curl -sS --unix-socket /var/run/docker.sock http://d/_ping)"
      - run: echo "2 passed, 0 failed, 0 skipped"
""")
    proc = _lane(repo)
    out = proc.stdout
    ws = next(ln for ln in out.splitlines() if ln.startswith("ws="))
    workspace = ws.split()[0].removeprefix("ws=")
    assert ws == f"ws={workspace} pwd={workspace} ci=true env=w,main"
    assert Path(workspace).name == "project" and workspace != str(repo)
    assert "beside=project " in out and "shared" not in out    # nothing beside the clone
    assert "origin/main exists" in out
    assert "docker.sock: OK" in out                   # the decoy answered ...
    assert proc.returncode == 1, out + proc.stderr    # ... and failed the lane, naming it
    assert "reached the decoy /var/run/docker.sock: GET /_ping (curl/" in out
    assert out.splitlines()[-1] == "2 passed, 1 failed, 0 skipped"
    assert not Path(workspace).exists()               # the clone is gone


@pytest.mark.parametrize(("tests", "lint", "last"), [
    ('echo "5 passed, 0 failed, 0 skipped"', "exit 3", "5 passed, 1 failed, 0 skipped"),
    ('echo "5 passed, 2 failed, 0 skipped"; exit 1', "exit 0", "5 passed, 2 failed, 0 skipped"),
])
def test_a_failing_step_stops_the_lane_and_is_counted_once(
        tmp_path: Path, tests: str, lint: str, last: str) -> None:
    repo = _repo(tmp_path, f"""\
      - name: tests
        run: {tests}
      - name: lint
        run: {lint}
      - name: never
        run: echo never-ran
""")
    proc = _lane(repo)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    failed = 2 if lint == "exit 0" else 3
    assert f"FAILED: step {failed} (" in proc.stdout
    assert "never-ran" not in proc.stdout
    assert proc.stdout.splitlines()[-1] == last


def test_only_the_pr_and_floor_lanes_run() -> None:
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "lane.sh"), "nightly"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert proc.stderr == "usage: scripts/lane.sh {pr,floor} [REPO]\n"


def test_a_stopped_lane_ends_its_step_and_removes_its_clone(tmp_path: Path) -> None:
    mark = tmp_path / "step-got-sigterm"
    repo = _repo(tmp_path, f"""\
      - name: long
        run: |
          sleep 600 &
          sleeper=$!
          trap 'echo got-term > {mark}; kill $sleeper' TERM
          echo "ready in $GITHUB_WORKSPACE"
          wait
""")
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        missing("root and unshare (the lane's mount namespace)", AS_ROOT)
    with subprocess.Popen(["bash", str(ROOT / "scripts" / "lane.sh"), "pr", str(repo)],
                          stdout=subprocess.PIPE, text=True) as lane:
        assert lane.stdout is not None
        ready = next(line for line in lane.stdout if line.startswith("ready in "))
        lane.send_signal(signal.SIGTERM)        # the lane's own process (lane.sh execs it)
        rest = lane.stdout.read()
    assert lane.returncode == 128 + signal.SIGTERM, rest
    assert mark.read_text() == "got-term\n"            # the step's process group was stopped
    assert not Path(ready.split()[-1]).exists()        # and the clone removed


def test_a_step_that_always_runs_and_an_upload_follow_a_failure(tmp_path: Path) -> None:
    """`if: ${{ !cancelled() }}` runs after a failed step (a plain step does not), and
    actions/upload-artifact keeps the file in the checkout's lane-artifacts/; a required
    artifact that was not written fails the lane, naming it."""
    repo = _repo(tmp_path, """\
      - run: exit 4
      - run: echo plain-ran
      - if: ${{ !cancelled() }}
        run: echo page > page.md
      - uses: actions/upload-artifact@v6
        if: ${{ !cancelled() }}
        with:
          name: the-page
          path: page.md
          if-no-files-found: error
      - uses: actions/upload-artifact@v6
        if: ${{ always() }}
        with:
          name: absent
          path: nothing.md
          if-no-files-found: error
""")
    proc = _lane(repo)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "plain-ran" not in proc.stdout and "skipped (an earlier step failed)" in proc.stdout
    assert (repo / "lane-artifacts" / "the-page" / "page.md").read_text() == "page\n"
    assert "FAILED: step 2 (run 2) exited with status 4" in proc.stdout
    assert "FAILED: step 6 (actions/upload-artifact@v6): no file nothing.md to upload as " \
           "absent" in proc.stdout
    assert proc.stdout.splitlines()[-1] == "0 passed, 2 failed, 0 skipped"


def test_a_checkout_without_a_main_branch_is_its_own_base(tmp_path: Path) -> None:
    """CI may hand the lane a detached clone with no branch main: origin/main is then its
    HEAD, said in one line, and `--pr origin/main` compares the change with itself."""
    repo = _repo(tmp_path, """\
      - run: git rev-parse origin/main HEAD
""")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                          text=True, check=True).stdout.strip()
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"}
    for argv in (["checkout", "-q", "--detach"], ["branch", "-q", "-D", "main"]):
        subprocess.run(["git", *argv], cwd=repo, env=env, check=True, timeout=30)
    proc = _lane(repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"has no branch main: origin/main is its HEAD {head[:12]}" in proc.stdout
    assert proc.stdout.count(head) >= 2, proc.stdout     # origin/main and HEAD: one commit


def test_the_machines_mount_namespace_is_told_from_the_lanes_own() -> None:
    """scripts/lane.sh records the machine's namespace before its unshare: the lane compares
    with that, not with its parent, which may be init (the launcher gone) and unreadable."""
    here = os.readlink("/proc/self/ns/mnt")
    assert decoy.private_mounts({decoy.MOUNTS_VARIABLE: here}) is False
    assert decoy.private_mounts({decoy.MOUNTS_VARIABLE: "mnt:[1]"}) is True
