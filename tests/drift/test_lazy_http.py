"""The HTTP client (the standard library's urllib, through ``rocm_bake.net.http``) is imported
at the first request: an offline run never imports it, and no run imports requests."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT
from tests.drift.test_cli import SNAPSHOT

OFFLINE_RUN = f"""
import sys
from rocm_bake_checks.drift import run
from rocm_bake_checks.drift.settings import DriftSettings
settings = DriftSettings(offline={SNAPSHOT!r}, output="json")
checked = run.check(settings)
run.render_report(settings, checked.report)
status = checked.report.exit_code()
print(status, *(name in sys.modules for name in ("urllib.request", "requests", "urllib3")))
"""


def test_offline_run_never_imports_the_http_client() -> None:
    proc = subprocess.run([sys.executable, "-c", OFFLINE_RUN], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert proc.stdout.split() == ["1", "False", "False", "False"], proc.stdout + proc.stderr
