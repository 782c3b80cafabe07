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


SET_724 = ("7.2.4\nrocm-device-libs-22=7.2.4+dfsg-1~exp1 experimental\n"
           "libamdhip64-dev=7.2.4-1~exp2 experimental\nlibamdhip64-7=7.2.4-1~exp2 experimental\n"
           "hipcc=7.2.4+dfsg-1~exp1 experimental")


def test_the_tarball_is_named_by_its_version_and_keyed_by_its_set(tmp_path: Path) -> None:
    """Another Debian revision of the same ROCm version, or a newer version, is another
    tarball (so a new image), never the cached one reused."""
    newer_revision = SET_724.replace("libamdhip64-7=7.2.4-1~exp2", "libamdhip64-7=7.2.4-1~exp3")
    newer = SET_724.replace("7.2.4", "7.2.5")
    proc = hip_toolchain('for s in "$A" "$B" "$C"; do hip_tarball http://mirror "$s"; done',
                         tmp_path, A=SET_724, B=newer_revision, C=newer)
    assert proc.returncode == 0, proc.stderr
    names = [Path(line).name for line in proc.stdout.splitlines()]
    assert len(set(names)) == 3, names
    assert [n.rsplit("-", 1)[0] for n in names] == ["hip-debian-trixie-rocm7.2.4"] * 2 + [
        "hip-debian-trixie-rocm7.2.5"]


def test_image_takes_the_tarball_fetch_recorded(tmp_path: Path) -> None:
    """image (offline) finds the fetched tarball by its .set file; a .set file whose tarball
    name does not match (another script's, another mirror's) does not count, and no tarball
    is one line saying to run fetch."""
    proc = hip_toolchain('t=$(hip_tarball http://mirror "$A"); printf "%s\\n" "$A" '
                         '>"${t%.tar}.set"; : >"$t"; current_set http://mirror', tmp_path,
                         A=SET_724)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == SET_724 + "\n"
    proc = hip_toolchain("current_set http://another-mirror", tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == (f"hip-toolchain.sh: error: image: no HIP toolchain tarball of this "
                           f"script in {tmp_path}: run 'scripts/hip-toolchain.sh fetch' first "
                           "(it needs the Debian mirror)\n")
