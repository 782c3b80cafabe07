"""The rehearsal's sources: one git repository per upstream the bake file pins, served by the
world instead of GitHub, and the variables that point the real bake file at them.

A repository holds upstream's real files where they can be had here (vLLM's and LMCache's
release sdists from PyPI, by sha256) and stand-ins elsewhere; in every tree the compile is
stood in for by ``standin/setup.py`` (and, for vLLM's Rust frontend, ``standin/build_rust.py``),
which builds the artifact the real compile would, with the identity read from upstream
(``lint.locks.resolution.built_dists``: versions and ``Requires-Dist`` from upstream's files at the
pin) or, for vLLM and LMCache, from the tree's own requirements files at build time, as
their ``setup.py`` reads them.  A repository's commit cannot be the pinned one: each
``<PIN>_COMMIT`` is mapped to the stand-in commit, tags named by ``<PIN>_REF`` point at it,
and an upstream file that names a pinned commit is rewritten to the stand-in one (listed).
Commits are made with fixed names and dates, so the same inputs give the same commits (and
the layer cache holds across rehearsals).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import lzma
import os
import re
import shutil
import subprocess
import tarfile
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_bake.core import atomic
from rocm_bake.core.errors import RocmBakeError
from rocm_bake_checks.lint import upstream
from rocm_bake_checks.lint.locks import metadata as lockmeta
from rocm_bake_checks.lint.locks.resolution import Dist, WithoutKernels
from rocm_bake_checks.rehearse import mirror
from rocm_bake_checks.rehearse.base import STANDIN

_DATE = "2025-01-01T00:00:00+00:00"
_GIT_ENV = {"GIT_AUTHOR_NAME": "rocm-bake rehearsal", "GIT_AUTHOR_EMAIL": "rehearsal@localhost",
            "GIT_COMMITTER_NAME": "rocm-bake rehearsal",
            "GIT_COMMITTER_EMAIL": "rehearsal@localhost", "GIT_AUTHOR_DATE": _DATE,
            "GIT_COMMITTER_DATE": _DATE, "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_CONFIG_NOSYSTEM": "1"}
_RELEASE_TAG = re.compile(r"^v\d")

Files = dict[str, str | bytes]


@dataclass
class Repo:
    """One stand-in repository: the pin prefix it answers for, its files, and what it is."""

    pin: str                 # PYTORCH -> PYTORCH_REPO, PYTORCH_COMMIT, PYTORCH_REF
    name: str
    files: Files
    what: str                # one line: what it holds, for the substitutions
    extra_commits: tuple[str, ...] = ()   # other <X>_COMMIT pins this commit answers for
    rewrites: dict[str, str] = field(default_factory=dict)  # path -> pin whose commit it names
    # commits made after it on branch rehearsal-fixes, in order: (<X> whose <X>_COMMIT the
    # commit answers for, or "" for one that answers none; the files it changes)
    fixes: tuple[tuple[str, Files], ...] = ()
    fixed: dict[str, str] = field(default_factory=dict)     # <X> -> its fix commit, once made


def torch_files() -> tuple[dict[str, list[str]], list[str]]:
    """torch's requirement files as the stage reads them, from the stored copies upstream.toml
    records for them (``[[nearest-copy]]``: the first copy of each file), and where each came
    from: the same lines its lock is made from."""
    files: dict[str, list[str]] = {}
    origins: list[str] = []
    for copy in upstream.load_config().copies:
        if copy.dockerfile.endswith("torch.Dockerfile") and copy.file not in files:
            files[copy.file] = list(copy.requires)
            origins.append(f"{copy.file} = {copy.repo} {copy.path} at {copy.commit[:12]}")
    if "requirements.txt" not in files or "pyproject.toml" not in files:
        raise RocmBakeError("upstream.toml records no copy of torch's requirements.txt and "
                            "pyproject.toml ([[nearest-copy]]): the stand-in torch tree needs them")
    return files, origins


def _spec(name: str, stands_for: str, version: Mapping[str, str], packages: list[str],
          **more: Any) -> str:
    return json.dumps({"name": name, "stands_for": stands_for, "version": dict(version),
                       "packages": packages, **more}, indent=1, sort_keys=True)


def _standin_tree(spec: str, build_system: list[str] | str | None = None,
                  prefix: str = "") -> Files:
    """The stand-in build's files: ``standin/setup.py``, its spec, and a pyproject.toml whose
    ``[build-system]`` is upstream's -- its text as upstream wrote it where the tree's real
    file is at hand (recipes edit it line by line: vLLM's use_existing_torch.py), else its
    requirement list, one a line -- with setuptools as the backend."""
    files: Files = {f"{prefix}setup.py": (STANDIN / "setup.py").read_text(encoding="utf-8"),
                    f"{prefix}.rehearsal/wheel.json": spec}
    if isinstance(build_system, str):
        section = build_system
    else:
        requires = build_system if build_system is not None else ["setuptools", "wheel"]
        section = ("[build-system]\nrequires = [\n"
                   + "".join(f"    {json.dumps(r)},\n" for r in requires) + "]\n")
    if "build-backend" not in section:
        section += 'build-backend = "setuptools.build_meta"\n'
    files[f"{prefix}pyproject.toml"] = (
        "# The rehearsal's stand-in build (standin/setup.py); [build-system] is upstream's.\n"
        + section)
    return files


def build_system_section(text: str) -> str:
    """The ``[build-system]`` table of a pyproject.toml, as written."""
    found = re.search(r"(?ms)^\[build-system\]\n.*?(?=^\[)", text + "\n[")
    if not found:
        raise RocmBakeError("the sdist's pyproject.toml has no [build-system] table")
    return found.group(0)


def _plain(requires: tuple[str, ...], drop: frozenset[str] = frozenset()) -> list[str]:
    return [r for r in requires if re.split(r"[ ;<>=!~(\[]", r, maxsplit=1)[0].lower() not in drop]


def torch_repos(variables: Mapping[str, str], built: Mapping[str, Dist]) -> list[Repo]:
    copies, origins = torch_files()
    version = variables["PYTORCH_VERSION"]
    spec = _spec("torch", "the torch wheel of tools/amd_build + setup.py (a HIP compile)",
                 {"file": "version.txt", "suffix": "+git{sha7}"},
                 ["torch", "torch.distributed"], requires=list(built["torch"].requires),
                 modules={"torch/__init__.py": '__version__ = "{version}"\n'
                                               "from torch import version, distributed\n",
                          "torch/version.py": '__version__ = "{version}"\nhip = "{rocm}"\n',
                          "torch/distributed/__init__.py":
                              "def is_mpi_available():\n    return {mpi}\n"})
    files = _standin_tree(spec, copies.pop("pyproject.toml"))
    files["version.txt"] = version + "\n"
    for name, lines in copies.items():
        files[name] = "\n".join(lines) + "\n"
    files["tools/amd_build/build_amd.py"] = (
        "# The rehearsal's stand-in for torch's hipify step (part of the compile).\n"
        'print("rehearsal: hipify stand-in")\n')
    out = [Repo("PYTORCH", "pytorch", files,
                f"torch {version}: stand-in tree; its requirement files and [build-system] "
                f"from the stored copies ({'; '.join(origins)})")]
    for pin, name, dist in (("TORCHVISION", "vision", "torchvision"),
                            ("TORCHAUDIO", "audio", "torchaudio")):
        ref = variables.get(f"{pin}_REF", "").removeprefix("v")
        spec = _spec(dist, f"the {dist} wheel of setup.py (a HIP compile)",
                     {"file": "version.txt", "suffix": "+{sha7}"}, [dist],
                     requires=_plain(built[dist].requires, frozenset({"torch"})),
                     env_pins={"PYTORCH_VERSION": "torch"})
        tree = _standin_tree(spec)
        tree["version.txt"] = ref + "\n"
        out.append(Repo(pin, name, tree,
                        f"{dist} {ref}: stand-in tree; its torch requirement by upstream "
                        "setup.py's rule (torch==$PYTORCH_VERSION when set)"))
    return out


# What a wheel's build without GPU kernels is beside its switch and its requirements (both read
# from upstream: WithoutKernels): what it holds, as the real build lays it out.
_WITHOUT_KERNELS: dict[str, dict[str, Any]] = {
    # ROCm/aiter setup.py at AITER_REF, AITER_TRITON_ONLY=1 (lines 24-27, 156-179, 463-464):
    # no CK, no prebuilt kernels, an empty aiter_meta/hsa, still a platform wheel
    # (ForcePlatlibDistribution, line 458); aiter/__init__.py then imports only the Triton ops.
    "amd-aiter": {"stands_for": "the amd-aiter wheel of its Triton-only build (no CK, no "
                                "prebuilt kernels, no hsa/ code objects)",
                  "packages": ["aiter", "aiter.ops", "aiter.ops.triton", "aiter_meta"]},
    # Dao-AILab/flash-attention setup.py at FA_COMMIT, FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE
    # (lines 65-66: SKIP_CK_BUILD): no flash_attn_2_cuda extension, so a pure wheel
    # (py3-none-any) of the flash_attn package with its flash_attn_triton_amd backend, which
    # flash_attn/flash_attn_interface.py (lines 11-15) imports only when the same variable is
    # TRUE where it runs, else the extension.
    "flash-attn": {"stands_for": "the flash_attn wheel of its Triton backend (no "
                                 "composable_kernel extension flash_attn_2_cuda)",
                   "pure": True,
                   "packages": ["flash_attn", "flash_attn.flash_attn_triton_amd"],
                   "modules": {"flash_attn/__init__.py": (
                       '__version__ = "{version}"\nimport os\n'
                       'if os.getenv("FLASH_ATTENTION_TRITON_AMD_ENABLE", "FALSE") == "TRUE":\n'
                       "    from flash_attn import flash_attn_triton_amd\n"
                       "else:\n    import flash_attn_2_cuda\n")}},
}


def component_repos(variables: Mapping[str, str], built: Mapping[str, Dist],
                    without: Mapping[str, WithoutKernels] | None = None) -> list[Repo]:
    """The stand-in trees of the setup.py-built components; a wheel with a build without GPU
    kernels (``without``) switches to it by upstream's own variable."""
    def simple(pin: str, name: str, dist: str, packages: list[str], version: Mapping[str, str],
               prefix: str = "", **more: Any) -> Repo:
        switch = (without or {}).get(dist)
        switches = [] if switch is None else [{
            "env": switch.env, "value": switch.value, "requires": list(switch.requires),
            **_WITHOUT_KERNELS.get(dist, {})}]
        spec = _spec(dist, f"the {dist} wheel (a HIP compile)", version, packages,
                     requires=list(built[dist].requires),
                     **({"switches": switches} if switches else {}), **more)
        also = "" if switch is None else (
            f"; {switch.env}={switch.value}: its build without GPU kernels, "
            f"{len(switch.requires)} requirements read from upstream")
        return Repo(pin, name, _standin_tree(spec, prefix=prefix),
                    f"{dist}: stand-in tree, version {json.dumps(dict(version))}, "
                    f"{len(built[dist].requires)} requirements read from upstream{also}")

    triton = simple("TRITON", "triton", "triton", ["triton", "triton.profiler"],
                    {"literal": variables["TRITON_VERSION"], "suffix": "+git{sha8}"},
                    prefix="python/")
    triton.files["python/triton_kernels/triton_kernels/__init__.py"] = (
        "# The rehearsal's stand-in for ROCm/triton's triton_kernels.\n")
    triton.extra_commits = ("TRITON_KERNELS",)
    return [
        triton,
        simple("AITER", "aiter", "amd-aiter", ["aiter"], {"describe": "tags"}),
        simple("FA", "flash-attention", "flash-attn", ["flash_attn"],
               {"literal": variables["FA_VERSION"]}),
        simple("MORI", "mori", "amd-mori", ["mori"], {"describe": "tags"}),
        simple("CUPY", "cupy", "cupy", ["cupy", "cupyx", "cupy_backends"],
               {"literal": variables.get("CUPY_REF", "").removeprefix("v")}),
    ]


def ucx_nixl_repos(built: Mapping[str, Dist]) -> list[Repo]:
    ucx: Files = {
        "autogen.sh": "#!/bin/sh\n# The rehearsal's stand-in for UCX's autogen.sh.\n"
                      "echo 'rehearsal: autogen stand-in'\n",
        "configure": _UCX_CONFIGURE,
        "src/ucp.c": "int ucp_stand_in(void) { return 0; }\n",
    }
    requires = list(built["nixl-rocm"].requires)
    nixl: Files = {
        "meson.build": _NIXL_MESON,
        "meson_options.txt": _NIXL_OPTIONS,
        "pyproject.toml": "[build-system]\nrequires = [\"meson-python\"]\n"
                          "build-backend = \"mesonpy\"\n\n[project]\nname = \"nixl\"\n"
                          "version = \"0.0.0\"\ndependencies = ["
                          + ", ".join(json.dumps(r) for r in requires) + "]\n",
        "src/nixl/__init__.py": "# The rehearsal's stand-in for NIXL's Python package.\n",
        "src/bindings.c": "#include <Python.h>\nstatic struct PyModuleDef m = "
                          "{PyModuleDef_HEAD_INIT, \"_bindings\"};\nPyMODINIT_FUNC "
                          "PyInit__bindings(void) { return PyModule_Create(&m); }\n",
        "src/libnixl.c": "int nixl_stand_in(void) { return 0; }\n",
        "contrib/tomlutil.py": _TOMLUTIL,
        "contrib/wheel_add_ucx_plugins.py": _ADD_PLUGINS,
    }
    return [Repo("UCX", "ucx", ucx, "UCX: stand-in autotools tree (a real gcc compile of a "
                 "stand-in libucp.so)"),
            Repo("NIXL", "nixl", nixl, "NIXL: stand-in meson-python tree (a real compile of "
                 f"stand-in libraries and a Python module); {len(requires)} requirements from "
                 "upstream's pyproject.toml")]


def rocm_runtime_repo() -> Repo:
    """ROCm/rocm-systems for the rocm-runtime cell: stand-in CMake projects for ROCr, CLR and
    rocprofiler-sdk that take the recipe's options, check what the real ones need from the
    image (the Clang/LLVM package shims, HIP's common tree, ROCr's installed header,
    CppHeaderParser importable) and compile stand-in libraries for real; and on a branch after
    it the two fix commits, each changing rocprofiler-sdk's hsa/ sources and a file outside
    them that a preceding change has moved, so the recipe's patches apply only with
    ``--include``."""
    changelog = "projects/rocprofiler-sdk/CHANGELOG.md"
    queue = "projects/rocprofiler-sdk/source/lib/rocprofiler-sdk/hsa/queue.c"
    stand_in = "int rocprofiler_stand_in(void) { return 0; }\n"
    files: Files = {
        "projects/rocr-runtime/CMakeLists.txt": _ROCR_CMAKE,
        "projects/rocr-runtime/include/hsa/hsa.h": "#define HSA_STAND_IN 1\n"
                                                   "int hsa_init(void);\n",
        "projects/rocr-runtime/src/hsa.c": "#include \"../include/hsa/hsa.h\"\n"
                                           "int hsa_init(void) { return HSA_STAND_IN; }\n",
        "projects/clr/CMakeLists.txt": _CLR_CMAKE,
        "projects/clr/src/hip.c": "#include <hsa/hsa.h>\n#include <hip/hip_runtime.h>\n"
                                  "int hipInit(unsigned flags) "
                                  "{ return hsa_init() + (int)flags; }\n",
        "projects/hip/include/hip/hip_runtime.h": "int hipInit(unsigned flags);\n",
        "projects/rocprofiler-sdk/CMakeLists.txt": _ROCPROFILER_CMAKE,
        "projects/rocprofiler-sdk/include/rocprofiler-sdk/rocprofiler.h":
            "int rocprofiler_stand_in(void);\n",
        queue: stand_in,
        changelog: "# rocprofiler-sdk (rehearsal stand-in)\n",
        "shared/README.md": "The rehearsal's stand-in for rocm-systems' shared/.\n",
        "cmake/README.md": "The rehearsal's stand-in for rocm-systems' cmake/.\n",
    }
    fix = "int rocprofiler_fix_{n}(void) {{ return {n}; }}\n"
    fixes: tuple[tuple[str, Files], ...] = (
        ("", {changelog: "# rocprofiler-sdk (rehearsal stand-in)\n\n## later\n"}),
        ("ROCPROFILER_SDK_PR_7796", {
            queue: stand_in + fix.format(n=7796),
            changelog: "# rocprofiler-sdk (rehearsal stand-in)\n\n## later\n- 7796\n"}),
        ("ROCPROFILER_SDK_PR_7924", {
            queue: stand_in + fix.format(n=7796) + fix.format(n=7924),
            changelog: "# rocprofiler-sdk (rehearsal stand-in)\n\n## later\n- 7796\n"
                       "- 7924\n"}),
    )
    return Repo("ROCM_RUNTIME", "rocm-systems", files,
                "rocm-systems: stand-in CMake projects (ROCr, CLR, rocprofiler-sdk; real "
                "compiles of stand-in libraries) and two stand-in fix commits",
                extra_commits=("ROCPROFILER_SDK",), fixes=fixes)


def sdist_tree(project: str, version: str, cache: Path) -> tuple[Files, str]:
    """The files of ``project``'s release sdist on PyPI (fetched once by its sha256 into the
    cache) and a line naming it."""
    wanted = f"{project}-{version}.tar.gz"
    memo = cache / "sdists" / f"{wanted}.json"
    if memo.is_file():
        file = mirror.File(**json.loads(memo.read_text(encoding="utf-8")))
    else:
        pin = lockmeta.Pin(project, version, 0, ())
        found = [f for f in mirror.retried(lambda: lockmeta.index_files(pin))
                 if f.filename == wanted]
        if not found or not found[0].sha256:
            raise RocmBakeError(f"PyPI has no sdist {wanted} with a sha256")
        file = mirror.File(project, version, wanted, found[0].sha256, found[0].url)
        atomic.write_text(memo, json.dumps(vars(file)) + "\n")
    mirror.fill([file], cache)
    files: Files = {}
    with tarfile.open(mirror.cached(cache, file.sha256), "r:gz") as archive:
        for member in archive.getmembers():
            if not member.isfile():
                continue
            name = member.name.split("/", 1)[1] if "/" in member.name else member.name
            extracted = archive.extractfile(member)
            if extracted is not None:
                files[name] = extracted.read()
    return files, f"{wanted} (sha256 {file.sha256}) from PyPI"


def vllm_repo(variables: Mapping[str, str], cache: Path) -> Repo:
    version = variables["VLLM_REF"].removeprefix("v")
    files, origin = sdist_tree("vllm", version, cache)
    text = files["pyproject.toml"]
    text = text.decode("utf-8") if isinstance(text, bytes) else text
    scripts = tomllib.loads(text).get("project", {}).get("scripts", {})
    spec = _spec("vllm", "vLLM's setup.py build (CMake: the HIP kernels)",
                 {"env": "SETUPTOOLS_SCM_PRETEND_VERSION", "suffix": "+rocm{rocm3}"}, ["vllm"],
                 requirements=["requirements/rocm.txt"],
                 tree_files=["vllm/vllm-rs", "vllm/_rust_tool_parser*.so"], scripts=scripts)
    for path, body in _standin_tree(spec, build_system_section(text)).items():
        files[path] = body
    files["tools/build_rust.py"] = (STANDIN / "build_rust.py").read_text(encoding="utf-8")
    return Repo("VLLM", "vllm", files,
                f"the real source, {origin}; setup.py, pyproject.toml's backend and "
                "tools/build_rust.py stood in for (the compiles)",
                rewrites={"cmake/external_projects/triton_kernels.cmake": "TRITON_KERNELS"})


def lmcache_repo(variables: Mapping[str, str], cache: Path) -> Repo:
    version = variables["LMCACHE_REF"].removeprefix("v")
    files, origin = sdist_tree("lmcache", version, cache)
    spec = _spec("lmcache", "LMCache's setup.py build (its HIP extension)",
                 {"env": "SETUPTOOLS_SCM_PRETEND_VERSION"}, ["lmcache"],
                 requirements=["requirements/common.txt", "requirements/rocm_core.txt"],
                 native={"lmcache.c_ops": "CXX"})
    for path, text in _standin_tree(spec, ["setuptools", "wheel"]).items():
        files[path] = text
    return Repo("LMCACHE", "lmcache", files,
                f"LMCache: the real source, {origin}; setup.py stood in for (the HIP compile; "
                "its requirements files read as BUILD_WITH_HIP=1 reads them)")


def sdist_download(repo: Repo, root: Path, version: str,
                   pins: Mapping[str, str]) -> tuple[str, str]:
    """``repo`` packed as a release sdist under ``root/downloads`` (``<name>-<version>/``,
    sorted members, fixed times: the same files give the same bytes), its ``rewrites`` applied
    as :func:`commit` applies them: its name and sha256."""
    files = dict(repo.files)
    for rel, pin in repo.rewrites.items():
        real, stand_in = pins.get(f"{pin}_COMMIT:real", ""), pins.get(f"{pin}_COMMIT", "")
        body = files.get(rel)
        if body is not None and real and stand_in:
            text = body.decode("utf-8") if isinstance(body, bytes) else body
            files[rel] = text.replace(real, stand_in)
    top = f"{repo.name}-{version}"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for rel, body in sorted(files.items()):
            data = body if isinstance(body, bytes) else body.encode("utf-8")
            info = tarfile.TarInfo(f"{top}/{rel}")
            info.size, info.mtime = len(data), 1735689600
            info.mode = 0o755 if rel.endswith(".sh") else 0o644
            archive.addfile(info, io.BytesIO(data))
    packed = gzip.compress(buffer.getvalue(), mtime=0)
    name = f"{top}.tar.gz"
    (root / "downloads").mkdir(parents=True, exist_ok=True)
    (root / "downloads" / name).write_bytes(packed)
    return name, hashlib.sha256(packed).hexdigest()


def rust_download(root: Path, version: str) -> tuple[str, str]:
    """The stand-in Rust toolchain tarball (``RUST_URL``) under ``root``: its name and sha256."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name in ("install.sh", "rustc", "cargo"):
            data = (STANDIN / "rust" / name).read_bytes().replace(b"@RUST_VERSION@",
                                                                  version.encode())
            info = tarfile.TarInfo(f"rust-{version}-x86_64-unknown-linux-gnu/{name}")
            info.size, info.mode, info.mtime = len(data), 0o755, 1735689600
            archive.addfile(info, io.BytesIO(data))
    packed = lzma.compress(buffer.getvalue())
    name = f"rust-{version}-x86_64-unknown-linux-gnu.tar.xz"
    (root / "downloads").mkdir(parents=True, exist_ok=True)
    (root / "downloads" / name).write_bytes(packed)
    return name, __import__("hashlib").sha256(packed).hexdigest()


def commit(repo: Repo, root: Path, ref: str, pins: Mapping[str, str],
           git: Callable[..., str] | None = None) -> str:
    """The repository's one commit, as a bare repository under ``root/git``; its sha."""
    work = root / "work" / repo.name
    bare = root / "git" / f"{repo.name}.git"
    for path in (work, bare):
        if path.exists():
            shutil.rmtree(path)
    _write(work, repo.files)
    for rel, pin in repo.rewrites.items():
        path = work / rel
        real, stand_in = pins.get(f"{pin}_COMMIT:real", ""), pins.get(f"{pin}_COMMIT", "")
        if path.is_file() and real and stand_in:
            path.write_text(path.read_text(encoding="utf-8").replace(real, stand_in),
                            encoding="utf-8")
    run = git or _git
    run(work, "init", "-q", "-b", "main")
    run(work, "add", "-A")
    run(work, "commit", "-q", "-m", f"rehearsal stand-in: {repo.what}")
    if ref and _RELEASE_TAG.match(ref):
        run(work, "tag", ref)
    sha = run(work, "rev-parse", "HEAD")
    if repo.fixes:
        run(work, "checkout", "-q", "-b", "rehearsal-fixes")
        for pin, files in repo.fixes:
            _write(work, files)
            run(work, "add", "-A")
            run(work, "commit", "-q", "-m",
                f"rehearsal stand-in: {pin or 'a change'} of {repo.name}")
            if pin:
                repo.fixed[pin] = run(work, "rev-parse", "HEAD")
        run(work, "checkout", "-q", "main")
    run(root, "clone", "-q", "--bare", str(work), str(bare))
    run(bare, "update-server-info")
    shutil.rmtree(work)
    return sha


def _write(work: Path, files: Files) -> None:
    for rel, text in sorted(files.items()):
        target = work / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text, encoding="utf-8")
        if rel.endswith((".sh", "configure")) or rel.startswith("contrib/"):
            target.chmod(0o755)


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **_GIT_ENV}, check=False)
    if done.returncode != 0:
        raise RocmBakeError(f"git {' '.join(args[:2])} in the rehearsal world failed: "
                            f"{done.stderr.strip().splitlines()[-1:]}")
    return done.stdout.strip()


_UCX_CONFIGURE = r"""#!/bin/sh
# The rehearsal's stand-in for UCX's configure: it takes the real options, checks the ones the
# recipe depends on, and writes a Makefile whose `all` compiles a stand-in libucp.so with the
# compiler configure was given (CC, through the cache) and whose `install` lays it out
# under --prefix as UCX does (lib/, lib/ucx/ for the transport plugins).
set -eu
prefix=/usr/local; cc=cc; rocm=
for arg in "$@"; do
    case "$arg" in
        --prefix=*) prefix=${arg#--prefix=} ;;
        CC=*) cc=${arg#CC=} ;;
        --with-rocm=*) rocm=${arg#--with-rocm=} ;;
    esac
done
[ -n "$rocm" ] && [ -f "$rocm/.info/version" ] ||
    { echo "configure: --with-rocm must name a ROCm" >&2; exit 1; }
cat > Makefile <<MAKE
all:
	$cc -O1 -fPIC -shared src/ucp.c -o libucp.so
	$cc -O1 -fPIC -shared src/ucp.c -o libuct_rocm.so
install: all
	mkdir -p $prefix/lib/ucx $prefix/include
	cp libucp.so $prefix/lib/libucp.so.0 && ln -sf libucp.so.0 $prefix/lib/libucp.so
	cp libuct_rocm.so $prefix/lib/ucx/libuct_rocm.so.0
MAKE
echo "rehearsal: UCX configure stand-in (prefix $prefix, ROCm $rocm)"
"""

_NIXL_MESON = """\
# The rehearsal's stand-in for NIXL's meson.build: real libraries and a real Python module,
# compiled from stand-in sources, laid out as NIXL installs them.
project('nixl', 'c', version: '0.0.0')
ucx = get_option('ucx_path')
assert(ucx != '', 'ucx_path must be set')
py = import('python').find_installation(pure: false)
py.extension_module('_bindings', 'src/bindings.c', install: true, subdir: 'nixl')
py.install_sources('src/nixl/__init__.py', subdir: 'nixl')
shared_library('nixl', 'src/libnixl.c', install: true)
shared_library('plugin_UCX', 'src/libnixl.c', install: true,
               install_dir: get_option('libdir') / 'plugins')
"""

_NIXL_OPTIONS = """\
option('ucx_path', type: 'string', value: '')
option('wheel_variant', type: 'string', value: 'cuda')
option('build_tests', type: 'boolean', value: true)
option('build_examples', type: 'boolean', value: true)
"""

_TOMLUTIL = """#!/usr/bin/env python3
\"\"\"The rehearsal's stand-in for NIXL's contrib/tomlutil.py: --wheel-name NAME renames the
project in pyproject.toml.\"\"\"
import re
import sys

args = sys.argv[1:]
name = args[args.index("--wheel-name") + 1]
path = args[-1]
text = open(path).read()
text, n = re.subn(r'(?m)^name = ".*"$', f'name = "{name}"', text, count=1)
assert n == 1, "no [project] name in " + path
open(path, "w").write(text)
"""

_ADD_PLUGINS = """#!/usr/bin/env python3
\"\"\"The rehearsal's stand-in for NIXL's contrib/wheel_add_ucx_plugins.py: the UCX and NIXL
plugin libraries added to the wheel (its RECORD rewritten).\"\"\"
import base64
import hashlib
import os
import sys
import zipfile

args = sys.argv[1:]
ucx = args[args.index("--ucx-plugins-dir") + 1]
nixl = args[args.index("--nixl-plugins-dir") + 1]
wheel = args[-1]
for directory in (ucx, nixl):
    assert os.path.isdir(directory) and os.listdir(directory), directory + " has no plugins"
with zipfile.ZipFile(wheel) as z:
    items = {n: z.read(n) for n in z.namelist()}
record = [n for n in items if n.endswith(".dist-info/RECORD")][0]
for directory, sub in ((ucx, "nixl/_lib/ucx"), (nixl, "nixl/_lib/plugins")):
    for f in sorted(os.listdir(directory)):
        items[f"{sub}/{f}"] = open(os.path.join(directory, f), "rb").read()
lines = []
for n, data in items.items():
    if n == record:
        continue
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    lines.append(f"{n},sha256={digest},{len(data)}")
items[record] = ("\\n".join(lines + [record + ",,"]) + "\\n").encode()
with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
    for n, data in items.items():
        z.writestr(n, data)
print("rehearsal: plugins added to", wheel)
"""


_ROCR_CMAKE = """\
# The rehearsal's stand-in for ROCr (rocm-systems projects/rocr-runtime): the recipe's
# find_package(Clang/LLVM) answered by the image's shims, a stand-in libhsa-runtime64 compiled
# for real, installed as ROCr installs it (lib/, include/hsa/).
cmake_minimum_required(VERSION 3.16)
project(hsa-runtime64 VERSION 1.18.0 LANGUAGES C)
find_package(Clang REQUIRED CONFIG)
find_package(LLVM REQUIRED CONFIG)
if(NOT TARGET clang OR NOT TARGET llvm-objcopy)
  message(FATAL_ERROR "the Clang/LLVM packages define no clang/llvm-objcopy executables")
endif()
add_library(hsa-runtime64 SHARED src/hsa.c)
set_target_properties(hsa-runtime64 PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 1)
install(TARGETS hsa-runtime64 LIBRARY DESTINATION lib)
install(FILES include/hsa/hsa.h DESTINATION include/hsa)
message(STATUS "rehearsal: ROCr stand-in (prefix ${CMAKE_INSTALL_PREFIX})")
"""

_CLR_CMAKE = """\
# The rehearsal's stand-in for CLR (rocm-systems projects/clr): HIP only, HIP's common tree and
# ROCr's installed header found where the recipe says, CppHeaderParser importable (CLR's
# hip_prof_gen.py imports it), a stand-in libamdhip64 compiled for real against them.
cmake_minimum_required(VERSION 3.18)
project(amdhip64 VERSION 7.2.0 LANGUAGES C)
if(NOT CLR_BUILD_HIP OR CLR_BUILD_OCL)
  message(FATAL_ERROR "the stand-in builds HIP only (CLR_BUILD_HIP=ON, CLR_BUILD_OCL=OFF)")
endif()
if(NOT EXISTS "${HIP_COMMON_DIR}/include/hip/hip_runtime.h")
  message(FATAL_ERROR "HIP_COMMON_DIR=${HIP_COMMON_DIR} is not HIP's common tree")
endif()
find_package(LLVM REQUIRED CONFIG)
find_path(HSA_INCLUDE hsa/hsa.h PATHS "${ROCM_PATH}/include" NO_DEFAULT_PATH REQUIRED)
find_package(Python3 REQUIRED COMPONENTS Interpreter)
execute_process(COMMAND "${Python3_EXECUTABLE}" -W ignore -c "import CppHeaderParser"
                RESULT_VARIABLE imported)
if(NOT imported EQUAL 0)
  message(FATAL_ERROR "CppHeaderParser is not importable by ${Python3_EXECUTABLE}")
endif()
add_library(amdhip64 SHARED src/hip.c)
target_include_directories(amdhip64 PRIVATE "${HSA_INCLUDE}" "${HIP_COMMON_DIR}/include")
set_target_properties(amdhip64 PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 7)
install(TARGETS amdhip64 LIBRARY DESTINATION lib)
message(STATUS "rehearsal: CLR stand-in (ROCr header ${HSA_INCLUDE})")
"""

_ROCPROFILER_CMAKE = """\
# The rehearsal's stand-in for rocprofiler-sdk (rocm-systems projects/rocprofiler-sdk): no
# tests, samples or docs, a stand-in librocprofiler-sdk compiled for real from its hsa/ sources.
cmake_minimum_required(VERSION 3.16)
project(rocprofiler-sdk VERSION 1.3.2 LANGUAGES C)
foreach(option ROCPROFILER_BUILD_TESTS ROCPROFILER_BUILD_SAMPLES ROCPROFILER_BUILD_DOCS)
  if(${option})
    message(FATAL_ERROR "the stand-in builds no tests, samples or docs (${option})")
  endif()
endforeach()
add_library(rocprofiler-sdk SHARED source/lib/rocprofiler-sdk/hsa/queue.c)
set_target_properties(rocprofiler-sdk PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 1)
install(TARGETS rocprofiler-sdk LIBRARY DESTINATION lib)
install(FILES include/rocprofiler-sdk/rocprofiler.h DESTINATION include/rocprofiler-sdk)
message(STATUS "rehearsal: rocprofiler-sdk stand-in")
"""
