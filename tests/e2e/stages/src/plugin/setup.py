"""rb-plugin: a package carrying a CMake-built shared library (a platform wheel)."""

import os

from setuptools import setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    def has_ext_modules(self) -> bool:
        return True


setup(
    name="rb-plugin",
    version=os.environ["PLUGIN_VERSION"],
    packages=["rb_plugin"],
    package_data={"rb_plugin": ["librb_plugin.so", "librb_plugin_gpu.so"]},
    install_requires=["rb-core"],
    distclass=BinaryDistribution,
)
