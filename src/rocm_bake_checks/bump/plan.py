"""What a bump changes: each rule of ``upstream.toml`` applied to upstream's ARGs at the
release, every name resolved (git for commits, the source at the commit for versions, the
registry for the base image's digest). Nothing is written here: a name that cannot be
resolved, or a pin upstream dropped, is a ``BumpError`` before any file is touched."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rocm_bake.core.errors import HCLError, RocmBakeError
from rocm_bake.model.bakefile import Definition
from rocm_bake_checks.bump.config import Config, PinRule, Recipe, VllmRule
from rocm_bake_checks.bump.recipe import Arg, Files, RecipeError, args
from rocm_bake_checks.bump.recipediff import Change as RecipeChange
from rocm_bake_checks.drift.fetch import UnavailableError
from rocm_bake_checks.drift.model import Explanation
from rocm_bake_checks.drift.sources.git import GitSource

_ROCM = re.compile(r"^([0-9]+\.[0-9]+\.[0-9]+)")


class BumpError(RocmBakeError):
    """The bump cannot be done; nothing was written (one line: the pin, the address asked)."""


@dataclass(frozen=True)
class Change:
    variable: str
    old: str
    new: str
    group: str
    why: str          # where the new value comes from (upstream ARG, resolved how)


@dataclass
class Plan:
    release: str
    recipe: Recipe
    changes: list[Change] = field(default_factory=list)
    upstream: dict[str, list[str]] = field(default_factory=dict)   # group -> lines
    needs: list[str] = field(default_factory=list)   # what still needs a person
    unfollowed: list[str] = field(default_factory=list)   # ARGs no rule maps
    recipe_change: RecipeChange | None = None   # upstream's recipe, followed -> this release

    def values(self) -> dict[str, str]:
        return {c.variable: c.new for c in self.changes if c.new != c.old}

    def changed(self) -> list[Change]:
        return [c for c in self.changes if c.new != c.old]


# base image reference -> (registry host, repository): DigestOf answers its manifest digest
DigestOf = Callable[[str, str, str], str]


class Planner:
    def __init__(self, config: Config, definition: Definition, git: GitSource,
                 digest_of: DigestOf, files: Files, release: str,
                 recipe: Recipe | None = None) -> None:
        self.config = config
        self.definition = definition
        self.git = git
        self.digest_of = digest_of
        self.files = files
        self.release = release.removeprefix("v")
        self.recipe = recipe or config.recipe(self.release)
        self.args = {which: self._args(which) for which in ("base", "image")}

    def _args(self, which: str) -> dict[str, Arg]:
        path = self.recipe.path(which)
        text = self.files.text(path)
        if text is None:
            raise BumpError(f"{path}: not in {self.files.where} (vLLM {self.release}'s "
                            f"recipe per {self.config.path.name})")
        try:
            return args(text)
        except RecipeError as exc:
            raise BumpError(f"{path} ({self.files.where}): {exc}") from None

    # -- the bake file's side ---------------------------------------------------------------
    def has(self, name: str) -> bool:
        try:
            self.definition.value(name)
        except HCLError:
            return False
        return True

    def value(self, name: str) -> str:
        value = self.definition.value(name)
        return value if isinstance(value, str) else ""

    def applies(self, rule: PinRule) -> bool:
        """The rule's pins are in the bake file (else its component is not one here)."""
        return all(self.has(v) for v in rule.variables())

    # -- the plan -------------------------------------------------------------------------
    def plan(self, groups: set[str] | None, vllm_commit: str) -> Plan:
        plan = Plan(self.release, self.recipe)
        self._prepare_git()
        if groups is None or self.config.vllm.group in groups:
            self._vllm(plan, vllm_commit)
        for rule in self.config.pins:
            if groups is not None and rule.group not in groups:
                continue
            if not self.applies(rule):
                plan.upstream.setdefault(rule.group, []).append(
                    f"{rule.arg}: not a component here (no {', '.join(rule.variables())})")
                continue
            arg = self.args[rule.file].get(rule.arg)
            if arg is None:
                raise BumpError(f"{rule.variables()[0]}: upstream dropped ARG {rule.arg} "
                                f"({self.recipe.path(rule.file)} at vLLM {self.release})")
            plan.upstream.setdefault(rule.group, []).append(
                f"{rule.arg}={arg.value}" + (f"  # {arg.comment}" if arg.comment else ""))
            KINDS[rule.kind](self, plan, rule, arg)
        mapped = {r.arg for r in self.config.pins} | {
            r.repo_arg for r in self.config.pins if r.repo_arg} | self.config.ignored
        for which, found in self.args.items():
            plan.unfollowed += [f"{self.recipe.path(which)}: ARG {a.name}={a.value}"
                                for a in found.values() if a.name not in mapped and a.value]
        return plan

    def _prepare_git(self) -> None:
        """Every repository's branches planned before the first fetch (one fetch each)."""
        for rule in self.config.pins:
            if rule.kind != "commit" or not self.applies(rule):
                continue
            arg = self.args[rule.file].get(rule.arg)
            if arg is not None:
                self.git.plan(self._repo(rule), self._branch(rule, arg))

    def _repo(self, rule: PinRule) -> str:
        if rule.repo_arg:
            declared = self.args[rule.file].get(rule.repo_arg)
            if declared is not None and declared.value:
                return declared.value
        return self.value(rule.variable("repo-pin"))

    @staticmethod
    def _branch(rule: PinRule, arg: Arg) -> str:
        return arg.branch_note or rule.branch

    def _add(self, plan: Plan, name: str, new: str, group: str, why: str) -> None:
        plan.changes.append(Change(name, self.value(name), new, group, why))

    def _resolve(self, pin: str, url: str, name: str, branch: str) -> str:
        try:
            return self.git.resolve(url, name, branch, Explanation())
        except UnavailableError as exc:
            raise BumpError(f"{pin}: cannot resolve {name!r} at {self.git.where(url)}: {exc}") \
                from None

    def _vllm(self, plan: Plan, hint: str) -> None:
        rule = self.config.vllm
        url = self.value(rule.repo_pin)
        tag = f"v{self.release}"
        commit = self._resolve(rule.commit, url, tag, "")
        if hint and not commit.startswith(hint):
            raise BumpError(f"{rule.commit}: tag {tag} of {self.git.where(url)} is "
                            f"{commit[:12]}, the release's sdist was made from {hint}")
        self._add(plan, rule.ref, tag, rule.group, "the release asked for")
        self._add(plan, rule.commit, commit, rule.group, f"tag {tag}")
        self._sdist(plan, rule)

    def _sdist(self, plan: Plan, rule: VllmRule) -> None:
        """The release's sdist pins, from the sdist the bump read (never half the group)."""
        names = [n for n in (rule.sdist_url, rule.sdist_sha256) if n and self.has(n)]
        if not names:
            return
        url, sha256 = (str(getattr(self.files, key, "")) for key in ("url", "sha256"))
        if not url or not sha256:
            raise BumpError(f"{names[0]}: {self.files.where} is not the release's sdist "
                            "(bump with --source sdist to move it)")
        where = "the release's sdist on PyPI"
        if rule.sdist_url and self.has(rule.sdist_url):
            self._add(plan, rule.sdist_url, url, rule.group, where)
        if rule.sdist_sha256 and self.has(rule.sdist_sha256):
            self._add(plan, rule.sdist_sha256, sha256, rule.group, f"{where}: PyPI's sha256")

    def _commit(self, plan: Plan, rule: PinRule, arg: Arg) -> None:
        url = self._repo(rule)
        pin = rule.variable("commit")
        repo_pin = rule.variable("repo-pin")
        if repo_pin and rule.repo_arg and url != self.value(repo_pin):
            self._add(plan, repo_pin, url, rule.group, f"upstream's {rule.repo_arg}")
        branch = self._branch(rule, arg)
        commit = self._resolve(pin, url, arg.value, branch)
        listing = self.git.listing(url, Explanation())
        if arg.value in listing.commits:
            ref, how = arg.value, f"tag {arg.value}"
        elif arg.value in listing.heads:
            ref, how = arg.value, f"head of branch {arg.value}"
        else:
            ref = arg.branch_note or rule.label.format(release=self.release) or branch
            how = f"{arg.value} on {branch}" if branch and len(arg.value) < 40 else "commit"
        if not rule.optional or self.value(pin):
            self._add(plan, pin, commit, rule.group, f"{rule.arg}: {how}")
        if rule.variable("ref") and ref:
            self._add(plan, rule.variable("ref"), ref, rule.group, f"{rule.arg}: {how}")
        if rule.version is not None and rule.variable("version-pin"):
            self._add(plan, rule.variable("version-pin"), self._version(rule, url, commit),
                      rule.group, f"{rule.version.file} at {commit[:12]}")

    def _version(self, rule: PinRule, url: str, commit: str) -> str:
        assert rule.version is not None
        pin = rule.variable("version-pin")
        try:
            text = self.git.show(url, commit, rule.version.file, Explanation())
        except UnavailableError as exc:
            raise BumpError(f"{pin}: {rule.version.file} at {commit[:12]} of "
                            f"{self.git.where(url)}: {exc}") from None
        found = rule.version.regex.search(text or "")
        if found is None:
            raise BumpError(f"{pin}: no version in {rule.version.file} at {commit[:12]} of "
                            f"{self.git.where(url)} (pattern {rule.version.regex.pattern})")
        return found.group(1)

    def _version_kind(self, plan: Plan, rule: PinRule, arg: Arg) -> None:
        template = rule.template or "{}"
        self._add(plan, rule.variable("pin"), template.format(arg.value), rule.group,
                  f"{rule.arg}={arg.value}")

    def _image(self, plan: Plan, rule: PinRule, arg: Arg) -> None:
        repository, _, tag = arg.value.rpartition(":")
        if not repository or "@" in arg.value:
            raise BumpError(f"{rule.variable('repository')}: upstream's {rule.arg} "
                            f"{arg.value!r} is not NAME:TAG")
        rocm = _ROCM.match(tag)
        if rule.variable("rocm"):
            if rocm is None:
                raise BumpError(f"{rule.variable('rocm')}: the tag {tag!r} of upstream's "
                                f"{rule.arg} names no ROCm X.Y.Z")
            self._add(plan, rule.variable("rocm"), rocm.group(1), rule.group,
                      f"{rule.arg} tag {tag}")
        self._add(plan, rule.variable("repository"), repository, rule.group, rule.arg)
        self._add(plan, rule.variable("tag"), tag, rule.group, rule.arg)
        if rule.variable("digest"):
            try:
                digest = self.digest_of(repository, tag, rule.variable("digest"))
            except RocmBakeError as exc:
                raise BumpError(f"{rule.variable('digest')}: {exc}") from None
            self._add(plan, rule.variable("digest"), digest, rule.group,
                      f"manifest of {repository}:{tag}")


KINDS: dict[str, Callable[[Planner, Plan, PinRule, Arg], None]] = {
    "commit": Planner._commit, "version": Planner._version_kind, "image": Planner._image}
