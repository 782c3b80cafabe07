"""Faults of issue 13 item 5: unknown names, git servers that refuse or never answer, tag
objects, and credentials in URLs. Each is one line and exit 2.

No test races a clock: a silent server holds its connections until the test releases it, so
the only thing that can end the git operation is the --timeout watchdog, and the reason must
name it ("not done within the --timeout of 0.5 s"); the total deadline is a generous hang guard."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tests.drift.conftest import Checker, pin
from tests.drift.webworld import Route
from tests.loopback import silent_server

GOOD = pin("TRITON_VERSION", "3.9.0", pypi="triton")
V3 = r"^v(?P<version>[0-9]+\.[0-9]+\.[0-9]+)$"
GUARD = 30.0   # the total deadline: only a broken watchdog would reach it


@contextlib.contextmanager
def refusing_port() -> Iterator[int]:
    """A port bound but not listening: every connection is refused, and no one else can take
    the port while the test runs."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    try:
        yield int(sock.getsockname()[1])
    finally:
        sock.close()


def _one_line_exit_2(checker: Checker, text: str, name: str, **options: Any) -> str:
    result = checker.run(GOOD + text, deadline=GUARD, **options)
    assert result.code == 2, result
    assert result.pin("TRITON_VERSION")["status"] == "up to date"
    finding = result.pin(name)
    assert finding["status"] == "could not check", finding
    detail = str(finding["detail"])
    assert "\n" not in detail
    return detail


def test_unknown_only_name_is_exit_2_with_the_valid_names(checker: Checker) -> None:
    before = len(checker.world.web.requests)
    result = checker.run(GOOD, only=["TRITON_VERSON"])
    assert result.code == 2 and result.out == ""
    assert result.err == "error: --only TRITON_VERSON: no such pin (valid: TRITON_VERSION)\n"
    assert len(checker.world.web.requests) == before          # nothing was fetched


def test_unknown_explain_name_is_exit_2_with_the_valid_names(checker: Checker) -> None:
    before = len(checker.world.web.requests)
    result = checker.run(GOOD, explain="TRITON", output="table")
    assert result.code == 2 and result.out == ""
    assert result.err == ("error: --explain TRITON: no such pin or rule (valid: "   # no rule
                          "TRITON_VERSION)\n")                          # applies to this file
    assert len(checker.world.web.requests) == before


@pytest.mark.parametrize("transport", ["git", "https"])
def test_a_git_server_that_never_answers_is_bounded_by_timeout(
        checker: Checker, transport: str) -> None:
    text = pin("SILENT_REF", "v1.0.0", git="https://github.com/silent/repo.git", tags=V3)
    with contextlib.ExitStack() as stack:
        if transport == "git":
            port = stack.enter_context(silent_server())
            target = f"git://127.0.0.1:{port}/"
        else:
            route = checker.world.web.add("/silent-git/repo.git/info/refs",
                                          Route("", fault="hang"))
            stack.callback(route.release.set)
            target = f"{checker.world.http_url}/silent-git/"
        rewrites = [f"https://github.com/silent/={target}", *checker.world.rewrites()]
        detail = _one_line_exit_2(checker, text, "SILENT_REF", timeout=0.5, rewrites=rewrites)
    assert detail == (f"git ls-remote timed out for {target}repo.git: "   # the address asked
                      "not done within the --timeout of 0.5 s")


def test_a_refused_git_connection_keeps_gits_error_lines(checker: Checker) -> None:
    text = pin("REFUSED_REF", "v1.0.0", git="https://github.com/refused/repo.git", tags=V3)
    with refusing_port() as port:
        rewrites = [f"https://github.com/refused/=git://127.0.0.1:{port}/",
                    *checker.world.rewrites()]
        detail = _one_line_exit_2(checker, text, "REFUSED_REF", rewrites=rewrites)
    assert detail.startswith(f"git ls-remote failed for git://127.0.0.1:{port}/repo.git: "
                             "fatal: unable to connect to 127.0.0.1:"), detail
    assert detail.endswith("errno=Connection refused"), detail


def test_a_password_in_a_url_appears_in_no_output(checker: Checker) -> None:
    """The canary: user-info of a git remote and of an index URL, through every output."""
    canary = "CANARY-pw-7d1e"
    git_url = f"https://builder:{canary}@github.com/private/repo.git"
    index = f"{checker.world.http_url.replace('://', f'://ci:{canary}@')}/private-simple"
    text = (pin("PRIVATE_REF", "v1.0.0", git=git_url, tags=V3)
            + pin("PRIVATE_VERSION", "1.0.0", index=[index], package="private-pkg"))
    with refusing_port() as port:
        rewrites = [f"https://builder:{canary}@github.com/=git://127.0.0.1:{port}/",
                    *checker.world.rewrites()]
        record = checker.tmp / "record.json"
        outputs = [checker.run(text, rewrites=rewrites, output=kind, record=str(record))
                   for kind in ("table", "json", "markdown")]
        outputs.append(checker.run(text, rewrites=rewrites, explain="PRIVATE_REF",
                                   output="table"))
        outputs.append(checker.run(text, rewrites=rewrites, explain="PRIVATE_VERSION",
                                   output="table"))
    assert all(o.code == 2 for o in outputs), outputs
    seen = "".join(o.out + o.err for o in outputs) + record.read_text()
    assert "***@" in seen and "github.com/private/repo.git" in seen
    assert canary not in seen
