"""For each lint rule, a small bad bake/Dockerfile pair it must catch and a good one it must
accept. Each case is a set of files written into an empty directory: ``docker-bake.hcl`` is the
bake file, everything else sits beside it."""

from __future__ import annotations

from dataclasses import dataclass

DIGEST = "sha256:" + "ab" * 32
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass(frozen=True)
class Case:
    family: str
    rule: str
    bad: dict[str, str]
    good: dict[str, str]


def bake(body: str, variables: str = "") -> str:
    return variables + body


def target(extra: str = "", dockerfile: str = "Dockerfile", stage: str = "") -> str:
    stage_line = f'  target = "{stage}"\n' if stage else ""
    return (f'target "app" {{\n  dockerfile = "{dockerfile}"\n{stage_line}{extra}}}\n'
            'group "default" {\n  targets = ["app"]\n}\n')


def var(name: str, value: str) -> str:
    return f'variable "{name}" {{\n  default = "{value}"\n}}\n'


IMAGE = f"debian:bookworm@{DIGEST}"
FROM = f"FROM {IMAGE} AS app\n"

CASES: dict[str, Case] = {
    "dockerfile-missing": Case(
        "consistency", "dockerfile-missing",
        bad={"docker-bake.hcl": target(dockerfile="missing.Dockerfile")},
        good={"docker-bake.hcl": target(), "Dockerfile": FROM}),
    "target-stage": Case(
        "consistency", "target-stage",
        bad={"docker-bake.hcl": target(stage="runtime"), "Dockerfile": FROM},
        good={"docker-bake.hcl": target(stage="app"), "Dockerfile": FROM}),
    "arg-undeclared": Case(
        "consistency", "arg-undeclared",
        # ONLY_GLOBAL is declared before FROM but never used in a FROM nor redeclared.
        bad={"docker-bake.hcl": target('  args = { FOO = "1", ONLY_GLOBAL = "x" }\n',
                                       stage="app"),
             "Dockerfile": f"ARG ONLY_GLOBAL\nFROM {IMAGE} AS dep\nARG BAR\n"
                           "FROM dep AS app\nRUN --network=none echo\n"},
        # FOO is declared in a stage the target builds from; BASE is used in a FROM.
        good={"docker-bake.hcl": target(f'  args = {{ FOO = "1", BASE = "{IMAGE}" }}\n',
                                        stage="app"),
              "Dockerfile": "ARG BASE\nFROM ${BASE} AS dep\nARG FOO\n"
                            "FROM dep AS app\nRUN --network=none echo\n"}),
    "arg-missing": Case(
        "consistency", "arg-missing",
        bad={"docker-bake.hcl": target(), "Dockerfile": FROM + "ARG NEEDED\n"},
        # Passed, defaulted, or defaulted globally and redeclared.
        good={"docker-bake.hcl": target('  args = { NEEDED = "" }\n'),
              "Dockerfile": "ARG G=1\n" + FROM + "ARG NEEDED\nARG D=2\nARG G\n"}),
    "context-missing": Case(
        "consistency", "context-missing",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": "FROM base AS app\nCOPY --from=tools /x /x\n"},
        good={"docker-bake.hcl":
              target('  contexts = { base = "target:base", tools = "target:base" }\n')
              + 'target "base" {\n  dockerfile = "base.Dockerfile"\n}\n',
              "Dockerfile": "FROM base AS app\nCOPY --from=tools /x /x\n",
              "base.Dockerfile": FROM}),
    "pin-unused": Case(
        "consistency", "pin-unused",
        bad={"docker-bake.hcl": var("TOOL_VERSION", "1.2.3") + target(),
             "Dockerfile": FROM},
        good={"docker-bake.hcl": var("TOOL_VERSION", "1.2.3")
              + target('  labels = { v = substr(TOOL_VERSION, 0, 1) }\n'),
              "Dockerfile": FROM}),
    "pin-source": Case(
        "pins", "pin-source",
        # A branch without a commit, and a commit without its human ref.
        bad={"docker-bake.hcl": var("LIB_REPO", "https://example.org/lib.git")
             + var("LIB_REF", "release/1.x") + var("TOOL_COMMIT", COMMIT)
             + target('  args = { A = LIB_REPO, B = LIB_REF, C = TOOL_COMMIT }\n'),
             "Dockerfile": FROM + "ARG A\nARG B\nARG C\n"},
        good={"docker-bake.hcl": var("LIB_REPO", "https://example.org/lib.git")
              + var("LIB_REF", "v1.4.2") + var("TOOL_COMMIT", COMMIT)
              + var("TOOL_REF", "release/2.x")
              + target('  args = { A = LIB_REPO, B = LIB_REF, C = TOOL_COMMIT, D = TOOL_REF }\n'),
              "Dockerfile": FROM + "ARG A\nARG B\nARG C\nARG D\n"}),
    "pin-version": Case(
        "pins", "pin-version",
        bad={"docker-bake.hcl": var("TOOL_VERSION", ">=1.2") + target(), "Dockerfile": FROM},
        good={"docker-bake.hcl": var("TOOL_VERSION", "1.2.3") + target(), "Dockerfile": FROM}),
    "pin-sha256": Case(
        "pins", "pin-sha256",
        bad={"docker-bake.hcl": var("TOOL_SHA256", "deadbeef") + target(), "Dockerfile": FROM},
        good={"docker-bake.hcl": var("TOOL_SHA256", "ab" * 32) + target(),
              "Dockerfile": FROM}),
    "moving-ref": Case(
        "pins", "moving-ref",
        bad={"docker-bake.hcl": var("LIB_BRANCH", "main") + target(),
             "Dockerfile": FROM + "ARG TOOL=latest\n"
             "RUN --network=none pip install git+https://example.org/x.git@main\n"},
        good={"docker-bake.hcl": var("LIB_BRANCH", "v1.0.0") + target(),
              "Dockerfile": FROM + "ARG TOOL=1.0\n"}),
    "base-image": Case(
        "pins", "base-image",
        bad={"docker-bake.hcl": target('  args = { BASE = "debian:bookworm" }\n'),
             "Dockerfile": "ARG BASE\nFROM ${BASE} AS app\nCOPY --from=alpine:3 /x /x\n"},
        good={"docker-bake.hcl": target(f'  args = {{ BASE = "{IMAGE}" }}\n'),
              "Dockerfile": f"ARG BASE\nFROM ${{BASE}} AS app\nCOPY --from=alpine:3@{DIGEST} "
                            "/x /x\n"}),
    "download-sha256": Case(
        "downloads", "download-sha256",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + "RUN apt-get install -y curl && curl -fsSLo /t.tgz "
                                  "https://example.org/t.tgz\n",
             "scripts/get.sh": "#!/bin/sh\nwget https://example.org/t.tgz\n"},
        good={"docker-bake.hcl": target(),
              "Dockerfile": FROM + "RUN apt-get install -y curl=7.88.1-10+deb12u12 && curl "
                                   "-fsSLo /t.tgz https://example.org/t.tgz && echo 'ab  /t.tgz' | "
                                   "sha256sum -c -\n",
              "scripts/get.sh": "#!/bin/sh\nwget https://example.org/t.tgz\n"
                                "echo 'ab  t.tgz' | sha256sum -c -\n"}),
    "pip-pin": Case(
        "downloads", "pip-pin",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + 'RUN pip install --no-cache-dir "cmake>=3.28" ninja\n',
             "requirements/tools.txt": "wheel\n"},
        good={"docker-bake.hcl": target(),
              "Dockerfile": FROM + 'RUN pip install --no-cache-dir "cmake==3.31.10" '
                                   "/wheels/*.whl -r /src/requirements.txt\n",
              "requirements/tools.txt": "# tools\nwheel==0.45.1\n"}),
    "apt-pin": Case(
        "downloads", "apt-pin",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + "RUN apt-get update && apt-get install -y --no-install-recommends"
                                  " \\\n    git=1:2.39.5-0+deb12u2 curl ./local.deb\n"},
        good={"docker-bake.hcl": target(),
              "Dockerfile": FROM + "RUN apt-get update && apt-get install -y "
                                   "git=1:2.39.5-0+deb12u2 ./local.deb\n"
                                   "RUN echo 'deb http://snapshot.debian.org/archive/debian/"
                                   "20250101T000000Z bookworm main' > /etc/apt/sources.list "
                                   "&& apt-get update && apt-get install -y curl\n"}),
    "apt-repository": Case(
        "downloads", "apt-repository",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + "RUN add-apt-repository -y ppa:deadsnakes/ppa\n"},
        good={"docker-bake.hcl": target(),
              "Dockerfile": FROM + "RUN apt-get install -y software-properties-common=0.99.22\n"}),
    "git-commit": Case(
        "downloads", "git-commit",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + "RUN git clone --depth 1 -b main https://example.org/x.git\n"},
        good={"docker-bake.hcl": target('  args = { X_COMMIT = "' + COMMIT + '" }\n'),
              "Dockerfile": FROM + "ARG X_COMMIT\nRUN git clone https://example.org/x.git "
                                   "&& git -C x checkout ${X_COMMIT}\n"
                                   f"RUN git -C y fetch origin {COMMIT}\n"}),
    "setup-requires": Case(
        "downloads", "setup-requires",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + "RUN X=1 with-compiler-cache.sh python3 setup.py bdist_wheel\n"},
        good={"docker-bake.hcl": target(),
              "Dockerfile": FROM + "RUN --network=none python setup.py bdist_wheel\n"
                                   "RUN PIP_NO_INDEX=1 python3 setup.py bdist_wheel\n"}),
    "build-download": Case(
        "downloads", "build-download",
        bad={"docker-bake.hcl": target(f'  args = {{ TRITON_COMMIT = "{COMMIT}" }}\n'),
             "Dockerfile": FROM + "ARG TRITON_COMMIT\n"
                                  'RUN fetch-source.sh r main "${TRITON_COMMIT}" /src/triton\n'
                                  "RUN pip wheel --no-build-isolation -w /wheels .\n"},
        good={"docker-bake.hcl": target(f'  args = {{ TRITON_COMMIT = "{COMMIT}" }}\n'),
              "Dockerfile": FROM + "ARG TRITON_COMMIT\n"
                                   'RUN fetch-source.sh r main "${TRITON_COMMIT}" /src/triton\n'
                                   "RUN TRITON_OFFLINE_BUILD=1 pip wheel --no-build-isolation "
                                   "-w /wheels .\n"}),
    "cache-hooks": Case(
        "caching", "cache-hooks",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + "RUN --network=none pip wheel -w /wheels .\n"
                                  "RUN --network=none with-compiler-cache.sh cmake --build b\n"},
        good={"docker-bake.hcl": target(),
              "Dockerfile": FROM + "RUN --network=none --mount=type=cache,target=/c "
                                   "with-compiler-cache.sh pip wheel -w /wheels .\n"
                                   "RUN --network=none pip install /wheels/*.whl\n"}),
    "cache-env": Case(
        "caching", "cache-env",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + "ENV HIP_CLANG_PATH=/opt/wrappers/bin\n"},
        good={"docker-bake.hcl": target(),
              "Dockerfile": FROM + "ENV ROCM_PATH=/opt/rocm\n"}),
    "cache-launcher": Case(
        "caching", "cache-launcher",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + "RUN --mount=type=cache,target=/c with-compiler-cache.sh "
                                  "bash -c 'USE_CCACHE=1 CC=gcc python setup.py bdist_wheel'\n"
                                  "RUN --mount=type=cache,target=/c with-compiler-cache.sh "
                                  "cmake -S . -B b -DCMAKE_CXX_COMPILER_LAUNCHER=sccache\n"},
        good={"docker-bake.hcl": target(),
              "Dockerfile": FROM + "RUN --mount=type=cache,target=/c with-compiler-cache.sh "
                                   "bash -c 'CXX=hipcc python setup.py bdist_wheel'\n"
                                   "RUN --mount=type=cache,target=/c with-compiler-cache.sh "
                                   "bash -c './configure CC=\"${COMPILER_LAUNCHER:+"
                                   "$COMPILER_LAUNCHER }gcc\" && make -j2'\n"}),
    "hadolint": Case(
        "hadolint", "hadolint-DL3003",
        bad={"docker-bake.hcl": target(), ".hadolint.yaml": "ignored: []\n",
             "Dockerfile": FROM + "RUN cd /tmp && echo hi\n"},
        good={"docker-bake.hcl": target(), ".hadolint.yaml": "ignored: []\n",
              "Dockerfile": FROM + "WORKDIR /tmp\nRUN echo hi\n"}),
    "python-path": Case(
        "recipes", "python-path",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + "WORKDIR /src/pytorch\n"
                                  "RUN pip install /wheels/torch.whl "
                                  "&& python -c \"import torch\"\n"},
        # -P keeps the working directory off sys.path; the standard library cannot be shadowed.
        good={"docker-bake.hcl": target(),
              "Dockerfile": FROM + "WORKDIR /src/pytorch\n"
                                   "RUN python -P -c \"import torch\" "
                                   "&& python -c 'import sys'\n"}),
    "setup-metadata": Case(
        "recipes", "setup-metadata",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + "RUN PREBUILD_KERNELS=1 pip wheel --no-deps -w /wheels .\n"},
        good={"docker-bake.hcl": target(),
              "Dockerfile": FROM + "RUN PREBUILD_KERNELS=1 python setup.py bdist_wheel "
                                   "--dist-dir=/wheels\n"}),
    "triton-kernels": Case(
        "recipes", "triton-kernels",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + "RUN VLLM_TARGET_DEVICE=rocm python setup.py bdist_wheel\n"},
        good={"docker-bake.hcl": target(),
              "Dockerfile": FROM + "ENV TRITON_KERNELS_SRC_DIR=/opt/rocm-triton-kernels\n"
                                   "RUN VLLM_TARGET_DEVICE=rocm python setup.py bdist_wheel\n"}),
    "runtime-modules": Case(
        "recipes", "runtime-modules",
        bad={"docker-bake.hcl": target(dockerfile="vllm.Dockerfile"),
             "vllm.Dockerfile": FROM + "RUN write-manifest.py /v.json /deps/vllm "
                                       "&& python -P -c \"import torch, vllm, amdsmi\"\n"},
        good={"docker-bake.hcl": target(dockerfile="vllm.Dockerfile"),
              "vllm.Dockerfile": FROM + "RUN write-manifest.py /v.json /deps/vllm "
                                        "&& check-runtime.py --expect torch vllm amdsmi\n"}),
    "pip-constraints": Case(
        "recipes", "pip-constraints",
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + "RUN pip install /deps/torch/*.whl\n"
                                  "RUN pip install -r requirements.txt\n"},
        good={"docker-bake.hcl": target(),
              "Dockerfile": FROM + "RUN pip install /deps/torch/*.whl "
                                   "&& write-constraints.py /c.txt /deps/torch\n"
                                   "ENV PIP_CONSTRAINT=/c.txt\n"
                                   "RUN pip install -r requirements.txt\n"}),
    "pip-unlocked": Case(
        "locks", "pip-unlocked",
        # a name on the command line, no hashes, no lock
        bad={"docker-bake.hcl": target(),
             "Dockerfile": FROM + "RUN pip install -r requirements.txt \"numpy==2.2.6\"\n"},
        # the lock (which exists) with hashes, the cell's wheels by sha256 from the same RUN
        good={"docker-bake.hcl": target(),
              "locks/app.txt": "six==1.17.0 \\\n    --hash=sha256:" + "ab" * 32 + "\n",
              "Dockerfile": FROM + "COPY locks/app.txt /opt/locks/app.txt\n"
                                   "RUN write-constraints.py --wheels /tmp/w.txt /c.txt /deps \\\n"
                                   "    && pip install --require-hashes -r /opt/locks/app.txt "
                                   "-r /tmp/w.txt \\\n"
                                   "    && pip wheel --no-build-isolation --no-deps -w /w .\n"}),
}
