"""inv services / inv doctor: inspect the fleet's services and everything a build needs."""

from __future__ import annotations

from invoke.context import Context
from invoke.tasks import task

from rocm_bake.fleetbuild.config import DEFAULT_FILE as FLEET_FILE
from tasks._cli import reports_errors, table


@task(help={"fleet": "fleet file (default: fleet.toml)",
            "image": "also look up this image's manifest, e.g. rocm-bake/vllm:tag"})
@reports_errors
def services(c: Context, fleet: str = FLEET_FILE, image: str = "") -> None:
    """Inspect the registry and the WebDAV store (read requests only): health and latency."""
    from rocm_bake.fleetbuild import config as fleets
    from rocm_bake.fleetbuild import services as inspection

    config = fleets.load(fleet)
    session = inspection.ReadOnlySession()
    probes = inspection.registry(session, config.registry, image or None)
    if config.webdav:
        probes += inspection.webdav(session, config.webdav)
    failed = [p for p in probes if not p.ok]
    table([[p.service, p.check, "ok" if p.ok else "FAIL", p.detail,
            "-" if p.latency_ms is None else f"{p.latency_ms:.1f}"] for p in probes],
          ["service", "check", "status", "detail", "ms"],
          f"{failed[0].service} {failed[0].check}: {failed[0].detail}" if failed else "")


@task(help={"fleet": "fleet file (default: fleet.toml)"})
@reports_errors
def doctor(c: Context, fleet: str = FLEET_FILE) -> None:
    """Check everything a build needs: docker, buildx, builders, nodes, services, disk, deps."""
    from rocm_bake.fleetbuild import config as fleets
    from rocm_bake.reports import doctor as diagnosis

    findings = diagnosis.diagnose(fleets.load(fleet))
    failed = [f.item for f in findings if f.failed]
    table([f.row() for f in findings], ["item", "state", "detail", "how to fix"],
          f"{len(failed)} required item(s) missing: {', '.join(failed)}" if failed else "")
