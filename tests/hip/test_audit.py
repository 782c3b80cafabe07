"""inv audit-arch on code objects the real clang-22 / hipcc made, checked against LLVM's own
tools (clang-offload-bundler --list, llvm-readelf -h), on a real ROCm wheel from PyPI, and on
images by reference."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from rocm_bake import archaudit
from rocm_bake.archaudit import cells
from rocm_bake.archaudit.bundles import read_code_object
from rocm_bake.model.bake.target import Target
from tests.cli.test_errors import assert_one_line_error
from tests.conftest import Result, run_cli
from tests.hip.conftest import ARCHS, Compiled, docker_run

pytestmark = pytest.mark.engine


def audit_cli(*args: str, engine: str | None = None) -> Result:
    return run_cli(["inv", "audit-arch", *args], env={"DOCKER_HOST": engine} if engine else None)


def only(compiled: Compiled, tmp_path: Path, *names: str) -> Path:
    """A directory holding just these outputs of compile.sh."""
    folder = tmp_path / "pick"
    folder.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(compiled.out / name, folder / name)
    return folder


def make_wheel(path: Path, members: dict[str, Path]) -> Path:
    with zipfile.ZipFile(path, "w") as wheel:
        for name, source in members.items():
            wheel.write(source, name)
        wheel.writestr("rb_gpu-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n")
    return path


def deleting_context(compiled: Compiled, tmp_path: Path) -> Path:
    """A build context whose image has a wrong-arch object in a lower layer that an upper
    layer deletes when DELETE=1."""
    context = only(compiled, tmp_path, "libtwo-gfx950.so", "axpy-gfx1201.o")
    (context / "Dockerfile").write_text(
        "FROM rocm-bake/busybox:test\n"
        "COPY libtwo-gfx950.so axpy-gfx1201.o /opt/lib/\n"
        "ARG DELETE=1\n"
        "RUN --network=none if [ \"$DELETE\" = 1 ]; then rm /opt/lib/axpy-gfx1201.o; fi\n")
    return context


@pytest.mark.parametrize("arch", ARCHS)
def test_each_arch_is_audited_exactly(compiled: Compiled, arch: str) -> None:
    name = f"axpy-{arch}.o"
    result = audit_cli(str(compiled.out / name), "--expect", arch, "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = result.json()
    assert isinstance(report, dict)
    assert report["ok"] is True and report["archs"] == [arch]
    (entry,) = report["files"]
    assert entry["archs"] == sorted(compiled.bundler_archs(name)) == [arch]
    (code_object,) = entry["code_objects"]
    assert code_object["bundle_id"] == f"hipv4-amdgcn-amd-amdhsa--{arch}"


@pytest.mark.parametrize("arch", ARCHS)
def test_e_flags_name_the_processor_llvm_readelf_names(compiled: Compiled, arch: str) -> None:
    flags = next(line for line in (compiled.oracle / f"{arch}.readelf").read_text().splitlines()
                 if line.strip().startswith("Flags:"))
    # "Flags: 0x54f, gfx950, xnack, sramecc"
    readelf_processor = flags.split(":", 1)[1].split(",")[1].strip()
    code_object = (compiled.oracle / f"{arch}.co").read_bytes()
    target = read_code_object(code_object, arch)
    assert target.partition(":")[0] == readelf_processor == arch


def test_every_output_matches_clang_offload_bundler(compiled: Compiled) -> None:
    names = ["axpy-gfx950.o", "axpy-gfx1201.o", "axpy-gfx1250.o", "axpy-hipcc-gfx1201.o",
             "axpy-three.o", "axpy-gfx1250-ccob.o", "scale-gfx950-ccob.o"]
    audit = archaudit.audit([str(compiled.out / name) for name in names])
    by_file = {Path(report.path).name: report for report in audit.reports}
    assert sorted(by_file) == sorted(names)
    for name in names:
        assert set(by_file[name].archs) == compiled.bundler_archs(name), name
    assert by_file["axpy-three.o"].archs == sorted(ARCHS)
    assert by_file["axpy-gfx1250-ccob.o"].kinds == ["CCOB v3 zstd"]
    assert by_file["axpy-hipcc-gfx1201.o"].archs == ["gfx1201"]


def test_a_library_of_two_translation_units_has_both_bundles(compiled: Compiled) -> None:
    """One plain and one compressed bundle in one .hip_fatbin; clang-offload-bundler --list
    reads only the first, the audit reads both."""
    (report,) = archaudit.audit([str(compiled.out / "libtwo-gfx950.so")], ["gfx950"]).reports
    assert report.archs == ["gfx950"] and len(report.code_objects) == 2
    assert report.kinds == ["CCOB v3 zstd", "bundle"]
    assert compiled.bundler_archs("libtwo-gfx950.so") == {"gfx950"}


def test_three_arch_object_against_one_expected_arch_fails(compiled: Compiled,
                                                          tmp_path: Path) -> None:
    folder = only(compiled, tmp_path, "axpy-three.o", "axpy-gfx950.o")
    ok = audit_cli(str(folder / "axpy-three.o"), "--expect", "gfx950,gfx1201;gfx1250")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "expected gfx1201 gfx1250 gfx950: ok" in ok.stdout
    wrong = audit_cli(str(folder), "--expect", "gfx950")
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    assert "axpy-three.o: carries gfx1201, gfx1250 (expected only gfx950)" in wrong.stdout
    assert "axpy-gfx950.o:" not in wrong.stdout.split("\n\n")[-1].split("---")[-1].split(
        "carries")[0]


def test_a_wheel_built_for_the_wrong_arch_is_caught(compiled: Compiled, tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "rb_gpu-1.0-cp311-cp311-linux_x86_64.whl", {
        "rb_gpu/_good.so": compiled.out / "libtwo-gfx950.so",
        "rb_gpu/_wrong.so": compiled.out / "axpy-gfx1201.o",
    })
    result = audit_cli(str(wheel), "--expect", "gfx950")
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{wheel}!rb_gpu/_wrong.so: lacks gfx950" in result.stdout
    assert f"{wheel}!rb_gpu/_wrong.so: carries gfx1201 (expected only gfx950)" in result.stdout
    assert "_good.so: " not in result.stdout.replace(f"{wheel}!rb_gpu/_good.so  ", "")
    assert "FAILED (2 problem(s))" in result.stdout
    no_gpu = make_wheel(tmp_path / "rb_cpu-1.0-py3-none-any.whl", {})
    empty = audit_cli(str(no_gpu), "--expect", "gfx950")
    assert empty.returncode == 1
    assert "no GPU code objects in" in empty.stdout


def test_a_bundle_entry_naming_another_target_is_caught(compiled: Compiled,
                                                        tmp_path: Path) -> None:
    """The entry id says gfx1201, the code object inside is gfx950: the e_flags decide."""
    fatbin = bytearray((compiled.oracle / "axpy-gfx950.o.fatbin").read_bytes())
    at = fatbin.index(b"--gfx950")
    fatbin[at:at + 8] = b"--gfx951"  # same length: every offset stays right
    objects = archaudit.read_fatbin(bytes(fatbin))
    (obj,) = objects
    assert obj.processor == "gfx950" and obj.id_target == "gfx951"
    report = archaudit.ElfReport("x.o", tuple(objects))
    assert report.inconsistencies() == ["x.o: entry hipv4-amdgcn-amd-amdhsa--gfx951 holds a "
                                        "gfx950 code object"]


def test_unreadable_inputs_exit_2_with_one_line(compiled: Compiled, tmp_path: Path) -> None:
    good = (compiled.out / "axpy-gfx950.o").read_bytes()
    (tmp_path / "short.o").write_bytes(good[:300])
    (tmp_path / "bad.whl").write_bytes(b"PK not a zip")
    assert_one_line_error(audit_cli(str(compiled.out / "cut-bundle.o"), "--expect", "gfx950"),
                          "cut-bundle.o: truncated offload bundle")
    assert_one_line_error(audit_cli(str(compiled.out / "cut-ccob.o")),
                          "cut-ccob.o: truncated compressed offload bundle")
    assert_one_line_error(audit_cli(str(tmp_path / "short.o")), "short.o: corrupt ELF")
    assert_one_line_error(audit_cli(str(tmp_path / "bad.whl")), "bad.whl: not a readable wheel")
    assert_one_line_error(audit_cli(str(tmp_path / "nothing-here")), "no such file")
    # A code object whose ELF magic is gone inside an intact bundle.
    fatbin = bytearray((compiled.oracle / "axpy-gfx950.o.fatbin").read_bytes())
    fatbin[fatbin.index(b"\x7fELF")] = 0
    with pytest.raises(archaudit.BundleError, match="corrupt AMDGPU code object"):
        archaudit.read_fatbin(bytes(fatbin))


def test_rocm_wheel_from_pypi_matches_clang_offload_bundler(
        engine: str, hip_image: str, rocm_wheel: Path, tmp_path: Path) -> None:
    """amd-mori 1.2.4 (PyPI): per ELF, the audit's archs equal clang-offload-bundler --list of
    its .hip_fatbin, and every ELF it calls host-only has no .hip_fatbin (llvm-readelf -S)."""
    audit = archaudit.audit([str(rocm_wheel)])
    unpacked = tmp_path / "wheel"
    with zipfile.ZipFile(rocm_wheel) as wheel:
        wheel.extractall(unpacked)
    script = r"""
bin=/opt/rocm/llvm/bin
cd /w
find . -type f | sort | while read -r f; do
    [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    # The whole section list first: `| grep -q` would stop reading early (SIGPIPE, pipefail).
    sections=$("$bin/llvm-readelf" -S --wide "$f")
    if printf '%s\n' "$sections" | grep ' \.hip_fatbin ' >/dev/null; then
        "$bin/llvm-objcopy" --dump-section=.hip_fatbin=/tmp/fb "$f" /dev/null
        for id in $("$bin/clang-offload-bundler" --list --type=o --input=/tmp/fb); do
            printf '%s %s\n' "${f#./}" "$id"
        done
    else
        printf '%s host-only\n' "${f#./}"
    fi
done
"""
    proc = docker_run(engine, {unpacked: "/w:ro"}, script)
    assert proc.returncode == 0, proc.stderr
    bundler: dict[str, set[str]] = {}
    host_only = 0
    for line in proc.stdout.splitlines():
        path, entry = line.split(" ", 1)
        if entry == "host-only":
            host_only += 1
        elif not entry.startswith("host-"):
            bundler.setdefault(path, set()).add(entry.partition("--")[2].partition(":")[0])
    ours = {report.path.split("!", 1)[1]: set(report.archs) for report in audit.reports}
    assert ours == bundler
    assert ours and all(archs for archs in ours.values())
    assert audit.host_only == host_only > 0
    assert audit.archs == ["gfx942", "gfx950"]


def test_images_by_reference_final_file_system(engine: str, compiled: Compiled,
                                               tmp_path: Path) -> None:
    """An image whose lower layer has a wrong-arch library that an upper layer deletes passes;
    the same image without the delete fails."""
    context = deleting_context(compiled, tmp_path)
    env = {**os.environ, "DOCKER_HOST": engine}
    tags = {"1": "rocm-bake-test/audit:clean", "0": "rocm-bake-test/audit:dirty"}
    try:
        for delete, tag in tags.items():
            subprocess.run(["docker", "buildx", "build", "--load", "--build-arg",
                            f"DELETE={delete}", "-t", tag, str(context)], env=env,
                           capture_output=True, text=True, timeout=300, check=True)
        clean = audit_cli(tags["1"], "--expect", "gfx950", "--json", engine=engine)
        assert clean.returncode == 0, clean.stdout + clean.stderr
        report = clean.json()
        assert isinstance(report, dict)
        assert [f["path"] for f in report["files"]] == [f"{tags['1']}:/opt/lib/libtwo-gfx950.so"]
        dirty = audit_cli(tags["0"], "--expect", "gfx950", engine=engine)
        assert dirty.returncode == 1, dirty.stdout + dirty.stderr
        assert f"{tags['0']}:/opt/lib/axpy-gfx1201.o: lacks gfx950" in dirty.stdout
        assert_one_line_error(audit_cli("rocm-bake-test/audit:absent", engine=engine),
                              "docker image save rocm-bake-test/audit:absent")
    finally:
        subprocess.run(["docker", "image", "rm", *tags.values()], env=env,
                       capture_output=True, check=False)


def test_an_image_only_in_the_registry_is_read_from_the_registry(
        engine: str, compiled: Compiled, tmp_path: Path) -> None:
    """Pushed to the loopback registry, then removed from the engine: `docker://REF` reads its
    layers from the registry (skopeo; nothing pulled), whiteouts applied; inv build's audit of
    a target whose image the engine lacks reads it there too, instead of "not audited"."""
    context = deleting_context(compiled, tmp_path)
    env = {**os.environ, "DOCKER_HOST": engine}
    image = f"127.0.0.1:5000/rocm-bake-test/audit-registry:{tmp_path.name.lower()}"
    subprocess.run(["docker", "buildx", "build", "--build-arg", "DELETE=0", "--output",
                    f"type=image,name={image},push=true", str(context)], env=env,
                   capture_output=True, text=True, timeout=300, check=True)
    subprocess.run(["docker", "image", "rm", image], env=env, capture_output=True, check=False)
    assert subprocess.run(["docker", "image", "inspect", image], env=env,
                          capture_output=True, check=False).returncode != 0
    result = audit_cli(f"docker://{image}", "--expect", "gfx950", engine=engine)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"docker://{image}:/opt/lib/axpy-gfx1201.o: carries gfx1201" in result.stdout
    assert f"docker://{image}:/opt/lib/libtwo-gfx950.so" in result.stdout
    assert subprocess.run(["docker", "image", "inspect", image], env=env,
                          capture_output=True, check=False).returncode != 0   # no pull
    target = Target("app-gfx950", {"tags": [image]})
    found = cells.artifacts(target, tmp_path, env)
    assert found.sources == found.images == (f"docker://{image}",) and not found.unaudited
    line = cells.audit_artifacts("app-gfx950", "gfx950", found, env).lines()[0]
    assert line.startswith("app-gfx950: expected gfx950: WRONG ARCH (2 problem(s)): 2 ELF")
    assert f"in image {image} (from its registry)" in line
    assert_one_line_error(audit_cli(f"docker://{image}-absent", engine=engine),
                          f"skopeo copy docker://{image}-absent: ")


def test_json_is_the_table_s_data(compiled: Compiled) -> None:
    table = audit_cli(str(compiled.out / "axpy-three.o"))
    assert table.returncode == 0
    assert "gfx1201 gfx1250 gfx950" in table.stdout and "bundle kind" in table.stdout
    data = json.loads(audit_cli(str(compiled.out / "axpy-three.o"), "--json").stdout)
    assert data["files"][0]["archs"] == ["gfx1201", "gfx1250", "gfx950"]


def test_oci_layout_tarballs_final_file_system(engine: str, compiled: Compiled,
                                              tmp_path: Path) -> None:
    """buildx's type=oci tarball (what inv verify-repro builds) is read like an image: the
    final file system, whiteouts applied; path prefixes can be left out; a layout whose
    manifest blob is missing is one line, exit 2."""
    context = deleting_context(compiled, tmp_path)
    env = {**os.environ, "DOCKER_HOST": engine}
    tarballs = {delete: tmp_path / f"oci-{delete}.tar" for delete in ("1", "0")}
    for delete, tarball in tarballs.items():
        subprocess.run(["docker", "buildx", "build", "--build-arg", f"DELETE={delete}",
                        "--output", f"type=oci,dest={tarball}", str(context)], env=env,
                       capture_output=True, text=True, timeout=300, check=True)
    clean = audit_cli(str(tarballs["1"]), "--expect", "gfx950", "--json")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    report = clean.json()
    assert isinstance(report, dict)
    assert [f["path"] for f in report["files"]] == [f"{tarballs['1']}:/opt/lib/libtwo-gfx950.so"]
    dirty = audit_cli(str(tarballs["0"]), "--expect", "gfx950")
    assert dirty.returncode == 1, dirty.stdout + dirty.stderr
    assert f"{tarballs['0']}:/opt/lib/axpy-gfx1201.o: carries gfx1201" in dirty.stdout
    left_out = archaudit.audit([str(tarballs["0"])], ["gfx950"], leave_out=["/opt/lib/axpy"])
    assert [Path(r.path).name for r in left_out.reports] == ["libtwo-gfx950.so"]
    assert left_out.problems() == []
    broken = tmp_path / "broken.tar"
    with tarfile.open(tarballs["1"]) as source, tarfile.open(broken, "w") as target:
        index = json.loads(source.extractfile("index.json").read())  # type: ignore[union-attr]
        manifest = index["manifests"][0]["digest"].replace(":", "/", 1)
        for member in source.getmembers():
            if member.name != f"blobs/{manifest}":
                target.addfile(member, source.extractfile(member) if member.isfile() else None)
    assert_one_line_error(audit_cli(str(broken)), "broken.tar: not a readable image archive")


def test_a_fixed_cuid_makes_hip_objects_reproducible(compiled: Compiled) -> None:
    """HIP.md's trap: clang names the TU's __hip_cuid_* symbol after the output path, so one TU
    compiled to two paths differs byte-wise; with a fixed -cuid (what the stage graph's core
    passes to hipcc) the bytes are the same. Both carry exactly gfx950."""
    trap = compiled.out / "trap"
    default = [(trap / d / "axpy.o").read_bytes() for d in ("a", "b")]
    fixed = [(trap / f"fixed-{d}" / "axpy.o").read_bytes() for d in ("a", "b")]
    assert b"__hip_cuid_" in default[0] and b"__hip_cuid_" in fixed[0]
    assert default[0] != default[1]
    assert fixed[0] == fixed[1]
    audit = archaudit.audit([str(trap)], ["gfx950"])
    assert len(audit.reports) == 4 and audit.problems() == []
