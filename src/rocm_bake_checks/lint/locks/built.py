"""What each distribution the cell builds requires (its wheel's ``Requires-Dist``), read from
its own source at the pin, never written by hand.

``upstream.toml`` ``[built]`` names, per distribution, ``requires-from``: files under a
component's ``base`` (``component:path``), read through the replayable snapshot
(``upstream.Metadata``), or a published wheel of that very version (``pypi:<wheel file>``,
its core metadata recorded by ``inv lock`` into ``locks.metadata``'s snapshot; less the
requirements under its ``without-marker`` markers and those on the cell's own distributions):

- ``setup.py``: the ``install_requires`` of its ``setup(...)`` call, read statically (``ast``,
  nothing executed): a literal list, or a module-level name bound to one (strings may be
  module-level string constants); a name bound or changed under an ``if`` is read from its
  ``else`` branch when the condition's source text is in the entry's ``false`` list (never
  true in the stage's build, e.g. ``AITER_TRITON_ONLY``, ``not ctx.use_hip``), else an error;
  for the wheel's build without GPU kernels (``requires(..., without_kernels=True)``), the
  conditions of its ``without-kernels`` list are true instead (their ``if`` branch is read);
- ``pyproject.toml``: ``[project].dependencies`` (unless declared ``dynamic``);
- a requirements file: its requirement lines.

A value that cannot be read so is a ``LintError`` naming the file and why (never a guess).

A stage may also pin a wheel's requirements to the cell's own wheels at build time with an
upstream script (upstream.toml ``[[component]]`` ``pins``: vLLM's
``tools/vllm-rocm/pin_rocm_dependencies.py``); which wheel files it pins, and to which
distribution names, is the script's ``package_mapping``, read here (``package_mapping``) the
same way, and applied by ``locks.inputs.runtime_requires``.
"""

from __future__ import annotations

import ast
import functools
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement

from rocm_bake_checks.lint import conformance, upstream
from rocm_bake_checks.lint.findings import LintError
from rocm_bake_checks.lint.locks import metadata as lockmeta
from rocm_bake_checks.lint.upstream import Built, Config, Metadata, canonical

PYPI = "pypi:"
CONFIG_NAME = "src/rocm_bake_checks/lint/upstream.toml"


@dataclass(frozen=True)
class Read:
    requires: tuple[str, ...]
    sources: tuple[str, ...]      # the URLs read


def unread(config: Config) -> list[str]:
    """A warning per built distribution whose runtime requirements no upstream file is read
    for (no ``requires-from`` in upstream.toml [built]): its stand-in wheel requires nothing,
    so the resolution family and the locks cannot see what it needs."""
    return [f"{CONFIG_NAME} [built] {dist}: its runtime requirements are not read from upstream "
            "(no requires-from: its source's metadata is not in the snapshot), so its stand-in "
            "wheel requires nothing; record the file that declares them "
            "(`inv lint --online --record`) and name it in requires-from"
            for dist, built in sorted(config.built.items())
            if not built.requires_from and dist not in _from_runtime_files(config)]


def _from_runtime_files(config: Config) -> set[str]:
    """The distributions whose requirements come from their component's ``runtime`` files
    (vLLM's requirements/rocm.txt, LMCache's)."""
    return {canonical(c.name) for c in config.components if c.runtime}


def published(config: Config, dists: set[str] | None = None) -> list[str]:
    """The published wheel files ``[built]`` reads requirements from (``pypi:<wheel>``), for
    ``dists`` (None: every one)."""
    return sorted({spec.removeprefix(PYPI) for name, built in config.built.items()
                   if dists is None or name in dists
                   for spec in built.requires_from if spec.startswith(PYPI)})


def requires(dist: str, config: Config, metadata: Metadata,
             variables: Mapping[str, object], root: Path | None = None,
             without_kernels: bool = False) -> Read:
    """What ``dist``'s build requires; ``without_kernels``: its build without GPU kernels (the
    conditions of ``[built]``'s ``without-kernels`` true)."""
    built = config.built.get(dist)
    if built is None:
        return Read((), ())
    if not built.requires_from:   # not read: upstream.toml says why; its stand-in needs nothing
        return Read((), ())
    bases = {c.name: c.base for c in config.components}
    lines: list[str] = []
    sources: list[str] = []
    for spec in built.requires_from:
        if spec.startswith(PYPI):
            got = _from_pypi(dist, spec.removeprefix(PYPI), built, config, root)
            lines += got.requires
            sources += got.sources
            continue
        component, sep, path = spec.partition(":")
        if not sep or component not in bases:
            raise LintError(f"upstream.toml [built] {dist}: requires-from {spec!r} must be "
                            f"COMPONENT:PATH with a [[component]] of {', '.join(sorted(bases))}")
        base = upstream.resolve(bases[component], variables, f"[built] {dist}")
        url = f"{base}/{path}"
        true = built.without_kernels if without_kernels else ()
        false = [f for f in built.false if f not in true]
        lines += [str(r) for r in metadata.fact(
            url, f"requirements (false: {','.join(false)}; true: {','.join(true)})",
            functools.partial(read, url, false=false, true=true))]
        sources.append(url)
    return Read(tuple(dict.fromkeys(lines)), tuple(sources))


def _from_pypi(dist: str, wheel: str, built: Built, config: Config, root: Path | None) -> Read:
    """A published wheel's recorded Requires-Dist (``locks.metadata``'s snapshot, ``inv lock``
    records it), less those under a ``without-marker`` marker and those on the cell's own
    distributions (the build pins them: write-constraints.py)."""
    recorded = lockmeta.load((root or Path()) / lockmeta.SNAPSHOT).get(wheel)
    if recorded is None:
        raise LintError(f"upstream.toml [built] {dist}: {wheel} is not in "
                        f"{lockmeta.SNAPSHOT}: run `inv lock` (it records it)")
    kept = []
    for line in recorded.requires:
        requirement = Requirement(line)
        marker = str(requirement.marker) if requirement.marker else ""
        if marker in built.without_marker or canonical(requirement.name) in config.built:
            continue
        kept.append(line)
    return Read(tuple(kept), (recorded.source,))


def package_mapping(text: str, url: str) -> list[tuple[str, str]]:
    """The ``package_mapping = [(wheel file prefix, distribution), ...]`` literal of upstream's
    pin script (vLLM's tools/vllm-rocm/pin_rocm_dependencies.py, get_custom_wheel_versions),
    in its order (the order of the pins it writes), read without running it."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise LintError(f"{url}:{exc.lineno}: not Python ({exc.msg})") from None
    found = [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == "package_mapping" for t in n.targets)]
    if len(found) != 1:
        raise LintError(f"{url}: {len(found)} assignments to package_mapping: not readable "
                        "statically")
    try:
        pairs = ast.literal_eval(found[0])
    except ValueError:
        raise LintError(f"{url}:{found[0].lineno}: package_mapping is not a literal: not "
                        "readable statically") from None
    if not isinstance(pairs, list) or not all(
            isinstance(p, tuple) and len(p) == 2 and all(isinstance(s, str) for s in p)
            for p in pairs):
        raise LintError(f"{url}:{found[0].lineno}: package_mapping is not a list of "
                        "(prefix, name) pairs")
    return [(prefix, name) for prefix, name in pairs]


def read(url: str, text: str, false: Sequence[str] = (), true: Sequence[str] = ()) -> list[str]:
    """The requirements ``url``'s text declares (by its file name)."""
    name = url.rsplit("/", 1)[-1]
    if name == "setup.py":
        return setup_requires(text, url, false, true)
    if name == "pyproject.toml":
        return _pyproject(text, url)
    return [line for line, _ in conformance.requirement_lines(text, url)]


def _pyproject(text: str, url: str) -> list[str]:
    try:
        project = tomllib.loads(text).get("project", {})
    except tomllib.TOMLDecodeError as exc:
        raise LintError(f"{url}: {exc}") from None
    if "dependencies" in project.get("dynamic", []):
        raise LintError(f"{url}: [project].dependencies is dynamic: not readable statically "
                        "(name the file that declares them)")
    return [str(r) for r in project.get("dependencies", [])]


def setup_requires(text: str, url: str, false: Sequence[str] = (),
                   true: Sequence[str] = ()) -> list[str]:
    """``install_requires`` of setup.py's ``setup(...)``, read without running it."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise LintError(f"{url}:{exc.lineno}: not Python ({exc.msg})") from None
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and getattr(n.func, "id", getattr(n.func, "attr", "")) == "setup"]
    keywords = [k for c in calls for k in c.keywords if k.arg == "install_requires"]
    if len(keywords) != 1:
        raise LintError(f"{url}: {len(keywords)} install_requires= in setup() calls: not "
                        "readable statically")
    return _strings(keywords[0].value, _Scope(tree, url, set(false), set(true)))


class _Scope:
    def __init__(self, tree: ast.Module, url: str, false: set[str],
                 true: set[str] | None = None) -> None:
        self.tree, self.url, self.false, self.true = tree, url, false, true or set()

    def fail(self, node: ast.AST, why: str) -> LintError:
        return LintError(f"{self.url}:{getattr(node, 'lineno', 1)}: install_requires {why}: "
                         "not readable statically")

    def value(self, name: ast.Name) -> ast.expr:
        """The one expression module-level code binds ``name`` to (``if`` branches chosen
        by the ``false`` names)."""
        found = list(self._bindings(self.tree.body, name.id))
        if len(found) != 1:
            raise self.fail(name, f"names {name.id}, bound {len(found)} times")
        return found[0]

    def _bindings(self, body: list[ast.stmt], name: str) -> list[ast.expr]:
        out: list[ast.expr] = []
        for statement in body:
            if isinstance(statement, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == name for t in statement.targets):
                out.append(statement.value)
            elif isinstance(statement, ast.If):
                if ast.unparse(statement.test) in self.false:   # never true in this build
                    out += self._bindings(statement.orelse, name)
                elif ast.unparse(statement.test) in self.true:  # always true in this build
                    out += self._bindings(statement.body, name)
                elif _touches(statement.body, name) or _touches(statement.orelse, name):
                    raise self.fail(statement, f"binds {name} under a condition the lint "
                                               f"cannot decide ({ast.unparse(statement.test)})")
            elif _touches([statement], name):
                raise self.fail(statement, f"extends {name}")
        return out


def _touches(body: list[ast.stmt], name: str) -> bool:
    """Some statement of ``body`` (nested too) binds or changes ``name`` (``=``, ``+=``,
    ``name.append(...)``, ...)."""
    for node in (n for statement in body for n in ast.walk(statement)):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name \
                and node.func.attr in {"append", "extend", "insert", "remove", "pop", "clear"}:
            return True
    return False


def _strings(node: ast.expr, scope: _Scope) -> list[str]:
    if isinstance(node, ast.Name):
        return _strings(scope.value(node), scope)
    if isinstance(node, ast.List | ast.Tuple):
        return [_string(e, scope) for e in node.elts]
    raise scope.fail(node, f"is a {type(node).__name__}")


def _string(node: ast.expr, scope: _Scope) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return _string(scope.value(node), scope)
    raise scope.fail(node, f"holds a {type(node).__name__}")
