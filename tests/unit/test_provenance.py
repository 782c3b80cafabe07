"""The parts of provenance on push that need no registry: image references, the layer that
wrote versions.json (config history), reading it from a streamed layer, the inspect text, and
the verdicts of `inv version-check --images`."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from typing import Any

import pytest

from rocm_bake.core.errors import UsageError
from rocm_bake.oci import provenance
from rocm_bake.oci.registry import Reference
from rocm_bake_checks.drift import images
from rocm_bake_checks.drift.model import Finding, Status


@pytest.mark.parametrize(("text", "parts"), [
    ("127.0.0.1:5000/rocm-bake/vllm:nightly-gfx950",
     ("127.0.0.1:5000", "rocm-bake/vllm", "nightly-gfx950", "")),
    ("localhost/a", ("localhost", "a", "latest", "")),
    ("reg.example/a/b@sha256:" + "0" * 64, ("reg.example", "a/b", "", "sha256:" + "0" * 64)),
])
def test_reference_parse(text: str, parts: tuple[str, str, str, str]) -> None:
    reference = Reference.parse(text)
    assert (reference.host, reference.repository, reference.tag, reference.digest) == parts


@pytest.mark.parametrize(("text", "fragment"), [
    ("vllm:nightly", "must name its registry"),
    ("127.0.0.1:5000/Upper/x:t", "is not a repository name"),
    ("127.0.0.1:5000/a:b:c", "is not a repository name"),
    ("127.0.0.1:5000/a@sha256:12", "is not a sha256 digest"),
])
def test_reference_parse_errors(text: str, fragment: str) -> None:
    with pytest.raises(UsageError, match=fragment):
        Reference.parse(text)


def test_a_cell_needs_its_tag_and_a_reference_takes_none() -> None:
    assert str(provenance.reference_for("vllm-gfx950", "nightly", "127.0.0.1:5000",
                                        "rocm-bake/fleet")) == \
        "127.0.0.1:5000/rocm-bake/fleet/vllm-gfx950:nightly"
    with pytest.raises(UsageError, match="--tag"):
        provenance.reference_for("vllm-gfx950")
    with pytest.raises(UsageError, match="a reference"):
        provenance.reference_for("127.0.0.1:5000/a:b", "c")


def test_the_layer_that_wrote_versions_json_is_found_by_the_history() -> None:
    history: list[dict[str, Any]] = [
        {"created_by": "FROM base"},
        {"created_by": "ENV A=1", "empty_layer": True},
        {"created_by": "RUN /bin/bash -c pip install x && write-manifest.py "
                       "/opt/rocm-bake/versions.json         /deps/torch"},
        {"created_by": "COPY /wheels/ /wheels/"},
        {"created_by": "WORKDIR /", "empty_layer": True},
    ]
    assert provenance.writing_layer(history) == 1
    assert provenance.writing_layer(history[:2]) is None
    # written again on top of a runtime image: the last one counts
    assert provenance.writing_layer([*history, history[2]]) == 3
    # write-manifest.py into another file is not the image's manifest
    assert provenance.writing_layer([{"created_by": "RUN write-manifest.py /out/versions.json"}]) \
        is None


def _layer(files: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue())


def test_versions_json_is_read_from_a_streamed_layer() -> None:
    manifest = {"pins": {"VLLM_COMMIT": "2cf0a69"}, "wheels": []}
    layer = _layer({"opt/rocm-bake/bin/x": b"#!", "opt/rocm-bake/versions.json":
                    json.dumps(manifest).encode(), "opt/venv/big": b"0" * 4096})
    media = "application/vnd.oci.image.layer.v1.tar+gzip"
    found = provenance._file_in_layer(io.BytesIO(layer), media)
    assert found is not None and json.loads(found) == manifest
    assert provenance._file_in_layer(io.BytesIO(_layer({"a": b"b"})), media) is None


def test_inspect_text_says_not_audited_and_no_versions_statement() -> None:
    made = provenance.Made("127.0.0.1:5000/a:b", "linux/amd64", "sha256:1", provenance=True,
                           pins={"A": "7.10"}, pins_from="build arg ROCM_BAKE_PINS",
                           args={"A": "7.10", "ROCM_BAKE_PINS": "{}"})
    text = "\n".join(provenance.describe(made))
    assert "  A = 7.10" in text                       # exact, never 7.1
    assert "arch audit: not audited" in text
    assert "no versions statement" in text and "ROCM_BAKE_PINS =" not in text


def _verdict(*rows: images.PinRow) -> images.ImageVerdict:
    return images.ImageVerdict("127.0.0.1:5000/f/vllm-a1:t", "linux/amd64", "sha256:1",
                               "vllm-a1", "/opt/rocm-bake/versions.json", list(rows))


def test_images_verdicts_and_exit_codes() -> None:
    current = _verdict(images.PinRow("VLLM_COMMIT", "3abc", "3abc"))
    stale = _verdict(images.PinRow("VLLM_COMMIT", "2cf0a6915ce544dc493a0990f2ea38d81601128a",
                                   "3abc"))
    assert stale.sentences() == ["built from VLLM_COMMIT 2cf0a6915ce5; bake file pins 3abc"]
    behind = Finding("VLLM_COMMIT", "3abc", "commit", Status.BEHIND, "", newest="v0.29.0")
    drifted = _verdict(images.PinRow("VLLM_COMMIT", "3abc", "3abc", behind))
    unchecked = _verdict(images.PinRow("VLLM_COMMIT", "3abc", "3abc", Finding(
        "VLLM_COMMIT", "3abc", "commit", Status.UNCHECKED, "timeout")))
    assert [v.verdict for v in (current, stale, drifted, unchecked)] == \
        ["current", "stale", "stale", "ERROR"]
    assert drifted.sentences()[1] == "upstream: VLLM_COMMIT 3abc: DRIFT (behind, newest v0.29.0)"
    assert images.ImagesReport("r", [current]).exit_code() == 0
    assert images.ImagesReport("r", [current, stale]).exit_code() == 1
    assert images.ImagesReport("r", [stale, unchecked]).exit_code() == 2
    missing = images.PinRow("NEW_PIN", None, "1")
    assert missing.differs and "not recorded in the image" in missing.sentence()
    assert "no published cell image" in images.table(images.ImagesReport("r", [], 3))
