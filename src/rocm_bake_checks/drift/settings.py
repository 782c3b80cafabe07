"""``inv version-check``'s settings, each flag declared once: its field, its default and its
``--help`` line (``rocm_bake.core.flags``). The task's parameters are made from these fields
and its flags mapped back onto them (``tasks/_cli.py``); ``inv bump`` fills the ones its own
session needs (``bump/run.py``), ``inv regen`` those of the variables page. Loaded when the
tasks are listed: it imports nothing else of the checks."""

from __future__ import annotations

from dataclasses import dataclass

from rocm_bake.core.flags import flag

DEFAULT_FILE = "rocm-bake.hcl"   # rocm_bake.model.bakefile.DEFAULT_FILE (a test says so)


@dataclass
class DriftSettings:
    files: list[str] = flag([], "bake file (repeatable; default: rocm-bake.hcl)", name="file")
    rewrites: list[str] = flag(
        [], "PREFIX=REPLACEMENT applied to every upstream URL (mirrors, local servers); "
        "user:password@ in a URL is sent as Basic auth, masked, never stored", name="rewrite")
    only: list[str] = flag([], "check only these pins (repeatable or comma-separated; skips "
                               "coherence)")
    output: str = flag("table", choices={
        "json": "print the report as JSON",
        "markdown": "print the report as Markdown, and append it to the file "
                    "$GITHUB_STEP_SUMMARY names when set (only --markdown does; a summary "
                    "that cannot be written: exit 2)"})
    explain: str = flag("", "show the queries, candidates, dropping rules and winner for one "
                            "pin (or NAME[wheel], or a coherence rule): only it is checked, and "
                            "the exit status is its own (with --locks: one locked "
                            "distribution)")
    pr: str = flag("", "report only drift introduced since this git ref (e.g. origin/main): "
                       "the pins added or changed since it, and every coherence rule that reads "
                       "a changed variable (e.g. X_REF~COMMIT when only X_REF changed), checked "
                       "on both sides; unchanged pins are not reported; a ref that moved on "
                       "since the change forked (not an ancestor of HEAD) is read at their "
                       "merge base, with a warning saying so")
    record: str = flag("", "write a snapshot of everything fetched to this file")
    offline: str = flag("", "check against a snapshot file instead of the network "
                            "(deterministic)")
    docs: bool = flag(False, "write docs/reference/variables.md (with --check: fail if it is "
                             "stale)")
    docs_file: str = flag("", "with --docs: write (or --check) this file instead of "
                              "docs/reference/variables.md (the lanes' live page)")
    check: bool = flag(False, "with --docs: exit 1 when the committed page differs, write "
                              "nothing")
    deadline: float = flag(120.0, "total time budget in seconds (default 120); unfinished "
                                  "pins: exit 2")
    workers: int = flag(32, "concurrent requests (default 32)")
    timeout: float = flag(60.0, "seconds one upstream address may take in all, not per "
                                "attempt: an HTTP URL with its retries and back-offs (each page "
                                "or index URL has its own), a git repository's operations (git "
                                "is not retried, any transport); a request that times out has "
                                "used it all; --deadline still bounds the whole run (default "
                                "60: a cold blob-less fetch of a large repository fits)")
    retries: int = flag(2, "retries for 5xx and broken connections, within --timeout "
                           "(default 2)")
    max_wait: float = flag(60.0, "longest rate-limit reset to wait for, in seconds >= 0 "
                                 "(default 60)")
    github_api: str = flag("", "GitHub API base URL, http(s) (default https://api.github.com)")
    pypi: str = flag("", "PyPI base URL, http(s) (default https://pypi.org)")
    cache_dir: str = flag("", "git/ETag cache (default $XDG_CACHE_HOME/rocm-bake/drift; env "
                              "ROCM_BAKE_DRIFT_CACHE); 'off': none (commit pins fetch into a "
                              "temporary directory, removed after the run)")
    list_undeclared: bool = flag(False, "list the variables that declare no source (default: "
                                        "only their count)")
    images: str | None = flag(None, "check the published cell images instead: the pins each "
                                    "was built from (its provenance in the registry "
                                    "HOST[:PORT], only repositories under /PREFIX when given; "
                                    "default: fleet.toml's registry) against the bake file and "
                                    "upstream; exit 1 when one is stale", optional=True)
    images_out: str = flag("", "with --images: also write the report as JSON to this file "
                               "(the nightly page shows it)")
    fleet: str = flag("fleet.toml", "with --images and no registry: the fleet file naming it "
                                    "(default: fleet.toml)")
    locks: bool = flag(False, "check the locks instead: every distribution they pin against "
                              "its newest release on the index (--pypi; yanked and "
                              "pre-releases left out as pip does), and whether the lock's "
                              "inputs allow it; report only: exit 0, or 2 when the index could "
                              "not be asked")

    def __post_init__(self) -> None:
        """The flags as the check reads them: the default bake file when none is given,
        ``--only``'s comma-separated names apart."""
        self.files = list(self.files) or [DEFAULT_FILE]
        self.rewrites = list(self.rewrites)
        self.only = [name.strip() for value in self.only for name in value.split(",")
                     if name.strip()]
