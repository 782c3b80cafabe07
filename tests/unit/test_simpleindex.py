"""The one parser of a package index's project page (rocm_bake.net.simpleindex): PEP 691 JSON
and PEP 503 HTML give the same files, a yanked file marked with its reason (PEP 592), and
``installable`` is pip's rule for them; no other module of the project parses such a page."""

from __future__ import annotations

import html
import json

import pytest

from rocm_bake.net import simpleindex
from rocm_bake.net.simpleindex import IndexFile
from tests.conftest import ROOT

PAGE = "https://index.example/simple/demo-pkg/"
SHA = {"1.0": "a" * 64, "1.1": "b" * 64, "1.2": "c" * 64}
YANKED = {"1.1": "", "1.2": "broken metadata"}   # version -> reason ("" given none)
EXPECTED = [IndexFile(f"demo_pkg-{v}-py3-none-any.whl",
                      f"https://files.example/demo_pkg-{v}-py3-none-any.whl", SHA[v],
                      YANKED.get(v)) for v in SHA]


def html_page() -> str:
    links = "\n".join(
        f'<a href="https://files.example/{f.filename}#sha256={f.sha256}"'
        + ("" if f.yanked is None else
           " data-yanked" if not f.yanked else f' data-yanked="{html.escape(f.yanked)}"')
        + f">{f.filename}</a><br/>" for f in EXPECTED)
    return f"<!DOCTYPE html>\n<html><body>\n<a href=\"../\">../</a>\n{links}\n</body></html>\n"


def json_page() -> str:
    return json.dumps({"meta": {"api-version": "1.1"}, "name": "demo-pkg", "files": [
        {"filename": f.filename, "url": f.url, "hashes": {"sha256": f.sha256},
         "yanked": True if f.yanked == "" else f.yanked or False} for f in EXPECTED]})


@pytest.mark.parametrize(("body", "content_type"), [
    (html_page(), "text/html; charset=utf-8"),
    (json_page(), "application/vnd.pypi.simple.v1+json"),
], ids=["PEP 503 HTML", "PEP 691 JSON"])
def test_both_forms_give_the_same_files_yanked_ones_marked(body: str,
                                                           content_type: str) -> None:
    files = simpleindex.parse(body, content_type, PAGE)
    assert files == EXPECTED
    assert [f.why_yanked for f in files] == ["", "yanked", "yanked (broken metadata)"]


def test_links_are_resolved_against_the_page_and_keep_no_fragment() -> None:
    body = ('<html><body><a href="../../files/x-1.0.tar.gz#sha256=' + "d" * 64 + '">x</a>'
            '<a href="x%2B1-1.0.tar.gz#md5=00">y</a></body></html>')
    assert simpleindex.parse(body, "text/html", PAGE) == [
        IndexFile("x-1.0.tar.gz", "https://index.example/files/x-1.0.tar.gz", "d" * 64),
        IndexFile("x+1-1.0.tar.gz", f"{PAGE}x%2B1-1.0.tar.gz")]
    relative = json.dumps({"files": [{"filename": "x-1.0.tar.gz", "url": "../x-1.0.tar.gz",
                                      "hashes": {}}]})
    assert simpleindex.parse(relative, simpleindex.PEP691, PAGE) == [
        IndexFile("x-1.0.tar.gz", "https://index.example/simple/x-1.0.tar.gz")]


@pytest.mark.parametrize(("body", "content_type", "message"), [
    ('{"files": [{"filename": "x"}]}', simpleindex.PEP691, "malformed PEP 691 JSON from "),
    ("not json", simpleindex.PEP691, "malformed PEP 691 JSON from "),
    ('<html><body><a href="x-1.0.tar.gz">x</a>', "text/html",
     "truncated HTML from https://index.example/simple/demo-pkg/ (no closing </html>)"),
], ids=["JSON without url", "not JSON", "HTML cut short"])
def test_a_page_that_is_not_one_is_one_line(body: str, content_type: str,
                                            message: str) -> None:
    with pytest.raises(simpleindex.PageError) as caught:
        simpleindex.parse(body, content_type, PAGE)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_pip_takes_a_yanked_file_only_for_an_exact_pin_that_nothing_else_satisfies() -> None:
    kept, yanked = EXPECTED[0], EXPECTED[2]
    assert simpleindex.installable([kept, yanked], exact=True) == [kept]
    assert simpleindex.installable([kept, yanked], exact=False) == [kept]
    assert simpleindex.installable([yanked], exact=True) == [yanked]
    assert simpleindex.installable([yanked], exact=False) == []


def test_no_other_module_parses_an_index_page() -> None:
    """The PEP 691 media type, PEP 592's HTML attribute and an HTML parser appear in the one
    parser only (rocm_bake.net.simpleindex); every caller goes through it."""
    marks = ("vnd.pypi.simple", "data-yanked", "HTMLParser")
    found = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "src").rglob("*.py")
                   if any(m in p.read_text(encoding="utf-8") for m in marks))
    assert found == ["src/rocm_bake/net/simpleindex.py"]
