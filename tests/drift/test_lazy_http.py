"""The HTTP client is made at the first request: an offline run never imports requests, and a
live run shares one session (one keep-alive pool) between every worker."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from rocm_bake_checks.drift.fetch import Deadline, Fetcher
from rocm_bake_checks.drift.web import Web, WebSettings
from tests.conftest import ROOT
from tests.drift.test_cli import SNAPSHOT

OFFLINE_RUN = f"""
import contextlib, io, sys
from rocm_bake_checks.drift import cli
with contextlib.redirect_stdout(io.StringIO()):
    status = cli.run(cli.Options(offline={SNAPSHOT!r}, output="json"))
print(status, "requests" in sys.modules, "urllib3" in sys.modules)
"""


def test_offline_run_never_imports_the_http_client() -> None:
    proc = subprocess.run([sys.executable, "-c", OFFLINE_RUN], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert proc.stdout.split() == ["1", "False", "False"], proc.stdout + proc.stderr


def test_every_worker_shares_one_session() -> None:
    web = Web(WebSettings(), Fetcher(Deadline(60.0)), Deadline(60.0))
    with ThreadPoolExecutor(max_workers=8) as pool:
        sessions = list(pool.map(lambda _: web.session(), range(32)))
    assert len({id(s) for s in sessions}) == 1
    adapter = sessions[0].get_adapter("https://example.invalid/")
    assert adapter._pool_maxsize == WebSettings().pool  # type: ignore[attr-defined]
