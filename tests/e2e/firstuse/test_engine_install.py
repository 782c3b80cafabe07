"""`engine.sh install` keeps services off: a real Debian package with a systemd unit and a
debhelper-style postinst (enable the unit, start it unless policy-rc.d says no) installed by
the same `apt_install_held` the engine's packages go through (`engine.sh apt-install`).

The machine already has a policy-rc.d (a container image's), which engine.sh rightly leaves
alone; the test hides it in a private mount namespace (an overlay over /usr/sbin) so that
engine.sh has to put its own in place and take it away again. The dpkg database is the real
one: the test package is purged afterwards.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

from tests.conftest import AS_ROOT, ROOT, missing

ENGINE_SH = ROOT / "scripts" / "engine.sh"
UNIT_DIR = Path("/lib/systemd/system")

POSTINST = """#!/bin/sh
set -e
# What debhelper's postinst does: enable the unit, then start it through invoke-rc.d, which
# asks policy-rc.d first. Record what policy-rc.d answered.
if [ -x /usr/sbin/policy-rc.d ]; then
    rc=0; /usr/sbin/policy-rc.d {unit} start || rc=$?
    echo "policy-rc.d $rc" > {mark}
else
    echo "no policy-rc.d" > {mark}
fi
deb-systemd-helper enable {unit} >/dev/null
"""


def _package(tmp_path: Path, name: str, mark: Path) -> Path:
    root = tmp_path / "pkg"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "lib/systemd/system").mkdir(parents=True)
    unit = f"{name}.service"
    (root / "lib/systemd/system" / unit).write_text(
        "[Unit]\nDescription=rocm-bake test unit\n[Service]\nExecStart=/bin/true\n"
        "[Install]\nWantedBy=multi-user.target\n")
    (root / "DEBIAN/control").write_text(
        f"Package: {name}\nVersion: 1.0\nArchitecture: all\nMaintainer: rocm-bake tests "
        "<tests@localhost>\nDescription: rocm-bake engine.sh test package\n")
    postinst = root / "DEBIAN/postinst"
    postinst.write_text(POSTINST.format(unit=unit, mark=mark))
    postinst.chmod(0o755)
    deb = tmp_path / f"{name}_1.0_all.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", str(root), str(deb)],
                   check=True, capture_output=True, timeout=60)
    return deb


def test_install_holds_services_and_disables_the_units_it_enabled(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        missing("root (apt-get install needs it)", AS_ROOT)
    for tool in ("unshare", "dpkg-deb", "deb-systemd-helper", "apt-get"):
        if shutil.which(tool) is None:
            missing(tool, "bash scripts/engine.sh install")
    name = f"rocm-bake-unit-test-{uuid.uuid4().hex[:8]}"
    unit = f"{name}.service"
    mark = tmp_path / "postinst.txt"
    deb = _package(tmp_path, name, mark)
    policy = Path("/usr/sbin/policy-rc.d")
    machine_policy = policy.read_bytes() if policy.exists() else None
    overlay = tmp_path / "ov"
    overlay.mkdir()
    script = f"""set -e
mount -t tmpfs none {overlay}
mkdir {overlay}/u {overlay}/w
mount -t overlay overlay -o lowerdir=/usr/sbin,upperdir={overlay}/u,workdir={overlay}/w /usr/sbin
rm -f /usr/sbin/policy-rc.d
bash {ENGINE_SH} apt-install {deb}
if [ -e /usr/sbin/policy-rc.d ]; then echo "policy-rc.d left behind"; exit 3; fi
"""
    try:
        proc = subprocess.run(["unshare", "-m", "bash", "-c", script], capture_output=True,
                              text=True, timeout=600, check=False)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        # During the install policy-rc.d was there and said "no" (101) ...
        assert mark.read_text().strip() == "policy-rc.d 101"
        # ... the postinst enabled the unit and engine.sh disabled it again.
        assert f"disabling {unit}" in proc.stderr
        assert not list(Path("/etc/systemd/system").glob(f"*.wants/{unit}"))
        if shutil.which("systemctl"):
            state = subprocess.run(["systemctl", "is-enabled", unit], capture_output=True,
                                   text=True, timeout=60, check=False)
            assert state.stdout.strip() == "disabled", state
        # The machine's own policy-rc.d (outside the namespace) is untouched.
        assert (policy.read_bytes() if policy.exists() else None) == machine_policy
    finally:
        subprocess.run(["dpkg", "--purge", name], capture_output=True, timeout=300, check=False)
        subprocess.run(["deb-systemd-helper", "purge", unit], capture_output=True, timeout=60,
                       check=False)
        for record in Path("/var/lib/systemd").glob(f"deb-systemd-helper-*/**/{unit}*"):
            record.unlink()      # deb-systemd-helper's records of the test unit
    assert not (UNIT_DIR / unit).exists()
