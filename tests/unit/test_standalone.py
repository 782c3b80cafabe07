"""The repository stands alone: no tracked file reads or names the reference folder beside the
checkout (the folder ``shared`` one level up, ``ROCM_BAKE_SHARED``), and no page a reader
sees (``docs/``, README.md, ARCHITECTURE.md) prints a path of the machine it was made on.
What a test needs is copied into ``tests/fixtures/`` (tests/fixtures/README.md says where each
file came from).

The files are the ones git tracks (``git ls-files``), so a clone checks exactly what it has.
This file names the patterns it looks for, so it is the one file not scanned.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()

#: The folder beside the checkout as a relative path (spelled in two parts: this file names it
#: without being a reference to it).
BESIDE = ".." + "/" + "shared"
#: A reference to the folder beside the checkout, however it is spelled.
SHARED = re.compile(
    r"\.\.[/\\]shared\b"                          # the parent's shared, either slash
    r"|ROCM_BAKE_SHARED"                          # the variable that pointed at it
    r"|\bparent\s*/\s*[\"']shared[\"']"           # ROOT.parent / "shared"
    r"|[\"']\.\.[\"']\s*,\s*[\"']shared[\"']"     # os.path.join(root, "..", "shared")
    r"|/work/shared\b")                           # where it lies on this machine

#: An absolute path of a machine, reported up to where the path ends. A ``/`` may come before
#: it (``file:///tmp/x``); a host name or a relative path may not (``https://example.org/home/x``
#: is a URL, ``a/tmp/b`` is relative); ``/workflows`` is not ``/work``.
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|root|home/[\w.-]+|tmp/[\w.-]+)(?![\w-])"
                          r"[^\s`'\"()<>\[\]|,;]*")

#: Product defaults that only look like machine paths: documented values, the same on every
#: machine. The engine's run directory (``$ROCM_BAKE_ENGINE_DIR``'s default) is where
#: ``scripts/engine.sh start`` serves the project's own engine, and its socket what ``inv``
#: connects to when DOCKER_HOST is unset (README.md, fleet.toml, ``inv perf --help``).
ALLOWED = ("unix:///tmp/rocm-bake-engine/docker.sock", "/tmp/rocm-bake-engine")

#: The pages: what a reader sees, generated or written.
PAGES = ("docs/", "README.md", "ARCHITECTURE.md")
#: Third-party code vendored as it was released (mermaid): not ours to word.
VENDORED = ("docs/assets/javascripts/vendor/",)


def tracked() -> list[str]:
    """Every file git tracks in this checkout (the real git, not a walk of the tree)."""
    proc = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True,
                          text=True, check=True)
    return [name for name in proc.stdout.split("\0") if name]


def text_of(name: str) -> str | None:
    """A tracked text file's content; None for a binary file (or one absent from the tree)."""
    path = ROOT / name
    if not path.is_file():
        return None
    raw = path.read_bytes()
    if b"\0" in raw:
        return None
    return raw.decode("utf-8", errors="replace")


def hits(pattern: re.Pattern[str], name: str, text: str) -> list[str]:
    """``file:line: match`` for every match of the pattern."""
    return [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
            for m in pattern.finditer(text)]


def shared_references(name: str, text: str) -> list[str]:
    return hits(SHARED, name, text)


def machine_paths(name: str, text: str) -> list[str]:
    for allowed in ALLOWED:
        text = text.replace(allowed, " " * len(allowed))
    return hits(MACHINE_PATH, name, text)


def is_page(name: str) -> bool:
    return (name.startswith(PAGES) or name in PAGES) and not name.startswith(VENDORED)


def test_no_file_reads_the_folder_beside_the_checkout() -> None:
    found = []
    for name in tracked():
        text = text_of(name)
        if name != THIS and text is not None:
            found += shared_references(name, text)
    assert not found, ("copy what a test needs into tests/fixtures/ (say where it came from in "
                       "tests/fixtures/README.md) and read it there:\n" + "\n".join(found))


def test_no_page_prints_a_path_of_this_machine() -> None:
    names = [name for name in tracked() if is_page(name)]
    assert "README.md" in names and "ARCHITECTURE.md" in names
    assert any(name.startswith("docs/reference/") for name in names)
    found = []
    for name in names:
        text = text_of(name)
        if text is not None:
            found += machine_paths(name, text)
    assert not found, ("a page names a path of the machine it was made on (a generated page "
                       "prints paths relative to the repository):\n" + "\n".join(found))


def test_the_fixtures_are_tracked() -> None:
    names = set(tracked())
    assert "tests/fixtures/README.md" in names
    assert "tests/fixtures/bake/vectors.json" in names
    assert any(n.startswith("tests/fixtures/upstream/pypi/") for n in names)


@pytest.mark.parametrize("text", [
    f"see {BESIDE}/SCCACHE.md",
    "SHARED = Path(os.environ.get('ROCM_BAKE_SHARED'))",
    'SHARED = ROOT.parent / "shared"',
    "os.path.join(root, '..', 'shared', 'fixtures')",
    "the vectors of /work/shared/fixtures/bake",
    r"..\shared\fixtures",
])
def test_a_reference_to_the_folder_beside_is_found(text: str) -> None:
    assert shared_references("f", text)


@pytest.mark.parametrize("text", [
    "the shared caches", "tests/fixtures/upstream", "a shared/ level", "--enable-shared",
])
def test_the_word_shared_alone_is_no_reference(text: str) -> None:
    assert not shared_references("f", text)


@pytest.mark.parametrize("text", [
    "the vectors of /work/shared/fixtures/bake",
    "built the site in /work/wt/x/site",
    "cp /root/.cache/x here",
    "in /home/alice/rocm-bake",
    "`/tmp/pytest-of-root/pytest-3/x`",
    "file:///tmp/rocm-bake-webdav/data",
    "unix:///tmp/other/docker.sock",
])
def test_a_machine_path_is_found(text: str) -> None:
    assert machine_paths("f", text)


@pytest.mark.parametrize("text", [
    "`unix:///tmp/rocm-bake-engine/docker.sock`, a registry on `127.0.0.1:5000`",
    "tests/fixtures/bake/vectors.json",
    "https://example.org/home/work/",
    "a/tmp/b and ~/work/x", ".github/workflows/pr.yml", "see /workflows", "a shared /tmp is",
    "src/rocm_bake/bake",
])
def test_a_repository_path_or_url_is_no_machine_path(text: str) -> None:
    assert not machine_paths("f", text)


def test_a_match_says_file_and_line() -> None:
    assert machine_paths("docs/x.md", "one\ntwo `/work/x/y`\n") == ["docs/x.md:2: /work/x/y"]
