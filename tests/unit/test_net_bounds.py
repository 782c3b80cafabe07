"""rocm_bake.net against hostile servers on 127.0.0.1 (issue 41): a body that trickles in is
cut at the request's end on the injected clock, one that never ends at its cap (and the
server stops sending), a gzip body that inflates past its cap is stopped while inflating, a
small archive holding a 2 GiB member is refused without holding it, and credentials never
reach another origin (a redirect there, or a link an answer names)."""

from __future__ import annotations

import gzip
import io
import threading
import tracemalloc
from http.server import BaseHTTPRequestHandler

import pytest

from rocm_bake.net import archive, http
from rocm_bake.net.body import Window
from rocm_bake.net.credentials import Address, same_origin
from rocm_bake.oci.registry import Registry, RegistryError
from tests import hostile
from tests.hostile import MB, Server, ServerClock


def test_a_trickling_body_is_cut_at_the_timeout_on_the_clock() -> None:
    with hostile.serving() as server:
        server.routes["/drip"] = hostile.trickle(b"x" * 200)   # 100 s on the server's clock
        with pytest.raises(http.TimeoutExceededError) as caught:
            http.get(f"{server.url}/drip", {}, 5.0, server.clock)
    assert str(caught.value) == f"timed out after 5 s reading {server.url}/drip"
    assert server.clock.monotonic() - 1000.0 <= 100.0


def test_an_endless_body_stops_at_its_cap_and_the_server_stops_sending() -> None:
    done = threading.Event()
    endless = hostile.endless(limit=256 * MB)

    def answer(handler: BaseHTTPRequestHandler, server: Server) -> None:
        endless(handler, server)
        done.set()

    with hostile.serving() as server:
        server.routes["/endless"] = answer
        with pytest.raises(http.TooLargeError) as caught:
            http.get(f"{server.url}/endless", {}, 60.0, server.clock, max_bytes=MB)
        assert done.wait(60)   # the server's write failed: the client hung up
    assert str(caught.value) == f"answer over 1 MB reading {server.url}/endless"
    assert server.sent[0] < 32 * MB   # what the socket buffers held, not the 256 MB offered


def test_a_gzip_body_is_capped_as_it_inflates() -> None:
    packed = gzip.compress(bytes(64 * MB), mtime=0)   # 64 KB that inflate to 64 MB

    def answer(handler: BaseHTTPRequestHandler, _: Server) -> None:
        handler.send_response(200)
        handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Content-Length", str(len(packed)))
        handler.end_headers()
        handler.wfile.write(packed)

    with hostile.serving() as server:
        server.routes["/bomb"] = answer
        tracemalloc.start()
        try:
            with pytest.raises(http.TooLargeError, match=r"^answer over 1 MB reading "):
                http.get(f"{server.url}/bomb", {}, 60.0, server.clock, max_bytes=MB)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 8 * MB


def test_authorization_follows_a_redirect_only_within_its_origin() -> None:
    with hostile.serving() as other, hostile.serving() as server:
        other.routes["/file"] = hostile.body(b"{}")
        server.routes["/file"] = hostile.body(b"{}")
        for target in (f"{other.url}/file", f"{server.url}/file"):
            server.routes["/moved"] = _redirect(target)
            http.get(f"{server.url}/moved", {"Authorization": "Basic c2VjcmV0"}, 5.0)
    assert "Authorization" not in other.requests[-1][1]
    assert server.requests[-1][1].get("Authorization") == "Basic c2VjcmV0"


def test_credentials_are_for_their_own_origin_only() -> None:
    address = Address("https://mirror.example/simple", "user", "PASS")
    assert address.authorization_for("https://mirror.example:443/files/x.tar.gz")
    for elsewhere in ("https://files.example/x.tar.gz", "http://mirror.example/x.tar.gz",
                      "https://mirror.example:8443/x.tar.gz"):
        assert address.authorization_for(elsewhere) == ""
    assert not same_origin("http://127.0.0.1:1/", "http://127.0.0.1:2/")


def test_a_small_archive_with_a_2_gib_member_is_refused_without_holding_it() -> None:
    data = hostile.bomb("vllm-0.33.0")
    assert len(data) < 3 * MB
    tracemalloc.start()
    try:
        with pytest.raises(archive.ArchiveError, match=r"^bomb.tar.gz: expands to over "):
            archive.read(io.BytesIO(data), len(data), "bomb.tar.gz", lambda _: True,
                         archive.Limits(), Window(60.0, ServerClock()))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * MB


def test_an_archive_keeps_the_members_asked_for_each_capped() -> None:
    data = hostile.sdist("p-1", {"a.txt": b"a", "b.bin": bytes(2 * MB), "c/d.txt": b"d"})
    found = archive.read(io.BytesIO(data), len(data), "p-1.tar.gz",
                         lambda name: not name.endswith("c/d.txt"),
                         archive.Limits(member_bytes=MB))
    assert found.kept == {"p-1/a.txt": b"a"}
    assert found.oversized == {"p-1/b.bin": 2 * MB}


def test_an_archive_read_past_its_window_times_out() -> None:
    data = hostile.sdist("p-1", {"a.txt": b"a"})
    window = Window(5.0, ServerClock())
    window.expire()
    with pytest.raises(http.TimeoutExceededError, match=r"^timed out after 5 s reading p"):
        archive.read(io.BytesIO(data), len(data), "p-1.tar.gz", lambda _: True,
                     archive.Limits(), window)


def _redirect(target: str) -> hostile.Answer:
    def answer(handler: BaseHTTPRequestHandler, _: Server) -> None:
        handler.send_response(302)
        handler.send_header("Location", target)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return answer


def test_headers_that_trickle_in_end_at_the_timeout() -> None:
    """Real time, and only a watchdog can end it: every byte comes well within a per-read
    timeout, the headers never end (the server trickles until the client hangs up)."""
    with hostile.serving() as server:
        server.routes["/slow"] = hostile.trickled_headers()
        server.routes["/v2/r/manifests/t"] = hostile.trickled_headers()
        with pytest.raises(http.TimeoutExceededError, match=r"^timed out after 1 s reading "):
            http.get(f"{server.url}/slow", {}, 1.0)
        host = server.url.removeprefix("http://")
        with pytest.raises(RegistryError) as caught:
            Registry(host, timeout=1.0, credentials=None).manifest("r", "t")
    assert str(caught.value) == f"registry {host}: GET /v2/r/manifests/t: timed out after 1 s"


def test_a_registry_answer_that_never_ends_stops_at_its_cap() -> None:
    with hostile.serving() as server:
        server.routes["/v2/r/manifests/t"] = hostile.endless(limit=256 * MB)
        host = server.url.removeprefix("http://")
        with pytest.raises(RegistryError) as caught:
            Registry(host, credentials=None, max_bytes=MB).manifest("r", "t")
    assert str(caught.value) == f"registry {host}: GET /v2/r/manifests/t: answer over 1 MB"


def test_a_url_with_user_info_is_not_fetched_and_its_secret_never_shown() -> None:
    with hostile.serving() as server:
        server.routes["/x"] = hostile.body(b"{}")
        url = server.url.replace("://", "://user:SECRET@") + "/x"
        with pytest.raises(http.ConnectionFailedError) as caught:
            http.get(url, {}, 5.0)
    assert "SECRET" not in str(caught.value)
    assert str(caught.value).endswith("/x: a URL with user-info is not fetched")
    assert server.requests == []
