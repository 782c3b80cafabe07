"""Certificates made by the test with openssl: a CA, a server certificate for 127.0.0.1 and a
client certificate (mutual TLS for a dockerd on tcp://127.0.0.1)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@dataclass(frozen=True)
class Pki:
    dir: Path

    @property
    def ca(self) -> Path:
        return self.dir / "ca.pem"

    @property
    def client_cert(self) -> Path:
        return self.dir / "cert.pem"

    @property
    def client_key(self) -> Path:
        return self.dir / "key.pem"


def _signed(directory: Path, name: str, subject: str, ext: str) -> None:
    _openssl("req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}-key.pem",
             "-subj", subject, "-out", f"{name}.csr", cwd=directory)
    (directory / f"{name}.ext").write_text(ext, encoding="utf-8")
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem",
             "-CAcreateserial", "-days", "2", "-sha256", "-extfile", f"{name}.ext",
             "-out", f"{name}-cert.pem", cwd=directory)


def make(directory: Path, cn: str = "rocm-bake test CA") -> Pki:
    """ca.pem, server-cert.pem/server-key.pem (127.0.0.1) and cert.pem/key.pem (a client)."""
    directory.mkdir(parents=True, exist_ok=True)
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca-key.pem",
             "-subj", f"/CN={cn}", "-days", "2", "-out", "ca.pem", cwd=directory)
    _signed(directory, "server", "/CN=127.0.0.1",
            "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
    _signed(directory, "client", "/CN=rocm-bake client", "extendedKeyUsage=clientAuth\n")
    (directory / "client-cert.pem").rename(directory / "cert.pem")
    (directory / "client-key.pem").rename(directory / "key.pem")
    for key in directory.glob("*key.pem"):
        key.chmod(0o600)
    return Pki(directory)
