"""Issue 30's recipe differences from upstream (vLLM's docker/Dockerfile.rocm_72_base and
Dockerfile.rocm_72 of VLLM_REF's sdist, replayed from the committed snapshot): the lint finds
each on the Dockerfiles as they were before the fix (tests/lint/fixtures/issue30-main/, see its
README), with no waiver of the committed policy accepted for them; and the waivers' own rules
(an open question is no reason; a stale [[dockerfiles.implied]] entry; no stale-waiver advice
when the bake model fails)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from rocm_bake_checks import lint
from rocm_bake_checks.lint import policy, upstream
from tests.conftest import ROOT
from tests.lint.cases import FROM, target
from tests.lint.pyindex import make_wheel
from tests.lint.test_rules import write
from tests.lint.test_upstream_dockerfiles import GOOD, STAGES, config, findings

BEFORE = Path(__file__).parent / "fixtures" / "issue30-main"
CHECKS = ROOT / "dockerfiles" / "checks"


def repository_before(tmp_path: Path) -> Path:
    """The repository's bake file and dockerfiles/, with the Dockerfiles before the fix."""
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copy(ROOT / "rocm-bake.hcl", root / "rocm-bake.hcl")
    shutil.copytree(ROOT / "dockerfiles", root / "dockerfiles")
    for path in BEFORE.glob("*.Dockerfile"):
        shutil.copy(path, root / "dockerfiles" / path.name)
    return root


def lint_before(tmp_path: Path, family: str) -> list[str]:
    root = repository_before(tmp_path)
    return [str(f) for f in lint.run(root, [root / "rocm-bake.hcl"], [family], policy.POLICY)]


def test_conformance_finds_gcc13_the_pin_script_and_proton_before_the_fix(tmp_path: Path
                                                                          ) -> None:
    found = lint_before(tmp_path, "conformance")
    wanted = [
        # fix 3: gcc-13 from the toolchain PPA, switched to for the torch builds
        "dockerfiles/base.Dockerfile:58: apt-base: upstream's base installs gcc-13 "
        "(Dockerfile.rocm_72_base stage base:51); this base does not",
        "dockerfiles/base.Dockerfile:58: apt-base: upstream's base installs g++-13 "
        "(Dockerfile.rocm_72_base stage base:51); this base does not",
        "dockerfiles/torch.Dockerfile:4: build-toolchain: upstream's Dockerfile.rocm_72_base stage "
        "build_pytorch builds with /usr/bin/gcc switched to /usr/bin/gcc-13 "
        "(update-alternatives, Dockerfile.rocm_72_base:147); here it is not switched",
        # fix 4: the wheel pinned to the cell's own wheels by upstream's script
        "dockerfiles/vllm.Dockerfile:141: build-scripts: upstream's Dockerfile.rocm_72 stage "
        "build_vllm_wheel_release runs the source's tools/vllm-rocm/pin_rocm_dependencies.py "
        "(Dockerfile.rocm_72:728); this stage does not",
        # fix 5: Triton's profiler at Triton's default
        "dockerfiles/triton.Dockerfile:5: build-flags: this stage builds with "
        "TRITON_BUILD_PROTON=OFF (triton.Dockerfile:33); upstream's Dockerfile.rocm_72_base stage "
        "build_triton leaves TRITON_BUILD_PROTON at its source's default: drop "
        "TRITON_BUILD_PROTON=OFF",
    ]
    for line in wanted:
        assert any(f.startswith(line) for f in found), (line, found)


def test_the_locks_family_finds_torchs_requirements_from_the_index_before_the_fix(
        tmp_path: Path) -> None:
    found = lint_before(tmp_path, "locks")
    assert any(f.startswith("dockerfiles/torch.Dockerfile:") and ": pip-unlocked: pip install: "
               "without --require-hashes" in f and "-r requirements.txt is neither a lock" in f
               for f in found), found


def conformance_with_policy(root: Path, files: dict[str, str], rules: str) -> list[str]:
    """The conformance family on the small repository of test_upstream_dockerfiles, with
    ``rules`` as the policy file (policy.toml at the root)."""
    files = {"upstream-dockerfiles.toml": config(STAGES), **files,
             "upstream.toml": "# no [[component]]\n", "policy.toml": rules}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    settings = upstream.Settings(config=root / "upstream.toml",
                                 dockerfiles=root / "upstream-dockerfiles.toml")
    return [str(f) for f in lint.run(root, [root / "docker-bake.hcl"], ["conformance"],
                                     root / "policy.toml", settings)]


def test_an_open_waiver_waives_nothing_and_is_a_finding_at_its_line(tmp_path: Path) -> None:
    bad = {**GOOD, "dockerfiles/base.Dockerfile":
           GOOD["dockerfiles/base.Dockerfile"].replace(" gcc-13 g++-13", " g++-13")}
    found = conformance_with_policy(
        tmp_path, bad, '# waivers\n\n[[exception]]\nrule = "apt-base"\n'
                       'file = "dockerfiles/base.Dockerfile"\ncontains = "installs gcc-13 "\n'
                       'reason = "OPEN: no build here has shown the link error yet"\n')
    assert found == [
        "dockerfiles/base.Dockerfile:4: apt-base: upstream's base installs gcc-13 "
        "(Dockerfile.rocm_72_base stage base:51); this base does not",
        "policy.toml:3: lint-policy: exception for apt-base in dockerfiles/base.Dockerfile "
        "gives an open question ('OPEN') as its reason, so it waives nothing: fix what it "
        "waives, or state the deliberate difference and why it is kept"]


def test_what_makes_a_reason_open() -> None:
    assert policy.open_question("OPEN (issue 23): later") == "OPEN"
    assert policy.open_question("(TODO) decide") == "TODO"
    assert policy.open_question("kept: no build here has shown that error") == \
        "no build here has shown"
    assert policy.open_question("the failure was not seen here") == "not seen here"
    # a reason that holds, even one naming what would change it
    assert policy.open_question("Openly kept: upstream's developer image only") == ""
    assert policy.open_question("cannot be recorded from here; issue 22 pins it") == ""


def test_the_committed_policy_has_no_open_waiver() -> None:
    assert [(w.line, w.rule, w.contains) for w in policy.load().exceptions
            if w.open_question()] == []


def test_a_stale_implied_entry_of_the_upstream_dockerfiles_config_is_a_finding(
        tmp_path: Path) -> None:
    stale = config(STAGES) + ('\n[[dockerfiles.implied]]\nflag = "USE_NOTHING=1"\n'
                              'package = "libnothing-dev"\nwhy = "no longer installed"\n')
    line = len(config(STAGES).splitlines()) + 2       # the appended entry's header
    assert stale.splitlines()[line - 1] == "[[dockerfiles.implied]]"
    found = findings(tmp_path, {**GOOD, "upstream-dockerfiles.toml": stale})
    assert found == [
        f"upstream-dockerfiles.toml:{line}: lint-policy: [[dockerfiles.implied]] USE_NOTHING=1 "
        "matches nothing: neither upstream's base nor this base installs libnothing-dev; "
        "remove it (or correct it)"]


def test_a_stale_waiver_of_an_upstream_dockerfiles_finding_is_a_finding(tmp_path: Path
                                                                        ) -> None:
    # build_mori is mapped (test_upstream_dockerfiles.STAGES): nothing is left to waive
    found = conformance_with_policy(
        tmp_path, GOOD, '[[exception]]\nrule = "build-components"\n'
                        'file = "upstream-dockerfiles.toml"\ncontains = "stage build_mori "\n'
                        'reason = "MoRI is not a component here"\n')
    assert found == [
        "policy.toml:1: lint-policy: exception for build-components in "
        "upstream-dockerfiles.toml matches no finding: remove it"]


def test_a_failing_bake_model_gives_no_advice_on_waivers(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copytree(ROOT / "dockerfiles", root / "dockerfiles")
    shutil.copy(ROOT / ".hadolint.yaml", root / ".hadolint.yaml")
    text = (ROOT / "rocm-bake.hcl").read_text(encoding="utf-8")
    start = text.index("CACHE_KEY = {")
    entry = text.index("\n  lmcache", start)
    broken = text[:entry] + text[text.index("\n", entry + 1):]
    (root / "rocm-bake.hcl").write_text(broken, encoding="utf-8")
    found = [str(f) for f in lint.run(root, [root / "rocm-bake.hcl"], policy_file=policy.POLICY)]
    assert found and all("lmcache" in f for f in found), found
    assert not any("lint-policy" in f for f in found), found


def _run_script(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CHECKS / "check-requires.py"), *map(str, args)],
                          capture_output=True, text=True, check=False)


def test_check_requires_names_each_companion_wheel_the_vllm_wheel_does_not_pin(
        tmp_path: Path) -> None:
    cell = tmp_path / "cell"
    make_wheel(cell, "torch", "2.12.0+git6bbd260")
    make_wheel(cell, "amd_aiter", "0.1.19")
    pinned = make_wheel(tmp_path / "a", "vllm", "0.28.0",
                        ["torch==2.12.0+git6bbd260", "amd-aiter==0.1.19", "numpy"])
    assert _run_script(pinned, cell).returncode == 0
    loose = make_wheel(tmp_path / "b", "vllm", "0.28.0", ["torch>=2.0", "numpy"])
    result = _run_script(loose, cell)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "check-requires: vllm-0.28.0-py3-none-any.whl does not require amd-aiter (the cell "
        "built amd-aiter 0.1.19)",
        "check-requires: vllm-0.28.0-py3-none-any.whl requires torch>=2.0, not "
        "torch==2.12.0+git6bbd260 (the cell's wheel)"]


def test_no_index_after_the_lock_fails_in_one_line_naming_what_the_lock_lacks(
        tmp_path: Path) -> None:
    site = tmp_path / "site"
    make_wheel(tmp_path / "w", "alpha", "1.0")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    base = [sys.executable, "-m", "pip", "install", "--quiet", "--no-cache-dir",
            "--disable-pip-version-check", "--target", str(site)]
    first = subprocess.run([*base, "--no-index", str(next((tmp_path / "w").glob("*.whl")))],
                           env=env, capture_output=True, text=True, check=False)
    assert first.returncode == 0, first.stderr
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("alpha\nbeta>=1\n")
    env["PYTHONPATH"] = str(site)
    # (--dry-run: the test's own environment is never changed; PYTHONPATH shows pip the site)
    checked = subprocess.run([*base[:-2], "--dry-run", "--no-index", "-r", str(requirements)],
                             env=env,
                             capture_output=True, text=True, check=False)
    assert checked.returncode != 0
    assert "No matching distribution found for beta>=1" in checked.stderr


LOCKED = ("COPY locks/app.txt /opt/locks/app.txt\n"
          "RUN pip install --require-hashes -r /opt/locks/app.txt \\\n"
          "    && pip install --no-index -r requirements.txt\n")


def lint_locks(root: Path, dockerfile: str, components: str = "") -> list[str]:
    files = {"docker-bake.hcl": target(), "Dockerfile": FROM + dockerfile,
             "locks/app.txt": "six==1.17.0 \\\n    --hash=sha256:" + "ab" * 32 + "\n",
             "upstream.toml": components or "# no [[component]]\n"}
    bake_file = write(root, files)
    settings = upstream.Settings(config=root / "upstream.toml")
    return [str(f) for f in lint.run(root, [bake_file], ["locks"], root / "no-policy.toml",
                                     settings)]


def test_no_index_after_the_lock_is_locked_and_its_file_an_input_of_the_lock(tmp_path: Path
                                                                              ) -> None:
    # the source's requirements.txt, checked against the lock, but no input of it
    assert lint_locks(tmp_path / "a", LOCKED) == [
        "Dockerfile:3: lock-inputs: pip install --no-index -r requirements.txt: the source's "
        "requirements.txt is no input of the lock (no upstream.toml [[component]] for "
        "Dockerfile lists it in `installs`, no [[nearest-copy]] stands in for it), so the lock "
        "is checked against it only when the image is built: record the file at the pin in "
        "the snapshot (`inv lint --online --record`) and declare it, or, where it cannot be "
        "had, record the nearest stored copies' lines; then `inv lock`"]
    # declared in upstream.toml: `inv lock` resolves the lock from it
    declared = ('[[component]]\nname = "app"\ndockerfile = "Dockerfile"\n'
                'base = "https://example.invalid/app"\nbuild-system = "pyproject.toml"\n'
                'installs = ["requirements.txt"]\n')
    assert lint_locks(tmp_path / "b", LOCKED, declared) == []


def test_no_index_with_no_lock_installed_first_is_unlocked(tmp_path: Path) -> None:
    found = lint_locks(tmp_path, "COPY locks/app.txt /opt/locks/app.txt\n"
                                 "RUN pip install --no-index -r requirements.txt\n"
                                 "RUN pip install --require-hashes -r /opt/locks/app.txt\n")
    assert "Dockerfile:3: pip-unlocked: pip install: --no-index installs from what is already " \
           "installed: install the component's lock first, in the same RUN " \
           "(-r .../locks/<component>.txt)" in found, found
    # an index (or links) with --no-index is an index install like any other
    found = lint_locks(tmp_path / "c", "COPY locks/app.txt /opt/locks/app.txt\n"
                       "RUN pip install --require-hashes -r /opt/locks/app.txt \\\n"
                       "    && pip install --no-index --find-links /w -r requirements.txt\n")
    assert any(": pip-unlocked: pip install: without --require-hashes" in f for f in found), found
