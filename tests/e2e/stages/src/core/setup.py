"""rb-core: a C++ extension module (host compiler) and a HIP library compiled by hipcc for
every arch in PYTORCH_ROCM_ARCH (the knob torch's build reads), like torch's own wheels."""

import os
import subprocess
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class BuildWithHip(build_ext):
    """build_ext, then kernels.hip: hipcc -c (a compile the compiler cache sees), hipcc -shared."""

    def run(self) -> None:
        super().run()
        archs = [a for a in os.environ["PYTORCH_ROCM_ARCH"].split(";") if a]
        if not archs:
            raise SystemExit("PYTORCH_ROCM_ARCH is empty: refusing to build for the host's GPU")
        out = Path(self.build_lib) / "rb_core_gpu"
        out.mkdir(parents=True, exist_ok=True)
        obj = Path(self.build_temp) / "kernels.o"
        obj.parent.mkdir(parents=True, exist_ok=True)
        offload = [f"--offload-arch={arch}" for arch in archs]
        subprocess.run(["hipcc", *offload, "-O2", "-fPIC", "-cuid=rb_core_kernels", "-c",
                        "kernels.hip", "-o", str(obj)], check=True)
        subprocess.run(["hipcc", *offload, "-shared", str(obj), "-o",
                        str(out / "librb_core_gpu.so")], check=True)


setup(
    name="rb-core",
    version=os.environ["CORE_VERSION"],
    packages=["rb_core_gpu"],
    ext_modules=[Extension("rb_core", ["rb_core.cpp"], language="c++")],
    cmdclass={"build_ext": BuildWithHip},
)
