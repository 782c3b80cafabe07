"""``python -m tests.lane pr [REPO]`` (what ``scripts/lane.sh pr`` runs, in a private mount
namespace): the ``run:`` steps of REPO's .github/workflows/pr.yml, in order, in a fresh
clone of REPO's current commit, as the workflow would run them; the decoy Docker socket at
/var/run/docker.sock records any test that reaches for the machine's engine."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.lane import decoy, workflow

LANES = {"pr": ".github/workflows/pr.yml", "floor": ".github/workflows/engine-floor.yml"}
BASE_REF = "main"
# What would make the lane differ from CI: a builder CI does not have, the caller's own
# virtualenv or CI settings.
_DROPPED = re.compile(r"^(DOCKER_|BUILDX_|GITHUB_|RUNNER_|CI$|VIRTUAL_ENV$)")
# Where the lane keeps what its steps upload (actions/upload-artifact), in the checkout it ran
# from; git ignores it.
ARTIFACTS = Path("lane-artifacts")
_TOTALS = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped")


class LaneError(Exception):
    """The lane could not run (exit status 2)."""


def git(*args: str, cwd: Path) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise LaneError(f"git {' '.join(args)} failed: {proc.stderr.strip()[-500:]}")
    return proc.stdout.strip()


def clone(repo: Path, into: Path) -> tuple[Path, str]:
    """A full clone of ``repo``'s current commit (``actions/checkout`` with fetch-depth 0:
    origin/BASE_REF exists), alone in ``into`` (no ``shared`` folder beside it). A checkout
    with no branch BASE_REF (a detached clone of it) is its own base, said in one line: the
    pull request changes nothing against it."""
    commit = git("rev-parse", "HEAD", cwd=repo)
    dest = into / repo.resolve().name
    git("clone", "--quiet", "--no-checkout", str(repo.resolve()), str(dest), cwd=into)
    git("checkout", "--quiet", "--detach", commit, cwd=dest)
    if not has_ref(f"origin/{BASE_REF}", dest):
        git("update-ref", f"refs/remotes/origin/{BASE_REF}", commit, cwd=dest)
        print(f"lane: {repo} has no branch {BASE_REF}: origin/{BASE_REF} is its HEAD "
              f"{commit[:12]} (the pull request is compared with itself)", flush=True)
    return dest, commit


def has_ref(ref: str, cwd: Path) -> bool:
    return subprocess.run(["git", "rev-parse", "--verify", "--quiet", ref], cwd=cwd,
                          capture_output=True, check=False).returncode == 0


def base_env(environ: Mapping[str, str], workspace: Path, home: Path) -> dict[str, str]:
    """The caller's environment less what CI would not have; CI's own variables; a git
    global config of the lane's own (a step's ``git config --global`` stays in the lane)."""
    env = {k: v for k, v in environ.items() if not _DROPPED.match(k)}
    venv = environ.get("VIRTUAL_ENV")
    if venv:              # the caller's activated virtualenv is not on the lane's PATH
        env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                      if not p.startswith(venv))
    return {**env, "CI": "true", "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_BASE_REF": BASE_REF, "GIT_CONFIG_GLOBAL": str(home / "gitconfig")}


def run_step(step: workflow.Step, env: Mapping[str, str], cwd: Path, script: Path) -> tuple[
        int, str | None]:
    """Run one step as GitHub does (``bash -e``, in the workspace); its output passes
    through. Returns its exit status and the last test-totals line it printed. The step runs
    in its own process group: when the lane is stopped (Ctrl-C, SIGTERM), all of it ends."""
    assert step.run is not None
    script.write_text(step.run, encoding="utf-8")
    totals = None
    with subprocess.Popen(["bash", "-e", str(script)], cwd=cwd, env=dict(env),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace", start_new_session=True) as proc:
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                sys.stdout.write(line)
                sys.stdout.flush()
                if _TOTALS.match(line):
                    totals = line.strip()
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            raise
    return proc.returncode, totals


def keep_artifact(upload: workflow.Upload, workspace: Path, folder: Path) -> str:
    """``actions/upload-artifact`` here: the file or folder copied to FOLDER/NAME (replacing an
    earlier run's); what went wrong, or "" when it was kept (or was absent and not required)."""
    source = workspace / upload.path
    if not source.exists():
        return f"no file {upload.path} to upload as {upload.name}" if upload.required else ""
    target = folder / upload.name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    if source.is_dir():
        shutil.copytree(source, target / source.name)
    else:
        shutil.copy2(source, target / source.name)
    print(f"lane: artifact {upload.name}: {upload.path} kept in {target}", flush=True)
    return ""


def run(repo: Path, lane: str, work: Path) -> int:
    dest, commit = clone(repo, work)
    context = {"github.base_ref": BASE_REF, "github.workspace": str(dest)}
    job = workflow.load(dest / LANES[lane], context)
    env = base_env(os.environ, dest, work)
    print(f"lane {lane}: job {job.name!r}, {len(job.steps)} steps, in a clone of {commit[:12]} "
          f"at {dest}", flush=True)
    totals = (0, 0, 0)                 # passed, failed, skipped: the test step's last line
    failures: list[str] = []
    untested = 0                       # failures that are not failed tests
    with decoy.at_default_socket() as requests:
        for number, step in enumerate(job.steps, 1):
            if failures and not step.always:   # GitHub runs no further step but these
                print(f"lane {lane}: step {number}/{len(job.steps)}: {step.name}: skipped "
                      "(an earlier step failed)", flush=True)
                continue
            print(f"lane {lane}: step {number}/{len(job.steps)}: {step.name}", flush=True)
            if step.upload is not None:
                problem = keep_artifact(step.upload, dest, repo / ARTIFACTS)
                if problem:
                    failures.append(f"step {number} ({step.name}): {problem}")
                    untested += 1
                continue
            if step.run is None:
                print(f"lane {lane}: (the clone above is the checkout)", flush=True)
                continue
            status, line = run_step(step, {**env, **job.env, **step.env}, dest,
                                    work / "step.sh")
            found = _TOTALS.match(line or "")
            if found:
                totals = (int(found[1]), int(found[2]), int(found[3]))
            if status != 0:
                failures.append(f"step {number} ({step.name}) exited with status {status}")
                untested += 0 if found and int(found[2]) else 1
        reached = list(requests)
    if reached:
        failures.append(f"{len(reached)} request(s) reached the decoy /var/run/docker.sock: "
                        + "; ".join(reached))
        untested += 1
    for failure in failures:
        print(f"lane {lane}: FAILED: {failure}", flush=True)
    # The closing line CI reads: the tests' totals, plus one failure for each lane failure
    # that is not a failed test (a step such as inv lint failing, the decoy reached).
    print(f"{totals[0]} passed, {totals[1] + untested} failed, {totals[2]} skipped", flush=True)
    return 1 if failures else 0


def _stopped(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)      # so the step, the decoy and the clone are cleaned up


def main(argv: Sequence[str]) -> int:
    signal.signal(signal.SIGTERM, _stopped)
    if not argv or argv[0] not in LANES or len(argv) > 2:
        print(f"usage: scripts/lane.sh {{{','.join(LANES)}}} [REPO]", file=sys.stderr)
        return 2
    repo = Path(argv[1] if len(argv) == 2 else ".")
    try:
        with tempfile.TemporaryDirectory(prefix="rocm-bake-lane-",
                                         ignore_cleanup_errors=True) as work:
            return run(repo, argv[0], Path(work))
    except (LaneError, workflow.WorkflowError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
