"""git-commit: a step that fetches a source gets the pinned commit, not a branch or tag of the
build day.  A commit only mentioned in the step (an ``echo`` of it) is not enough: the commit
is what is fetched (``git fetch origin ${X_COMMIT}``, as vLLM's docker/Dockerfile.rocm_72_base
build_rocm_runtime does), or what is checked out, or fetch-source.sh's COMMIT operand."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_bake_checks.lint import fetches
from rocm_bake_checks.lint.consistency import Dockerfiles

FROM = "FROM debian:bookworm AS build\nARG X_REF\nARG X_COMMIT\nARG X_REPO\n"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def findings(tmp_path: Path, run: str) -> list[str]:
    path = tmp_path / "x.Dockerfile"
    path.write_text(FROM + run, encoding="utf-8")
    return [str(f) for f in fetches.check([path], Dockerfiles(), tmp_path)]


@pytest.mark.parametrize("run", [
    # upstream's form: the commit fetched, FETCH_HEAD checked out
    "RUN git init -q /src && cd /src && git remote add origin ${X_REPO} \\\n"
    "    && git fetch --filter=blob:none --depth 1 origin ${X_COMMIT} \\\n"
    "    && git checkout -q FETCH_HEAD\n",
    f"RUN git -C /src fetch origin {COMMIT}\n",
    "RUN git -C /src fetch origin develop && git -C /src checkout -q ${X_COMMIT}\n",
    "RUN git clone https://example.org/x.git && git -C x checkout ${X_COMMIT}\n",
    'RUN fetch-source.sh "${X_REPO}" "${X_REF}" "${X_COMMIT}" /src/x --submodules\n',
    'RUN fetch-source.sh "${X_REPO}" "${X_REF}" \\\n    "${X_COMMIT}" /src/x\n',
])
def test_the_pinned_commit_fetched_or_checked_out(tmp_path: Path, run: str) -> None:
    assert findings(tmp_path, run) == []


def test_a_branch_fetched_while_the_commit_is_only_mentioned(tmp_path: Path) -> None:
    found = findings(tmp_path, 'RUN git -C /src fetch --depth 1 origin "${X_REF}" \\\n'
                               "    && git -C /src checkout -q FETCH_HEAD \\\n"
                               '    && echo "${X_COMMIT}" > /src/commit\n')
    assert found == ["x.Dockerfile:5: git-commit: git fetch of ${X_REF}: a branch or tag, not "
                     "the pinned commit, and the step checks out no commit: fetch the commit "
                     "(git fetch --depth 1 origin ${X_COMMIT}, then git checkout "
                     "FETCH_HEAD, as upstream does) or use fetch-source.sh REPO REF COMMIT DEST"]


@pytest.mark.parametrize(("commit", "said"), [('""', "an empty string"),
                                              ('"${X_REF}"', "'${X_REF}'")])
def test_fetch_source_without_the_commit(tmp_path: Path, commit: str, said: str) -> None:
    found = findings(tmp_path, f'RUN fetch-source.sh "${{X_REPO}}" "${{X_REF}}" {commit} /src\n')
    assert found == [f"x.Dockerfile:5: git-commit: fetch-source.sh is given {said} as its "
                     "COMMIT, not the pinned commit: pass ${X_COMMIT} "
                     "(fetch-source.sh REPO REF COMMIT DEST; the REF is only checked against it)"]
