"""docs/live-reports.md is generated from fleet-logs/: a new run makes ``inv docs --check``
fail naming the page, until ``inv docs`` regenerates it with the run's summary."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli
from tests.reports import synthetic


def test_a_new_fleet_run_makes_the_page_stale_until_regenerated(checkout: Path) -> None:
    rec = synthetic.record(7, cells=6, nodes=2)
    synthetic.write(checkout / "fleet-logs", rec)
    stale = run_cli(["inv", "docs", "--check"], cwd=checkout)
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert "docs/live-reports.md" in stale.stderr

    regenerated = run_cli(["inv", "docs"], cwd=checkout)
    assert regenerated.returncode == 0, regenerated.stderr
    page = (checkout / "docs" / "live-reports.md").read_text(encoding="utf-8")
    assert f"`{rec.run_id}`" in page and "6 built / 0 failed / 0 blocked" in page
    assert "No fleet run is recorded" not in page
    assert run_cli(["inv", "docs", "--check"], cwd=checkout).returncode == 0
