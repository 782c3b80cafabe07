"""Content pins of a release's sdist (``sdist = INDEX``): its address and its sha256, checked
against what the world's PyPI simple index (PEP 691 JSON, PEP 503 HTML) lists for the release
the pin names; the real rocm-bake.hcl declarations, on the real file's values."""

from __future__ import annotations

from typing import Any

import pytest

from rocm_bake_checks.drift import docs
from rocm_bake_checks.drift.model import Finding, Report, Status
from tests.drift.conftest import Checker, Run, variable
from tests.drift.test_git_faults import refusing_port
from tests.drift.upstream import VLLM_SDIST, sdist_where

URL, SHA256 = VLLM_SDIST
OTHER_URL, OTHER_SHA256 = sdist_where("vllm-0.27.0.tar.gz")


def bake(url: str = URL, sha256: str = SHA256, ref: str = "v0.33.0",
         root: str = "https://pypi.org/simple") -> str:
    """The sdist pins as rocm-bake.hcl declares them (version from VLLM_REF)."""
    source = (f'  sdist   = "{root}"\n  package = "vllm"\n'
              '  version = trimprefix(VLLM_REF, "v")\n')
    return (variable("VLLM_REF", ref) + variable("VLLM_SDIST_URL", url)
            + f'VLLM_SDIST_URL_SOURCE = {{\n{source}  pin     = "url"\n}}\n'
            + variable("VLLM_SDIST_SHA256", sha256)
            + f'VLLM_SDIST_SHA256_SOURCE = {{\n{source}  pin     = "sha256"\n}}\n')


def checked(checker: Checker, text: str,
            **options: Any) -> tuple[Run, dict[str, Any], dict[str, Any]]:
    result = checker.run(text, **options)
    return result, result.pin("VLLM_SDIST_URL"), result.pin("VLLM_SDIST_SHA256")


@pytest.mark.parametrize("accept", ["json", "html"])
def test_the_right_pins_are_no_drift(checker: Checker, accept: str,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    if accept == "html":   # an index that speaks PEP 503 only: the same answer
        route = checker.world.web.routes["/simple/vllm/"]
        monkeypatch.setattr(route, "alternate", None)
    result, url, sha = checked(checker, bake())
    assert result.code == 0, result
    assert url["status"] == "up to date" and url["newest"] == URL, url
    assert url["detail"] == "the index's vllm-0.33.0.tar.gz"
    assert sha["status"] == "up to date" and sha["newest"] == SHA256, sha
    assert sha["detail"] == "the index's sha256 of vllm-0.33.0.tar.gz"


def test_a_wrong_sha256_is_drift_naming_the_variable_and_both_values(checker: Checker) -> None:
    wrong = "f" * 64
    result, url, sha = checked(checker, bake(sha256=wrong))
    assert result.code == 1, result
    assert url["status"] == "up to date"
    assert sha["status"] == "differs from upstream" and sha["drift"], sha
    assert sha["detail"] == (f"VLLM_SDIST_SHA256 is {wrong}; the index lists sha256 {SHA256} "
                             "for vllm-0.33.0.tar.gz")


def test_another_releases_sha256_is_drift(checker: Checker) -> None:
    result, _, sha = checked(checker, bake(sha256=OTHER_SHA256))
    assert result.code == 1 and sha["status"] == "differs from upstream", sha
    assert f"is {OTHER_SHA256}; the index lists sha256 {SHA256}" in str(sha["detail"])


def test_a_url_that_is_not_pypis_for_the_release_is_drift(checker: Checker) -> None:
    mirror = "https://files.pythonhosted.org/packages/00/00/" + "0" * 60 + "/vllm-0.33.0.tar.gz"
    result, url, sha = checked(checker, bake(url=mirror))
    assert result.code == 1, result
    assert url["status"] == "differs from upstream" and url["drift"], url
    assert url["detail"] == (f"VLLM_SDIST_URL is {mirror}; the index lists vllm-0.33.0.tar.gz "
                             f"at {URL}")
    assert sha["status"] == "up to date"


def test_another_releases_sdist_is_drift(checker: Checker) -> None:
    """VLLM_SDIST_URL names 0.27.0's sdist while VLLM_REF is v0.33.0: not the release's."""
    result, url, _ = checked(checker, bake(url=OTHER_URL))
    assert result.code == 1, result
    assert url["status"] == "pin not found upstream", url
    assert url["detail"] == ("VLLM_SDIST_URL names vllm-0.27.0.tar.gz, not vllm-0.33.0.tar.gz, "
                             f"the sdist of vllm 0.33.0: VLLM_SDIST_URL is {OTHER_URL}; the "
                             f"index lists {URL}")


def test_a_release_without_an_sdist_is_drift(checker: Checker) -> None:
    result, url, sha = checked(checker, bake(ref="v9.9.9"))
    assert result.code == 1, result
    for row in (url, sha):
        assert row["status"] == "pin not found upstream", row
        assert str(row["detail"]).endswith("/simple lists no sdist of vllm 9.9.9 (100 sdists "
                                           "seen)"), row


def test_an_unreachable_index_is_could_not_check(checker: Checker) -> None:
    with refusing_port() as port:
        result, url, sha = checked(
            checker, bake(root="https://pypi.org/down"), retries=0,
            rewrites=[f"https://pypi.org/down=http://127.0.0.1:{port}/down",
                      *checker.world.rewrites()])
    assert result.code == 2, result
    for row in (url, sha):
        assert row["status"] == "could not check", row
        assert str(row["detail"]).startswith("connection failed"), row
        assert f"127.0.0.1:{port}/down/vllm/" in str(row["detail"]), row


def test_a_yanked_sdist_is_taken_for_its_exact_release_and_said_so(checker: Checker) -> None:
    checker.world.web.simple("/yanked", "vllm", ["vllm-0.33.0.tar.gz"],
                             yanked={"vllm-0.33.0.tar.gz": "broken build"},
                             where={"vllm-0.33.0.tar.gz": VLLM_SDIST})
    result, url, sha = checked(checker, bake(root="https://pypi.org/yanked"))
    assert result.code == 0, result
    assert url["detail"] == ("the index's vllm-0.33.0.tar.gz (yanked (broken build): taken "
                             "only for the exact pin, as pip takes it)"), url
    assert sha["status"] == "up to date", sha


def test_an_sdist_declaration_without_its_release_is_refused(checker: Checker) -> None:
    text = variable("X_URL", URL) + 'X_URL_SOURCE = {\n  sdist = "https://pypi.org/simple"\n' \
        '  package = "vllm"\n}\n'
    result = checker.run(text)
    assert result.code == 2 and "an sdist pin needs package" in result.err, result
    assert "\n" not in result.err.strip()


def test_the_variables_page_shows_sdist_pins_short_and_links_the_file() -> None:
    """The page's table fits 1280 px: the URL is a link named by its file, the sha256 its
    first 12 characters (tests/docs/test_variables_page.py measures the width)."""
    rows = [Finding("VLLM_SDIST_URL", URL, "url", Status.UP_TO_DATE, "", newest=URL,
                    upstream="sdist: https://pypi.org/simple"),
            Finding("VLLM_SDIST_SHA256", SHA256, "sha256", Status.UP_TO_DATE, "",
                    newest=SHA256, upstream="sdist: https://pypi.org/simple")]
    report = Report(rows, [], "2026-08-20T12:00:00+00:00", "offline",
                    values={"VLLM_SDIST_URL": URL, "VLLM_SDIST_SHA256": SHA256})
    page = docs.render(report)
    assert f"| [vllm-0.33.0.tar.gz]({URL}) | ok: up to date | [vllm-0.33.0.tar.gz]({URL}) |" \
        in " ".join(page.split()), page   # the cells as rendered, padding aside
    assert f"`{SHA256[:12]}`" in page and f"`{SHA256}`" not in page
