"""``inv bump``: plan (nothing written on any failure), verify the rewritten bake file with
the bake model and buildx, write it, then the follow-up steps (conformance snapshot, locks,
regen, lint, offline drift check), optionally on a new branch; the summary for a PR body."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rocm_bake.core import atomic
from rocm_bake.core.clock import SYSTEM, Clock
from rocm_bake.core.errors import RocmBakeError, UsageError
from rocm_bake.model import bakefile
from rocm_bake_checks.bump import checks, config, hcledit, recipe, recipediff, summary
from rocm_bake_checks.bump.plan import BumpError, Plan, Planner
from rocm_bake_checks.drift import run as drift
from rocm_bake_checks.drift.model import Status
from rocm_bake_checks.drift.session import Session
from rocm_bake_checks.drift.settings import DriftSettings

if TYPE_CHECKING:
    from rocm_bake_checks.lint import upstream

STEPS = ("snapshot", "lock", "regen", "lint", "drift")
LINT_SNAPSHOT = "src/rocm_bake_checks/lint/upstream-metadata.json"
DRIFT_SNAPSHOT = "src/rocm_bake_checks/drift/snapshots/upstream.json"
DOCKER_HUB = ("docker.io", "registry-1.docker.io")
RAW = "https://raw.githubusercontent.com/vllm-project/vllm/"   # upstream.toml's vLLM base


@dataclass
class Options:
    file: Path = Path(bakefile.DEFAULT_FILE)
    root: Path = Path()
    vllm: str = ""
    source: str = "sdist"          # sdist | git
    recipe: str = ""               # the base Dockerfile to follow (default: upstream.toml's)
    dry_run: bool = False
    branch: str = ""
    only: str = ""
    rewrites: list[str] = field(default_factory=list)
    pypi: str = ""
    cache_dir: str = ""
    timeout: float = 60.0
    deadline: float = 600.0
    steps: Sequence[str] = STEPS
    docker: str = "docker"


Step = Callable[[Path, list[Path]], list[str]]   # (root, bake files) -> findings left


def run(options: Options, regen: Step | None = None, clock: Clock = SYSTEM) -> tuple[int, str]:
    """(exit status, summary): 0 bumped (or nothing to bump), 1 bumped with findings that
    need a person; every failure before writing is a BumpError (exit 2, nothing written).
    ``clock`` keeps ``--timeout`` and ``--deadline`` (a test drives it)."""
    unknown = sorted(set(options.steps) - set(STEPS))
    if unknown:
        raise UsageError(f"--steps {unknown[0]}: no such step (valid: {', '.join(STEPS)})")
    declared = config.load()
    if options.only and options.only not in declared.groups:
        raise UsageError(f"--only {options.only}: no such group (valid: "
                         f"{', '.join(sorted(declared.groups))})")
    if options.source not in ("sdist", "git"):
        raise UsageError(f"--source {options.source}: sdist or git")
    if options.branch:
        branch_name(options.root, options.branch)
    if not options.dry_run:
        _clean(options.root, untracked=bool(options.branch))
    definition = bakefile.load([options.file], {})
    session = Session(drift.prepare(DriftSettings(
        files=[str(options.file)], rewrites=list(options.rewrites), pypi=options.pypi,
        cache_dir=options.cache_dir, timeout=options.timeout, deadline=options.deadline), {},
        clock))
    try:   # open to the end: the snapshot step reads the release's files through it
        plan, text, files = _plan(options, declared, definition, session)
        if options.dry_run:
            return _status(plan), summary.render(plan, "dry run: nothing written")
        if not plan.changed():
            return _status(plan), summary.render(plan, "nothing to change: nothing written")
        if options.branch:
            _branch(options.root, options.branch)
        atomic.write_text(options.file, text)
        commit = plan.values().get(declared.vllm.commit) or str(definition.value(
            declared.vllm.commit))
        plan.needs += _steps(options, regen, _release(files, commit))
    finally:
        session.close()
    if options.branch:
        _commit(options.root, plan)
    return _status(plan), summary.render(plan)


def _release(files: recipe.Files, commit: str) -> upstream.Held:
    """The release's files as lint's snapshot step reads them: vLLM's raw files at
    ``commit`` (the addresses its keys name) answered from what the bump read (the sdist, or
    git at the tag), so the snapshot holds them even where GitHub cannot be reached."""
    from rocm_bake_checks.lint import upstream  # noqa: PLC0415

    return upstream.Held(f"{RAW}{commit}/", files.text, files.where)


def _status(plan: Plan) -> int:
    """1 when the summary lists something that needs a person (a dry run too), else 0."""
    return 1 if plan.needs else 0


def _plan(options: Options, declared: config.Config, definition: bakefile.Definition,
          session: Session) -> tuple[Plan, str, recipe.Files]:
    try:
        release = options.vllm.removeprefix("v") or recipe.newest(session.web,
                                                                  declared.vllm.pypi)
    except recipe.RecipeError as exc:
        raise BumpError(f"{declared.vllm.ref}: newest release: {exc}") from None
    files = _files(options, declared, definition, session, release)
    followed = _followed(options, declared, definition, session, files, release)
    planner = Planner(declared, definition, session.git,
                      lambda repo, tag, pin: _digest(session, repo, tag, options), files,
                      release, followed)
    groups = {options.only} if options.only else None
    plan = planner.plan(groups, getattr(files, "commit_hint", ""))
    plan.recipe_change, unread = _recipe_change(options, declared, definition, session, files,
                                                release, (followed.base, followed.image))
    plan.needs += unread
    unmapped = checks.unmapped_stages(plan.recipe, files, options.root, definition)
    if unmapped:
        more = f"; {len(unmapped) - 1} more" if len(unmapped) > 1 else ""
        raise BumpError(f"upstream's {unmapped[0]} builds something; no component or waiver "
                        "here answers it (a component's build_<name>, the bake file's "
                        f"UPSTREAM_STAGE, or a build-components waiver in lint/policy.toml){more}")
    plan.needs += checks.recipe_files(plan.recipe)
    original = options.file.read_text(encoding="utf-8")
    text = hcledit.rewrite(original, plan.values(), str(options.file))
    new = verify(options, text, plan.values())
    incoherent = checks.coherence(new, session.git)
    broken = [f for f in incoherent if f.status is not Status.UNCHECKED]
    if options.only and broken:
        first = broken[0]
        raise BumpError(f"--only {options.only} breaks coherence rule {first.name}: "
                        f"{first.detail}")
    plan.needs += [f"coherence {f.name}: {f.status.value}: {f.detail}" for f in incoherent]
    return plan, text, files


class RecipeGoneError(BumpError):
    """The release no longer has the recipe followed: one line naming what it has instead,
    and ``report``, upstream's recipe change to the first of those (Markdown)."""

    def __init__(self, message: str, report: str) -> None:
        super().__init__(message)
        self.report = report


def _followed(options: Options, declared: config.Config, definition: bakefile.Definition,
              session: Session, files: recipe.Files, release: str) -> config.Recipe:
    """The recipe to follow at ``release``: ``--recipe`` (a base Dockerfile the release has,
    with its image Dockerfile), else upstream.toml's; a release without it stops the bump."""
    declared_recipe = declared.recipe(release)
    if options.recipe:
        found = [p for p in recipediff.pairs(files.paths()) if p[0] == options.recipe]
        if not found:
            have = ", ".join(p[0] for p in recipediff.pairs(files.paths())) or "none listed"
            raise UsageError(f"--recipe {options.recipe}: not a base Dockerfile with its image "
                             f"Dockerfile in {files.where} (valid: {have})")
        return config.Recipe(declared_recipe.since, *found[0])
    if files.text(declared_recipe.base) is not None:
        return declared_recipe
    gone = (declared_recipe.base, declared_recipe.image)
    instead = recipediff.replacements(files.paths(), gone)
    named = "; ".join(f"{b} + {i}" for b, i in instead) or "none (list its docker/)"
    report = ""
    if instead:
        change, _ = _recipe_change(options, declared, definition, session, files, release,
                                   instead[0])
        report = recipediff.render(change) if change is not None else ""
    raise RecipeGoneError(
        f"vLLM {release} has no {gone[0]}, the recipe {declared.path.name} follows from "
        f"{declared_recipe.since}; its ROCm recipes now: {named} (follow one with --recipe "
        f"BASE, after updating {declared.path.name})", report)


def _recipe_change(options: Options, declared: config.Config, definition: bakefile.Definition,
                   session: Session, files: recipe.Files, release: str,
                   new_pair: tuple[str, str]) -> tuple[recipediff.Change | None, list[str]]:
    """Upstream's recipe change from the release the bake file follows to ``release`` (and
    a line for "Needs a person" when the old release's files could not be read)."""
    old_release = str(definition.value(declared.vllm.ref)).removeprefix("v")
    old_recipe = declared.recipe(old_release)
    old_pair = (old_recipe.base, old_recipe.image)
    try:
        old_files = files if old_release == release else _files(
            options, declared, definition, session, old_release,
            str(definition.value(declared.vllm.commit)))
        old = _texts(old_files, old_pair)
        new = _texts(files, new_pair)
    except (BumpError, recipe.RecipeError) as exc:
        return None, [f"upstream's recipe change from v{old_release} not compared: {exc}"]
    return recipediff.compare(old, new, old_pair, new_pair, (old_release, release)), []


def _texts(files: recipe.Files, pair: tuple[str, str]) -> dict[str, str]:
    """The recipe files of a release (path -> text): all it lists, else the pair."""
    paths = recipediff.recipe_files(files.paths()) or list(pair)
    return {p: t for p in paths if (t := files.text(p)) is not None}


def _files(options: Options, declared: config.Config, definition: bakefile.Definition,
           session: Session, release: str, commit: str = "") -> recipe.Files:
    try:
        if options.source == "sdist":
            return recipe.sdist(session.web, declared.vllm.pypi, release)
    except recipe.RecipeError as exc:
        raise BumpError(f"{declared.vllm.ref}: {exc}") from None
    url = str(definition.value(declared.vllm.repo_pin))
    from rocm_bake_checks.drift.fetch import UnavailableError  # noqa: PLC0415
    from rocm_bake_checks.drift.model import Explanation  # noqa: PLC0415

    if commit:   # the release the bake file follows: its own pin
        return recipe.GitFiles(session.git, url, commit, f"{session.git.where(url)} at "
                               f"v{release}")
    try:
        commit = session.git.resolve(url, f"v{release}", "", Explanation())
    except UnavailableError as exc:
        raise BumpError(f"{declared.vllm.commit}: cannot resolve 'v{release}' at "
                        f"{session.git.where(url)}: {exc}") from None
    return recipe.GitFiles(session.git, url, commit, f"{session.git.where(url)} at v{release}")


def _digest(session: Session, repository: str, tag: str, options: Options) -> str:
    """The manifest digest of REPOSITORY:TAG from its registry's API (Docker Hub's for a
    name without a host), the reference rewritten like every upstream address."""
    from rocm_bake.oci.registry import Registry  # noqa: PLC0415

    host, _, rest = repository.partition("/")
    if "." not in host and ":" not in host and host != "localhost":
        host, rest = DOCKER_HUB[0], repository
    if "/" not in rest and host == DOCKER_HUB[0]:
        rest = f"library/{rest}"
    reference = session.web.settings.rewrite(f"{host}/{rest}")
    if reference.startswith(DOCKER_HUB[0] + "/"):
        reference = DOCKER_HUB[1] + reference[len(DOCKER_HUB[0]):]
    where, _, path = reference.partition("/")
    registry = Registry(where, timeout=options.timeout, clock=session.deadline.clock,
                        run=session.deadline)
    _, digest = registry.manifest(path, tag)
    return digest


def verify(options: Options, text: str, values: dict[str, str]) -> bakefile.Definition:
    """The rewritten file evaluated by the bake model and by buildx: every new default in
    effect, exactly as written; returns the bake model's definition of it."""
    with tempfile.TemporaryDirectory(prefix="rocm-bake-bump-") as tmp:
        path = Path(tmp) / options.file.name
        path.write_text(text, encoding="utf-8")
        for sibling in ("dockerfiles",):
            source = options.file.parent / sibling
            if source.is_dir():
                (Path(tmp) / sibling).symlink_to(source.resolve())
        try:
            new = bakefile.load([path], {})
        except RocmBakeError as exc:
            raise BumpError(f"the rewritten {options.file.name} does not evaluate: {exc}") \
                from None
        model = {v.name: v.value for v in new.variables()}
        listed = _buildx_variables(options, path)
    for name, value in values.items():
        for who, seen in (("the bake model", model.get(name)), ("buildx", listed.get(name))):
            if seen != value:
                raise BumpError(f"{name}: {who} reads {seen!r} from the rewritten "
                                f"{options.file.name}, not {value!r}")
    return new


def _buildx_variables(options: Options, path: Path) -> dict[str, str]:
    argv = [options.docker, "buildx", "bake", f"--file={path.name}",
            "--list=type=variables,format=json"]
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(path.parent),
           "DOCKER_CONFIG": str(path.parent / ".docker")}
    try:
        done = subprocess.run(argv, cwd=path.parent, capture_output=True, text=True,
                              timeout=120, env=env, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BumpError(f"cannot run {' '.join(argv[:3])}: {exc}") from None
    if done.returncode != 0:
        line = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise BumpError(f"buildx refuses the rewritten {options.file.name}: {line}")
    records = json.loads(done.stdout)
    return {str(r["name"]): str(r.get("value", "")) for r in records}


def _clean(root: Path, untracked: bool) -> None:
    """A work tree the bump may write: nothing modified (index or work tree) and, when it
    commits (``untracked``), no untracked file that is not ignored: the commit holds what the
    bump wrote and nothing else (it stages every change of the work tree)."""
    import git  # noqa: PLC0415 (gitpython: only a bump that writes)

    try:
        repo = git.Repo(root)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise BumpError(f"{root}: not a git work tree (inv bump writes only a clean one)") \
            from None
    dirty = [str(d.a_path) for d in repo.index.diff(None)] + \
        [str(d.a_path) for d in repo.index.diff("HEAD")]
    if dirty:
        raise BumpError(f"the work tree is not clean ({sorted(set(dirty))[0]} modified): "
                        "commit or stash first")
    strays = sorted(repo.untracked_files) if untracked else []
    if strays:
        more = f" and {len(strays) - 1} more" if len(strays) > 1 else ""
        raise BumpError(f"the work tree has untracked files ({strays[0]}{more}) that --branch "
                        "would commit: commit, remove or ignore them first")


def branch_name(root: Path, name: str) -> None:
    """``--branch NAME``: a new, valid branch name (``git check-ref-format --branch``), checked
    before anything is asked or written; never read by git as an option."""
    try:
        done = subprocess.run(["git", "check-ref-format", "--branch", name], cwd=root,
                              capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BumpError(f"cannot run git check-ref-format: {exc}") from None
    if done.returncode != 0 or done.stdout.strip() != name or name.startswith("-"):
        raise UsageError(f"--branch {name!r}: not a valid branch name (git check-ref-format)")
    listed = subprocess.run(["git", "rev-parse", "--verify", "--quiet", "--end-of-options",
                             f"refs/heads/{name}"], cwd=root, capture_output=True, text=True,
                            timeout=60, check=False)
    if listed.returncode == 0:
        raise UsageError(f"--branch {name}: the branch exists already")


def _branch(root: Path, name: str) -> None:
    import git  # noqa: PLC0415

    git.Repo(root).git.checkout("-b", name)   # the name checked by branch_name


def _commit(root: Path, plan: Plan) -> None:
    """The bump's commit: every change of the work tree, which held none before the bump
    (_clean), so exactly what the bump and its steps wrote."""
    import git  # noqa: PLC0415

    repo = git.Repo(root)
    repo.git.add("--all")
    repo.index.commit(f"bump: vLLM v{plan.release}'s ROCm recipe ({plan.recipe.base})\n\n"
                      + summary.render(plan))


def _steps(options: Options, regen: Step | None, release: upstream.Held) -> list[str]:
    """The follow-up steps in order; what each leaves for a person."""
    files = [options.file]
    out: list[str] = []
    for step in options.steps:
        if step == "regen":
            if regen is not None:
                out += regen(options.root, files)
        elif step == "snapshot":
            out += _snapshot(options, files, release)
        else:
            out += STEP_FUNCTIONS[step](options, files)
    return out


def _snapshot(options: Options, files: list[Path], release: upstream.Held) -> list[str]:
    from rocm_bake_checks import lint  # noqa: PLC0415

    target = options.root / LINT_SNAPSHOT
    if not target.is_file():
        return [f"snapshot: {target} is not in this checkout: not refreshed"]
    settings = dataclasses.replace(lint.metadata_settings(
        online=True, record=str(target), rewrites=options.rewrites), held=(release,))
    try:   # its findings are the lint step's to report; every family that reads upstream
        # files (resolution: vLLM's pin script too), so the snapshot holds all the lint reads
        lint.run(options.root, files, ("conformance", "locks", "resolution"),
                 metadata=settings)
    except RocmBakeError as exc:
        return [f"snapshot: {exc}"]
    return []


def _lock(options: Options, files: list[Path]) -> list[str]:
    from rocm_bake_checks.lint.locks import file as lockfile  # noqa: PLC0415
    from rocm_bake_checks.lint.locks import rules as locks  # noqa: PLC0415

    try:
        list(locks.lock(options.root, files, (), options.pypi + "/simple" if options.pypi
                        else lockfile.DEFAULT_INDEX))
    except RocmBakeError as exc:
        return [f"lock: {exc}"]
    return []


def _lint(options: Options, files: list[Path]) -> list[str]:
    from rocm_bake_checks import lint  # noqa: PLC0415

    snapshot = options.root / LINT_SNAPSHOT
    metadata = lint.metadata_settings(offline=str(snapshot)) if snapshot.is_file() else None
    try:
        return [f"lint: {f}" for f in lint.run(options.root, files, metadata=metadata)]
    except RocmBakeError as exc:
        return [f"lint: {exc}"]


def _drift(options: Options, files: list[Path]) -> list[str]:
    snapshot = options.root / DRIFT_SNAPSHOT
    if not snapshot.is_file():
        return [f"drift: {snapshot} is not in this checkout"]
    code = drift.check(DriftSettings(files=[str(f) for f in files], offline=str(snapshot)),
                       {}).report.exit_code()
    replay = f"inv version-check --offline {DRIFT_SNAPSHOT}"
    if code == 1:
        return [f"drift (offline): pins behind upstream: {replay} lists them"]
    return [] if code == 0 else [f"drift (offline): could not check every pin (exit {code}): "
                                 f"{replay} says which (its snapshot is inv regen's)"]


STEP_FUNCTIONS: dict[str, Callable[[Options, list[Path]], list[str]]] = {
    "lock": _lock, "lint": _lint, "drift": _drift}


