"""The conformance rules over upstream's own Dockerfiles (vLLM docker/Dockerfile.rocm_72_base and
docker/Dockerfile.rocm_72 at the pinned release, replayed from the committed snapshot: the real
files), on a small repository that conforms, and a bad case per rule made by changing one of
its files (the style of tests/lint/cases.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_bake_checks import lint
from rocm_bake_checks.lint import runtimepip, upstream

COMMIT = "4ba787ec9"
RAW = f"https://raw.githubusercontent.com/vllm-project/vllm/{COMMIT}/docker"
NO_POLICY = Path("no-policy.toml")

BAKE = f"""variable "VLLM_COMMIT" {{ default = "{COMMIT}" }}
variable "PYTHON_VERSION" {{ default = "3.12" }}
CACHE_KEY = {{ triton = "t", vllm = "v", flash-attn = "f", mori = "m" }}
target "torch" {{
  context = "dockerfiles"
  dockerfile = "torch.Dockerfile"
  target = "wheels"
}}
target "vllm" {{
  context = "dockerfiles"
  dockerfile = "vllm.Dockerfile"
  target = "runtime"
  contexts = {{ torch = "target:torch" }}
}}
target "other" {{
  context = "dockerfiles"
  dockerfile = "other.Dockerfile"
  target = "wheels"
}}
target "wheels" {{
  context = "dockerfiles"
  dockerfile = "wheels-export.Dockerfile"
  target = "export"
  contexts = {{ torch = "target:torch", vllm = "target:vllm", other = "target:other" }}
}}
group "default" {{
  targets = ["torch", "vllm", "other", "wheels"]
}}
"""
# Every apt package upstream's base installs (Dockerfile.rocm_base base, Dockerfile.rocm base).
APT = ("software-properties-common git curl sudo vim less libgfortran5 libopenmpi-dev libpci-dev "
       "liblzma-dev pkg-config python${PYTHON_VERSION} python${PYTHON_VERSION}-dev "
       "python${PYTHON_VERSION}-venv python${PYTHON_VERSION}-lib2to3 python-is-python3 gcc-13 "
       "g++-13 libjpeg-dev libsox-dev libsox-fmt-all sox sqlite3 libsqlite3-dev libfmt-dev "
       "libmsgpack-dev libsuitesparse-dev apt-transport-https ca-certificates wget libnuma-dev "
       "ccache mold")
BASE_ENV = ("PATH=/opt/rocm/llvm/bin:/opt/rocm/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:"
            "/usr/bin:/sbin:/bin ROCM_PATH=/opt/rocm LD_LIBRARY_PATH=/opt/rocm/lib:/usr/local/lib:"
            " PYTORCH_ROCM_ARCH=gfx950 GPU_ARCHS=gfx950 AITER_ROCM_ARCH=\"gfx942;gfx950\""
            " HSA_NO_SCRATCH_RECLAIM=1"
            " PYTHON_VERSION=3.12 DEBIAN_FRONTEND=noninteractive UV_HTTP_TIMEOUT=500"
            " UV_INDEX_STRATEGY=unsafe-best-match UV_LINK_MODE=copy"
            " CCACHE_DIR=/root/.cache/ccache"
            " CCACHE_COMPILERCHECK=content MAX_JOBS=4")
RUNTIME_ENV = ("HSA_ENABLE_IPC_MODE_LEGACY=1 UCX_ROCM_COPY_SIGPOOL_MAX_ELEMS=inf "
               "UCX_ROCM_IPC_SIGPOOL_MAX_ELEMS=inf UV_COMPILE_BYTECODE=1 "
               "ROCPROFILER_QUEUE_INTERPOSITION=0 TOKENIZERS_PARALLELISM=false "
               "SAFETENSORS_FAST_GPU=1 HIP_FORCE_DEV_KERNARG=1 PYTORCH_NVML_BASED_CUDA_CHECK=1 "
               "KINETO_CONFIG=/opt/rocm-bake/libkineto.conf")
# Every distribution upstream's final image pip-installs by name (Dockerfile.rocm base,
# mori_base, final), pinned by the runtime image's lock (runtime-pip).
LOCK = "".join(f"{name}==1.0 \\\n    --hash=sha256:{'0' * 64}\n"
               for name in ("aiohttp", "blinker", "huggingface-hub", "msgpack", "pip", "pyzmq",
                            "quart"))
BUILD = "FROM base AS {name}\nRUN {flags} pip wheel -w /wheels .\n"
GOOD = {
    "docker-bake.hcl": BAKE,
    "dockerfiles/base.Dockerfile": ("FROM ubuntu AS base\nARG PYTHON_VERSION\n"
                                    f"ENV {BASE_ENV}\nRUN apt-get update && apt-get install -y "
                                    f"--no-install-recommends {APT}\n"
                                    "RUN update-alternatives --install /usr/bin/python3 python3 "
                                    "/usr/bin/python${PYTHON_VERSION} 1\n"),
    "dockerfiles/torch.Dockerfile": (
        "FROM base AS build\n"
        "RUN update-alternatives --install /usr/bin/gcc gcc /usr/bin/gcc-13 130 "
        "--slave /usr/bin/g++ g++ /usr/bin/g++-13\n"
        "RUN python tools/amd_build/build_amd.py\n"
        'RUN CMAKE_PREFIX_PATH="$(python -c 1)" pip wheel -w /wheels .\n'
        + "FROM scratch AS wheels\nCOPY --from=build /wheels/ /wheels/\n"),
    "dockerfiles/other.Dockerfile": (
        BUILD.format(name="triton", flags="MAX_JOBS=16")
        + BUILD.format(name="aiter", flags="PREBUILD_KERNELS=1 AITER_USE_SYSTEM_TRITON=1")
        + BUILD.format(name="flash-attn", flags="GPU_ARCHS=gfx950")
        + BUILD.format(name="mori", flags="true &&")
        + "FROM base AS rocm-runtime\nRUN cmake -B build -DCMAKE_BUILD_TYPE=Release "
          "-DCMAKE_PREFIX_PATH=/opt/rocm -DCMAKE_INSTALL_PREFIX=/opt/rocm "
          "-DClang_DIR=/opt/rocm-cmake-shim -DLLVM_DIR=/opt/rocm-cmake-shim "
          "-DCLR_BUILD_HIP=ON -DCLR_BUILD_OCL=OFF -DHIP_COMMON_DIR=/src/projects/hip "
          "-DROCM_PATH=/opt/rocm -DHIP_LLVM_ROOT=/opt/rocm/llvm && cmake --build build\n"
        + "FROM base AS rocprofiler-sdk\nRUN cmake -B build -DCMAKE_BUILD_TYPE=Release "
          "-DCMAKE_PREFIX_PATH=/opt/rocm -DCMAKE_INSTALL_PREFIX=/opt/rocm "
          "-DROCPROFILER_BUILD_TESTS=OFF -DROCPROFILER_BUILD_SAMPLES=OFF "
          "-DROCPROFILER_BUILD_DOCS=OFF && cmake --build build\n"
        + "FROM base AS nixl\nENV UCX_HOME=/usr/local/ucx NIXL_HOME=/usr/local/nixl\n"
        + 'RUN CC="ccache gcc" CXX="ccache g++" uv build\n'
        + "FROM scratch AS wheels\n"
        + "".join(f"COPY --from={n} /wheels/ /wheels/\n"
                  for n in ("triton", "aiter", "flash-attn", "mori"))),
    "dockerfiles/vllm.Dockerfile": (
        BUILD.format(name="amdsmi", flags="true &&")
        + "FROM base AS csrc\nENV TRITON_KERNELS_SRC_DIR=/opt/rocm-triton-kernels "
          "VLLM_TARGET_DEVICE=rocm\n"
        + "RUN CCACHE_BASEDIR=/src SETUPTOOLS_SCM_PRETEND_VERSION=0.0.0+rocm.csrc.build "
          "PYTHONDONTWRITEBYTECODE=1 LDFLAGS=-fuse-ld=mold python setup.py bdist_wheel\n"
        + "FROM csrc AS build\n"
          "RUN python tools/vllm-rocm/pin_rocm_dependencies.py /w requirements/rocm.txt\n"
          "RUN VLLM_USE_PRECOMPILED=1 VLLM_PRECOMPILED_WHEEL_LOCATION=/w "
          "VLLM_DOCKER_BUILD_CONTEXT=1 VLLM_REQUIRE_RUST_FRONTEND=1 pip wheel -w /wheels .\n"
        + "FROM scratch AS wheels\nCOPY --from=build /wheels/ /wheels/\n"
          "COPY --from=amdsmi /wheels/ /wheels/\n"
        + "FROM base AS runtime\nCOPY locks/vllm.txt /opt/rocm-bake/locks/vllm.txt\n"
          "RUN --mount=type=bind,from=torch,source=/wheels,target=/t "
          "--mount=type=bind,from=wheels,source=/wheels,target=/v pip install /t/*.whl "
          f"/v/*.whl\nENV {RUNTIME_ENV}\nCOPY --from=wheels /wheels/ /wheels/\n"),
    "dockerfiles/locks/vllm.txt": LOCK,
    "dockerfiles/wheels-export.Dockerfile": ("FROM scratch AS export\n"
                                             "COPY --from=torch /wheels/ /\n"
                                             "COPY --from=vllm /wheels/ /\n"
                                             "COPY --from=other /wheels/ /\n"),
}
STAGES = {
    "rocm_base:build_triton": ("other.Dockerfile:triton", "triton"),
    "rocm_base:build_amdsmi": ("vllm.Dockerfile:amdsmi", "amdsmi"),
    "rocm_base:build_pytorch": ("torch.Dockerfile:build", "torch"),
    "rocm_base:build_torchvision": ("torch.Dockerfile:build", "torchvision"),
    "rocm_base:build_torchaudio": ("torch.Dockerfile:build", "torchaudio"),
    "rocm_base:build_aiter": ("other.Dockerfile:aiter", "amd-aiter"),
    "rocm_base:build_fa": ("other.Dockerfile:flash-attn", "flash-attn"),
    "rocm_base:build_mori": ("other.Dockerfile:mori", "mori"),
    "rocm_base:build_rocm_runtime": ("other.Dockerfile:rocm-runtime", ""),
    "rocm_base:build_rocprofiler_sdk": ("other.Dockerfile:rocprofiler-sdk", ""),
    "rocm:build_nixl": ("other.Dockerfile:nixl", "nixl-rocm"),
    "rocm:csrc-build": ("vllm.Dockerfile:csrc", ""),
    "rocm:build_vllm": ("vllm.Dockerfile:build", ""),
    "rocm:build_vllm_wheel_release": ("vllm.Dockerfile:build", "vllm"),
}


def quoted(wheel: str) -> str:
    return f'"{wheel}"' if wheel else ""


def config(stages: dict[str, tuple[str, str]]) -> str:
    """upstream-dockerfiles.toml: the real one's settings with ``stages`` as the mapping."""
    real = upstream.DOCKERFILES.read_text(encoding="utf-8")
    head, _, rest = real.partition("[dockerfiles.stages]\n")
    implied = rest[rest.index("[[dockerfiles.implied]]"):]
    lines = [f'"{ref}" = {{ ours = "dockerfiles/{ours}", wheels = [{quoted(wheel)}] }}'
             for ref, (ours, wheel) in stages.items()]
    return head + "[dockerfiles.stages]\n" + "\n".join(lines) + "\n\n" + implied


def replace(name: str, old: str, new: str, stages: dict[str, tuple[str, str]] = STAGES
            ) -> dict[str, str]:
    assert old in GOOD[name], (name, old)
    return {**GOOD, name: GOOD[name].replace(old, new, 1), "upstream-dockerfiles.toml":
            config(stages)}


CASES: dict[str, tuple[dict[str, str], str]] = {
    # rule -> (bad files: the good repository with one change, what the finding names)
    "apt-base": (replace("dockerfiles/base.Dockerfile", " libopenmpi-dev", ""),
                 "installs libopenmpi-dev (Dockerfile.rocm_72_base stage base:51)"),
    "runtime-env": (replace("dockerfiles/vllm.Dockerfile", "HSA_ENABLE_IPC_MODE_LEGACY=1",
                            "HSA_ENABLE_IPC_MODE_LEGACY=0"),
                    "sets HSA_ENABLE_IPC_MODE_LEGACY=1 (Dockerfile.rocm_72:980); the runtime image "
                    "here sets HSA_ENABLE_IPC_MODE_LEGACY=0"),
    "runtime-pip": (replace("dockerfiles/locks/vllm.txt", "msgpack==1.0", "msgpack-x==1.0"),
                    "upstream's final image pip-installs msgpack (Dockerfile.rocm_72 stage "
                    "mori_base:600); no lock the runtime image here installs pins it"),
    "release-wheels": (replace("dockerfiles/vllm.Dockerfile",
                               "COPY --from=amdsmi /wheels/ /wheels/\n", ""),
                       "collects the amdsmi wheel (Dockerfile.rocm_72_base stage "
                       "debs_wheel_release:290)"),
    "export-wheels": ({**GOOD, "dockerfiles/vllm.Dockerfile": GOOD["dockerfiles/vllm.Dockerfile"]
                       .replace("COPY --from=amdsmi /wheels/ /wheels/\n", "")
                       .replace("target=/v pip", "target=/v --mount=type=bind,from=amdsmi,"
                                "source=/wheels,target=/a pip")},
                      "the runtime image vllm installs the wheels of dockerfiles/vllm.Dockerfile"
                      " stage amdsmi, which the wheels export does not collect"),
    "build-components": (replace("docker-bake.hcl", "", "",
                                 {k: v for k, v in STAGES.items() if k != "rocm_base:build_mori"}),
                         "Dockerfile.rocm_72_base stage build_mori builds something "
                         "(Dockerfile.rocm_72_base:225)"),
    "build-flags": (replace("dockerfiles/vllm.Dockerfile", " VLLM_REQUIRE_RUST_FRONTEND=1", ""),
                    "stage build_vllm_wheel_release builds with VLLM_REQUIRE_RUST_FRONTEND=1 "
                    "(implied: the stage ships the Rust frontend"),
    "build-toolchain": (replace("dockerfiles/torch.Dockerfile", "/usr/bin/gcc-13 130",
                                "/usr/bin/gcc-12 120"),
                        "build_pytorch builds with /usr/bin/gcc switched to /usr/bin/gcc-13 "
                        "(update-alternatives, Dockerfile.rocm_72_base:147); here it is "
                        "/usr/bin/gcc-12 (torch.Dockerfile:2)"),
    "build-scripts": (replace("dockerfiles/vllm.Dockerfile", "tools/vllm-rocm/", "tools/"),
                      "build_vllm_wheel_release runs the source's "
                      "tools/vllm-rocm/pin_rocm_dependencies.py (Dockerfile.rocm_72:728); this "
                      "stage does not: run it from the source tree here"),
}
# The other direction of build-flags: a flag set off here that upstream leaves at its default.
OFF_CASE = (replace("dockerfiles/other.Dockerfile", "RUN MAX_JOBS=16 pip wheel",
                    "RUN MAX_JOBS=16 TRITON_BUILD_PROTON=OFF pip wheel"),
            "dockerfiles/other.Dockerfile:1: build-flags: this stage builds with "
            "TRITON_BUILD_PROTON=OFF (other.Dockerfile:2); upstream's Dockerfile.rocm_72_base "
            "stage build_triton leaves TRITON_BUILD_PROTON at its source's default: drop "
            "TRITON_BUILD_PROTON=OFF")


def findings(root: Path, files: dict[str, str]) -> list[str]:
    files = {"upstream-dockerfiles.toml": config(STAGES), **files}
    for name, text in {**files, "upstream.toml": "# no [[component]]\n"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    settings = upstream.Settings(config=root / "upstream.toml",
                                 dockerfiles=root / "upstream-dockerfiles.toml")
    found = lint.run(root, [root / "docker-bake.hcl"], ["conformance"], root / NO_POLICY,
                     settings)
    return [str(f) for f in found]


def test_the_good_repository_conforms(tmp_path: Path) -> None:
    assert findings(tmp_path, GOOD) == []


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_catches_its_bad_case(rule: str, tmp_path: Path) -> None:
    bad, names = CASES[rule]
    found = findings(tmp_path, bad)
    assert any(f": {rule}: " in f and names in f for f in found), found


def test_a_flag_turned_off_here_that_upstream_leaves_at_its_default(tmp_path: Path) -> None:
    bad, line = OFF_CASE
    assert findings(tmp_path, bad) == [line]


def test_a_switch_in_upstreams_base_stage_counts_for_every_stage_built_on_it(tmp_path: Path
                                                                            ) -> None:
    # Dockerfile.rocm_base's base stage points python3 at the deadsnakes Python (line 46's RUN)
    bad = replace("dockerfiles/base.Dockerfile", "RUN update-alternatives", "RUN true ||")
    found = [f for f in findings(tmp_path, bad) if ": build-toolchain: " in f]
    assert len(found) == 10 and all(   # the 10 mapped stages of Dockerfile.rocm_72_base
        "builds with /usr/bin/python3 switched to /usr/bin/python3.12 (update-alternatives, "
        "Dockerfile.rocm_72_base:51); here it is not switched" in f for f in found), found


def test_the_committed_snapshot_holds_upstreams_dockerfiles_instructions() -> None:
    metadata = upstream.Metadata(upstream.Settings())

    def read(name: str) -> list[list[str]]:   # replayed: the reader is never called
        return [i[1:] for i in metadata.fact(f"{RAW}/{name}", "instructions", str)]

    assert ["FROM", "base AS debs_wheel_release"] in read("Dockerfile.rocm_72_base")
    assert ["ENV", "HIP_FORCE_DEV_KERNARG=1"] in read("Dockerfile.rocm_72")


def test_a_missing_upstream_stage_is_one_line_error(tmp_path: Path) -> None:
    stages = {**STAGES, "rocm_base:build_nothing": ("torch.Dockerfile:build", "x")}
    with pytest.raises(lint.LintError, match="has no stage 'build_nothing'") as caught:
        findings(tmp_path, {**GOOD, "upstream-dockerfiles.toml": config(stages)})
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("arguments", "expected"), [
    ("--quiet --ignore-installed blinker ", ["blinker"]),
    ("--quiet quart msgpack aiohttp pyzmq", ["quart", "msgpack", "aiohttp", "pyzmq"]),
    ("--system --upgrade huggingface-hub[cli]", ["huggingface-hub"]),
    ("--upgrade pip", ["pip"]),
    ("--system -r requirements/rocm.txt", []),
    ("--system *.whl", []),
    ("--system /nixl_install/*.whl", []),
    ("-c ${CONSTRAINTS} ./local 'torch>=2' $EXTRA", ["torch"]),
])
def test_runtime_pip_reads_names_never_files_paths_or_variables(arguments: str,
                                                                expected: list[str]) -> None:
    assert runtimepip.names(arguments) == expected
