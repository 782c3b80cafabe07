"""rb_core_gpu: where rb-core's HIP library lives (librb_core_gpu.so; not loaded here)."""

from pathlib import Path

LIBRARY = Path(__file__).with_name("librb_core_gpu.so")
