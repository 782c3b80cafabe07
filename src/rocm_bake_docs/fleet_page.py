"""docs/snippets/fleet.md: the fleet file's nodes and services, as
``rocm_bake.fleetbuild.config`` reads them. Included by the Architecture page."""

from __future__ import annotations

from rocm_bake.fleetbuild import config as fleet
from rocm_bake_docs import markdown as md
from rocm_bake_docs.source import Source

PATH = "snippets/fleet.md"


def render(source: Source) -> str:
    path = source.root / fleet.DEFAULT_FILE
    head = md.header(f"{fleet.DEFAULT_FILE} (read by rocm_bake.fleetbuild.config)")
    if not path.is_file():
        return head + f"No `{fleet.DEFAULT_FILE}` in this checkout.\n"
    config = fleet.load(path)
    nodes = [[md.code(n.name), md.code(n.endpoint), ", ".join(n.platforms), str(n.capacity)]
             for n in config.nodes]
    services = [["OCI registry (images, registry layer cache)", md.code(config.registry)],
                ["WebDAV store (compiler cache)", md.code(config.webdav) if config.webdav
                 else "none configured"]]
    return "\n".join([
        head,
        f"The checked-in `{fleet.DEFAULT_FILE}` (the loopback fleet the tests start):\n",
        md.table(["node", "endpoint", "platforms", "capacity"], nodes),
        md.table(["service", "URL"], services),
    ])
