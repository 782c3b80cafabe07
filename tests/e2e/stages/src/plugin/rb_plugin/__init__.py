"""rb-plugin: scale(x) = rb_core.add(3 * x, 1), the arithmetic done by a CMake-built library."""

import ctypes
from pathlib import Path

import rb_core

_LIB = ctypes.CDLL(str(Path(__file__).with_name("librb_plugin.so")))
_LIB.rb_plugin_scale.restype = ctypes.c_long
_LIB.rb_plugin_scale.argtypes = [ctypes.c_long]
_LIB.rb_plugin_offset.restype = ctypes.c_long


def scale(x: int) -> int:
    return int(rb_core.add(_LIB.rb_plugin_scale(x), _LIB.rb_plugin_offset()))
