"""``pin-unused``: every pin variable must reach some target.

Measured on the real model, not by reading text: each pin is changed (a prefix and a suffix
added, validations off) and the plan of every target is evaluated again; a pin whose change
leaves the whole plan as it was is used by no target.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model.bake import blocks, declarations
from rocm_bake.model.bake.variables import Namespace
from rocm_bake.model.bakefile import Definition, bake_environment
from rocm_bake.model.hcl.functions import FUNCTIONS
from rocm_bake_checks.lint.bakemodel import relative, requested
from rocm_bake_checks.lint.findings import Finding

PIN_SUFFIXES = ("_COMMIT", "_REF", "_VERSION", "_SHA256", "_DIGEST", "_TAG", "_REPO", "_IMAGE")
_PROBE = "lintprobe"


def is_pin(name: str) -> bool:
    return name.endswith(PIN_SUFFIXES)


def _plan(definition: Definition, env: Mapping[str, str]) -> str | None:
    """The plan of the lint's targets with ``env`` in effect, validations skipped; None when
    the changed value breaks evaluation (then the pin is evidently used)."""
    try:
        declared = declarations.read(list(definition.files))
        namespace = Namespace(declared, bake_environment(env), FUNCTIONS)
        namespace.resolve_all()
        config = blocks.evaluate(declared.blocks, namespace)
        changed = Definition(list(definition.files), env, namespace, config)
        return json.dumps(changed.plan(requested(changed)).to_json(), sort_keys=True)
    except RocmBakeError:
        return None


def check(definition: Definition, root: Path, names: Sequence[str] | None = None
          ) -> list[Finding]:
    baseline = _plan(definition, definition.env)
    if baseline is None:
        return []
    findings = []
    declared = definition.namespace.declared.variables
    for info in definition.variables():
        if not is_pin(info.name) or (names is not None and info.name not in names):
            continue
        if not isinstance(info.value, str):
            continue
        probes = [f"{_PROBE}{info.value}", f"{info.value}{_PROBE}"]
        if all(_plan(definition, {**definition.env, info.name: p}) == baseline for p in probes):
            source = declared[info.name].source
            findings.append(Finding(relative(Path(source.file), root), source.line or 1,
                                    "pin-unused",
                                    f"pin variable {info.name} is used by no target"))
    return findings
