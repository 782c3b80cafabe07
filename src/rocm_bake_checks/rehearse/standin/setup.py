# The rehearsal's stand-in build (rocm-bake inv rehearse; docs/rehearsal.md): it replaces the
# compile of the source tree it sits in, never the recipe around it.  It builds the wheel the
# real build would, carrying the real artifact's identity from .rehearsal/wheel.json: its name,
# the version string the real build stamps (read from the tree, the checkout and the build's
# environment by the same rule as upstream's build), its Requires-Dist (read from upstream's
# files: listed, or the tree's requirements file as it is at build time) and the modules an
# image imports; a native module is compiled for real by the compiler the build environment
# names (CC/CXX, through the compiler wrappers), from a stand-in source.
import glob
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
SPEC = json.loads((HERE / ".rehearsal" / "wheel.json").read_text())
PKG = HERE / ".rehearsal" / "pkg"
# A build the real setup.py switches to by an environment variable (a wheel's build without GPU
# kernels: AITER_TRITON_ONLY=1, FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE): the same variable
# switches the stand-in to that build's identity.
for _switch in SPEC.get("switches", []):
    if os.environ.get(_switch["env"]) == _switch["value"]:
        SPEC.update({k: v for k, v in _switch.items() if k not in ("env", "value")})
        print(f"rehearsal: {_switch['env']}={_switch['value']}: {SPEC['stands_for']}")


def rocm_version():
    path = Path(os.environ.get("ROCM_PATH", "/opt/rocm")) / ".info" / "version"
    return path.read_text().strip().split("-")[0] if path.is_file() else ""


def git(*args):
    return subprocess.run(["git", "-C", str(HERE), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def version():
    rule = SPEC["version"]
    if "literal" in rule:
        base = rule["literal"]
    elif "file" in rule:
        base = (HERE / rule["file"]).read_text().strip()
    elif "env" in rule:
        base = os.environ.get(rule["env"], "")
        if not base:
            sys.exit(f"stand-in build: {rule['env']} is not set (the real build needs it too)")
    else:
        base = git("describe", "--tags", "--abbrev=0").removeprefix("v")
    sha = git("rev-parse", "HEAD") if "{sha" in rule.get("suffix", "") else ""
    rocm = rocm_version()
    suffix = rule.get("suffix", "").format(sha7=sha[:7], sha8=sha[:8],
                                           rocm3=rocm.replace(".", "")[:3])
    if suffix.startswith("+") and "+" in base:
        suffix = "." + suffix[1:]
    return base + suffix


def requirements_file(path):
    out = []
    for line in (HERE / path).read_text().strip().split("\n"):
        if line.startswith("-r "):
            out += requirements_file(str(Path(path).parent / line.split()[1]))
        elif not line.startswith("--") and not line.startswith("#") and line.strip():
            out.append(line)
    return out


def requires():
    out = list(SPEC.get("requires", []))
    for path in SPEC.get("requirements", []):
        out += requirements_file(path)
    for variable, name in SPEC.get("env_pins", {}).items():
        value = os.environ.get(variable)
        out.append(f"{name}=={value}" if value else name)
    return out


def native(module, compiler):
    """A real extension module compiled by the build's own compiler (a stand-in source)."""
    leaf = module.rsplit(".", 1)[-1]
    source = PKG.parent / f"{leaf}.c"
    source.write_text("#include <Python.h>\n"
                      f'static struct PyModuleDef m = {{PyModuleDef_HEAD_INIT, "{leaf}"}};\n'
                      f"PyMODINIT_FUNC PyInit_{leaf}(void) {{ return PyModule_Create(&m); }}\n")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    target = PKG / (module.replace(".", "/") + suffix)
    target.parent.mkdir(parents=True, exist_ok=True)
    cmd = os.environ.get(compiler) or ("c++" if compiler == "CXX" else "cc")
    subprocess.run([*cmd.split(), "-x", "c", "-O1", "-fPIC", "-shared",
                    "-I", sysconfig.get_paths()["include"], str(source), "-o", str(target)],
                   check=True)


class Binary(Distribution):
    def has_ext_modules(self):
        return not SPEC.get("pure", False)


def prepare(ver):
    if PKG.exists():
        shutil.rmtree(PKG)
    for name in SPEC["packages"]:
        init = PKG / name.replace(".", "/") / "__init__.py"
        init.parent.mkdir(parents=True, exist_ok=True)
        if not init.exists():
            init.write_text(f'__version__ = "{ver}"\n')
    for path, text in SPEC.get("modules", {}).items():
        target = PKG / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text.format(version=ver, rocm=rocm_version(),
                                      mpi=os.environ.get("USE_MPI") == "1"))
    for pattern in SPEC.get("tree_files", []):
        found = glob.glob(str(HERE / pattern))
        if not found:
            sys.exit(f"stand-in build: {pattern} is not in the tree (the real build ships it)")
        for path in found:
            target = PKG / Path(path).relative_to(HERE)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    for module, compiler in SPEC.get("native", {}).items():
        native(module, compiler)


VERSION = version()
prepare(VERSION)
print(f"rehearsal: stand-in build of {SPEC['name']} {VERSION} ({SPEC['stands_for']})")
setup(
    name=SPEC["name"],
    version=VERSION,
    install_requires=requires(),
    packages=[p for p in SPEC["packages"]] + [
        str(d.relative_to(PKG)).replace("/", ".") for d in PKG.rglob("*")
        if d.is_dir() and (d / "__init__.py").exists()
        and str(d.relative_to(PKG)).replace("/", ".") not in SPEC["packages"]],
    package_dir={"": ".rehearsal/pkg"},
    package_data={"": ["*.so", "*-rs", "*.txt"]},
    entry_points={"console_scripts": [f"{k}={v}" for k, v in SPEC.get("scripts", {}).items()]},
    distclass=Binary,
    zip_safe=False,
)
