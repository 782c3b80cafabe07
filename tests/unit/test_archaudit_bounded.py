"""The arch audit on crafted inputs (tests/unit/craftelf.py): memory stays bounded whatever a
member inflates to, an input past a limit (archaudit.limits) is one line and exit 2, hostile
archives (path traversal, a truncated ELF, a non-zip, zero-filled bombs) are one line each,
and a cell that must carry GPU code and carries none fails (archaudit.cells)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from rocm_bake import archaudit
from rocm_bake.archaudit import cells
from rocm_bake.archaudit.audit import Audit
from rocm_bake.core.errors import UsageError
from rocm_bake.docker import skopeo
from rocm_bake.model import bakefile, components
from tests.cli.test_errors import assert_one_line_error
from tests.conftest import ROOT, Result, run_cli
from tests.e2e.stages.conftest import BAKE_FILE, STAGES
from tests.unit.craftelf import ccob, write_elf, write_wheel

MiB = 1 << 20
# The audit of a member inflating to BIG bytes stays below this peak RSS (the audit held the
# member twice before: 2 x BIG on top of the interpreter's ~40 MB).
BIG = 256 * MiB
RSS_LIMIT_KB = 150 * 1024


def audit_cli(*args: str, env: dict[str, str] | None = None) -> Result:
    return run_cli(["inv", "audit-arch", *args], env=env)


def elf(path: Path, archs: list[str], padding: int = 0) -> Path:
    with path.open("wb") as out:
        write_elf(out, archs, padding)
    return path


def test_a_member_inflating_to_256_mib_is_audited_in_bounded_memory(tmp_path: Path) -> None:
    wheel = write_wheel(tmp_path / "big-1.0-py3-none-any.whl",
                        {"big/_big.so": (["gfx950"], BIG)})
    assert wheel.stat().st_size < 2 * MiB
    script = ("import json, resource, sys\n"
              "from rocm_bake import archaudit\n"
              "result = archaudit.audit([sys.argv[1]], ['gfx950'])\n"
              "print(json.dumps([result.problems(), result.archs,\n"
              "                  resource.getrusage(resource.RUSAGE_SELF).ru_maxrss]))\n")
    proc = subprocess.run([sys.executable, "-c", script, str(wheel)], capture_output=True,
                          text=True, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr
    problems, archs, peak_kb = json.loads(proc.stdout)
    assert problems == [] and archs == ["gfx950"]
    assert peak_kb < RSS_LIMIT_KB, f"peak RSS {peak_kb} kB"


def test_bundles_after_zero_padding_and_in_a_stream_are_read(tmp_path: Path) -> None:
    stream = io.BytesIO()
    write_elf(stream, ["gfx950", "gfx1201"], 3 * MiB + 5)
    objects = archaudit.read_elf(stream, "x.so")
    assert objects is not None
    assert [obj.processor for obj in objects] == ["gfx950", "gfx1201"]
    assert archaudit.read_elf(stream.getvalue(), "x.so") == objects
    host = io.BytesIO()
    write_elf(host, [])
    assert archaudit.read_elf(host, "host.so") is None


@pytest.mark.parametrize("method", ["zstd", "zlib"])
def test_compressed_bundles_inflate_through_a_spool(method: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A CCOB whose bundle is followed by 64 MiB of zeros (over the 8 MiB kept in memory):
    read; one announcing more than the limit, or inflating past what it announces, is one
    error each."""
    stream = io.BytesIO()
    write_elf(stream, fatbin=ccob(["gfx1201"], method, padding=64 * MiB) + bytes(64)
              + ccob(["gfx950"], method))
    objects = archaudit.read_elf(stream, "c.so")
    assert objects is not None
    assert [(o.processor, o.kind) for o in objects] == [("gfx1201", f"CCOB v3 {method}"),
                                                         ("gfx950", f"CCOB v3 {method}")]
    monkeypatch.setenv("ROCM_BAKE_AUDIT_MAX_MEMBER_BYTES", str(32 * MiB))
    with pytest.raises(archaudit.BundleError, match=r"^c.so: a compressed offload bundle "
                       r"announces \d+ bytes, over the audit's limit of 33554432 bytes"):
        archaudit.read_elf(stream, "c.so")
    liar = io.BytesIO()
    write_elf(liar, fatbin=ccob(["gfx950"], method, padding=MiB, announced=1000))
    with pytest.raises(archaudit.BundleError, match="inflates past the 1000 bytes announced"):
        archaudit.read_elf(liar, "liar.so")


def test_a_member_over_the_limit_is_one_line_exit_2(tmp_path: Path) -> None:
    wheel = write_wheel(tmp_path / "big-1.0-py3-none-any.whl",
                        {"big/_big.so": (["gfx950"], 3 * MiB)})
    before = sorted(tmp_path.iterdir())
    small = {"ROCM_BAKE_AUDIT_MAX_MEMBER_BYTES": str(2 * MiB)}
    line = assert_one_line_error(audit_cli(str(wheel), env=small),
                                 f"{wheel}!big/_big.so: ", f"over the audit's limit of {2 * MiB}"
                                 " bytes for one file (ROCM_BAKE_AUDIT_MAX_MEMBER_BYTES)")
    assert line.startswith("error: ")
    assert sorted(tmp_path.iterdir()) == before          # nothing written
    plain = elf(tmp_path / "plain.so", ["gfx950"], 3 * MiB)
    assert_one_line_error(audit_cli(str(plain), env=small), f"{plain}: ", "over the audit's")
    # Under the limit, the same wheel passes.
    ok = audit_cli(str(wheel), "--expect", "gfx950",
                   env={"ROCM_BAKE_AUDIT_MAX_MEMBER_BYTES": str(4 * MiB)})
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_an_archive_over_the_limit_is_one_line_exit_2(tmp_path: Path) -> None:
    wheel = write_wheel(tmp_path / "two-1.0-py3-none-any.whl",
                        {"two/a.so": (["gfx950"], 2 * MiB), "two/b.so": (["gfx950"], 2 * MiB)})
    assert_one_line_error(
        audit_cli(str(wheel), env={"ROCM_BAKE_AUDIT_MAX_ARCHIVE_BYTES": str(3 * MiB)}),
        f"{wheel}: its files inflate to ", "(ROCM_BAKE_AUDIT_MAX_ARCHIVE_BYTES)")
    assert_one_line_error(audit_cli(str(wheel), env={"ROCM_BAKE_AUDIT_MAX_MEMBER_BYTES": "1e9"}),
                          "ROCM_BAKE_AUDIT_MAX_MEMBER_BYTES='1e9': expected a positive number")


def image_archive(tmp_path: Path, members: dict[str, bytes]) -> Path:
    """A `docker image save`-shaped tarball of one layer holding ``members``."""
    layer = io.BytesIO()
    with tarfile.open(fileobj=layer, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    archive = tmp_path / "image.tar"
    manifest = json.dumps([{"Config": "config.json", "Layers": ["layer.tar"]}]).encode()
    with tarfile.open(archive, "w") as tar:
        for name, data in (("manifest.json", manifest), ("layer.tar", layer.getvalue())):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return archive


def test_an_image_file_or_image_over_the_limit_is_one_line_exit_2(tmp_path: Path) -> None:
    big, small = io.BytesIO(), io.BytesIO()
    write_elf(big, ["gfx950"], 3 * MiB)
    write_elf(small, ["gfx950"])
    archive = image_archive(tmp_path, {"opt/lib/big.so": big.getvalue(),
                                       "opt/lib/small.so": small.getvalue()})
    ok = audit_cli(str(archive), "--expect", "gfx950", "--json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert [f["path"] for f in json.loads(ok.stdout)["files"]] == [
        f"{archive}:/opt/lib/big.so", f"{archive}:/opt/lib/small.so"]
    assert_one_line_error(
        audit_cli(str(archive), env={"ROCM_BAKE_AUDIT_MAX_MEMBER_BYTES": str(2 * MiB)}),
        f"{archive}:/opt/lib/big.so: ", "over the audit's limit of 2097152 bytes for one file")
    assert_one_line_error(
        audit_cli(str(archive), env={"ROCM_BAKE_AUDIT_MAX_ARCHIVE_BYTES": str(2 * MiB)}),
        f"{archive}: its files inflate to ", "limit of 2097152 bytes for one archive")


def test_a_bad_limit_variable_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROCM_BAKE_AUDIT_MAX_ARCHIVE_BYTES", "0")
    with pytest.raises(UsageError, match="ROCM_BAKE_AUDIT_MAX_ARCHIVE_BYTES='0'"):
        archaudit.limits.max_archive()


def test_hostile_archives_are_one_line_each(tmp_path: Path) -> None:
    good = tmp_path / "good.so"
    elf(good, ["gfx950"], 4096)
    data = good.read_bytes()
    # Path traversal in member names: read, named as they are, nothing written anywhere.
    traversal = tmp_path / "trav-1.0-py3-none-any.whl"
    with zipfile.ZipFile(traversal, "w") as wheel:
        wheel.writestr("../../escape.so", data)
        wheel.writestr("/abs/escape.so", data)
    before = sorted(p.name for p in tmp_path.parent.iterdir())
    result = audit_cli(str(traversal), "--expect", "gfx950", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    paths = [f["path"] for f in json.loads(result.stdout)["files"]]
    assert paths == [f"{traversal}!../../escape.so", f"{traversal}!/abs/escape.so"]
    assert sorted(p.name for p in tmp_path.parent.iterdir()) == before
    # A truncated ELF: its .hip_fatbin runs past the end.
    (tmp_path / "cut.so").write_bytes(data[:2000])
    assert_one_line_error(audit_cli(str(tmp_path / "cut.so")), "cut.so: ")
    # Not a zip at all.
    (tmp_path / "bad-1.0-py3-none-any.whl").write_bytes(b"PK\x03\x04 not a zip")
    assert_one_line_error(audit_cli(str(tmp_path / "bad-1.0-py3-none-any.whl")),
                          "not a readable wheel")
    # Zero-filled bombs: 64 MiB of zeros (no ELF, skipped after 4 bytes), and an ELF magic
    # followed by zeros (a corrupt ELF, one line).
    bomb = tmp_path / "bomb-1.0-py3-none-any.whl"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as wheel, \
            wheel.open("zeros.bin", "w") as member:
        for _ in range(64):
            member.write(bytes(MiB))
    zeros = audit_cli(str(bomb), "--json")
    assert zeros.returncode == 0 and json.loads(zeros.stdout)["host_only_elf_files"] == 0
    with zipfile.ZipFile(bomb, "a", zipfile.ZIP_DEFLATED) as wheel, \
            wheel.open("zeros.so", "w") as member:
        member.write(b"\x7fELF")
        for _ in range(64):
            member.write(bytes(MiB))
    assert_one_line_error(audit_cli(str(bomb)), f"{bomb}!zeros.so: corrupt ELF")


# ----------------------------------------------------------------------- cells without GPU code

def host_only_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "dist"
    folder.mkdir()
    elf(folder / "libhost.so", [])
    return folder


def test_a_cell_that_must_carry_gpu_code_and_carries_none_fails(tmp_path: Path) -> None:
    folder = host_only_dir(tmp_path)
    result = cells.audit_artifacts("core-gfx950", "gfx950", cells.Artifacts((str(folder),)))
    assert result.exit_code == 1
    assert result.lines() == [
        f"core-gfx950: expected gfx950: NO GPU CODE: 1 host-only ELF file(s), none with GPU "
        f"code, in {folder}",
        f"core-gfx950: no GPU code objects in {folder} (expected gfx950)"]
    with pytest.raises(cells.ArchAuditError, match="no GPU code in core-gfx950 ") as info:
        cells.check([result])
    assert info.value.exit_code == 1


def test_a_cell_whose_label_says_it_has_no_gpu_code_passes(tmp_path: Path) -> None:
    folder = host_only_dir(tmp_path)
    result = cells.audit_artifacts("base-gfx950", "gfx950", cells.Artifacts((str(folder),)),
                                   no_gpu_code="the toolchain image")
    assert result.exit_code == 0
    assert result.lines() == [f"base-gfx950: no GPU code (1 host-only ELF file(s)) in {folder}, "
                              "as its label rocm-bake.no-gpu-code says: the toolchain image"]
    # With GPU code for its arch, a cell needs no label.
    elf(folder / "libgpu.so", ["gfx950"])
    assert cells.audit_artifacts("core-gfx950", "gfx950",
                                 cells.Artifacts((str(folder),))).exit_code == 0


def test_the_label_comes_from_the_bake_file() -> None:
    definition = bakefile.load([STAGES / BAKE_FILE], {"GPU_ARCHS": "gfx950"})
    plan = definition.plan(["app-gfx950", "base-gfx950"], [])
    assert cells.no_gpu_code(plan.targets["base-gfx950"]).startswith("the HIP toolchain image")
    assert cells.no_gpu_code(plan.targets["app-gfx950"]) == ""
    real = bakefile.load([ROOT / "rocm-bake.hcl"], {"GPU_ARCHS": "gfx950,gfx1250"})
    targets = real.plan(["all"], []).targets
    without = sorted(name for name, target in targets.items() if cells.no_gpu_code(target))
    # Derived from the bake file, no component typed here: every cell of a NO_GPU_CODE
    # component, and the wheels export of an arch where no component with GPU code has a cell
    # with kernels (gfx1250: each skipped; TRITON_ONLY cells have none of their own).
    archs = real.value("ARCHS")
    triton_only = real.value("TRITON_ONLY")
    assert isinstance(archs, dict) and isinstance(triton_only, dict)
    host = components.no_gpu_code(real)
    names = components.names(real)
    cells_of = {c: [str(a) for a in v] for c, v in archs.items()
                if c in names and isinstance(v, list)}
    expected = [f"{c}-{a}" for c in host for a in cells_of[c]]
    expected += [f"wheels-{a}" for a in ("gfx950", "gfx1250")
                 if not any(a in cells_of[c] and f"{a}/{c}" not in triton_only
                            for c in cells_of if c not in host)]
    assert without == sorted(expected)
    assert "base-gfx950" in without and "wheels-gfx1250" in without
    assert "torch-gfx950" not in without and "wheels-gfx950" not in without


def test_verdict_lines_name_a_registry_image() -> None:
    found = cells.Artifacts(("docker://127.0.0.1:5000/p/top-a1:t",),
                            ("docker://127.0.0.1:5000/p/top-a1:t",))
    audit = Audit(found.sources, (), 1, ("a1",), require_gpu_code=False)
    line, = cells.CellAudit("top-a1", "a1", found, audit, no_gpu_code="busybox").lines()
    assert "in image 127.0.0.1:5000/p/top-a1:t (from its registry) (/opt/rocm* left out" in line


@pytest.mark.parametrize(("reference", "host", "loopback"), [
    ("127.0.0.1:5000/rocm-bake/fleet/top-a1:run", "127.0.0.1:5000", True),
    ("localhost/app:1", "localhost", True),
    ("[::1]:5000/app:1", "[::1]:5000", True),
    ("registry.example.com/a/b:1", "registry.example.com", False),
    ("rocm-bake-e2e/app:e2e-gfx950", None, False),
    ("busybox", None, False),
])
def test_which_references_name_a_registry(reference: str, host: str | None,
                                          loopback: bool) -> None:
    assert skopeo.registry_host(reference) == host
    assert (host is not None and skopeo.is_loopback(host)) == loopback
