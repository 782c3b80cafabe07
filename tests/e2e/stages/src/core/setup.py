"""rb-core: a C++ extension module, compiled through hipcc in the test variant."""

import os

from setuptools import Extension, setup

setup(
    name="rb-core",
    version=os.environ["CORE_VERSION"],
    ext_modules=[Extension("rb_core", ["rb_core.cpp"], language="c++")],
)
