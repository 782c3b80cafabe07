"""docs/reference/index.md: the reference pages and what each is generated from."""

from __future__ import annotations

from rocm_bake_docs import markdown as md
from rocm_bake_docs.source import Source

PATH = "reference/index.md"
VARIABLES = "reference/variables.md"
VARIABLES_MARKER = "<!-- rocm-bake:variables-link -->"

ENTRIES = (
    ("[Tasks](tasks.md)", "every `./inv` task, its flags and help", "the invoke collection"),
    ("[nox sessions](nox.md)", "the nox sessions, one build session per arch", "noxfile.py"),
    ("[Image tags](image-tags.md)", "every published tag and layer-cache ref",
     "rocm-bake.hcl via the bake model"),
    ("[Bake model coverage](bake-model.md)", "what the bake model covers, case by case, and "
     "what it does not support yet", "the buildx oracle tests (tests/buildx)"),
)


def render(source: Source) -> str:
    rows = [[name, what, src] for name, what, src in ENTRIES]
    rows.append([VARIABLES_MARKER, "every bake variable: value, description; each pin's drift "
                 "status and newest upstream — here an example replayed from the drift tests' "
                 "recorded snapshot, live in the lanes' `variables-page` artifact",
                 "rocm-bake.hcl and the drift snapshot, by `inv version-check --offline "
                 "SNAPSHOT --docs`"])
    return "\n".join([
        md.header("the list of generated pages (src/rocm_bake_docs)"),
        "# Reference\n",
        "Every page here is generated from the code by `./inv docs`; CI fails when one is "
        "stale (`./inv docs --check`).\n",
        md.table(["page", "what it lists", "generated from"], rows),
    ])
