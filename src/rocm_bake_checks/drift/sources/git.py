"""Git upstreams through the git CLI, every call under a watchdog (sources/gitrun.py): the
git operations of one repository share its ``--timeout`` (git is not retried), each is cut
short by the total deadline too. Credentials never reach the disk: a cache repository's
``origin`` is the address without user-info, and the credentials travel in the environment
of each git process (credentials.py). Refs by ``ls-remote`` (annotated tags peeled to their
commits) and commit history from a blob-less bare fetch kept in a cache directory (the
commits and trees of the release tags and the branch, never a checkout, never blobs).

One connection per repository and run: a repository whose history is fetched for the first
time lists its refs from that fetch (every tag, and the branches the pins name), not from a
second connection; a repository already in the cache is asked with ``ls-remote``."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rocm_bake.core import atomic
from rocm_bake.net.credentials import Address, clean
from rocm_bake.net.errors import NetError
from rocm_bake.net.polite import HostLimits
from rocm_bake_checks.drift.fetch import Deadline, Fetcher, UnavailableError
from rocm_bake_checks.drift.model import Explanation
from rocm_bake_checks.drift.sources import Listing, gitrun

HEX40 = re.compile(r"^[0-9a-f]{40}$")
ABBREV = re.compile(r"^[0-9a-f]{4,40}$")
SMART_HTTP = "application/x-git-upload-pack-advertisement"
_REPO_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()


class GitSource:
    def __init__(self, fetcher: Fetcher, deadline: Deadline, cache_dir: Path | None,
                 fetched: Callable[[str], Address], timeout: float = 20.0,
                 via: Callable[[str], str] | None = None) -> None:
        self.fetcher = fetcher
        self.timeout = timeout
        self.hosts = HostLimits()
        self.deadline = deadline
        self.cache_dir = cache_dir
        self.fetched = fetched        # declared URL -> the address asked, credentials apart
        self.via = via or (lambda url: "")   # declared URL -> the option that sent it there
        self._spent: dict[str, float] = {}   # url -> seconds its git operations took
        self._budget_lock = threading.Lock()
        self._branches: dict[str, set[str]] = {}
        self._synced: dict[str, str] = {}   # url -> "" (done) or the error
        self._first_fetch: set[str] = set()  # planned URLs with no cache repository yet
        self.listed: set[str] = set()       # every URL whose refs were asked for (warmup.py)

    def where(self, url: str) -> str:
        """The address asked for a declared repository, credentials masked (messages)."""
        return self.fetched(url).shown

    def asked(self, url: str) -> str:
        """``ADDRESS (sent there by OPTION)``: where a declared repository was asked, for
        ``--explain``."""
        origin = self.via(url)
        return self.where(url) + (f" (sent there by {origin})" if origin else "")

    # -- one blob-less fetch per repository and run ---------------------------------------
    def plan(self, url: str, branch: str = "") -> None:
        """Declare, before the run, that ``url``'s history (and ``branch``) will be needed."""
        if url not in self._branches and self.cache_dir is not None and \
                self.fetcher.offline is None and not (self._path(url) / "HEAD").exists():
            self._first_fetch.add(url)
        branches = self._branches.setdefault(url, set())
        if branch:
            branches.add(branch)

    def planned(self) -> list[str]:
        return sorted(self._branches)

    def sync(self, url: str) -> None:
        """Fetch every tag and the planned branches of ``url`` into a cache seen for the
        first time, early and in parallel with ``ls-remote``. A warm cache is fetched into
        only when an answer is not already cached; offline runs never fetch."""
        if self.fetcher.offline is not None or self.cache_dir is None:
            return
        if (self._path(url) / "HEAD").exists():
            return
        with _repo_lock(url):
            self._sync_locked(url)

    def _sync_locked(self, url: str) -> None:
        if url not in self._synced:
            try:
                repo = self._repo(url)
                refspecs = ["+refs/tags/*:refs/tags/*", *(
                    f"+refs/heads/{b}:refs/heads/{b}" for b in sorted(self._branches.get(url,
                                                                                   ())))]
                self._require_smart_http(url)
                with self.hosts.slot(self.fetched(url).url):
                    self._git(repo, ["fetch", "--progress", "--filter=blob:none", "--no-tags",
                                     "--no-write-fetch-head", "--end-of-options", "origin",
                                     *refspecs], url)
                self._synced[url] = ""
            except UnavailableError as exc:
                self._synced[url] = str(exc)
        if self._synced[url]:
            raise UnavailableError(self._synced[url])

    def _require_smart_http(self, url: str) -> None:
        """Refuse, in one line, an http(s) repository that only speaks git's dumb protocol
        (a static file server): a blob-less fetch from one does not end until the watchdog
        kills it, while its refs (``ls-remote``) are served correctly. One GET of
        ``info/refs?service=git-upload-pack`` tells: a smart server answers with its
        advertisement's content type. Any other answer is left to git to report."""
        address = self.fetched(url)
        if not address.url.startswith(("http://", "https://")):
            return
        from rocm_bake.net import http as httpget  # noqa: PLC0415 (http(s) repositories only)

        headers = {"User-Agent": "git/2 (rocm-bake-version-check)"}
        if address.authorization():
            headers["Authorization"] = address.authorization()
        probe = address.url.rstrip("/") + "/info/refs?service=git-upload-pack"
        clock = self.deadline.clock
        try:
            with self.hosts.slot(address.url):
                started = clock.monotonic()
                try:   # the headers tell; the body (every ref) is not read
                    with httpget.open_url(probe, headers, max(0.05, min(
                            self._budget(url), self.deadline.check())), clock) as response:
                        status = response.status
                        kind = response.headers.get_content_type()
                finally:
                    self._spend(url, clock.monotonic() - started)
        except NetError:
            return
        if status == 200 and kind != SMART_HTTP:
            raise UnavailableError(
                f"{address.shown} speaks only git's dumb HTTP protocol (info/refs is {kind}, "
                f"not {SMART_HTTP}): commit history needs smart HTTP")

    # -- refs ---------------------------------------------------------------------------
    def listing(self, url: str, log: Explanation) -> Listing:
        self.listed.add(url)
        refs = self.fetcher.ask(f"git ls-remote {url}", lambda: self._refs(url), log)
        if not isinstance(refs, dict):
            raise UnavailableError(f"bad snapshot entry for git ls-remote {url}")
        tags = dict(refs.get("tags", {}))
        return Listing(names=sorted(tags), commits=tags, heads=dict(refs.get("heads", {})),
                       tag_objects=dict(refs.get("tag_objects", {})))

    def prefetch(self, url: str) -> None:
        """List ``url``'s refs now, for the check that will ask (``listing``)."""
        self.fetcher.prefetch(f"git ls-remote {url}", lambda: self._refs(url))

    def _refs(self, url: str) -> tuple[dict[str, Any], str]:
        if url in self._first_fetch:
            # the refs come from the history fetch when it works; when it does not (a dumb
            # HTTP mirror, a branch that is not there), ls-remote lists them as it would for a
            # repository whose history nobody needs: a tag pin's verdict is its own, whatever
            # a commit pin on the same repository needs
            try:
                refs = self._fetched_refs(url)
                return refs, f"{_refs_seen(refs)} from the blob-less fetch of {self.asked(url)}"
            except (_BranchMissingError, UnavailableError):
                pass
        return self._ls_remote(url)

    def _fetched_refs(self, url: str) -> dict[str, Any]:
        """The refs a first fetch brought: every tag (peeled), the branches planned."""
        try:
            repo = self._synced_repo(url)
        except UnavailableError as exc:
            if "couldn't find remote ref refs/heads/" in str(exc):
                raise _BranchMissingError from None
            raise
        return parse_ls_remote(self._git(repo, ["for-each-ref", LS_REMOTE_FORMAT, "refs/tags",
                                                "refs/heads"], url))

    def _ls_remote(self, url: str) -> tuple[dict[str, Any], str]:
        address = self.fetched(url).url
        with self.hosts.slot(address):
            output = self._git(None, ["ls-remote", "--tags", "--heads", "--end-of-options",
                                      address], url)
        refs = parse_ls_remote(output)
        return refs, f"{_refs_seen(refs)} listed by ls-remote of {self.asked(url)}"

    # -- history ------------------------------------------------------------------------
    def history(self, url: str, commit: str, releases: Sequence[str], commits: dict[str, str],
                branch: str, head: str, log: Explanation) -> dict[str, Any]:
        """Where ``commit`` sits relative to the release tags and the branch head."""
        newest = releases[0] if releases else ""
        digest = hashlib.sha256("\n".join(releases).encode()).hexdigest()[:16]
        key = (f"git history {url} {commit} newest={newest}@{commits.get(newest, '')} "
               f"branch={branch}@{head} releases={digest}")
        value = self.fetcher.ask(
            key, lambda: self._history(url, commit, releases, commits, branch), log,
            durable=_immutable(commit, newest, commits, head))
        if not isinstance(value, dict):
            raise UnavailableError(f"bad snapshot entry for {key}")
        return value

    def _history(self, url: str, commit: str, releases: Sequence[str], commits: dict[str, str],
                 branch: str) -> tuple[dict[str, Any], str]:
        repo = self._synced_repo(url, branch)
        present = self._has_commit(repo, commit) or self._fetch_commit(repo, commit, url)
        if not present:
            peeled = self._tag_object(repo, commit)
            if peeled:
                return {"present": False, "tag_object": peeled}, \
                    f"blob-less fetch of {self.asked(url)} (an annotated tag object, not a " \
                    "commit)"
            return {"present": False}, f"blob-less fetch of {self.asked(url)} (commit not " \
                "found)"
        return self._relations(repo, url, commit, releases, branch), \
            f"blob-less fetch of {self.asked(url)}"

    def _synced_repo(self, url: str, branch: str = "") -> Path:
        """The cache repository of ``url``, fetched into once in this run. Only that fetch
        (refs move) holds the repository's lock; reads, and fetches of single objects (which
        write a new pack and move no ref), run concurrently, as git allows."""
        with _repo_lock(url):
            self.plan(url, branch)
            self._sync_locked(url)
            return self._repo(url)

    def _relations(self, repo: Path, url: str, commit: str, releases: Sequence[str],
                   branch: str) -> dict[str, Any]:
        merged = set(self._lines(repo, ["tag", f"--merged={commit}"], url))
        containing = set(self._lines(repo, ["tag", f"--contains={commit}"], url))
        out: dict[str, Any] = {   # one pass over the releases (a set built once, not per tag)
            "present": True,
            "merged": [t for t in releases if t in merged],
            "contained_in": [t for t in releases if t in containing],
        }
        if releases:
            out["newest"] = self._counts(repo, url, commit, f"refs/tags/{releases[0]}")
        if branch:
            out["branch"] = self._counts(repo, url, commit, f"refs/heads/{branch}")
        return out

    def _counts(self, repo: Path, url: str, commit: str, ref: str) -> dict[str, int]:
        text = self._git(repo, ["rev-list", "--left-right", "--count", "--end-of-options",
                                f"{commit}...{ref}"], url)
        ahead, behind = (int(n) for n in text.split())
        return {"behind": behind, "ahead": ahead}

    # -- a name to its commit (inv bump) ---------------------------------------------------
    def resolve(self, url: str, name: str, branch: str, log: Explanation) -> str:
        """The 40-hex commit ``name`` (a tag, a branch, a full or an abbreviated commit) is in
        ``url``; an abbreviated one must be one commit on ``branch``. UnavailableError names
        what was asked and where, on one line."""
        listing = self.listing(url, log)
        if name in listing.commits:
            return listing.commits[name]
        if name in listing.heads:
            return listing.heads[name]
        if not ABBREV.match(name):
            raise UnavailableError(f"{name!r} is no tag, branch or commit of {self.where(url)}")
        value = self.fetcher.ask(f"git resolve {url} {name} branch={branch}",
                                 lambda: self._resolve(url, name, branch), log)
        return str(value)

    def _resolve(self, url: str, name: str, branch: str) -> tuple[str, str]:
        repo = self._synced_repo(url, branch if len(name) < 40 else "")
        if len(name) == 40:
            if self._has_commit(repo, name) or self._fetch_commit(repo, name, url):
                return name, "commit fetched"
            raise UnavailableError(f"commit {name} not found in {self.where(url)}")
        if not branch:
            raise UnavailableError(f"abbreviated commit {name} of {self.where(url)} names no "
                                   "branch to resolve it on")
        candidates = [oid for oid in self._lines(repo, ["rev-parse", f"--disambiguate={name}"],
                                                 url) if self._has_commit(repo, oid)]
        if not candidates:
            raise UnavailableError(f"abbreviated commit {name} is not in {self.where(url)} "
                                   f"(branch {branch} and the tags fetched)")
        if len(candidates) > 1:
            raise UnavailableError(f"abbreviated commit {name} is ambiguous in "
                                   f"{self.where(url)}: {', '.join(sorted(candidates))}")
        full = candidates[0]
        try:
            self._git(repo, ["merge-base", "--is-ancestor", "--end-of-options", full,
                             f"refs/heads/{branch}"], url,
                      quiet_fail=True)
        except _MissingError:
            raise UnavailableError(f"commit {full[:12]} ({name}) is not on branch {branch} of "
                                   f"{self.where(url)}") from None
        return full, f"abbreviated {name} resolved on {branch}"

    # -- a file at a commit (coherence) ---------------------------------------------------
    def show(self, url: str, commit: str, path: str, log: Explanation) -> str | None:
        key = f"git show {url} {commit}:{path}"
        value = self.fetcher.ask(key, lambda: self._show(url, commit, path), log,
                                 durable=bool(HEX40.match(commit)))
        return value if isinstance(value, str) else None

    def _show(self, url: str, commit: str, path: str) -> tuple[str | None, str]:
        repo = self._synced_repo(url)
        if not self._has_commit(repo, commit) and not self._fetch_commit(repo, commit, url):
            raise UnavailableError(f"commit {commit[:12]} not found in {self.where(url)}")
        try:
            text = self._git(repo, ["cat-file", "-p", "--end-of-options", f"{commit}:{path}"], url,
                             quiet_fail=True)
        except _MissingError:
            return None, f"{path} does not exist at {commit[:12]}"
        return text, f"blob fetched on demand from {self.asked(url)}"

    # -- plumbing -----------------------------------------------------------------------
    def _path(self, url: str) -> Path:
        if self.cache_dir is None:
            raise UnavailableError("commit history needs a cache directory (--cache-dir)")
        digest = hashlib.sha256(clean(url).encode()).hexdigest()[:20]
        return self.cache_dir / "git" / f"{digest}.git"

    def _repo(self, url: str) -> Path:
        """The cache repository of ``url``: a bare partial clone whose ``origin`` is the
        rewritten URL without user-info. Its layout (gitrepository-layout(5): objects, refs,
        config, then HEAD, which makes it a repository) is written here, with no git
        process, and none per use."""
        path = self._path(url)
        fetched_from = self.fetched(url).url
        if not (path / "HEAD").exists():
            for directory in ("objects/info", "objects/pack", "refs/heads", "refs/tags"):
                (path / directory).mkdir(parents=True, exist_ok=True)
            atomic.write_text(path / "config", CACHE_CONFIG.format(url=_quoted(fetched_from)))
            atomic.write_text(path / "HEAD", "ref: refs/heads/main\n")
        elif f"\turl = {_quoted(fetched_from)}\n" not in (path / "config").read_text():
            self._git(path, ["config", "--end-of-options", "remote.origin.url", fetched_from], url)
        return path

    def _has_commit(self, repo: Path, commit: str) -> bool:
        """True only for a commit object: a tag object's id is not a commit pin."""
        try:
            kind = self._git(repo, ["cat-file", "-t", "--end-of-options", commit], "",
                             quiet_fail=True)
        except _MissingError:
            return False
        return kind.strip() == "commit"

    def _tag_object(self, repo: Path, oid: str) -> str:
        """The commit an annotated tag object ``oid`` points at, or "" when it is none."""
        try:
            if self._git(repo, ["cat-file", "-t", "--end-of-options", oid], "",
                         quiet_fail=True).strip() != "tag":
                return ""
            return self._git(repo, ["rev-parse", "--end-of-options", f"{oid}^{{commit}}"], "",
                             quiet_fail=True).strip()
        except _MissingError:
            return ""

    def _fetch_commit(self, repo: Path, commit: str, url: str) -> bool:
        try:
            self._git(repo, ["fetch", "--progress", "--filter=blob:none", "--no-tags",
                             "--no-write-fetch-head", "--end-of-options", "origin", commit], url,
                      quiet_fail=True)
        except _MissingError:
            return False
        return self._has_commit(repo, commit)

    def _lines(self, repo: Path, args: list[str], url: str) -> list[str]:
        return [line.strip() for line in self._git(repo, args, url).splitlines() if line.strip()]

    def _git(self, repo: Path | None, args: list[str], url: str,
             quiet_fail: bool = False) -> str:
        """``git ARGS`` for ``url`` (its address, credentials in the environment), under the
        watchdog: what is left of ``url``'s ``--timeout``, or of the total deadline; a timeout
        is always reported, other failures are _MissingError when ``quiet_fail``."""
        left = self.deadline.check()
        extra = {"GIT_DIR": str(repo)} if repo is not None else {}
        env = gitrun.environment(extra)
        address = self.fetched(url) if url else Address("")
        env.update(address.git_environment(env))
        budget = self._budget(url)
        if budget <= 0:
            raise UnavailableError(f"git {args[0]} not started for {address.shown}: its "
                                   f"--timeout of {self.timeout:g} s is used up")
        reason = f"not done within the --timeout of {self.timeout:g} s" if budget <= left \
            else f"the --deadline of {self.deadline.seconds:g} s (the whole run) ran out " \
            f"({left:.1f} s left when git started)"
        started = self.deadline.clock.monotonic()
        try:
            result = gitrun.run(args, env, min(budget, left), reason)
        except gitrun.GitTimeoutError as exc:
            raise UnavailableError(f"git {args[0]} timed out for {address.shown}: {exc}") \
                from None
        except OSError as exc:
            raise UnavailableError(f"cannot run git: {exc.strerror or exc}") from None
        finally:
            self._spend(url, self.deadline.clock.monotonic() - started)
        if result.status != 0:
            if quiet_fail:
                raise _MissingError
            raise UnavailableError(f"git {args[0]} failed for {address.shown}: "
                                   f"{gitrun.error_line(result.stderr, result.status)}")
        return result.stdout

    def _budget(self, url: str) -> float:
        """Seconds left of ``url``'s ``--timeout``: what its git operations have not taken
        yet (waits for a free slot are not theirs); a local operation (no URL) has a
        ``--timeout`` of its own."""
        if not url:
            return self.timeout
        with self._budget_lock:
            return self.timeout - self._spent.get(url, 0.0)

    def _spend(self, url: str, seconds: float) -> None:
        if url:
            with self._budget_lock:
                self._spent[url] = self._spent.get(url, 0.0) + seconds


# for-each-ref printing what ls-remote prints: "oid<TAB>ref", and for an annotated tag a second
# line "commit<TAB>ref^{}"
LS_REMOTE_FORMAT = ("--format=%(objectname)%09%(refname)%(if)%(*objectname)%(then)%0a"
                    "%(*objectname)%09%(refname)^{}%(end)")

CACHE_CONFIG = """[core]
\trepositoryformatversion = 1
\tfilemode = true
\tbare = true
[extensions]
\tpartialClone = origin
[remote "origin"]
\turl = {url}
\tpromisor = true
\tpartialclonefilter = blob:none
[gc]
\tauto = 0
[maintenance]
\tauto = false
"""


def _quoted(value: str) -> str:
    """A git config value, quoted as ``git config`` writes one."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _MissingError(Exception):
    pass


class _BranchMissingError(Exception):
    """A first fetch failed because a planned branch is not upstream."""


def _immutable(commit: str, newest: str, commits: dict[str, str], head: str) -> bool:
    """A history answer is immutable when every ref in its key is a full commit id."""
    return bool(HEX40.match(commit)) and (not newest or bool(HEX40.match(commits.get(newest,
                                                                                      "")))) \
        and (not head or bool(HEX40.match(head)))


def _refs_seen(refs: dict[str, Any]) -> str:
    tags, heads = len(refs.get("tags", {})), len(refs.get("heads", {}))
    return f"{tags} tag{'s' if tags != 1 else ''}, {heads} branch{'es' if heads != 1 else ''}"


def _repo_lock(url: str) -> threading.Lock:
    with _LOCKS_LOCK:
        return _REPO_LOCKS.setdefault(url, threading.Lock())


def parse_ls_remote(output: str) -> dict[str, Any]:
    """``sha<TAB>ref`` lines to {tags: {name: commit}, heads: {name: commit}}; annotated tags
    (listed twice, the second time as ``name^{}``) resolve to the commit, not the tag object."""
    tags: dict[str, str] = {}
    peeled: dict[str, str] = {}
    heads: dict[str, str] = {}
    for line in output.splitlines():
        sha, _, ref = line.strip().partition("\t")
        if ref.startswith("refs/tags/"):
            name = ref.removeprefix("refs/tags/")
            if name.endswith("^{}"):
                peeled[name.removesuffix("^{}")] = sha
            else:
                tags[name] = sha
        elif ref.startswith("refs/heads/"):
            heads[ref.removeprefix("refs/heads/")] = sha
    return {"tags": {name: peeled.get(name, sha) for name, sha in sorted(tags.items())},
            "heads": dict(sorted(heads.items())),
            "tag_objects": {name: sha for name, sha in sorted(tags.items()) if name in peeled}}
