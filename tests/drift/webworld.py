"""A real HTTP server on 127.0.0.1 (stdlib ``http.server`` in a thread) serving PyPI JSON,
PEP 503 HTML / PEP 691 JSON simple indexes, plain directory listings and a GitHub-shaped API,
with ETags, pagination, injectable latency and faults."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import html
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PEP691 = "application/vnd.pypi.simple.v1+json"


@dataclass
class Route:
    """What one path answers. ``fault`` names a misbehaviour; ``hits`` counts requests."""

    body: str = ""
    content_type: str = "application/json"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    etag: bool = True
    fault: str = ""            # hang | trickle | truncated | redirect-loop | flaky-500
    delay: float = 0.0
    token: str = ""            # required bearer token
    basic: str = ""            # required Basic credentials, "user:password"
    alternate: Route | None = None   # served for a PEP 691 Accept header
    hits: int = 0
    conditional_hits: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    release: threading.Event = field(default_factory=threading.Event)   # ends a "hang"


def releases_json(*versions: str) -> str:
    """A PyPI project JSON body: each version with one sdist."""
    return json.dumps({"releases": {v: [{"filename": f"p-{v}.tar.gz"}] for v in versions}})


class World:
    def __init__(self, latency: float = 0.0) -> None:
        self.routes: dict[str, Route] = {}
        self.latency = latency
        self.lock = threading.Lock()
        self.requests: list[tuple[str, dict[str, str]]] = []

    def add(self, path: str, route: Route) -> Route:
        self.routes[path] = route
        return route

    def route(self, path: str) -> Route | None:
        return self.routes.get(path) or self.routes.get(path.split("?", maxsplit=1)[0])

    # -- content builders ---------------------------------------------------------------
    def pypi(self, name: str, releases: Mapping[str, Sequence[str]],
             yanked: Sequence[str] = ()) -> Route:
        data = {"info": {"name": name, "version": next(iter(releases), "")},
                "releases": {v: [{"filename": f, "yanked": v in yanked} for f in files]
                             for v, files in releases.items()}}
        return self.add(f"/pypi/{name}/json", Route(json.dumps(data)))

    @staticmethod
    def sdists(name: str, *versions: str) -> dict[str, list[str]]:
        """Releases of ``name`` with one sdist each (a release needs a file: pip and the
        checker skip one that has none)."""
        return {v: [f"{name}-{v}.tar.gz"] for v in versions}

    def simple(self, root: str, name: str, files: Sequence[str],
               yanked: Mapping[str, str] | None = None,
               where: Mapping[str, tuple[str, str]] | None = None) -> Route:
        """A PEP 503 page and its PEP 691 form; ``yanked`` maps a file to its reason, ``where``
        a file to its (absolute URL, sha256), as PyPI's pages give them."""
        gone = dict(yanked or {})
        at = dict(where or {})
        page = simple_html(name, files, gone, at)
        alternate = Route(json.dumps({"meta": {"api-version": "1.1"}, "name": name,
                                      "files": [{"filename": f, "url": at.get(f, (f, ""))[0],
                                                 "hashes": {"sha256": at[f][1]} if f in at
                                                 else {},
                                                 "yanked": gone.get(f, False) or f in gone}
                                                for f in files]}), PEP691)
        return self.add(f"{root.rstrip('/')}/{name}/",
                        Route(page, "text/html", alternate=alternate))

    def listing(self, path: str, files: Sequence[str]) -> Route:
        rows = "\n".join(f'<a href="{html.escape(f)}">{html.escape(f)}</a>  01-Aug-2026 12:00  1M'
                         for f in files)
        page = (f"<html>\n<head><title>Index of {path}</title></head>\n<body>\n"
                f"<h1>Index of {path}</h1><hr><pre><a href=\"../\">../</a>\n{rows}\n"
                "</pre><hr></body>\n</html>\n")
        return self.add(path, Route(page, "text/html"))

    def github_releases(self, repo: str, releases: Sequence[Mapping[str, Any]],
                        per_page: int = 30) -> list[Route]:
        """Releases newest first, paginated with ``Link: <...>; rel="next"``."""
        routes = []
        pages = [releases[i:i + per_page] for i in range(0, len(releases), per_page)] or [[]]
        base = f"/repos/{repo}/releases"
        for number, page in enumerate(pages, start=1):
            route = Route(json.dumps(list(page)))
            if number < len(pages):
                route.headers["Link"] = f'<{{base}}{base}?per_page=100&page={number + 1}>; ' \
                                        'rel="next"'
            path = f"{base}?per_page=100" if number == 1 else \
                f"{base}?per_page=100&page={number}"
            routes.append(self.add(path, route))
        return routes


def simple_html(name: str, files: Sequence[str], yanked: Mapping[str, str] | None = None,
                where: Mapping[str, tuple[str, str]] | None = None) -> str:
    gone = yanked or {}
    at = where or {}
    links = "\n".join(f'    <a href="{html.escape(_href(f, at))}"'
                      + (f' data-yanked="{html.escape(gone[f])}"' if f in gone else "")
                      + f">{html.escape(f)}</a><br/>" for f in files)
    return (f"<!DOCTYPE html>\n<html>\n  <head><title>Links for {name}</title></head>\n"
            f"  <body>\n    <h1>Links for {name}</h1>\n{links}\n  </body>\n</html>\n")


def _href(file: str, where: Mapping[str, tuple[str, str]]) -> str:
    url, sha256 = where.get(file, (f"../../files/{file}", "0" * 64))
    return f"{url}#sha256={sha256}"


def _etag(body: str) -> str:
    return '"' + hashlib.sha256(body.encode()).hexdigest()[:16] + '"'


class Handler(BaseHTTPRequestHandler):
    world: World
    base_url: str
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        world = self.world
        with world.lock:
            world.requests.append((self.path, dict(self.headers.items())))
        if world.latency:
            time.sleep(world.latency)
        route = world.route(self.path)
        if route is None:
            self._send(404, "application/json", '{"message": "Not Found"}')
            return
        with world.lock:
            route.hits += 1
        if route.delay:
            time.sleep(route.delay)
        if route.token and self.headers.get("Authorization") != f"Bearer {route.token}":
            self._send(401, "application/json", '{"message": "Bad credentials"}')
            return
        if route.basic and self.headers.get("Authorization") != "Basic " + base64.b64encode(
                route.basic.encode()).decode():
            self._send(401, "text/plain", "Unauthorized", {"WWW-Authenticate": "Basic"})
            return
        if route.fault and FAULTS[route.fault](self, route):
            return
        accept = self.headers.get("Accept", "")
        chosen = route.alternate if route.alternate and PEP691 in accept else route
        body = chosen.body.replace("{base}", self.base_url)
        headers = dict(route.headers)
        for key, value in headers.items():
            headers[key] = value.replace("{base}", self.base_url)
        if route.status == 200 and route.etag:
            tag = _etag(body)
            headers["ETag"] = tag
            if self.headers.get("If-None-Match") == tag:
                with world.lock:
                    route.conditional_hits += 1
                self._send(304, "", "", headers)
                return
        self._send(route.status, chosen.content_type, body, headers)

    def _send(self, status: int, content_type: str, body: str,
              headers: Mapping[str, str] | None = None, length: int | None = None) -> None:
        raw = body.encode()
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(raw) if length is None else length))
        self.end_headers()
        if status != 304:
            self.wfile.write(raw)


def _hang(handler: Handler, route: Route) -> bool:
    """Accept the request and answer nothing until the test sets ``route.release`` (or a
    minute passes, so that a forgotten release cannot keep a server thread forever)."""
    route.release.wait(60)
    with contextlib.suppress(OSError):     # the client gave up long ago: that was the point
        handler._send(200, route.content_type, route.body)
    return True


def _trickle(handler: Handler, route: Route) -> bool:
    """Answer 200 and then one byte of the body every 50 ms, never finishing until the test
    sets ``route.release`` (or a minute passes): each read succeeds, the whole never comes."""
    handler.send_response(200)
    handler.send_header("Content-Type", route.content_type)
    handler.send_header("Content-Length", "1000000")
    handler.end_headers()
    with contextlib.suppress(OSError):
        for _ in range(1200):
            if route.release.wait(0.05):
                break
            handler.wfile.write(b" ")
            handler.wfile.flush()
    handler.close_connection = True
    return True


def _truncated(handler: Handler, route: Route) -> bool:
    body = route.body[: len(route.body) // 2]
    handler.send_response(200)
    handler.send_header("Content-Type", route.content_type)
    handler.send_header("Connection", "close")
    handler.end_headers()
    handler.wfile.write(body.encode())
    handler.close_connection = True
    return True


def _redirect_loop(handler: Handler, route: Route) -> bool:
    handler._send(302, "text/plain", "", {"Location": handler.path})
    return True


def _flaky(handler: Handler, route: Route) -> bool:
    failures = int(route.state.get("failures", 1))
    if route.hits <= failures:
        handler._send(500, "text/plain", "Internal Server Error")
        return True
    return False


FAULTS: dict[str, Callable[[Handler, Route], bool]] = {
    "hang": _hang, "trickle": _trickle, "truncated": _truncated, "redirect-loop": _redirect_loop,
    "flaky-500": _flaky}


class Server:
    def __init__(self, world: World) -> None:
        bound: dict[str, Any] = {"world": world, "base_url": ""}
        handler = type("BoundHandler", (Handler,), bound)
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        setattr(handler, "base_url", self.url)  # noqa: B010
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def serve(world: World) -> Iterator[str]:
    with Server(world) as server:
        yield server.url
