"""The rehearsal's stand-ins for the NIC vendors' .debs (``NIC_DEBS``) without an engine: real
.deb archives (ar: debian-binary, control.tar.gz, data.tar.gz) carrying the package names
vLLM's docker/Dockerfile.rocm stage mori_base installs, each named in the build argument with
its own sha256 and the world's URL, the same bytes on every write (the layer cache holds).
That dpkg installs them is the rehearsal's own run (vllm.Dockerfile, stage mori_base)."""

from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path

from rocm_bake_checks.rehearse import nicdebs


def members(data: bytes) -> dict[str, bytes]:
    assert data.startswith(b"!<arch>\n")
    out: dict[str, bytes] = {}
    at = 8
    while at < len(data):
        header = data[at:at + 60]
        assert header[58:60] == b"`\n", header
        size = int(header[48:58])
        out[header[:16].decode().strip()] = data[at + 60:at + 60 + size]
        at += 60 + size + size % 2
    return out


def control(data: bytes) -> dict[str, str]:
    with tarfile.open(fileobj=io.BytesIO(members(data)["control.tar.gz"])) as archive:
        extracted = archive.extractfile("./control")
        assert extracted is not None
        text = extracted.read().decode()
    return dict(line.split(": ", 1) for line in text.splitlines())


def test_the_stand_ins_are_debs_of_upstreams_packages(tmp_path: Path) -> None:
    argument, lines = nicdebs.write(tmp_path, "http://127.0.0.1:{port}")
    entries = [entry.split(" ") for entry in argument.split(";")]
    found = {}
    for nic, sha256, url in entries:
        path = tmp_path / "downloads" / "nic" / url.rsplit("/", 1)[1]
        assert url.startswith("http://127.0.0.1:{port}/downloads/nic/")
        data = path.read_bytes()
        assert hashlib.sha256(data).hexdigest() == sha256
        assert list(members(data)) == ["debian-binary", "control.tar.gz", "data.tar.gz"]
        fields = control(data)
        found[fields["Package"]] = (nic, fields["Version"])
    # install_ainic: libionic-dev, ionic-common (and the libionic1 libionic-dev needs);
    # install_bnxt: bnxt-rocelib=235.2.86.0
    assert found == {"libionic1": ("ainic", nicdebs.STANDIN_VERSION),
                     "libionic-dev": ("ainic", nicdebs.STANDIN_VERSION),
                     "ionic-common": ("ainic", nicdebs.STANDIN_VERSION),
                     "bnxt-rocelib": ("bnxt", "235.2.86.0")}
    assert len(lines) == 4 and all("stand-in .deb" in line for line in lines)


def test_the_provider_library_is_compiled_where_upstream_copies_it_from(tmp_path: Path) -> None:
    nicdebs.write(tmp_path, "http://w")
    data = (tmp_path / "downloads" / "nic" / "bnxt-rocelib_235.2.86.0_amd64.deb").read_bytes()
    with tarfile.open(fileobj=io.BytesIO(members(data)["control.tar.gz"])) as archive:
        extracted = archive.extractfile("./postinst")
        assert extracted is not None
        postinst = extracted.read().decode()
    # Dockerfile.rocm line 550: cp -a /usr/local/lib/x86_64-linux-gnu/libbnxt_re* /usr/local/lib/
    assert "cc -x c" in postinst
    assert "-o /usr/local/lib/x86_64-linux-gnu/libbnxt_re-rdmav34.so" in postinst


def test_the_same_stand_ins_on_every_write(tmp_path: Path) -> None:
    one, _ = nicdebs.write(tmp_path / "one", "http://w")
    two, _ = nicdebs.write(tmp_path / "two", "http://w")
    assert one == two
