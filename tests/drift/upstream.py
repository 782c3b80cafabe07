"""The upstream world the tests, the benchmark and the committed snapshot use: real git repos
(fixture tag names, plus realistic tags where the fixture snapshots stop early) served by
``git daemon``, and PyPI / wheel indexes / GitHub API from one local HTTP server."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from rocm_bake.model import bakefile
from rocm_bake_checks.drift import declarations
from tests.drift import gitworld, webworld, worldpins
from tests.drift.gitworld import Repo, Spec, fixture_tags

PY = "cp312-cp312-manylinux_2_28_x86_64"
UPSTREAM = gitworld.UPSTREAM
BAKE = Path(__file__).resolve().parents[2] / "rocm-bake.hcl"


def pypi_versions(name: str) -> list[str]:
    return (UPSTREAM / "pypi" / f"{name}.txt").read_text().split()


def _tags(names: Sequence[str], start: str = "2024-01-01") -> list[tuple[str, str, str]]:
    """Realistic tags for repos without a fixture: one a fortnight from ``start``."""
    year, month, day = (int(p) for p in start.split("-"))
    out = []
    for index, name in enumerate(names):
        month_index = month - 1 + (day + 14 * index) // 28
        out.append((name, f"{year + month_index // 12:04d}-{month_index % 12 + 1:02d}-"
                          f"{(day + 14 * index) % 28 + 1:02d}", "tag" if index % 2 else "commit"))
    return out


ROCM_EXTRA = ["rocm-6.4.0", "rocm-6.4.1", "rocm-6.4.3", "rocm-7.0.0", "rocm-7.0.2",
              "rocm-7.1.0", "rocm-7.1.1", "rocm-7.2.0", "rocm-7.2.1", "rocm-7.2.2", "rocm-7.2.3",
              "rocm-7.3.0"]
TORCH_TAGS = ["v2.9.0", "v2.9.1", "v2.10.0", "v2.11.0", "v2.12.0", "v2.12.1", "v2.13.0",
              "v2.14.0", "v2.14.1", "v2.15.0"]
VISION_TAGS = ["v0.24.0", "v0.24.1", "v0.25.0", "v0.26.0", "v0.27.0", "v0.27.1", "v0.28.0",
               "v0.29.0", "v0.30.0"]
AUDIO_TAGS = ["v2.9.0", "v2.9.1", "v2.10.0", "v2.11.0", "v2.12.0", "v2.13.0", "v2.14.0"]
CUPY_TAGS = ["v13.5.0", "v13.6.0", "v14.0.0", "v14.0.1", "v14.1.0", "v14.2.0"]
UCX_TAGS = ["v1.18.0", "v1.18.1", "v1.19.0", "v1.19.1", "v1.20.0"]
VLLM_TAGS = [f"v{v}" for v in reversed(pypi_versions("vllm")) if v.startswith("0.2") or
             v.startswith("0.3")]
LMCACHE_TAGS = ["v0.3.0", "v0.3.1", "v0.3.2", "v0.4.0", "v0.4.1", "v0.5.0", "v0.5.1",
                "v0.5.2", "v0.5.3", "v0.5.4"]


@dataclass
class Upstream:
    """A running world: ``git_url`` (git daemon) and ``http_url`` (the HTTP server)."""

    repos: dict[str, Repo]
    web: webworld.World
    git_url: str = ""
    http_url: str = ""
    pins: dict[str, str] = field(default_factory=dict)   # variable -> world commit

    def rewrites(self) -> list[str]:
        return [f"https://github.com/={self.git_url}",
                f"https://api.github.com={self.http_url}",
                f"https://pypi.org={self.http_url}",
                f"https://download.pytorch.org={self.http_url}/pytorch",
                f"https://wheels.vllm.ai={self.http_url}/vllm-wheels",
                f"https://repo.radeon.com={self.http_url}/radeon",
                f"https://repo.amd.com={self.http_url}/amd"]


def _between(tags: list[tuple[str, str, str]], after: str, count: int,
             ) -> list[tuple[str, str, str]]:
    """Insert ``count`` untagged commits after tag ``after`` (as pseudo-tags ``_c/after/N``)."""
    out: list[tuple[str, str, str]] = []
    for row in tags:
        out.append(row)
        if row[0] == after:
            out.extend((f"_c/{after}/{n}", row[1], "commit") for n in range(count))
    return out


def _with_pinned_tag(spec: Spec, tag: str) -> Spec:
    """A fixture's tags end where the stored snapshot of its repository did; a tag pin newer
    than that (AITER_REF v0.1.26, MORI_REF v1.2.3.post1: vLLM v0.33.0's) is added after them, a
    fortnight after the last, so the world holds the release the bake file pins."""
    if not tag or any(row[0] == tag for row in spec.tags) or not spec.tags:
        return spec
    year, month, day = (int(p) for p in spec.tags[-1][1].split("-"))
    later = f"{year + month // 12:04d}-{month % 12 + 1:02d}-{min(day, 28):02d}"
    return replace(spec, tags=[*spec.tags, (tag, later, "tag")])


def plain_repos(bake: Path) -> dict[str, Spec]:
    """owner/repo -> its world, for every GitHub repository a git pin source of the bake file
    names and every fixture of tags (``tests/fixtures/upstream/<owner>__<repo>.dates.tsv``):
    the fixture's tags where there is one, else a tag named by the pin's ``<PREFIX>_REF``
    (and its branch, where the source follows one)."""
    out = {tsv.name.removesuffix(".dates.tsv").replace("__", "/", 1):
           Spec(fixture_tags(tsv.name.removesuffix(".dates.tsv")))
           for tsv in sorted(UPSTREAM.glob("*.dates.tsv"))}
    definition = bakefile.load([bake], {})
    specs, _ = declarations.read(definition)
    for spec in specs:
        if spec.upstream != "git" or not spec.location.startswith(worldpins.GITHUB):
            continue
        slug = spec.location.removeprefix(worldpins.GITHUB).removesuffix(".git")
        if slug in out:
            out[slug] = _with_pinned_tag(out[slug], spec.value if spec.pin == "tag" else "")
            continue
        ref = definition.value(spec.name.rsplit("_", 1)[0] + "_REF")
        tag = ref if isinstance(ref, str) and ref and ref != spec.branch else "v0.1.0"
        out[slug] = Spec(_tags([tag]), branches={spec.branch: (tag, 2)} if spec.branch else {})
    return out


def build_repos(base: Path, bake: Path = BAKE) -> tuple[dict[str, Repo], dict[str, str]]:
    """Every repository of the world, and the commits the real pin set points at."""
    repos: dict[str, Repo] = {}
    pins: dict[str, str] = {}

    def make(slug: str, spec: Spec) -> Repo:
        owner, name = slug.split("/")
        repo = gitworld.build(base / owner / f"{name}.git", spec)
        repos[slug] = repo
        return repo

    for tsv in sorted(UPSTREAM.glob("*.dates.tsv")):   # fixture/<owner>__<repo>: tags only
        slug = tsv.name.removesuffix(".dates.tsv")
        make(f"fixture/{slug}", Spec(fixture_tags(slug)))
    # FA_REPO is upstream's own repository (vLLM's Dockerfile.rocm_base): the world gives it
    # the tag names of the ROCm fork's fixture; FA_COMMIT follows main.
    fa = make("Dao-AILab/flash-attention", Spec(fixture_tags("ROCm__flash-attention"), tail=3))
    pins["FA_COMMIT"] = fa.rev("rev-parse", "HEAD")
    make("ROCm/ROCm", Spec([*fixture_tags("ROCm__ROCm"), *_tags(ROCM_EXTRA, "2025-04-01")]))
    triton = make("ROCm/triton", Spec(fixture_tags("ROCm__triton"), tail=3,
                                      branches={"release/internal/3.8.x": ("ifu-231117-2", 6)}))
    pins["TRITON_COMMIT"] = triton.rev("rev-parse", "release/internal/3.8.x~2")
    torch = make("ROCm/pytorch", Spec(
        _tags(TORCH_TAGS, "2025-10-01"), branches={"release/2.13": ("v2.13.0", 5)},
        files={".ci/docker/ci_commit_pins/triton.txt": pins["TRITON_COMMIT"] + "\n"}))
    pins["PYTORCH_COMMIT"] = torch.rev("rev-parse", "release/2.13~2")
    nixl_tags = _between(fixture_tags("ai-dynamo__nixl"), "v1.3.2", 4)
    nixl = make("ai-dynamo/nixl", Spec(nixl_tags))
    pins["NIXL_COMMIT"] = nixl.commits["_c/v1.3.2/1"]
    ucx = make("openucx/ucx", Spec(_between(_tags([*UCX_TAGS, "v1.21.0"], "2025-03-01"),
                                            "v1.20.0", 5)))
    pins["UCX_COMMIT"] = ucx.commits["_c/v1.20.0/2"]
    vision = make("pytorch/vision", Spec(_tags(VISION_TAGS, "2025-10-01")))
    pins["TORCHVISION_COMMIT"] = vision.commits["v0.28.0"]
    audio = make("pytorch/audio", Spec(_tags(AUDIO_TAGS, "2025-10-01")))
    pins["TORCHAUDIO_COMMIT"] = audio.commits["v2.11.0"]
    make("cupy/cupy", Spec(_tags(CUPY_TAGS, "2025-06-01")))
    vllm = make("vllm-project/vllm", Spec(_tags(VLLM_TAGS, "2025-06-01"), files={
        "requirements/rocm-build.txt": "--extra-index-url https://download.pytorch.org/whl/"
                                       "rocm7.2\ntorch==2.13.0\ntriton==3.8.0\n"}))
    pins["VLLM_COMMIT"] = vllm.commits["v0.33.0"]
    lmcache = make("LMCache/LMCache", Spec([*fixture_tags("LMCache__LMCache"),
                                            *_tags(LMCACHE_TAGS, "2024-11-01")]))
    pins["LMCACHE_COMMIT"] = lmcache.commits["v0.5.3"]
    # rocm-runtime: two commits of ROCm/rocm-systems behind its develop branch (ROCr + CLR,
    # then rocprofiler-sdk), as vLLM v0.33.0 pins two (docker/Dockerfile.rocm_72_base 17-18)
    systems = make("ROCm/rocm-systems", Spec(_tags(["rocm-7.2.0", "rocm-7.2.3"], "2026-01-01"),
                                             branches={"develop": ("rocm-7.2.3", 5)}))
    pins["ROCM_RUNTIME_COMMIT"] = systems.rev("rev-parse", "develop~2")
    pins["ROCPROFILER_SDK_COMMIT"] = systems.rev("rev-parse", "develop~3")
    # Every other repository the bake file's git pin sources name, or the fixtures name
    # (owner__repo.dates.tsv): derived, so a new component's repository needs no line here.
    for slug, spec in plain_repos(bake).items():
        if slug not in repos:
            make(slug, spec)
    for repo in repos.values():   # the pseudo-tags only mark commits: delete them upstream
        for name in [n for n in repo.commits if n.startswith("_c/")]:
            gitworld.git(repo.path, "tag", "-d", name)
            del repo.commits[name]
            del repo.objects[name]
    return repos, pins


def _wheels(name: str, versions: Sequence[str], tags: Sequence[str] = (PY,)) -> dict[str,
                                                                                   list[str]]:
    return {v: [f"{name}-{v}-{t}.whl" for t in tags] for v in versions}


# vLLM's release sdist as PyPI's simple index lists it (rocm-bake.hcl VLLM_SDIST_URL and
# VLLM_SDIST_SHA256, the real file's): the other releases' sdists get addresses and sha256s of
# the same shape, made up from their names.
VLLM_SDIST = ("https://files.pythonhosted.org/packages/f7/25/aa5684e9c59d6fc75f78926b7f15e8d9ad"
              "c7de2d9e6e7575b80776ad8169/vllm-0.33.0.tar.gz",
              "f4c33c2503d52bb411146afa9618a4f48bed68912f617e6803ac8d76e4c74112")


def sdist_where(filename: str) -> tuple[str, str]:
    """(PyPI's address, sha256) of a vllm sdist of the world."""
    if filename == "vllm-0.33.0.tar.gz":
        return VLLM_SDIST
    made = hashlib.sha256(filename.encode()).hexdigest()
    path = hashlib.sha256(made.encode()).hexdigest()
    return (f"https://files.pythonhosted.org/packages/{path[:2]}/{path[2:4]}/{path[4:64]}/"
            f"{filename}", made)


def build_web(web: webworld.World) -> None:
    """PyPI, the wheel indexes and the GitHub API of the realistic world."""
    py_tags = [PY, "cp311-cp311-manylinux_2_28_x86_64", "cp313-cp313-manylinux_2_28_x86_64"]
    web.pypi("torch", _wheels("torch", pypi_versions("torch"), py_tags))
    web.pypi("triton", _wheels("triton", pypi_versions("triton"), py_tags))
    web.pypi("vllm", _wheels("vllm", pypi_versions("vllm"),
                             ["cp38-abi3-manylinux_2_28_x86_64"]))
    vllm_sdists = [f"vllm-{v}.tar.gz" for v in pypi_versions("vllm")]
    web.simple("/simple", "vllm", [*vllm_sdists, *(f"vllm-{v}-cp38-abi3-manylinux_2_28_x86_64.whl"
                                                   for v in pypi_versions("vllm")[:3])],
               where={f: sdist_where(f) for f in vllm_sdists})   # wheels: not sdists
    web.pypi("pytorch-triton-rocm", _wheels("pytorch_triton_rocm",
                                            pypi_versions("pytorch-triton-rocm")))
    torch_rocm = [f"torch-{v}+rocm7.2-{t}.whl" for v in ("2.10.0", "2.11.0", "2.12.0", "2.12.1",
                                                          "2.13.0", "2.13.1") for t in py_tags]
    web.simple("/pytorch/whl/rocm7.2", "torch", torch_rocm)
    web.simple("/pytorch/whl/cu126", "torch",
               [f"torch-{v}+cu126-{t}.whl" for v in ("2.12.0", "2.13.0") for t in py_tags])
    web.simple("/vllm-wheels/rocm/0.33.0/rocm723", "vllm",
               ["vllm-0.33.0+rocm723-cp312-cp312-manylinux_2_28_x86_64.whl"])
    web.github_releases("mozilla/sccache", [
        {"tag_name": f"v0.{n}.0", "draft": False, "prerelease": False,
         "assets": [{"name": f"sccache-v0.{n}.0-x86_64-unknown-linux-musl.tar.gz"}]}
        for n in range(14, 7, -1)])
    lmcache = [{"tag_name": "v0.5.4-rc1", "draft": False, "prerelease": True, "assets": []},
               {"tag_name": "v0.5.3-rocm", "draft": False, "prerelease": False, "assets": [
                   {"name": "lmcache-0.5.3+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl"},
                   {"name": "lmcache-0.5.3+rocm7.2-cp311-cp311-manylinux_2_28_x86_64.whl"}]}]
    lmcache += [{"tag_name": t, "draft": False, "prerelease": "alpha" in t, "assets": []}
                for t in reversed(LMCACHE_TAGS[:-1])]
    web.github_releases("LMCache/LMCache", lmcache, per_page=100)


@contextlib.contextmanager
def running(base: Path, latency: float = 0.0) -> Iterator[Upstream]:
    repos, pins = build_repos(base / "git")
    web = webworld.World(latency)
    build_web(web)
    with gitworld.daemon(base / "git") as git_url, webworld.Server(web) as server:
        yield Upstream(repos, web, git_url, server.url, pins)
