"""inv version-check: compare every pin with upstream (not implemented yet)."""

from __future__ import annotations

from invoke.context import Context
from invoke.exceptions import Exit
from invoke.tasks import task


@task
def version_check(c: Context) -> None:
    """Compare every pin in rocm-bake.hcl with upstream releases (not implemented yet)."""
    raise Exit("error: version-check is not implemented yet (tracked as issue #4); "
               "it reports nothing rather than a false 'no drift'", code=2)
