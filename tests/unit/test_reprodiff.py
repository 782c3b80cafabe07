"""rocm_bake.reproducible.diff: the first differing layer of two builds and its files, and a build
checked against its recorded expectation (OCI tarballs written here, no engine); the image's
identity leaves out what each engine encodes its own way (the layers' compression, the
history's texts), and nothing else."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from rocm_bake.core.errors import UsageError
from rocm_bake.docker.engineinfo import EngineVersion
from rocm_bake.reproducible import diff as reprodiff
from rocm_bake.reproducible import verify as repro

MANIFEST = "application/vnd.oci.image.manifest.v1+json"
STEPS = ["/bin/sh -c #(nop) ADD file:abc in /", "RUN |1 SOURCE_DATE_EPOCH=1 /bin/sh -c make "
         "# buildkit", "COPY /wheels/ /wheels/ # buildkit"]


def _add(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))


def _blob(archive: tarfile.TarFile, data: bytes) -> str:
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    _add(archive, "blobs/sha256/" + digest.split(":")[1], data)
    return digest


def _layer(files: dict[str, bytes], level: int = 9) -> tuple[bytes, str]:
    """A gzip layer (fixed header time, compression ``level``) and its diff ID."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 1
            tar.addfile(info, io.BytesIO(data))
    plain = raw.getvalue()
    return (gzip.compress(plain, compresslevel=level, mtime=0),
            "sha256:" + hashlib.sha256(plain).hexdigest())


def oci(path: Path, layers: list[dict[str, bytes]], env: str = "A=1", level: int = 9,
        arg: str = "ARG V") -> Path:
    """An image as buildx's type=oci exporter writes it; ``level`` is its compressor's,
    ``arg`` the text its Dockerfile frontend writes for an ARG step (an empty layer)."""
    with tarfile.open(path, "w") as archive:
        blobs = [_layer(files, level) for files in layers]
        steps = [{"created_by": s} for s in STEPS[:len(layers)]]
        config = {"config": {"Env": [env]}, "rootfs": {"diff_ids": [d for _, d in blobs]},
                  "history": [*steps[:1], {"created_by": arg, "empty_layer": True},
                              *steps[1:]]}
        descriptors = [{"digest": _blob(archive, data)} for data, _ in blobs]
        manifest = {"mediaType": MANIFEST, "layers": descriptors,
                    "config": {"digest": _blob(archive, json.dumps(config).encode())}}
        index = {"manifests": [{"mediaType": MANIFEST,
                                "digest": _blob(archive, json.dumps(manifest).encode())}]}
        _add(archive, "index.json", json.dumps(index).encode())
    return path


BASE = {"etc/os-release": b"trixie"}
BUILT = {"opt/app/lib.so": b"one", "opt/app/same": b"s"}
WHEELS = {"wheels/a.whl": b"w"}


def test_the_first_differing_layer_and_its_files_are_named(tmp_path: Path) -> None:
    one = oci(tmp_path / "1.tar", [BASE, BUILT, WHEELS])
    two = oci(tmp_path / "2.tar", [BASE, {"opt/app/lib.so": b"two", "opt/app/same": b"s",
                                          "opt/app/new": b"n"}, {"wheels/a.whl": b"x"}])
    assert reprodiff.first_difference(one, two) == [
        "first differing layer: 2 (RUN /bin/sh -c make)",
        "  differs: /opt/app/lib.so (content)",
        "  only in the other build: /opt/app/new"]
    assert reprodiff.first_difference(one, one) == []


def test_a_build_matches_its_expectation_and_a_differing_input_is_blamed(
        tmp_path: Path) -> None:
    base_layer = _layer(BASE)[1]
    one = oci(tmp_path / "1.tar", [BASE, BUILT, WHEELS])
    expected = reprodiff.record("app", one, {"base:test": [base_layer]})
    assert "files" not in expected.layers[0] and "files" in expected.layers[1]
    reprodiff.save(expected, tmp_path / "expect.json")
    loaded = reprodiff.load(tmp_path / "expect.json")
    assert loaded == expected
    assert reprodiff.compare(loaded, one, {"base:test": [base_layer]}) == []
    # Another machine's base: the input is named, not the build.
    other_base = {"etc/os-release": b"trixie, another day"}
    two = oci(tmp_path / "2.tar", [other_base, BUILT, WHEELS])
    lines = reprodiff.compare(loaded, two, {"base:test": [_layer(other_base)[1]]})
    assert lines[1].startswith(f"input base:test differs: layers {_layer(other_base)[1][7:19]} "
                               f"here, {base_layer[7:19]} expected")
    assert "inputs differ" in lines[2]


def test_a_build_that_differs_from_its_expectation_names_the_layer_and_files(
        tmp_path: Path) -> None:
    base_layer = _layer(BASE)[1]
    expected = reprodiff.record("app", oci(tmp_path / "1.tar", [BASE, BUILT, WHEELS]),
                                {"base:test": [base_layer]})
    changed = oci(tmp_path / "2.tar", [BASE, {**BUILT, "opt/app/lib.so": b"two"}, WHEELS])
    lines = reprodiff.compare(expected, changed, {"base:test": [base_layer]})
    assert lines[1:] == ["first differing layer: 2 (RUN /bin/sh -c make)",
                         "  differs: /opt/app/lib.so (content)"]
    config_only = oci(tmp_path / "3.tar", [BASE, BUILT, WHEELS], env="A=2")
    assert reprodiff.compare(expected, config_only, {"base:test": [base_layer]})[1:] == [
        "every layer is the expected one: the image config differs", "  differs: config.Env"]
    assert reprodiff.first_difference(tmp_path / "1.tar", config_only) == [
        "every layer is the same: the image config differs", "  differs: config.Env"]


def test_another_engines_encoding_of_the_same_image_is_the_same_image(tmp_path: Path) -> None:
    """What two engines measured differ in (docs/reproducibility.md): every compressed blob
    (another compressor) and an ARG step's history text (BuildKit 0.25's frontend writes the
    value); the identity is the same, the manifest digest is not."""
    base_layer = _layer(BASE)[1]
    inputs = {"base:test": [base_layer]}
    floor = oci(tmp_path / "floor.tar", [BASE, BUILT, WHEELS])
    current = oci(tmp_path / "current.tar", [BASE, BUILT, WHEELS], level=1, arg="ARG V=1")
    a, b = reprodiff.read(floor), reprodiff.read(current)
    assert a.manifest != b.manifest and a.config_digest != b.config_digest
    assert all(x.digest != y.digest for x, y in zip(a.layers, b.layers, strict=True))
    assert a.identity == b.identity
    assert reprodiff.first_difference(floor, current) == []
    old = EngineVersion("26.1.5+dfsg1", "v0.13.2")
    new = EngineVersion("28.5.2+dfsg4", "v0.25.1")
    expected = reprodiff.record("app", floor, inputs, old)
    assert reprodiff.compare(expected, current, inputs) == []
    # Recorded again on the other engine: both encodings, one identity.
    both = reprodiff.record("app", current, inputs, new, expected)
    assert both.identity == expected.identity
    assert both.encodings == {str(old): {"manifest": a.manifest, "config": a.config_digest},
                              str(new): {"manifest": b.manifest, "config": b.config_digest}}
    assert reprodiff.encoding_note(both, b, new).endswith("; the expectation's for this engine")
    third = EngineVersion("29.0.0", "v0.26.0")
    assert "records no encoding of this engine" in reprodiff.encoding_note(both, b, third)
    # A file of another image is not merged: only this build's encoding.
    changed = oci(tmp_path / "changed.tar", [BASE, {**BUILT, "opt/app/lib.so": b"two"}, WHEELS])
    assert list(reprodiff.record("app", changed, inputs, new, both).encodings) == [str(new)]


def test_an_unreadable_expectation_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"format": 9}')
    with pytest.raises(UsageError, match=r"cannot read the expectation .*x.json: format 9"):
        reprodiff.load(bad)
    bad.write_text('{"format": 1, "digest": "sha256:0"}')
    with pytest.raises(UsageError, match=r"format 1 records one engine's manifest digest.*"
                                         r"record it again"):
        reprodiff.load(bad)


def test_an_expectation_whose_config_was_edited_is_refused(tmp_path: Path) -> None:
    expected = reprodiff.record("app", oci(tmp_path / "1.tar", [BASE, BUILT]),
                                {"base:test": [_layer(BASE)[1]]})
    path = tmp_path / "expect.json"
    data = json.loads(expected.to_json())
    data["config"]["config"]["Env"] = ["A=2"]
    path.write_text(json.dumps(data))
    with pytest.raises(UsageError, match="its identity is not the digest of its config"):
        reprodiff.load(path)


def test_a_cache_cell_that_changed_the_image_names_the_object_file(tmp_path: Path) -> None:
    """verify-repro --cache-invariant: a warm build whose hit brought other bytes (the HIP
    __hip_cuid_* trap) is named with the library that differs."""
    lib = "opt/venv/lib/python3.13/site-packages/rb_core_gpu/librb_core_gpu.so"
    base = {"etc/os-release": b"trixie"}
    cold = oci(tmp_path / "cold.tar", [base, {lib: b"\x7fELF cuid=a1"}])
    warm = oci(tmp_path / "warm.tar", [base, {lib: b"\x7fELF cuid=b2"}])
    builds = [repro.CacheBuild(cell, repro.read_image(path), ())
              for cell, path in zip(repro.CACHE_CELLS[1:3], (cold, warm), strict=True)]
    assert repro.cache_changes(builds) == [
        "ccache warm: first differing layer: 2 (RUN /bin/sh -c make)",
        f"ccache warm:   differs: /{lib} (content)"]
    assert repro.cache_changes(builds[:1] * 2) == []
