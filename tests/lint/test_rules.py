"""Each lint rule catches its bad case and accepts its good one (tests/lint/cases.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_bake_checks import lint
from tests.lint.cases import CASES, FROM, Case, target


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "docker-bake.hcl"


def run(root: Path, files: dict[str, str], family: str) -> list[lint.Finding]:
    bake_file = write(root, files)
    return lint.run(root, [bake_file], [family], policy_file=root / "no-policy.toml")


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_catches_the_bad_case(name: str, tmp_path: Path) -> None:
    case: Case = CASES[name]
    findings = run(tmp_path, case.bad, case.family)
    assert any(f.rule == case.rule for f in findings), [str(f) for f in findings]
    for finding in findings:
        assert str(finding).startswith(f"{finding.file}:{finding.line}: {finding.rule}: ")
        assert "\n" not in str(finding)


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_accepts_the_good_case(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    assert [str(f) for f in run(tmp_path, case.good, case.family)] == []


def test_findings_point_at_the_offending_line(tmp_path: Path) -> None:
    findings = run(tmp_path, CASES["arg-missing"].bad, "consistency")
    assert [str(f) for f in findings] == [
        "Dockerfile:2: arg-missing: app: ARG NEEDED has no default and the target does not "
        "pass it"]


def test_one_finding_names_every_cell_of_a_matrix(tmp_path: Path) -> None:
    files = {"docker-bake.hcl": 'variable "GPU_ARCHS" {\n  type = list(string)\n'
             '  default = ["a"]\n}\nALL_ARCHS = ["a", "b"]\n'
             'target "app" {\n  matrix = { arch = GPU_ARCHS }\n  name = "app-${arch}"\n'
             '  args = { ARCH = arch }\n}\ngroup "all" {\n'
             '  targets = [for a in GPU_ARCHS : "app-${a}"]\n}\n',
             "Dockerfile": CASES["arg-missing"].good["Dockerfile"].replace("ARG NEEDED\n", "")}
    findings = run(tmp_path, files, "consistency")
    assert [f.message for f in findings] == [
        "app-a, app-b: passes arg ARCH, not declared in stage 'app' of Dockerfile or a stage "
        "it builds from (BuildKit ignores it)"]


def test_triton_kernels_env_of_the_stage_built_from_counts(tmp_path: Path) -> None:
    """A stage built FROM another stage of the file has its ENV (vllm.Dockerfile's build stage
    is FROM deps, which sets TRITON_KERNELS_SRC_DIR); a stage FROM the image does not."""
    build = "RUN VLLM_TARGET_DEVICE=rocm python setup.py bdist_wheel\n"
    inherited = (FROM.replace(" AS app", " AS deps")
                 + "ENV TRITON_KERNELS_SRC_DIR=/opt/rocm-triton-kernels\n"
                 + "FROM deps AS mid\nFROM mid AS app\n" + build)
    assert [str(f) for f in run(tmp_path / "good", {"docker-bake.hcl": target(stage="app"),
                                                    "Dockerfile": inherited}, "recipes")] == []
    sibling = (FROM.replace(" AS app", " AS deps")
               + "ENV TRITON_KERNELS_SRC_DIR=/opt/rocm-triton-kernels\n"
               + FROM + build)
    findings = run(tmp_path / "bad", {"docker-bake.hcl": target(stage="app"),
                                      "Dockerfile": sibling}, "recipes")
    assert [f.rule for f in findings] == ["triton-kernels"]
