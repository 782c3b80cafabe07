"""Which ROCm set the HIP toolchain image takes (scripts/rocm-set.sh, scripts/hip-toolchain.sh):
the newest ROCm 7.x version that every wanted package has in the Debian package lists, each
package at its newest Debian revision of it; no such version is one line naming what the
lists have. The lists here are small Packages files in apt's format, written by the tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import ROOT

ROCM_SET = ROOT / "scripts" / "rocm-set.sh"
HIP_TOOLCHAIN = ROOT / "scripts" / "hip-toolchain.sh"
HIP = "rocm-device-libs-22 libamdhip64-dev libamdhip64-7 hipcc"


def packages(path: Path, *entries: tuple[str, str]) -> str:
    """A Packages list of (package, version) stanzas, as apt stores one; returns its path."""
    stanzas = [f"Package: {name}\nArchitecture: amd64\nVersion: {version}\n"
               f"Filename: pool/main/{name[0]}/{name}/{name}_{version}_amd64.deb\n"
               for name, version in entries]
    path.write_text("\n".join(stanzas))
    return str(path)


def choose(*lists: str, wanted: str = HIP) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(ROCM_SET), "7", wanted, *lists], capture_output=True,
                          text=True, timeout=60, check=False)


def test_the_newest_version_every_package_has(tmp_path: Path) -> None:
    """7.3.0 lacks hipcc and libamdhip64-7, 8.0.0 is another major: 7.2.5, the newest set all
    four share, across both suites; libamdhip64-dev at its newest revision (unstable's -2)."""
    experimental = packages(
        tmp_path / "experimental", ("rocm-device-libs-22", "7.3.0+dfsg-1~exp1"),
        ("rocm-device-libs-22", "7.2.5+dfsg-1~exp1"), ("libamdhip64-dev", "7.3.0-1~exp1"),
        ("libamdhip64-dev", "7.2.5-1~exp1"), ("libamdhip64-7", "7.2.5-1~exp1"),
        ("hipcc", "7.2.5+dfsg-1~exp1"), ("hipcc", "8.0.0+dfsg-1~exp1"),
        ("libamdhip64-7", "8.0.0-1~exp1"), ("libamdhip64-dev", "8.0.0-1~exp1"),
        ("rocm-device-libs-22", "8.0.0+dfsg-1~exp1"), ("hip-utils", "7.9.0-1"))
    unstable = packages(tmp_path / "unstable", ("libamdhip64-dev", "7.2.5-2"),
                        ("libamdhip64-dev", "6.4.3-5"), ("hipcc", "7.0.2+dfsg-3"),
                        ("rocm-device-libs-21", "7.0.2+dfsg-3"))
    proc = choose(f"experimental={experimental}", f"unstable={unstable}")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ("7.2.5\n"
                           "rocm-device-libs-22=7.2.5+dfsg-1~exp1 experimental\n"
                           "libamdhip64-dev=7.2.5-2 unstable\n"
                           "libamdhip64-7=7.2.5-1~exp1 experimental\n"
                           "hipcc=7.2.5+dfsg-1~exp1 experimental\n")


def test_versions_compare_as_numbers_and_stay_as_written(tmp_path: Path) -> None:
    """7.10 is newer than 7.9.1 and stays 7.10; an epoch does not count."""
    lists = packages(tmp_path / "Packages", ("a", "7.9.1-1"), ("b", "7.9.1-1"),
                     ("a", "7.10-1"), ("b", "1:7.10+dfsg-3"))
    proc = choose(f"experimental={lists}", wanted="a b")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "7.10\na=7.10-1 experimental\nb=1:7.10+dfsg-3 experimental\n"


def test_no_coherent_set_names_what_the_lists_have(tmp_path: Path) -> None:
    """Today's unstable: hipcc 7.0.2 but libamdhip64-dev 6.4.3 and no rocm-device-libs-22 or
    libamdhip64-7 -- one line, exit 2."""
    unstable = packages(tmp_path / "unstable", ("libamdhip64-dev", "6.4.3-5"),
                        ("hipcc", "7.0.2+dfsg-3"), ("rocm-device-libs-21", "7.0.2+dfsg-3"))
    proc = choose(f"unstable={unstable}")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (
        "rocm-set.sh: error: no ROCm 7.x version that all of rocm-device-libs-22 "
        "libamdhip64-dev libamdhip64-7 hipcc have in unstable; found: rocm-device-libs-22 "
        "none; libamdhip64-dev 6.4.3-5 (unstable); libamdhip64-7 none; hipcc 7.0.2+dfsg-3 "
        "(unstable)\n")


def test_another_major_only_is_no_set(tmp_path: Path) -> None:
    eight = packages(tmp_path / "experimental", ("a", "8.0.0-1~exp1"), ("b", "8.0.0-1~exp1"))
    six = packages(tmp_path / "unstable", ("a", "6.4.3-1"), ("b", "6.4.3-1"))
    proc = choose(f"experimental={eight}", f"unstable={six}", wanted="a b")
    assert proc.returncode == 2
    assert proc.stderr == (
        "rocm-set.sh: error: no ROCm 7.x version that all of a b have in experimental "
        "unstable; found: a 8.0.0-1~exp1 (experimental), 6.4.3-1 (unstable); "
        "b 8.0.0-1~exp1 (experimental), 6.4.3-1 (unstable)\n")


def test_an_unreadable_list_is_one_line(tmp_path: Path) -> None:
    proc = choose(f"experimental={tmp_path / 'absent'}", wanted="a")
    assert proc.returncode == 2
    assert proc.stderr == ("rocm-set.sh: error: rocm_set: cannot read the Packages list "
                           f"{tmp_path / 'absent'}\n")


def hip_toolchain(script: str, rootfs: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """hip-toolchain.sh's functions, sourced, with ROOTFS_DIR at ROOTFS (nothing is fetched)."""
    return subprocess.run(["bash", "-c", f". {HIP_TOOLCHAIN}; {script}"],
                          env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
                               "ROCM_BAKE_ROOTFS_DIR": str(rootfs), **env},
                          capture_output=True, text=True, timeout=60, check=False)


def lock(tmp_path: Path, *unpack: str) -> Path:
    """A lock file pinning one installed .deb and the given unpacked pool paths."""
    path = tmp_path / "test.lock"
    rows = [f"install {'a' * 64} 1 pool/main/b/bash/bash_5.2_amd64.deb",
            *(f"unpack {'b' * 64} 1 {u}" for u in unpack)]
    path.write_text("# a lock\n" + "\n".join(rows) + "\n")
    return path


UNPACK_724 = ("pool/main/r/rocm-device-libs/rocm-device-libs-22_7.2.4%2bdfsg-1~exp1_amd64.deb",
              "pool/main/r/rocm-hipamd/libamdhip64-dev_7.2.4-1~exp2_amd64.deb",
              "pool/main/r/rocm-hipamd/libamdhip64-7_7.2.4-1~exp2_amd64.deb",
              "pool/main/h/hipcc/hipcc_7.2.4%2bdfsg-1~exp1_amd64.deb")
SET_724 = ("7.2.4\nrocm-device-libs-22=7.2.4+dfsg-1~exp1\nlibamdhip64-dev=7.2.4-1~exp2\n"
           "libamdhip64-7=7.2.4-1~exp2\nhipcc=7.2.4+dfsg-1~exp1\n")


def test_the_lock_says_which_rocm_the_image_holds(tmp_path: Path) -> None:
    """The image's ROCm version and .debs (its labels) are read from the lock's unpacked
    .debs, in the script's order, versions decoded as apt prints them."""
    proc = hip_toolchain("lock_set", tmp_path,
                         ROCM_BAKE_HIP_LOCK=str(lock(tmp_path, *reversed(UNPACK_724))))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == SET_724


def test_a_lock_of_two_rocm_versions_or_a_missing_package_is_one_line(tmp_path: Path) -> None:
    mixed = lock(tmp_path, *UNPACK_724[:3], UNPACK_724[3].replace("7.2.4", "7.2.5"))
    proc = hip_toolchain("lock_set", tmp_path, ROCM_BAKE_HIP_LOCK=str(mixed))
    assert proc.returncode == 2
    assert proc.stderr == (f"hip-toolchain.sh: error: {mixed} pins ROCm 7.2.4 and 7.2.5 "
                           "(hipcc=7.2.5+dfsg-1~exp1): not one ROCm version\n")
    short = lock(tmp_path, *UNPACK_724[:3])
    proc = hip_toolchain("lock_set", tmp_path, ROCM_BAKE_HIP_LOCK=str(short))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"hip-toolchain.sh: error: {short} unpacks ")
    assert proc.stderr.endswith("re-lock (scripts/hip-toolchain.sh lock)\n")


def test_the_tarball_is_named_by_its_version_and_keyed_by_its_lock(tmp_path: Path) -> None:
    """Another Debian revision of the same ROCm version, or a newer version, is another
    tarball (so a new image), never the cached one reused; the mirror plays no part."""
    variants = {
        "a": UNPACK_724,
        "b": tuple(u.replace("7.2.4-1~exp2", "7.2.4-1~exp3") for u in UNPACK_724),
        "c": tuple(u.replace("7.2.4", "7.2.5") for u in UNPACK_724),
    }
    names = []
    for key, unpack in variants.items():
        (tmp_path / key).mkdir()
        proc = hip_toolchain("hip_tarball", tmp_path,
                             ROCM_BAKE_HIP_LOCK=str(lock(tmp_path / key, *unpack)))
        assert proc.returncode == 0, proc.stderr
        names.append(Path(proc.stdout.strip()).name)
    assert len(set(names)) == 3, names
    assert [n.rsplit("-", 1)[0] for n in names] == ["hip-debian-trixie-rocm7.2.4"] * 2 + [
        "hip-debian-trixie-rocm7.2.5"]
