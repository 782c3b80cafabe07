"""Which platform specifiers buildx accepts: its platformutil.Parse over containerd's
platforms.Parse, which bake runs on every target already for ``--print`` (the plan still
prints the specifiers as written)."""

from __future__ import annotations

import re

from rocm_bake.model.hcl.values import go_quote

_SPECIFIER = r"^[A-Za-z0-9_.-]+$"
#: As the installed buildx 0.29.1 (Debian's build) has it: an OS version may carry +features.
_OS_AND_VERSION = r"^([A-Za-z0-9_-]+)(?:\(([A-Za-z0-9_.%-]*)((?:\+[A-Za-z0-9_.%-]+)*)\))?$"
_KNOWN_OS = {"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js",
             "linux", "nacl", "netbsd", "openbsd", "plan9", "solaris", "windows", "zos"}
_KNOWN_ARCH = {"386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "ppc64", "ppc64le",
               "loong64", "mips", "mipsle", "mips64", "mips64le", "mips64p32", "mips64p32le",
               "ppc", "riscv", "riscv64", "s390", "s390x", "sparc", "sparc64", "wasm"}
_ARCH_ALIASES = {"i386": "386", "x86_64": "amd64", "x86-64": "amd64", "aarch64": "arm64",
                 "armhf": "arm", "armel": "arm"}


def problem(platforms: list[str]) -> str | None:
    """buildx's error for the first specifier it refuses (each may be a comma list), or None."""
    for text in platforms:
        for part in text.split(","):
            if part.lower() == "local":
                continue
            found = _problem(part)
            if found:
                return f"{found}: invalid argument"
    return None


def _problem(specifier: str) -> str | None:
    quoted = go_quote(specifier)
    if "*" in specifier:
        return f"{quoted}: wildcards not yet supported"
    parts = specifier.split("/", 3)
    os_version = _full_match(_OS_AND_VERSION, parts[0])
    if os_version is None:
        return (f"{go_quote(parts[0])} is an invalid OS component of {quoted}: OSAndVersion "
                f"specifier component must match {go_quote(_OS_AND_VERSION)}")
    for part in parts[1:]:
        if not _full_match(_SPECIFIER, part):
            return (f"{go_quote(part)} is an invalid component of {quoted}: platform specifier "
                    f"component must match {go_quote(_SPECIFIER)}")
    if len(parts) == 1:
        os_name = os_version.group(1).lower()
        if os_name == "macos" or os_name in _KNOWN_OS:
            return None
        arch = parts[0].lower()
        if _ARCH_ALIASES.get(arch, arch) not in _KNOWN_ARCH:
            return f"{quoted}: unknown operating system or architecture"
    if len(parts) > 3:
        return f"{quoted}: cannot parse platform specifier"
    return None


def _full_match(pattern: str, text: str) -> re.Match[str] | None:
    """Go's ``^...$`` (``$`` is the end of the text, never before a final newline)."""
    return re.match(pattern.removesuffix("$") + r"\Z", text)
