"""The bake model: load bake files and evaluate them exactly as ``docker buildx bake`` does.

    definition = bakefile.load(["rocm-bake.hcl"], env=os.environ)
    definition.variables()                 # what --list=variables shows
    definition.plan(["vllm"]).to_json()    # what --print shows

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
class Definition:
    """Every variable, target and group of a set of bake files, evaluated."""

    files: list[Path]
    env: Mapping[str, str]
    namespace: Namespace
    config: Config

    @property
    def warnings(self) -> list[HCLError]:
        """What buildx silently ignores (unknown arguments and blocks), located."""
        return [*self.namespace.declared.warnings, *self.config.warnings]

    def variables(self) -> list[VariableInfo]:
        """The records of ``docker buildx bake --list=type=variables``."""
        return self.namespace.listing()

    def value(self, name: str) -> Value:
        """The value in effect for a variable or top-level attribute."""
        try:
            return self.namespace.resolve(name)
        except KeyError:
            raise HCLError(f"no variable or attribute named {name!r}") from None

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


def load(files: Sequence[str | Path] = (DEFAULT_FILE,),
         env: Mapping[str, str] | None = None) -> Definition:
    """Read and evaluate bake files; ``env`` defaults to this process's environment."""
    paths = [Path(f) for f in files]
    environment = bake_environment(os.environ if env is None else env)
    declared = declarations.read(paths)
    namespace = Namespace(declared, environment, FUNCTIONS)
    namespace.resolve_variables()
    namespace.validate()
    # As in buildx, blocks can be referenced (target.NAME.FIELD) only once variables are done.
    namespace.blocks = References(declared.blocks, namespace).table
    config = blocks.evaluate(declared.blocks, namespace)
    namespace.resolve_all()
    return Definition(paths, environment, namespace, config)
