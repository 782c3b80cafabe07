"""rb-app: a C extension plus a console script that uses rb-core and rb-plugin."""

import os

from setuptools import Extension, setup

setup(
    name="rb-app",
    version=os.environ["APP_VERSION"],
    packages=["rb_app"],
    ext_modules=[Extension("rb_app._native", ["rb_app/native.c"])],
    install_requires=["rb-core", "rb-plugin"],
    entry_points={"console_scripts": ["rb-app = rb_app:main"]},
)
