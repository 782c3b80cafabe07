"""Shared test fixtures: the real buildx (as oracle), the real engine, running the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

from tests import outcomes

ROOT = Path(__file__).resolve().parent.parent
# Recorded data the tests read (where each file came from: tests/fixtures/README.md)
FIXTURES = ROOT / "tests" / "fixtures"
VENV_BIN = Path(sys.executable).parent


AS_ROOT = "run the suite as root (sudo bash scripts/test.sh)"


def missing(part: str, setup: str) -> NoReturn:
    """A part a test needs is absent: a failure naming it and the command that sets it up
    (never a skip: the suite promises every test runs)."""
    pytest.fail(f"missing: {part} (set it up: {setup})", pytrace=False)


def device(directory: Path, name: str, minor: int) -> Path:
    """A character device of the memory driver (major 1: 3 null, 7 full) made in
    ``directory``: a test that writes a device never names the machine's own /dev/null or
    /dev/full (a regression that replaced the node would replace the machine's)."""
    path = directory / name
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except PermissionError:
        missing("CAP_MKNOD (character devices in a temporary directory)",
                "run the tests as root, as the lanes' privileged containers do")
    return path


# Skips: only those tests/skips.toml lists, with why; any other fails the run. The run's counts
# and skips go to $ROCM_BAKE_TEST_RECORD when set (scripts/test.sh prints them per stage).

_ALLOWED: pytest.StashKey[list[outcomes.Allowed]] = pytest.StashKey()


def pytest_configure(config: pytest.Config) -> None:
    try:
        config.stash[_ALLOWED] = outcomes.load()
    except outcomes.SkipsError as exc:
        raise pytest.UsageError(str(exc)) from None



def _judge(report: pytest.TestReport | pytest.CollectReport, config: pytest.Config) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = outcomes.skip_reason(report.longrepr)
        if outcomes.why(reason, config.stash[_ALLOWED]) is None:
            report.outcome = "failed"
            report.longrepr = f"{reason} (a skip tests/skips.toml does not list)"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Generator[None, pytest.TestReport,
                                                              pytest.TestReport]:
    report = yield
    _judge(report, item.config)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[
        None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    _judge(report, collector.config)
    return report


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            config: pytest.Config) -> None:
    stats = terminalreporter.stats
    skips = [{"test": r.nodeid, "reason": outcomes.skip_reason(r.longrepr),
              "why": outcomes.why(outcomes.skip_reason(r.longrepr), config.stash[_ALLOWED])
              or ""} for r in stats.get("skipped", [])]
    if skips:
        terminalreporter.section("skips allowed by tests/skips.toml")
        for skip in skips:
            terminalreporter.line(f"{skip['test']}: {skip['reason']} -- {skip['why']}")
    if os.environ.get(outcomes.RECORD):
        outcomes.append(Path(os.environ[outcomes.RECORD]), outcomes.Outcome(
            len(stats.get("passed", [])),
            len(stats.get("failed", [])) + len(stats.get("error", [])), len(skips), skips))


@dataclass(frozen=True)
class Result:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> object:
        return json.loads(self.stdout)


def minimal_env(extra: Mapping[str, str] | None = None, home: Path | None = None) -> dict[str, str]:
    """PATH and HOME only (plus what the test adds): nothing of the caller's leaks in."""
    env = {"PATH": f"{VENV_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
           "HOME": str(home or Path.home())}
    for name in ("DOCKER_HOST",):
        if name in os.environ:
            env[name] = os.environ[name]
    env.update(extra or {})
    return env


# A cli-plugins directory whose docker-buildx the oracle runs instead of the installed one: the
# nightly's run of tests/buildx against the newest buildx Debian has (scripts/engine.sh
# newest-buildx; .github/workflows/nightly.yml).
PLUGINS_VARIABLE = "ROCM_BAKE_BUILDX_PLUGINS"


class Buildx:
    """The installed ``docker buildx`` as the oracle (``--print``/``--list`` need no engine),
    or the one in ``plugins`` (a cli-plugins directory)."""

    def __init__(self, home: Path, plugins: Path | None = None) -> None:
        self.home = home
        self.config = home / "docker"
        self.config.mkdir(exist_ok=True)
        if plugins is not None:
            (self.config / "cli-plugins").mkdir(exist_ok=True)
            (self.config / "cli-plugins" / "docker-buildx").symlink_to(
                plugins / "docker-buildx")

    def _run(self, args: list[str], cwd: Path, env: Mapping[str, str] | None) -> Result:
        full_env = minimal_env({"DOCKER_CONFIG": str(self.config),
                                "BUILDX_CONFIG": str(self.home / "buildx"), **(env or {})},
                               home=self.home)
        proc = subprocess.run(["docker", "buildx", *args], cwd=cwd, env=full_env,
                              capture_output=True, text=True, timeout=60, check=False)
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def bake(self, args: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> Result:
        return self._run(["bake", "--progress=plain", *args], cwd, env)

    def version(self) -> str:
        """``docker buildx version``'s line (which buildx the oracle is)."""
        return self._run(["version"], self.home, None).stdout.strip()


@pytest.fixture(scope="session")
def buildx(tmp_path_factory: pytest.TempPathFactory) -> Buildx:
    if shutil.which("docker") is None:
        missing("the docker client", "bash scripts/engine.sh install")
    probe = subprocess.run(["docker", "buildx", "version"], capture_output=True, text=True,
                           check=False)
    if probe.returncode != 0:
        missing("docker buildx", "bash scripts/engine.sh install")
    plugins = os.environ.get(PLUGINS_VARIABLE)
    if plugins and not (Path(plugins) / "docker-buildx").is_file():
        pytest.fail(f"{PLUGINS_VARIABLE}={plugins}: no docker-buildx there "
                    "(bash scripts/engine.sh newest-buildx puts one in its cli-plugins)")
    return Buildx(tmp_path_factory.mktemp("buildx-home"), Path(plugins) if plugins else None)


def run_cli(args: list[str], cwd: Path = ROOT, env: Mapping[str, str] | None = None,
            timeout: float = 600) -> Result:
    """Run a command of the project (``inv ...``, ``nox ...``) as a user would."""
    proc = subprocess.run(args, cwd=cwd, env=minimal_env(env), capture_output=True, text=True,
                          timeout=timeout, check=False)
    return Result(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture(scope="session")
def engine() -> Iterator[str]:
    """A real Docker engine and registry on loopback, started by scripts/engine.sh."""
    if shutil.which("dockerd") is None:
        missing("the Docker engine (dockerd)", "bash scripts/engine.sh install")
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "engine.sh"), "start"],
                          capture_output=True, text=True, timeout=180, check=False)
    if proc.returncode != 0:
        pytest.fail(f"scripts/engine.sh start failed: {proc.stderr.strip()[-800:]}")
    docker_host = proc.stdout.strip().removeprefix("export DOCKER_HOST=")
    base = subprocess.run(["bash", str(ROOT / "scripts" / "engine.sh"), "base-image"],
                          capture_output=True, text=True, timeout=180, check=False)
    if base.returncode != 0:
        pytest.fail(f"scripts/engine.sh base-image failed: {base.stderr.strip()[-800:]}")
    yield docker_host


# The two engines scripts/engine.sh runs (ROCM_BAKE_ENGINE_RELEASE): the oldest the project
# supports and the current one (its default).
RELEASE_VARIABLE = "ROCM_BAKE_ENGINE_RELEASE"
RELEASES = ("floor", "current")


def suite_release() -> str:
    """The release of the suite's engine (the ``engine`` fixture's): scripts/test-setup.sh
    exports it; engine.sh's default is current."""
    return os.environ.get(RELEASE_VARIABLE) or "current"


def engine_sh(*args: str, env: Mapping[str, str]) -> str:
    """scripts/engine.sh ARGS, its stdout (a failure fails the test, naming its error)."""
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "engine.sh"), *args], env=dict(env),
                          capture_output=True, text=True, timeout=300, check=False)
    if proc.returncode != 0:
        pytest.fail(f"scripts/engine.sh {' '.join(args)} failed: {proc.stderr.strip()[-800:]}")
    return proc.stdout.strip()


@pytest.fixture(scope="session")
def engines(engine: str) -> Iterator[dict[str, str]]:
    """Both engines, release -> DOCKER_HOST: the suite's, and the other release started beside
    it by engine.sh (its own run dir and data root, ROCM_BAKE_SECOND_ENGINE_DIR, default
    /tmp/rocm-bake-engine-<release>; no registry of its own: it trusts the suite's), stopped
    when the session ends."""
    release = next(r for r in RELEASES if r != suite_release())
    run_dir = os.environ.get("ROCM_BAKE_SECOND_ENGINE_DIR", f"/tmp/rocm-bake-engine-{release}")
    env = {**os.environ, RELEASE_VARIABLE: release, "ROCM_BAKE_REGISTRY": "none"}
    env.pop("DOCKER_HOST", None)
    host = engine_sh("start", run_dir, env=env).removeprefix("export DOCKER_HOST=")
    engine_sh("base-image", run_dir, env=env)
    yield {suite_release(): engine, release: host}
    engine_sh("stop", run_dir, env=env)


@pytest.fixture(scope="session")
def webdav() -> Iterator[Path]:
    """The WebDAV store (nginx + dav-ext) from scripts/webdav.sh; yields its run directory."""
    if shutil.which("nginx") is None:
        missing("nginx, the WebDAV store", "bash scripts/webdav.sh install")
    run_dir = Path(os.environ.get("ROCM_BAKE_WEBDAV_DIR", "/tmp/rocm-bake-webdav"))
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "webdav.sh"), "start", str(run_dir)],
                          capture_output=True, text=True, timeout=60, check=False)
    if proc.returncode != 0:
        pytest.fail(f"scripts/webdav.sh start failed: {proc.stderr.strip()[-800:]}")
    yield run_dir


@pytest.fixture(scope="session")
def s3() -> Any:
    """The S3 store (moto's server, scripts/s3.sh) with a bucket and a key of this session's
    (tests/s3store.py): an S3Store."""
    from tests import s3store  # noqa: PLC0415 (it imports this module)

    return s3store.start(Path(os.environ.get("ROCM_BAKE_S3_DIR", "/tmp/rocm-bake-s3")))


@pytest.fixture(scope="module")
def chrome() -> Iterator[Any]:
    """A headless Chromium for a module's tests (tests/docs/browser.py); without it, or
    without selenium, each test fails naming chromium."""
    from tests.docs import browser  # noqa: PLC0415 (selenium: the docs group)

    with browser.chromium() as driver:
        yield driver


@pytest.fixture
def path_without_docker(tmp_path: Path) -> str:
    """A PATH with the project's tools and git (GitPython needs it) but no docker client."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    git = shutil.which("git")
    if git:
        (bin_dir / "git").symlink_to(git)
    return f"{VENV_BIN}:{bin_dir}"
