"""A built distribution whose runtime requirements no upstream file gives (no requires-from,
no runtime files) is a warning of `inv lint` naming it, never a silent stand-in."""

from __future__ import annotations

from rocm_bake_checks.lint import upstream
from rocm_bake_checks.lint.locks import built as builtmeta
from rocm_bake_checks.lint.upstream import Built


def test_a_stand_in_that_requires_nothing_is_named() -> None:
    config = upstream.load_config()
    config = type(config)(**{**config.__dict__, "built": {
        "read": Built(("read",), requires_from=("read:setup.py",)),
        "unread": Built(("unread",)),
        "vllm": Built(("vllm",))}})
    warnings = builtmeta.unread(config)
    assert len(warnings) == 1 and "[built] unread: its runtime requirements are not read" in \
        warnings[0], warnings
