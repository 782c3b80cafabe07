"""The stages a target is built from, as BuildKit resolves them: a FROM whose name is built of
global ARGs (vLLM v0.33.0 docker/Dockerfile.rocm_72: ``FROM final_lmcache_${INSTALL_LMCACHE}
AS final``, ``ARG INSTALL_LMCACHE=false``) reaches the stage its defaults name."""

from __future__ import annotations

from pathlib import Path

from rocm_bake_checks.lint.dockerfile import parse_text

TEXT = """\
ARG CHOICE=false
ARG NONE
FROM scratch AS build
FROM scratch AS common
COPY --from=build /a /a
FROM common AS pick_false
FROM common AS pick_true
FROM pick_${CHOICE} AS final
FROM pick_$NONE AS unknown
"""


def reached(target: str) -> list[str | None]:
    parsed = parse_text(TEXT, Path("Dockerfile"))
    stage = parsed.stage(target)
    assert stage is not None
    return [s.name for s in parsed.reachable(stage)]


def test_a_from_built_of_global_args_reaches_the_stage_their_defaults_name() -> None:
    assert reached("final") == ["build", "common", "pick_false", "final"]


def test_an_arg_without_a_default_names_no_stage() -> None:
    assert reached("unknown") == ["unknown"]
