"""Coherence between pins, read through the bake model and, where needed, upstream files:

- ``triton-pin``: TRITON_COMMIT equals PyTorch's own pin
  ``.ci/docker/ci_commit_pins/triton.txt`` at PYTORCH_COMMIT;
- ``vllm-torch``: PYTORCH_VERSION satisfies vLLM's ``torch`` requirement at VLLM_COMMIT;
- ``rocm-labels``: every declared ``+rocmX.Y`` variant and ROCM_BASE_TAG agree with
  ROCM_VERSION;
- ``arch-lists``: GPU_ARCHS, SKIP and the per-arch spellings agree with ALL_ARCHS;
- ``X_REF~COMMIT``: a release tag X_REF peels to X_COMMIT (annotated tags included).

A rule whose variables the bake file does not have is not applicable and not reported.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from rocm_bake.core.errors import HCLError
from rocm_bake.model.bakefile import Definition
from rocm_bake.model.hcl.values import Value
from rocm_bake_checks.drift import versions
from rocm_bake_checks.drift.declarations import PinSpec
from rocm_bake_checks.drift.fetch import UnavailableError
from rocm_bake_checks.drift.model import Finding, Status
from rocm_bake_checks.drift.sources.git import GitSource

TRITON_PIN_FILE = ".ci/docker/ci_commit_pins/triton.txt"
VLLM_REQUIREMENT_FILES = ("requirements/rocm-build.txt", "requirements/rocm.txt")
Rule = tuple[str, Callable[[], Finding | None]]


class Coherence:
    def __init__(self, definition: Definition, specs: list[PinSpec], git: GitSource) -> None:
        self.definition = definition
        self.specs = {s.name: s for s in specs}
        self.git = git

    def rules(self) -> list[Rule]:
        """The rules that apply to this bake file (those whose variables it has)."""
        rules: list[Rule] = [(name, check) for name, check, needs in (
            ("triton-pin", self.triton_pin, ("TRITON_COMMIT", "PYTORCH_COMMIT", "PYTORCH_REPO")),
            ("vllm-torch", self.vllm_torch, ("VLLM_COMMIT", "VLLM_REPO", "PYTORCH_VERSION")),
            ("rocm-labels", self.rocm_labels, ("ROCM_VERSION",)),
            ("arch-lists", self.arch_lists, ("GPU_ARCHS", "ALL_ARCHS")),
        ) if all(self._has(n) for n in needs)]
        for name in sorted(self.specs):
            ref = name.removesuffix("_COMMIT") + "_REF"
            spec = self.specs[name]
            if name.endswith("_COMMIT") and self._has(ref) and spec.upstream == "git" and \
                    self._str(ref) and spec.tags.match(self._str(ref)):
                rules.append((f"{ref}~COMMIT", functools.partial(self.ref_commit, name)))
        return rules

    def reads(self, rule: str) -> set[str]:
        """The variables rule ``rule`` reads (a change to any of them is a change to it)."""
        fixed = {"triton-pin": {"TRITON_COMMIT", "PYTORCH_COMMIT", "PYTORCH_REPO"},
                 "vllm-torch": {"VLLM_COMMIT", "VLLM_REPO", "PYTORCH_VERSION"},
                 "arch-lists": {"GPU_ARCHS", "ALL_ARCHS", "SKIP", "ARCHS", "ARCH_ARGS"}}
        if rule in fixed:
            return fixed[rule]
        if rule == "rocm-labels":   # a pin's _SOURCE change is a change of the pin
            return {"ROCM_VERSION", "ROCM_BASE_TAG", *self.specs}
        ref = rule.removesuffix("~COMMIT")
        return {ref, ref.removesuffix("_REF") + "_COMMIT"}

    def repositories(self, rules: list[Rule]) -> list[str]:
        """Repositories whose files ``rules`` read (their history is fetched early)."""
        names = {r[0] for r in rules}
        return [self._str(variable) for rule, variable in (("triton-pin", "PYTORCH_REPO"),
                                                           ("vllm-torch", "VLLM_REPO"))
                if rule in names and self._has(variable)]

    @staticmethod
    def run(rule: Rule) -> Finding | None:
        name, check = rule
        try:
            return check()
        except UnavailableError as exc:
            return Finding(name, "", "coherence", Status.UNCHECKED, str(exc))

    # -- helpers -----------------------------------------------------------------------
    def _has(self, name: str) -> bool:
        try:
            self.definition.value(name)
        except HCLError:
            return False
        return True

    def _str(self, name: str) -> str:
        value = self.definition.value(name)
        return value if isinstance(value, str) else ""

    def _value(self, name: str) -> Value:
        return self.definition.value(name)

    def _finding(self, name: str, value: str, ok: bool, good: str, bad: str) -> Finding:
        return Finding(name, value, "coherence", Status.UP_TO_DATE if ok else Status.INCOHERENT,
                       good if ok else bad)

    # -- rules --------------------------------------------------------------------------
    def triton_pin(self) -> Finding | None:
        if not all(self._has(n) for n in ("TRITON_COMMIT", "PYTORCH_COMMIT", "PYTORCH_REPO")):
            return None
        ours, torch = self._str("TRITON_COMMIT"), self._str("PYTORCH_COMMIT")
        finding = Finding("triton-pin", ours, "coherence", Status.UNCHECKED, "")
        text = self.git.show(self._str("PYTORCH_REPO"), torch, TRITON_PIN_FILE,
                             finding.explanation)
        if text is None:
            finding.detail = f"{TRITON_PIN_FILE} does not exist at torch {torch[:12]}"
            return finding
        theirs = text.strip()
        ok = bool(theirs) and (ours.startswith(theirs) or theirs.startswith(ours))
        return self._finding(
            "triton-pin", ours, ok, f"torch@{torch[:8]} pins triton {theirs[:12]}, as we do",
            f"torch@{torch[:8]} pins triton {theirs[:12]} ({TRITON_PIN_FILE}); TRITON_COMMIT "
            f"is {ours[:12]}")

    def vllm_torch(self) -> Finding | None:
        if not all(self._has(n) for n in ("VLLM_COMMIT", "VLLM_REPO", "PYTORCH_VERSION")):
            return None
        torch = versions.parse(self._str("PYTORCH_VERSION"))
        finding = Finding("vllm-torch", self._str("PYTORCH_VERSION"), "coherence",
                          Status.UNCHECKED, "")
        if torch is None:
            finding.detail = "PYTORCH_VERSION is not a version"
            return finding
        commit = self._str("VLLM_COMMIT")
        for path in VLLM_REQUIREMENT_FILES:
            text = self.git.show(self._str("VLLM_REPO"), commit, path, finding.explanation)
            requirement = _torch_requirement(text or "")
            if requirement is not None:
                ok = requirement.specifier.contains(Version(torch.public), prereleases=True)
                return self._finding(
                    "vllm-torch", str(torch), ok,
                    f"vLLM@{commit[:8]} {path} wants {requirement}: satisfied",
                    f"vLLM@{commit[:8]} {path} wants {requirement}; PYTORCH_VERSION is {torch}")
        finding.detail = f"no torch requirement in {', '.join(VLLM_REQUIREMENT_FILES)} at " \
                         f"vLLM {commit[:12]}"
        return finding

    def rocm_labels(self) -> Finding | None:
        if not self._has("ROCM_VERSION"):
            return None
        rocm = self._str("ROCM_VERSION")
        want = tuple(int(p) for p in rocm.split(".") if p.isdigit())
        bad: list[str] = []
        for spec in self.specs.values():
            for variant in {spec.wheel_filter.variant, spec.wheels.variant if spec.wheels else ""}:
                have = versions.rocm_version(variant)
                if have is not None and want[:len(have)] != have:
                    bad.append(f"{spec.name}_SOURCE +{variant}")
        if self._has("ROCM_BASE_TAG") and not self._str("ROCM_BASE_TAG").startswith(rocm):
            bad.append(f"ROCM_BASE_TAG {self._str('ROCM_BASE_TAG')}")
        return self._finding("rocm-labels", rocm, not bad,
                             f"every +rocm label and the base tag match ROCm {rocm}",
                             f"not ROCm {rocm}: {', '.join(sorted(bad))}")

    def arch_lists(self) -> Finding | None:
        if not all(self._has(n) for n in ("GPU_ARCHS", "ALL_ARCHS")):
            return None
        known = _list(self._value("ALL_ARCHS"))
        bad = [f"GPU_ARCHS has {a}" for a in _list(self._value("GPU_ARCHS")) if a not in known]
        skip = self._value("SKIP") if self._has("SKIP") else {}
        if isinstance(skip, dict):
            components = self._value("ARCHS") if self._has("ARCHS") else {}
            for key in skip:
                arch, _, component = key.partition("/")
                if arch not in known or (isinstance(components, dict)
                                         and component not in components):
                    bad.append(f"SKIP key {key}")
        if self._has("ARCH_ARGS"):
            bad.extend(_spellings(self._value("ARCH_ARGS"), known))
        return self._finding("arch-lists", ",".join(known), not bad,
                             f"arch lists agree ({', '.join(known)})",
                             f"arch lists disagree: {'; '.join(bad)}")

    def ref_commit(self, commit_name: str) -> Finding | None:
        spec = self.specs[commit_name]
        ref_name = commit_name.removesuffix("_COMMIT") + "_REF"
        ref, commit = self._str(ref_name), spec.value
        if spec.upstream != "git" or not ref or not spec.tags.match(ref):
            return None
        finding = Finding(f"{ref_name}~COMMIT", ref, "coherence", Status.UNCHECKED, "")
        listing = self.git.listing(spec.location, finding.explanation)
        target = listing.commits.get(ref)
        if target is None:
            finding.status = Status.NOT_FOUND
            finding.detail = f"tag {ref} does not exist in {self.git.where(spec.location)}"
            return finding
        return self._finding(finding.name, ref, target == commit,
                             f"tag {ref} is {commit_name} {commit[:12]}",
                             f"tag {ref} is {target[:12]}, {commit_name} is {commit[:12]}")


def _torch_requirement(text: str) -> Requirement | None:
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(requirement.name) == "torch":
            return requirement
    return None


def _list(value: Value) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _spellings(arch_args: Value, known: list[str]) -> list[str]:
    bad: list[str] = []
    if not isinstance(arch_args, dict):
        return ["ARCH_ARGS is not a map"]
    for arch in known:
        knobs = arch_args.get(arch)
        if not isinstance(knobs, dict):
            bad.append(f"ARCH_ARGS has no {arch}")
            continue
        for knob, value in knobs.items():
            separator = "," if knob == "HCC_AMDGPU_TARGET" else ";"
            parts = value.split(separator) if isinstance(value, str) else []
            if parts != [arch]:
                bad.append(f"ARCH_ARGS[{arch}].{knob} = {value!r}")
    return bad
