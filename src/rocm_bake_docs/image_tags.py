"""docs/reference/image-tags.md: every image tag and layer-cache ref, per component x arch,
resolved by the bake model from rocm-bake.hcl's tag scheme."""

from __future__ import annotations

from rocm_bake.model.hcl.values import Value
from rocm_bake_docs import markdown as md
from rocm_bake_docs import model
from rocm_bake_docs.source import Source

PATH = "reference/image-tags.md"


def _text(value: Value) -> str:
    return "" if value is None else str(value)


def _scheme(source: Source) -> str:
    definition = model.definition(source)
    versions = definition.value("VERSION_TAG")
    rows = []
    if isinstance(versions, dict):
        rows = [[md.code(str(k)), md.code(_text(v))] for k, v in versions.items()]
    registry = _text(definition.value("REGISTRY"))
    prefix = _text(definition.value("IMAGE_PREFIX"))
    rocm = _text(definition.value("ROCM_VERSION"))
    return "\n".join([
        "## Scheme\n",
        "`REGISTRY/IMAGE_PREFIX/<component>:<version>-rocm<ROCM_VERSION>-<arch>`, with "
        f"`REGISTRY` = `{registry}`, `IMAGE_PREFIX` = `{prefix}` and `ROCM_VERSION` = "
        f"`{rocm}` by default. Change them like any bake variable: "
        "`./inv push --target torch --set REGISTRY=registry.example.com:5000`. "
        "The version part comes from the pins (`VERSION_TAG` in rocm-bake.hcl):\n",
        md.table(["component", "version part"], rows),
    ])


def _rows(source: Source) -> tuple[list[list[str]], list[list[str]]]:
    cells = model.cells(source)
    built = [c.target for c in cells if c.target]
    targets = model.definition(source).plan(built).to_json().get("target", {})
    assert isinstance(targets, dict)
    tags, caches = [], []
    for c in cells:
        if not c.target:
            tags.append([c.component, c.arch, f"skipped: {md.cell(c.skipped or '')}"])
            continue
        resolved = targets[c.target]
        image = " ".join(md.code(t) for t in resolved.get("tags") or [])
        outputs = ", ".join(md.code(o) for o in resolved.get("output") or [])
        tags.append([c.component, c.arch, image or f"no image; exports {outputs}"])
        for ref in resolved.get("cache-from") or []:
            caches.append([md.code(c.target), md.code(str(ref))])
    return tags, caches


def render(source: Source) -> str:
    tags, caches = _rows(source)
    return "\n".join([
        md.header("rocm-bake.hcl (tag scheme, resolved by the bake model)"),
        "# Image tags\n",
        "What `./inv push` publishes with default variables: one image per component x arch "
        "cell. A skipped cell publishes nothing; `./inv targets` says why.\n",
        _scheme(source),
        "## Every tag\n",
        md.table(["component", "arch", "image"], tags),
        "## Registry layer-cache refs\n",
        "Each cell reads its BuildKit layer cache from a ref keyed by the pins it depends on "
        "(`cache-from`); trusted builds (push and scheduled: `CACHE_TIER=trusted`) also write "
        "it (`CACHE_EXPORT=true`), a release neither reads nor writes it (see "
        "[Lanes: trust tiers](../lanes.md#trust-tiers)).\n",
        md.table(["target", "cache-from"], caches),
    ])
