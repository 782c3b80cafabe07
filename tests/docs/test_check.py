"""``inv docs --check`` on a scratch copy: stale pages fail, regenerating fixes them, and the
variables page another task owns is read, never written."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli

VARIABLES = Path("docs/reference/variables.md")


def _bump_torch_version(checkout: Path) -> None:
    hcl = checkout / "rocm-bake.hcl"
    text = hcl.read_text(encoding="utf-8")
    marker = 'variable "PYTORCH_VERSION" {\n  type        = string\n  default     = "'
    assert marker in text, "rocm-bake.hcl no longer declares PYTORCH_VERSION as the test expects"
    start = text.index(marker) + len(marker)
    end = text.index('"', start)
    hcl.write_text(text[:start] + "9.9.9" + text[end:], encoding="utf-8")


def test_committed_pages_are_fresh_in_a_copy(checkout: Path) -> None:
    result = run_cli(["inv", "docs", "--check"], cwd=checkout)
    assert result.returncode == 0, result.stderr
    assert "up to date" in result.stdout


def test_a_bake_file_change_makes_check_fail_until_regenerated(checkout: Path) -> None:
    _bump_torch_version(checkout)
    stale = run_cli(["inv", "docs", "--check"], cwd=checkout)
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert "docs/reference/image-tags.md" in stale.stderr
    assert stale.stderr.count("\n") <= 1, "one line, naming every stale page"

    regenerated = run_cli(["inv", "docs"], cwd=checkout)
    assert regenerated.returncode == 0, regenerated.stderr
    assert "docs/reference/image-tags.md" in regenerated.stdout
    assert "9.9.9-git" in (checkout / "docs/reference/image-tags.md").read_text()
    assert (checkout / "site/reference/image-tags/index.html").is_file()

    fresh = run_cli(["inv", "docs", "--check"], cwd=checkout)
    assert fresh.returncode == 0, fresh.stderr


def test_the_variables_page_is_linked_once_it_exists_and_never_written(checkout: Path) -> None:
    page = checkout / VARIABLES
    sentinel = "# Bake variables\n\nWritten by inv version-check (this test's stand-in).\n"
    page.write_text(sentinel, encoding="utf-8")
    result = run_cli(["inv", "docs"], cwd=checkout)
    assert result.returncode == 0, result.stderr
    assert page.read_text(encoding="utf-8") == sentinel
    reference = (checkout / "site/reference/index.html").read_text(encoding="utf-8")
    assert 'href="variables/"' in reference
    assert (checkout / "site/reference/variables/index.html").is_file()


def test_without_the_variables_page_the_reference_says_where_it_comes_from(
        checkout: Path) -> None:
    (checkout / VARIABLES).unlink(missing_ok=True)
    result = run_cli(["inv", "docs"], cwd=checkout)
    assert result.returncode == 0, result.stderr
    reference = (checkout / "site/reference/index.html").read_text(encoding="utf-8")
    assert "not generated yet" in reference and "inv version-check" in reference
    assert not (checkout / VARIABLES).exists()


def test_serve_refuses_a_non_loopback_address() -> None:
    result = run_cli(["inv", "docs", "--serve", "--addr", "0.0.0.0:8000"])
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error: --addr '0.0.0.0:8000'")
    assert result.stderr.count("\n") == 1 and result.stdout == ""
