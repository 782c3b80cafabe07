#!/usr/bin/env python3
"""write-manifest.py OUT WHEEL_DIR... -- the versions manifest of an image or a wheels export.

Reads the pins from the ROCM_BAKE_PINS environment variable (a JSON object: the bake file's
PINS map, passed as a build arg) and writes OUT as JSON with sorted keys and no timestamps:

    {"pins": {...every pin...},
     "python": "3.12.x", "rocm": "7.2.3" or null,
     "wheels": [{"file", "name", "version", "sha256"}, ...]}

Every ``*.whl`` in the WHEEL_DIRs is listed (missing dirs are skipped: a skipped component's
stand-in has none).  An abbreviated pin (the bake file's ABBREVIATED) is resolved by
fetch-source.sh, which records "REPO<TAB>SHORT<TAB>FULL" in the cell's
``rocm-bake-resolved.tsv``; each such record in a WHEEL_DIR whose SHORT is the value of a
pin ``X_COMMIT`` (and REPO that of ``X_REPO``, when there is one) puts
``"resolved": {"X_COMMIT": FULL}`` in the manifest: the full commit built.  When OUT already
exists (an image built FROM another runtime image), its wheels (and resolved commits) are kept
and the new ones added.  The file is written atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import tempfile
from pathlib import Path


def wheel_record(path: Path) -> dict[str, str]:
    parts = path.name[: -len(".whl")].split("-")
    if len(parts) < 5:
        raise SystemExit(f"write-manifest: {path.name} is not a wheel file name")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return {"file": path.name, "name": parts[0], "version": parts[1], "sha256": digest}


def previous_wheels(out: Path) -> list[dict[str, str]]:
    if not out.is_file():
        return []
    wheels = json.loads(out.read_text()).get("wheels", [])
    return [w for w in wheels if isinstance(w, dict)]


def resolved(pins: dict[str, object], dirs: list[str]) -> dict[str, str]:
    """The full commit of each abbreviated pin, from the records fetch-source.sh wrote."""
    out: dict[str, str] = {}
    for directory in dirs:
        record = Path(directory) / "rocm-bake-resolved.tsv"
        if not record.is_file():
            continue
        for line in record.read_text().splitlines():
            repo, short, full = [*line.split("\t"), "", "", ""][:3]
            for name, value in pins.items():
                if not name.endswith("_COMMIT") or value != short or not full:
                    continue
                declared = pins.get(name.removesuffix("_COMMIT") + "_REPO")
                if declared is None or declared == repo:
                    out[name] = full
    return out


def rocm_version() -> str | None:
    info = Path(os.environ.get("ROCM_PATH", "/opt/rocm")) / ".info" / "version"
    return info.read_text().strip().split("-")[0] if info.is_file() else None


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: write-manifest.py OUT WHEEL_DIR...", file=sys.stderr)
        return 2
    try:
        pins = json.loads(os.environ.get("ROCM_BAKE_PINS", "{}"))
    except json.JSONDecodeError as exc:
        print(f"write-manifest: ROCM_BAKE_PINS is not JSON: {exc}", file=sys.stderr)
        return 2
    if not isinstance(pins, dict):
        print("write-manifest: ROCM_BAKE_PINS must be a JSON object", file=sys.stderr)
        return 2
    out = Path(argv[0])
    records = {r["file"]: r for r in previous_wheels(out)}
    records.update((r["file"], r) for d in argv[1:] if Path(d).is_dir()
                   for r in map(wheel_record, Path(d).glob("*.whl")))
    wheels = sorted(records.values(), key=lambda r: (r["name"], r["file"]))
    manifest = {"pins": pins, "python": platform.python_version(), "rocm": rocm_version(),
                "wheels": wheels}
    full = {**(json.loads(out.read_text()).get("resolved", {}) if out.is_file() else {}),
            **resolved(pins, argv[1:])}
    if full:
        manifest["resolved"] = dict(sorted(full.items()))
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=out.parent, delete=False, suffix=".tmp") as tmp:
        json.dump(manifest, tmp, indent=2, sort_keys=True)
        tmp.write("\n")
    os.chmod(tmp.name, 0o644)
    os.replace(tmp.name, out)
    print(f"write-manifest: {out}: {len(pins)} pins, {len(wheels)} wheels")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
