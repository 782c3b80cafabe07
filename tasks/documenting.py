"""inv docs: regenerate the generated pages of docs/, then build the site (mkdocs --strict);
inv regen: regenerate everything a component change makes stale."""

from __future__ import annotations

from pathlib import Path

from invoke.context import Context
from invoke.exceptions import Exit
from invoke.tasks import task

from tasks._cli import reports_errors

ROOT = Path(__file__).resolve().parent.parent
EXIT_STALE = 1
DEFAULT_ADDR = "127.0.0.1:8000"


@task(help={
    "check": "write nothing; exit 1 when a committed generated page is stale",
    "serve": "after generating, preview the site with mkdocs serve (loopback only)",
    "addr": f"address for --serve (default {DEFAULT_ADDR})",
    "site_dir": "where the built site goes (default: site/)",
})
@reports_errors
def docs(c: Context, check: bool = False, serve: bool = False, addr: str = DEFAULT_ADDR,
         site_dir: str = "site") -> None:
    """Regenerate the generated documentation pages, then build the site with mkdocs --strict."""
    from rocm_bake_docs import pages, site
    from rocm_bake_docs.source import Source

    source = Source(ROOT)
    if serve:
        site.check_loopback(addr)
    if not check:
        site.require()          # before any page is written: fail fast, in one line
    if check:
        outdated = pages.stale(source)
        if outdated:
            raise Exit("docs are stale (run ./inv docs and commit): "
                       + ", ".join(f"docs/{p}" for p in outdated), code=EXIT_STALE)
        print(f"docs: {len(pages.PAGES)} generated pages are up to date")
        return
    changed = pages.write(source)
    print(f"docs: regenerated {', '.join(f'docs/{p}' for p in changed)}" if changed
          else f"docs: {len(pages.PAGES)} generated pages were up to date")
    if serve:
        site.serve(ROOT, addr)
        return
    out = Path(site_dir) if Path(site_dir).is_absolute() else ROOT / site_dir
    site.build(ROOT, out)
    print(f"docs: built the site in {out} (mkdocs build --strict)")


@task
@reports_errors
def regen(c: Context) -> None:
    """Regenerate everything a change of components makes stale: the recorded buildx --print,
    the drift snapshot, the variables page and the generated docs (needs the dev group)."""
    from rocm_bake_docs import regen as regenerating

    regenerating.regenerate(ROOT, print)
