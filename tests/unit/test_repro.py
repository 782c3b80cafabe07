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


def oci_tarball(path: Path, layers: list[str], nested: bool = True) -> str:
    """An OCI layout like buildx's: index.json -> (index ->) image manifest + attestation."""
    with tarfile.open(path, "w") as archive:
        manifest = _blob(archive, {"mediaType": MANIFEST, "config": {"digest": "sha256:c"},
                                   "layers": [{"digest": d} for d in layers]})
        attestation = _blob(archive, {"mediaType": MANIFEST, "config": {"digest": "sha256:a"},
                                      "layers": []})
        entries = [{"mediaType": MANIFEST, "digest": attestation,
                    "platform": {"architecture": "unknown", "os": "unknown"}},
                   {"mediaType": MANIFEST, "digest": manifest,
                    "platform": {"architecture": "amd64", "os": "linux"}}]
        top = entries
        if nested:
            top = [{"mediaType": INDEX, "digest": _blob(archive, {"manifests": entries})}]
        _add(archive, "index.json", json.dumps({"manifests": top}).encode())
    return manifest


def test_read_image_follows_a_nested_index_and_skips_attestations(tmp_path: Path) -> None:
    digest = oci_tarball(tmp_path / "a.tar", ["sha256:l1", "sha256:l2"])
    image = repro.read_image(tmp_path / "a.tar")
    assert (image.digest, image.config, image.layers) == (digest, "sha256:c",
                                                          ("sha256:l1", "sha256:l2"))
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
