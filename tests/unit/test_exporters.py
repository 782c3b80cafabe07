"""rocm_bake.docker.exporters: every build's image outputs get the attributes verify-repro exports
with (rewrite-timestamp, OCI media types); a push does not store (the docker driver's image
exporter unpacks, which BuildKit refuses with rewrite-timestamp); an image for the engine goes
through an archive that is loaded after the bake; other outputs, and a target without
SOURCE_DATE_EPOCH, stay as they are. The engine's side is tests/e2e/stages/test_published.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.docker import exporters
from rocm_bake.model import bakefile
from rocm_bake.model.bake.resolve import Plan

ARCHIVE = Path("/scratch/app.tar")
BAKE = """
variable "SOURCE_DATE_EPOCH" { default = "1767225600" }
target "app" {
  args = { SOURCE_DATE_EPOCH = SOURCE_DATE_EPOCH }
  tags = ["127.0.0.1:5000/a/app:1", "127.0.0.1:5000/a/app:latest"]
}
target "wheels" {
  args   = { SOURCE_DATE_EPOCH = SOURCE_DATE_EPOCH }
  output = ["type=local,dest=dist"]
}
target "stamp" { tags = ["stamp:1"] }
"""


@pytest.mark.parametrize(("output", "expected"), [
    ({"type": "image", "push": "true"},
     {"type": "image", "push": "true", "store": "false", "oci-mediatypes": "true",
      "rewrite-timestamp": "true"}),
    ({"type": "registry"},
     {"type": "image", "push": "true", "store": "false", "oci-mediatypes": "true",
      "rewrite-timestamp": "true"}),
    ({"type": "docker"},
     {"type": "docker", "dest": str(ARCHIVE), "oci-mediatypes": "true",
      "rewrite-timestamp": "true"}),
    ({"type": "image", "push": "false"},
     {"type": "docker", "dest": str(ARCHIVE), "oci-mediatypes": "true",
      "rewrite-timestamp": "true"}),
    ({"type": "oci", "dest": "/x/app.tar"},
     {"type": "oci", "dest": "/x/app.tar", "oci-mediatypes": "true",
      "rewrite-timestamp": "true"}),
    ({"type": "local", "dest": "dist"}, {"type": "local", "dest": "dist"}),
    ({"type": "cacheonly"}, {"type": "cacheonly"}),
])
def test_each_output_is_made_reproducible(output: dict[str, str],
                                          expected: dict[str, str]) -> None:
    assert exporters.reproducible(output, ARCHIVE) == expected


def test_a_load_without_a_scratch_directory_is_refused() -> None:
    with pytest.raises(RocmBakeError, match="loads the image into the engine"):
        exporters.reproducible({"type": "docker"}, None)


def test_verify_repro_exports_with_the_same_attributes() -> None:
    assert exporters.oci_archive(Path("/w/build-1.tar")) == (
        "type=oci,dest=/w/build-1.tar,oci-mediatypes=true,rewrite-timestamp=true")


def plan(tmp_path: Path, targets: list[str], push: bool) -> Plan:
    (tmp_path / "docker-bake.hcl").write_text(BAKE)
    return bakefile.load([tmp_path / "docker-bake.hcl"], {}).plan(targets, push=push)


def test_a_push_stores_nothing_and_a_build_loads_through_an_archive(tmp_path: Path) -> None:
    pushed = exporters.plan_exports(plan(tmp_path, ["app", "wheels", "stamp"], True), tmp_path)
    assert pushed.overrides == ("app.output=type=image,push=true,store=false,"
                                "oci-mediatypes=true,rewrite-timestamp=true",)
    assert pushed.loads == {}
    built = exporters.plan_exports(plan(tmp_path, ["app", "wheels", "stamp"], False), tmp_path)
    assert built.overrides == (f"app.output=type=docker,dest={tmp_path}/app.tar,"
                               "oci-mediatypes=true,rewrite-timestamp=true",)
    assert built.loads == {"app": tmp_path / "app.tar"}


def test_a_target_without_source_date_epoch_is_named(tmp_path: Path) -> None:
    assert exporters.unclamped(plan(tmp_path, ["app", "wheels", "stamp"], False)) == ["stamp"]


def test_a_value_with_a_comma_is_quoted() -> None:
    assert exporters.csv_line({"type": "image", "name": "a:1,b:2", "push": "true"}) == \
        'type=image,"name=a:1,b:2",push=true'
