"""Run the lint's rule families over a repository and its bake files."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from rocm_bake_checks.lint import (
    bakemodel,
    caching,
    components,
    conformance,
    consistency,
    dockerconformance,
    downloads,
    fetches,
    hadolint,
    launchers,
    pins,
    pinuse,
    policy,
    recipes,
    supportedarchs,
    upstream,
)
from rocm_bake_checks.lint.bakemodel import BakeTarget, relative
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.findings import Finding, LintError
from rocm_bake_checks.lint.locks import resolution
from rocm_bake_checks.lint.locks import rules as locks

FAMILIES = ("hadolint", "consistency", "pins", "downloads", "caching", "recipes", "conformance",
            "locks", "resolution")
# Rules whose policy exceptions are judged (applied, or reported stale) only when their family
# runs: the lint of another bake file (the engine test variant) cannot tell.
FAMILY_RULES = {"locks": locks.RULES, "conformance": dockerconformance.RULES,
                "resolution": resolution.RULES}


def metadata_settings(online: bool = False, offline: str = "", record: str = "",
                      rewrites: Sequence[str] = ()) -> upstream.Settings:
    """The conformance family's metadata source from ``inv lint``'s flags (bad combinations
    are a LintError, one line)."""
    if online and offline:
        raise LintError("--online and --offline exclude each other")
    if (record or rewrites) and not online:
        raise LintError("--record and --rewrite need --online (offline replays a snapshot)")
    pairs = []
    for item in rewrites:
        prefix, sep, replacement = item.partition("=")
        if not sep or not prefix or not replacement:
            raise LintError(f"--rewrite {item!r} must be PREFIX=REPLACEMENT")
        pairs.append((prefix, replacement))
    return upstream.Settings(
        offline=None if online else Path(offline) if offline else upstream.SNAPSHOT,
        record=Path(record) if record else None, rewrites=tuple(pairs))


def _dockerfiles_of(targets: list[BakeTarget]) -> list[Path]:
    return sorted({t.dockerfile for t in targets
                   if t.dockerfile is not None and t.dockerfile.is_file()})


def run(root: Path, bake_files: Sequence[Path], families: Sequence[str] = FAMILIES,
        policy_file: Path = policy.POLICY,
        metadata: upstream.Settings | None = None) -> list[Finding]:
    """Every finding, sorted, after the policy's exceptions.  ``metadata`` says how the
    conformance family has upstream metadata (default: the committed snapshot, offline)."""
    unknown = sorted(set(families) - set(FAMILIES))
    if unknown:
        raise LintError(f"unknown rule family {unknown[0]}; families: {', '.join(FAMILIES)}")
    for path in bake_files:
        if not path.is_file():
            raise LintError(f"bake file {path} does not exist")
    rules = policy.load(policy_file)
    unjudged = {rule for family, names in FAMILY_RULES.items() if family not in families
                for rule in names}
    rules = dataclasses.replace(rules, exceptions=tuple(
        e for e in rules.exceptions if e.rule not in unjudged))
    findings: list[Finding] = []
    checked: set[str] = set()  # the files the rules read
    if "hadolint" in families:
        discovered = hadolint.discover(root, rules.hadolint_exclude)
        findings += hadolint.check(discovered, root)
        checked |= {relative(p, root) for p in discovered}
    if set(families) - {"hadolint"}:
        bake_findings, bake_checked, modelled = _bake_rules(
            root, bake_files, families, metadata or upstream.Settings(), policy_file)
        findings += bake_findings
        checked |= bake_checked
        if not modelled:
            # The bake model failed: no bake rule ran, so none of their exceptions can be
            # judged (only hadolint's, which read the files themselves).
            rules = dataclasses.replace(rules, exceptions=tuple(
                e for e in rules.exceptions if e.rule.startswith("hadolint-")))
    kept = policy.apply(rules, findings, relative(policy_file, root), checked)
    return sorted(set(kept))


def _checked_files(root: Path, bake_files: Sequence[Path], paths: list[Path],
                   targets: list[BakeTarget]) -> set[str]:
    """The files the bake rules read: the bake files, the Dockerfiles and every file of the
    targets' contexts (an exception for any other file cannot be judged stale by this run)."""
    out = {relative(p, root) for p in [*bake_files, *paths]}
    for context in {t.context for t in targets if t.context.is_dir()}:
        out |= {relative(p, root) for p in context.rglob("*") if p.is_file()}
    return out


def _bake_rules(root: Path, bake_files: Sequence[Path], families: Sequence[str],
                metadata: upstream.Settings, policy_file: Path | None = None
                ) -> tuple[list[Finding], set[str], bool]:
    """The bake rules' findings, the files they read, and whether the bake model could be
    planned (False: only what a component's declaration lacks was found)."""
    definition = bakemodel.load(list(bake_files))
    declared = components.check(definition, root) if "consistency" in families else []
    try:
        targets = bakemodel.targets(definition, root)
    except LintError:
        if declared:          # the plan fails for what a component lacks: name that instead
            return declared, {relative(p, root) for p in bake_files}, False
        raise
    files = Dockerfiles()
    paths = _dockerfiles_of(targets)
    findings: list[Finding] = list(declared)
    if "consistency" in families:
        findings += consistency.check(targets, files, root)
        findings += components.check_dockerfiles(definition, targets, files, root)
        findings += pinuse.check(definition, root)
    if "pins" in families:
        findings += pins.check_variables(definition, root)
        findings += pins.check_targets(targets, files, root)
        findings += pins.check_dockerfile_text(paths, files, root)
    if "downloads" in families:
        findings += downloads.check_dockerfiles(paths, files, root)
        findings += downloads.check_context_files([t.context for t in targets], root)
        findings += fetches.check(paths, files, root)
    if "caching" in families:
        findings += caching.check(paths, files, root)
        findings += launchers.check_recipes(paths, files, root)
    if "recipes" in families:
        findings += recipes.check(paths, files, root)
    if {"conformance", "locks", "resolution"} & set(families):
        fetched = upstream.Metadata(metadata)
        if "conformance" in families:
            findings += conformance.check(definition, root, fetched)
            findings += dockerconformance.check(definition, targets, root, fetched, files,
                                                policy_file)
            findings += supportedarchs.check(definition, root, fetched)
            findings += launchers.check_upstream(
                metadata.config, {v.name: v.value for v in definition.variables()}, root,
                fetched)
        if "locks" in families:
            findings += locks.check_installs(paths, files, root)
            findings += locks.check_declared(paths, files, root,
                                             upstream.load_config(metadata.config))
            findings += locks.check_locks(definition, list(bake_files), targets, root, fetched)
        if "resolution" in families:
            findings += resolution.check(definition, list(bake_files), targets, root, fetched)
        fetched.save()
    checked = _checked_files(root, bake_files, paths, targets)
    if "conformance" in families:
        # its findings also point at its own config files (an unmapped upstream stage is
        # upstream-dockerfiles.toml's): their waivers are judged, stale ones reported
        checked |= {relative(p, root) for p in (metadata.config, metadata.dockerfiles)
                    if p is not None and p.is_file()}
    return findings, checked, True
