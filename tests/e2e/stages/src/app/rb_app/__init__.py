"""rb-app: prints what the three compiled parts compute together."""

from importlib.metadata import version

import rb_core
import rb_plugin

from rb_app import _native


def main() -> None:
    total = _native.twice(rb_plugin.scale(rb_core.add(1, 1)))
    print(f"rb-app {version('rb-app')}: twice(scale(add(1, 1))) = {total}")
