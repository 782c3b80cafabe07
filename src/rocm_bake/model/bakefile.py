"""The bake model: load bake files and evaluate them exactly as ``docker buildx bake`` does.

    definition = bakefile.load(["rocm-bake.hcl"], env=os.environ)
    definition.variables()                 # what --list=variables shows
    definition.plan(["vllm"]).to_json()    # what --print shows

A caller that decides more variables from the variables' values (inv build: the trust tier's
settings, the cache secret's path) reads the files and evaluates their variables only, then
evaluates the targets once, with what it added::

    variables = bakefile.read_variables(["rocm-bake.hcl"], env)
    variables = variables.with_env({**env, "CACHE_EXPORT": "true"})   # no file read again
    definition = variables.evaluate()

No Docker is needed. Whatever this module says about a bake file is tested against the
installed buildx (tests/buildx/).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rocm_bake.core.errors import HCLError
from rocm_bake.model.bake import blocks, declarations, resolve
from rocm_bake.model.bake.blocks import Config
from rocm_bake.model.bake.references import References
from rocm_bake.model.bake.resolve import Plan
from rocm_bake.model.bake.variables import Namespace, VariableInfo
from rocm_bake.model.hcl.functions import FUNCTIONS
from rocm_bake.model.hcl.values import Value

DEFAULT_FILE = "rocm-bake.hcl"
# The bake variable that selects the GPU arches of the matrix cells (a comma-separated list).
ARCH_VARIABLE = "GPU_ARCHS"


def bake_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The environment bake's variables see. buildx never sees a non-empty ``DEBUG`` (the
    docker CLI takes it for its own debug switch), so neither do we."""
    return {k: v for k, v in env.items() if not (k == "DEBUG" and v)}


@dataclass
class Variables:
    """A set of bake files read, and their variables evaluated with an environment (as buildx's
    first phase: every variable, then the validations); their targets and groups not yet."""

    files: list[Path]
    env: Mapping[str, str]
    namespace: Namespace

    def variables(self) -> list[VariableInfo]:
        """The records of ``docker buildx bake --list=type=variables``."""
        return self.namespace.listing()

    def value(self, name: str) -> Value:
        """The value in effect for a variable or top-level attribute."""
        try:
            return self.namespace.resolve(name)
        except KeyError:
            raise HCLError(f"no variable or attribute named {name!r}") from None

    def with_env(self, env: Mapping[str, str]) -> Variables:
        """The same files' variables evaluated with ``env`` instead (the files are not read
        again: what they declare is kept)."""
        return _variables(self.files, self.namespace.declared, env)

    def evaluate(self) -> Definition:
        """The targets and groups evaluated with these variables: the whole definition."""
        namespace = self.namespace
        # As in buildx, blocks can be referenced (target.NAME.FIELD) only once variables are
        # done.
        namespace.blocks = References(namespace.declared.blocks, namespace).table
        config = blocks.evaluate(namespace.declared.blocks, namespace)
        namespace.resolve_all()
        return Definition(self.files, self.env, namespace, config)


@dataclass
class Definition(Variables):
    """Every variable, target and group of a set of bake files, evaluated."""

    config: Config

    @property
    def warnings(self) -> list[HCLError]:
        """What buildx silently ignores (unknown arguments and blocks), located."""
        return [*self.namespace.declared.warnings, *self.config.warnings]

    def plan(self, targets: Sequence[str] = (), overrides: Sequence[str] = (),
             push: bool = False) -> Plan:
        """What ``docker buildx bake --print [--push] [--set ...] TARGETS`` resolves to."""
        all_overrides = [*overrides, *(["*.push=true"] if push else [])]
        return resolve.resolve(self.config, targets, all_overrides, self.env)

    @property
    def target_names(self) -> list[str]:
        return list(self.config.targets)

    @property
    def group_names(self) -> list[str]:
        return list(self.config.groups)


def _variables(paths: list[Path], declared: declarations.Declarations,
               env: Mapping[str, str]) -> Variables:
    environment = bake_environment(env)
    namespace = Namespace(declared, environment, FUNCTIONS)
    namespace.resolve_variables()
    namespace.validate()
    return Variables(paths, environment, namespace)


def read_variables(files: Sequence[str | Path] = (DEFAULT_FILE,),
                   env: Mapping[str, str] | None = None) -> Variables:
    """Read bake files and evaluate their variables only; ``env`` defaults to this process's
    environment. :meth:`Variables.evaluate` evaluates the rest."""
    paths = [Path(f) for f in files]
    return _variables(paths, declarations.read(paths), os.environ if env is None else env)


def load(files: Sequence[str | Path] = (DEFAULT_FILE,),
         env: Mapping[str, str] | None = None) -> Definition:
    """Read and evaluate bake files; ``env`` defaults to this process's environment."""
    return read_variables(files, env).evaluate()
