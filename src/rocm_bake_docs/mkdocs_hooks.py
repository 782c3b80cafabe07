"""MkDocs hooks (mkdocs.yml ``hooks:``): link pages other generators own only once they exist.

docs/reference/variables.md is written by ``inv version-check --docs`` (issue #4). Until it exists
the nav leaves it out and the Reference page says where it will come from; no committed page
depends on whether it exists, so ``inv docs --check`` does not flap when it appears.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

VARIABLES = "reference/variables.md"
MARKER = "<!-- rocm-bake:variables-link -->"
NAV_SECTION = "Reference"
NAV_TITLE = "Bake variables"


def _variables_exist(config: Any) -> bool:
    return (Path(config["docs_dir"]) / VARIABLES).is_file()


def on_config(config: Any) -> Any:
    """Add the variables page to the Reference section of the nav when it exists."""
    if not _variables_exist(config):
        return config
    for entry in config["nav"] or []:
        if isinstance(entry, dict) and isinstance(entry.get(NAV_SECTION), list):
            section = entry[NAV_SECTION]
            if not any(isinstance(i, dict) and VARIABLES in i.values() for i in section):
                section.append({NAV_TITLE: VARIABLES})
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Turn the variables marker into a link, or a plain note while the page is absent."""
    if MARKER not in markdown:
        return markdown
    if _variables_exist(config):
        here = posixpath.dirname(page.file.src_uri)
        replacement = f"[{NAV_TITLE}]({posixpath.relpath(VARIABLES, here or '.')})"
    else:
        replacement = (f"{NAV_TITLE} (not generated yet: `inv version-check --docs` writes "
                       f"`docs/{VARIABLES}`; meanwhile run `./inv list-vars`)")
    return markdown.replace(MARKER, replacement)
