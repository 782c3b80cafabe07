"""rocm_bake.reproducible.verify's reading of OCI layouts and comparing of builds (no engine)."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.reproducible import verify as repro

INDEX = "application/vnd.oci.image.index.v1+json"
MANIFEST = "application/vnd.oci.image.manifest.v1+json"


def _add(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))


def _blob(archive: tarfile.TarFile, document: dict[str, object]) -> str:
    data = json.dumps(document).encode()
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    _add(archive, "blobs/sha256/" + digest.split(":")[1], data)
    return digest


def oci_tarball(path: Path, layers: list[str], nested: bool = True) -> tuple[str, str]:
    """An OCI layout like buildx's: index.json -> (index ->) image manifest + attestation; the
    image's manifest and config digests (its diff_ids named like its layers)."""
    with tarfile.open(path, "w") as archive:
        config = _blob(archive, {"rootfs": {"type": "layers", "diff_ids": layers},
                                 "history": [{"created_by": "COPY"}]})
        manifest = _blob(archive, {"mediaType": MANIFEST, "config": {"digest": config},
                                   "layers": [{"digest": d} for d in layers]})
        attestation = _blob(archive, {"mediaType": MANIFEST, "config": {"digest": config},
                                      "layers": []})
        entries = [{"mediaType": MANIFEST, "digest": attestation,
                    "platform": {"architecture": "unknown", "os": "unknown"}},
                   {"mediaType": MANIFEST, "digest": manifest,
                    "platform": {"architecture": "amd64", "os": "linux"}}]
        top = entries
        if nested:
            top = [{"mediaType": INDEX, "digest": _blob(archive, {"manifests": entries})}]
        _add(archive, "index.json", json.dumps({"manifests": top}).encode())
    return manifest, config


def test_read_image_follows_a_nested_index_and_skips_attestations(tmp_path: Path) -> None:
    digest, config = oci_tarball(tmp_path / "a.tar", ["sha256:l1", "sha256:l2"])
    image = repro.read_image(tmp_path / "a.tar")
    assert (image.digest, image.config, image.layers) == (digest, config,
                                                          ("sha256:l1", "sha256:l2"))
    assert image.diff_ids == ("sha256:l1", "sha256:l2")
    # The identity: the config without its history, as canonical JSON.
    body = b'{"rootfs":{"diff_ids":["sha256:l1","sha256:l2"],"type":"layers"}}'
    assert image.identity == "sha256:" + hashlib.sha256(body).hexdigest()
    assert repro.read_image(tmp_path / "a.tar").digest == image.digest


def test_a_verdict_names_the_differing_layer(tmp_path: Path) -> None:
    oci_tarball(tmp_path / "1.tar", ["sha256:l1", "sha256:l2"])
    oci_tarball(tmp_path / "2.tar", ["sha256:l1", "sha256:l3"], nested=False)
    first, second = (repro.read_image(tmp_path / f"{n}.tar") for n in (1, 2))
    verdict = repro.Verdict("t", "1", (first, second))
    assert not verdict.reproducible
    assert verdict.differences() == ["build 2: layer 2 differs (sha256:l2 vs sha256:l3)"]
    assert repro.Verdict("t", "1", (first, first)).reproducible


def test_a_broken_tarball_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "x.tar").write_bytes(b"not a tar")
    with pytest.raises(RocmBakeError, match="cannot read OCI tarball"):
        repro.read_image(tmp_path / "x.tar")
