"""``inv version-check`` against hostile upstreams (issue 41): a listing body that never ends
stops at its cap, ``--images`` keeps ``--timeout`` (a registry that trickles), and a commit
pin on a repository with 100,000 release tags is placed among them in linear time (the test
bounds the child's CPU: a loop over the tags that rebuilt a set per tag never ends)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests import hostile
from tests.conftest import ROOT
from tests.drift.conftest import Checker, pin
from tests.drift.gitworld import GIT_ENV, git
from tests.hostile import MB

TRITON = pin("TRITON_VERSION", "3.9.0", pypi="triton")


def test_an_endless_listing_stops_at_its_cap(checker: Checker) -> None:
    with hostile.serving() as pypi:
        pypi.routes["/pypi/triton/json"] = hostile.endless(limit=256 * MB,
                                                           kind="application/json")
        rewrites = [r for r in checker.world.rewrites() if not r.startswith("https://pypi.org=")]
        result = checker.run(TRITON, rewrites=[*rewrites, f"https://pypi.org={pypi.url}"],
                             retries=0)
    assert result.code == 2, result
    finding = result.pin("TRITON_VERSION")
    assert finding["status"] == "could not check"
    assert f"answer over 128 MB reading {pypi.url}/pypi/triton/json (not read further)" in \
        str(finding["detail"]), finding
    assert pypi.sent and pypi.sent[0] < 192 * MB


def test_images_keeps_the_timeout(checker: Checker) -> None:
    with hostile.serving() as registry:
        registry.routes["/v2/_catalog"] = hostile.trickle(b'{"repositories": []}' + b" " * 200,
                                                          kind="application/json")
        host = registry.url.removeprefix("http://")
        result = checker.run(TRITON, images=host, timeout=3.0, output="table",
                             clock=registry.clock)
    assert result.code == 2, result
    assert result.err == (f"error: registry {host}: GET /v2/_catalog?n=1000: timed out after "
                          "3 s\n"), result


TAGS = 100_000
CHILD = """
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
from rocm_bake_checks.drift.fetch import Deadline, Fetcher
from rocm_bake_checks.drift.sources.git import GitSource
from rocm_bake_checks.drift.web import WebSettings

source = GitSource(Fetcher(Deadline(600.0)), Deadline(600.0), None, WebSettings().fetched,
                   timeout=600.0)
releases = [f"v1.{n // 1000}.{n % 1000}" for n in range(int(sys.argv[3]))]
value = source._relations(Path(sys.argv[1]), "https://github.com/big/tags.git", sys.argv[2],
                          releases, "")
print(len(value["merged"]), len(value["contained_in"]), value["newest"])
"""


def test_a_commit_among_100k_release_tags_is_placed_in_linear_time(tmp_path: Path) -> None:
    """The repository's 100k tags are written as git keeps many refs (packed-refs), one
    commit they all name; git answers ``tag --merged`` and ``--contains`` in a second, so
    the child's CPU limit is what the loop over them would exceed."""
    repo = tmp_path / "tags.git"
    repo.mkdir()
    git(repo, "init", "--quiet", "--bare", "--initial-branch=main")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, env=GIT_ENV, check=True,
                   text=True, input="commit refs/heads/main\ncommitter U <u@example.invalid> "
                   "1767225600 +0000\ndata 2\nc1\n\n")
    commit = git(repo, "rev-parse", "main").strip()
    tags = sorted(f"refs/tags/v1.{n // 1000}.{n % 1000}" for n in range(TAGS))
    (repo / "packed-refs").write_text("# pack-refs with: peeled fully-peeled sorted \n"
                                      + "".join(f"{commit} {tag}\n" for tag in tags))
    child = subprocess.run([sys.executable, "-c", CHILD, str(repo), commit, str(TAGS)],
                           cwd=ROOT, capture_output=True, text=True, check=False)
    assert child.returncode == 0, child.stderr[-2000:]   # SIGXCPU: over 60 s of CPU
    assert child.stdout.split() == [str(TAGS), str(TAGS), "{'behind':", "0,", "'ahead':", "0}"]
