"""The rehearsal's stand-in for vLLM's tools/build_rust.py (the Rust compile cannot run here):
it writes the two artifacts the real one builds in place -- vllm/vllm-rs (an executable) and
vllm/_rust_tool_parser.abi3.so (a real Python extension module, compiled by the host compiler
from a stand-in source) -- where setup.py ships them from."""
import os
import subprocess
import sysconfig
from pathlib import Path

root = Path(__file__).resolve().parents[1]
(root / "vllm").mkdir(exist_ok=True)
rs = root / "vllm" / "vllm-rs"
rs.write_text("#!/bin/sh\necho 'vllm-rs (rehearsal stand-in)'\n")
rs.chmod(0o755)
source = root / "build" / "_rust_tool_parser.c"
source.parent.mkdir(exist_ok=True)
source.write_text("#include <Python.h>\n"
                  'static struct PyModuleDef m = {PyModuleDef_HEAD_INIT, "_rust_tool_parser"};\n'
                  "PyMODINIT_FUNC PyInit__rust_tool_parser(void) "
                  "{ return PyModule_Create(&m); }\n")
cc = os.environ.get("CC") or "cc"
subprocess.run([*cc.split(), "-O1", "-fPIC", "-shared", "-I", sysconfig.get_paths()["include"],
                str(source), "-o", str(root / "vllm" / "_rust_tool_parser.abi3.so")], check=True)
print("rehearsal: stand-in Rust build wrote vllm/vllm-rs and vllm/_rust_tool_parser.abi3.so")
