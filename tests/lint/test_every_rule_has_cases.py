"""Every rule id the lint can emit has a bad case it must catch and a good case it must accept.

The rule ids are read from the code itself (ast): the literal rule of every ``Finding(...)`` the
lint families build (``rocm_bake_checks/lint``), each family's declared ``RULES`` and the
component rules of
``rocm_bake.model.components``. hadolint's own codes (``hadolint-DLnnnn``) are hadolint's and are
tested by hadolint. A rule is covered by one of the case tables the rule tests run (bad and good
files per rule), or by a pair of named tests in ``NAMED``: the test that must show the finding,
and the test of a clean input, each mentioning the rule id in its own source. Adding a rule
without its cases fails here, naming the rule and where it is emitted."""

from __future__ import annotations

import ast
from pathlib import Path

from rocm_bake.model import components
from tests.conftest import ROOT
from tests.lint import cases, test_conformance, test_upstream_dockerfiles

LINT = ROOT / "src" / "rocm_bake_checks" / "lint"
FINDINGS_MODULES = ("rocm_bake_checks.lint.findings", "findings")

# rule -> (file, the test that must find it, the test of the clean input)
OMISSIONS = "tests/components/test_omissions.py"
CLEAN = "test_the_whole_component_is_clean"
NAMED: dict[str, tuple[str, str, str]] = {
    "lock-stale": ("tests/lint/test_locks.py", "test_a_lock_whose_inputs_changed_is_stale",
                   "test_every_component_is_locked_by_version_and_sha256"),
    "lint-policy": ("tests/lint/test_policy.py", "test_a_stale_exception_is_a_finding",
                    "test_an_exception_with_a_reason_drops_its_finding"),
    "launcher-upstream": ("tests/lint/test_launchers.py", "test_upstream_that_decides_otherwise",
                          "test_good_upstream_and_a_wrapper_that_answers_it"),
    "lock-inputs": ("tests/lint/test_issue30_recipes.py",
                    "test_no_index_after_the_lock_is_locked_and_its_file_an_input_of_the_lock",
                    "test_no_index_after_the_lock_is_locked_and_its_file_an_input_of_the_lock"),
    **{rule: ("tests/lint/test_resolution.py", bad, "test_good_images_have_no_finding")
       for rule, bad in (("resolve-unsatisfiable", "test_unsatisfiable"),
                         ("resolve-unhashed", "test_missing_hash"),
                         ("resolve-downgrade", "test_downgrade_under_a_parent_image"),
                         ("resolve-pip-check", "test_pip_check_conflict"),
                         ("resolve-metadata",
                          "test_a_pin_without_recorded_metadata_names_inv_lock"))},
    "supported-archs": ("tests/lint/test_supported_archs.py",
                        "test_a_skip_of_what_upstream_ships_without_kernels_is_a_finding",
                        "test_what_upstream_ships_without_kernels_built_without_them_is_clean"),
    "context-unused": (OMISSIONS, "test_a_context_the_consumer_never_mounts", CLEAN),
    "component-all": (OMISSIONS, "test_no_cells_in_group_all", CLEAN),
    "component-group": (OMISSIONS, "test_no_group_of_its_own", CLEAN),
    "component-source": (OMISSIONS, "test_no_source", CLEAN),
    "variable-description": (OMISSIONS, "test_no_description", CLEAN),
    "component-export": (OMISSIONS, "test_not_exported_by_the_wheels_target", CLEAN),
    "component-pins": (OMISSIONS, "test_no_pins_entry", CLEAN),
    "component-table": (OMISSIONS, "test_no_cache_key_names_the_table", CLEAN),
    "component-skip": (OMISSIONS, "test_no_skip_entry_names_the_skip_to_add", CLEAN),
    "component-target": (OMISSIONS, "test_no_target_block_is_named", CLEAN),
    "component-arch": (OMISSIONS, "test_the_arch_knob_dropped", CLEAN),
    "component-wheels": (OMISSIONS, "test_a_wheel_named_unlike_the_component_undeclared", CLEAN),
    "component-consumer": (OMISSIONS, "test_the_consumer_image_does_not_install_it", CLEAN),
    "component-stale": (OMISSIONS, "test_a_table_entry_for_no_component", CLEAN),
    "component-libraries": ("tests/components/test_add_library.py",
                            "test_a_shared_library_undeclared",
                            "test_a_library_is_three_hand_edits_and_the_lint_passes"),
    "component-seconds": (OMISSIONS, "test_no_fleet_estimate", CLEAN),
    "component-upstream": (OMISSIONS, "test_upstream_stage_left_unmapped",
                           "test_the_whole_component_answers_upstream"),
    "component-waiver": (OMISSIONS, "test_a_waiver_of_a_stage_it_answers_is_stale",
                         "test_the_whole_component_answers_upstream"),
}


def _imports_lint_finding(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.ImportFrom) and node.module in FINDINGS_MODULES
               and any(alias.name == "Finding" for alias in node.names)
               for node in ast.walk(tree))


def _rule_argument(call: ast.Call) -> ast.expr | None:
    if len(call.args) > 2:
        return call.args[2]
    return next((k.value for k in call.keywords if k.arg == "rule"), None)


def emitted() -> dict[str, str]:
    """rule id -> where it is first emitted (file:line), for every literal rule of the lint."""
    rules: dict[str, str] = {}
    for path in sorted(LINT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        if not _imports_lint_finding(tree):
            continue  # not a lint family (e.g. locknewer builds version-check rows)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple)
                    and any(getattr(t, "id", "") == "RULES" for t in node.targets)):
                for item in node.value.elts:     # a family's declared RULES
                    if isinstance(item, ast.Constant) and isinstance(item.value, str):
                        rules.setdefault(item.value, f"{path.relative_to(ROOT)}:{item.lineno}")
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Finding":
                rule = _rule_argument(node)
                if isinstance(rule, ast.Constant) and isinstance(rule.value, str):
                    rules.setdefault(rule.value, f"{path.relative_to(ROOT)}:{node.lineno}")
    for component_rule in components.RULE_ORDER:
        rules.setdefault(component_rule, "src/rocm_bake/model/components/rules.py")
    return rules


def tabled() -> set[str]:
    """The rules of the case tables (each case has bad and good files; the upstream-Dockerfile
    table's good case is its one GOOD repository, test_the_good_repository_conforms)."""
    return ({case.rule for case in cases.CASES.values()}
            | {rule for rule, *_ in test_conformance.CASES.values()}
            | set(test_upstream_dockerfiles.CASES))


def _test_sources(file: str) -> dict[str, str]:
    text = (ROOT / file).read_text(encoding="utf-8")
    return {node.name: ast.get_source_segment(text, node) or ""
            for node in ast.walk(ast.parse(text)) if isinstance(node, ast.FunctionDef)}


def test_the_scan_sees_the_rules_it_must() -> None:
    rules = emitted()
    assert {"arg-missing", "build-requires", "lock-stale", "component-table"} <= set(rules)
    assert "lock" not in rules  # version-check --locks rows are not lint findings


def test_every_rule_has_a_bad_and_a_good_case() -> None:
    missing = {rule: where for rule, where in emitted().items()
               if rule not in tabled() and rule not in NAMED}
    assert not missing, ("lint rules without a bad and a good case (add one to tests/lint/"
                         f"cases.py, or a named pair to NAMED here): {missing}")


def test_every_named_case_exists_and_is_about_its_rule() -> None:
    for rule, (file, bad, good) in NAMED.items():
        tests = _test_sources(file)
        for name in (bad, good):
            assert name in tests, f"{rule}: {file} has no test {name}"
        assert rule in tests[bad], f"{rule}: {file}::{bad} never names the rule"


def test_no_case_is_for_a_rule_the_lint_cannot_emit() -> None:
    rules = set(emitted())
    stale = {r for r in (tabled() | set(NAMED)) - rules if not r.startswith("hadolint-")}
    assert not stale, f"cases for rules the lint no longer emits: {sorted(stale)}"


def test_the_named_files_are_in_the_repository() -> None:
    assert all(Path(ROOT / file).is_file() for file, *_ in NAMED.values())
