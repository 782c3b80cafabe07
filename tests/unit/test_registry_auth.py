"""The registry client's credentials: docker login's entry for the host, answered to a Basic or
a bearer challenge of a loopback server; a refused one is one line that never holds them."""

from __future__ import annotations

import base64
import json
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from rocm_bake.oci.registry import Registry, RegistryError, docker_credentials
from tests.loopback import http_server

USER, PASSWORD = "ci", "s3cret-Pa55"
BASIC = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
TOKEN = "tok-123"


class _Registry(BaseHTTPRequestHandler):
    """/v2/a/tags/list behind Basic authorization (or, ``bearer``, a token from /token)."""

    bearer = False

    def do_GET(self) -> None:
        auth = self.headers.get("Authorization", "")
        if self.path.startswith("/token"):
            ok = auth == BASIC and "scope=repository%3Aa%3Apull" in self.path
            self._answer(200 if ok else 401, {"token": TOKEN} if ok else {})
            return
        bearer = self.bearer
        if auth != (f"Bearer {TOKEN}" if bearer else BASIC):
            port = self.headers.get("Host", "").rpartition(":")[2]
            challenge = (f'Bearer realm="http://127.0.0.1:{port}/token",service="reg",'
                         'scope="repository:a:pull"' if bearer else 'Basic realm="reg"')
            self._answer(401, {"errors": [{"message": "authentication required"}]},
                         challenge)
            return
        self._answer(200, {"name": "a", "tags": ["t1"]})

    def _answer(self, status: int, body: dict[str, object], challenge: str = "") -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        if challenge:
            self.send_header("WWW-Authenticate", challenge)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


class _BearerRegistry(_Registry):
    bearer = True


def _login(tmp_path: Path, host: str, password: str = PASSWORD) -> dict[str, str]:
    auth = base64.b64encode(f"{USER}:{password}".encode()).decode()
    (tmp_path / "config.json").write_text(json.dumps({"auths": {host: {"auth": auth}}}))
    return {"DOCKER_CONFIG": str(tmp_path)}


@pytest.mark.parametrize("handler", [_Registry, _BearerRegistry])
def test_docker_logins_credentials_answer_the_challenge(handler: type[_Registry],
                                                        tmp_path: Path) -> None:
    with http_server(handler) as url:
        host = url.removeprefix("http://")
        credentials = docker_credentials(host, _login(tmp_path, host))
        assert credentials == (USER, PASSWORD)
        assert Registry(host, credentials=credentials).tags("a") == ["t1"]


def test_refused_credentials_are_one_line_without_them(tmp_path: Path) -> None:
    with http_server(_Registry) as url:
        host = url.removeprefix("http://")
        registry = Registry(host, credentials=docker_credentials(
            host, _login(tmp_path, host, "wrong")))
        with pytest.raises(RegistryError) as caught:
            registry.tags("a")
    message = str(caught.value)
    assert message.endswith("401 authentication required") and "wrong" not in message
    assert docker_credentials(host, {"DOCKER_CONFIG": str(tmp_path / "none")}) is None
