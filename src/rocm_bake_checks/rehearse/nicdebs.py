"""The rehearsal's stand-ins for MoRI's RDMA NIC provider packages (``NIC_DEBS``): the vendors'
.debs of vLLM's docker/Dockerfile.rocm stage mori_base (v0.28.0, lines 516-568) come from
repo.radeon.com and packages.broadcom.com, which cannot be reached here.  Each stand-in is a
real .deb with the real package's name (and, where upstream pins one, its version) that dpkg
installs for real; a provider library it names is compiled for real by its ``postinst``
(the image's ``cc``), where the vendor's package ships a prebuilt one.  Written with fixed
dates and owners, so the same stand-ins have the same sha256 (the layer cache holds)."""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from dataclasses import dataclass
from pathlib import Path

# The version of a stand-in whose real version only the vendor's repository says.
STANDIN_VERSION = "0.0.0~rehearsal"
_MTIME = 1735689600   # 2025-01-01, as the stand-in sources' commits


@dataclass(frozen=True)
class Package:
    backend: str                   # NIC_BACKEND's name for its NIC: ainic or bnxt
    name: str
    version: str
    what: str
    depends: str = ""
    library: str = ""              # a provider library the postinst compiles (absolute path)


# vLLM v0.28.0 docker/Dockerfile.rocm: install_ainic (lines 523-537) installs libionic-dev and
# ionic-common from the AINIC repository (libionic-dev needs the repository's libionic1),
# install_bnxt (lines 540-553) bnxt-rocelib=235.2.86.0, whose libbnxt_re* it copies from
# /usr/local/lib/x86_64-linux-gnu to /usr/local/lib (line 550).
PACKAGES = (
    Package("ainic", "libionic1", STANDIN_VERSION, "AMD AINIC's RDMA provider library",
            library="/usr/lib/x86_64-linux-gnu/libionic.so.1"),
    Package("ainic", "libionic-dev", STANDIN_VERSION, "AMD AINIC's RDMA provider headers",
            depends=f"libionic1 (= {STANDIN_VERSION})"),
    Package("ainic", "ionic-common", STANDIN_VERSION, "AMD AINIC's common files"),
    Package("bnxt", "bnxt-rocelib", "235.2.86.0", "Broadcom Thor-2's RoCE provider library",
            library="/usr/local/lib/x86_64-linux-gnu/libbnxt_re-rdmav34.so"),
)


def _tar(members: dict[str, tuple[bytes, int]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for folder in sorted({str(p) for n in members for p in Path(n).parents} - {"."}):
            info = tarfile.TarInfo(f"./{folder}")
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, _MTIME
            archive.addfile(info)
        for name, (data, mode) in sorted(members.items()):
            info = tarfile.TarInfo(f"./{name}")
            info.size, info.mode, info.mtime = len(data), mode, _MTIME
            archive.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as packed:
        packed.write(buffer.getvalue())
    return out.getvalue()


def _ar(members: list[tuple[str, bytes]]) -> bytes:
    out = [b"!<arch>\n"]
    for name, data in members:
        out.append(f"{name:<16}{_MTIME:<12}{0:<6}{0:<6}{'100644':<8}{len(data):<10}`\n"
                   .encode())
        out.append(data + (b"\n" if len(data) % 2 else b""))
    return b"".join(out)


def deb(package: Package) -> bytes:
    """The stand-in .deb of ``package``."""
    control = (f"Package: {package.name}\nVersion: {package.version}\nArchitecture: amd64\n"
               "Maintainer: rocm-bake rehearsal <rehearsal@localhost>\n"
               + (f"Depends: {package.depends}\n" if package.depends else "")
               + f"Description: rehearsal stand-in for {package.what}\n")
    meta = {"control": (control.encode(), 0o644)}
    if package.library:
        meta["postinst"] = (
            "#!/bin/sh\n# The rehearsal's stand-in: the provider library compiled for real.\n"
            "set -e\n"
            f"mkdir -p {Path(package.library).parent}\n"
            f"echo 'int rehearsal_{package.backend}_provider(void) {{ return 0; }}' | "
            f"cc -x c -O1 -fPIC -shared -o {package.library} -\n"
            f"echo 'rehearsal: {package.name} stand-in: {package.library} compiled'\n"
            .encode(), 0o755)
    files = {f"usr/share/doc/{package.name}/rehearsal": (b"rocm-bake rehearsal stand-in\n", 0o644)}
    return _ar([("debian-binary", b"2.0\n"), ("control.tar.gz", _tar(meta)),
                ("data.tar.gz", _tar(files))])


def filename(package: Package) -> str:
    return f"{package.name}_{package.version.replace(':', '%3a')}_amd64.deb"


def write(root: Path, url: str) -> tuple[str, list[str]]:
    """Every stand-in .deb under ``root/downloads/nic``; the ``NIC_DEBS`` build argument that
    names them (``<backend> <sha256> <url>``, ``;`` between them, ``url`` the world's) and one
    line per stand-in."""
    folder = root / "downloads" / "nic"
    folder.mkdir(parents=True, exist_ok=True)
    entries: list[str] = []
    lines: list[str] = []
    for package in PACKAGES:
        data = deb(package)
        (folder / filename(package)).write_bytes(data)
        sha = hashlib.sha256(data).hexdigest()
        entries.append(f"{package.backend} {sha} {url}/downloads/nic/{filename(package)}")
        lines.append(f"download NIC_DEBS ({package.backend}): {package.name} -> a stand-in "
                     f".deb {package.name} {package.version}, sha256 {sha}")
    return ";".join(entries), lines
