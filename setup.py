"""The wheel: the Python package (plugin/python/parz) with the plugin module libH5Zparz.so in it.

    python3 -m build --wheel --no-isolation

The module is built with CMake (Release, without tests, examples and benchmarks; the CUDA
decoder when nvcc is found, as for the main build), or taken from an existing build tree; every
shared object in the build's plugins/ directory goes into the package beside it (with CUDA, the
CUDA module parz_cuda.so, which the plugin loads from beside itself). It does not link
libpython or libhdf5 (it binds to the HDF5 that h5py uses at import), so the wheel is tagged
py3-none-linux_x86_64: any Python 3, this platform. Environment:

  PARZ_WHEEL_BUILD_DIR=DIR  take DIR/plugins/libH5Zparz.so from a configured and built tree
                            instead of building one (its version must be this source's)
  PARZ_CMAKE_ARGS="..."     more arguments for CMake's configure step, e.g. -DPARZ_CUDA=OFF or
                            "-DCMAKE_PREFIX_PATH=/opt/h5/usr" for HDF5's headers elsewhere
  PARZ_WHEEL_WORK_DIR=DIR   where CMake and setuptools build (default: build-wheel/ here)
  CMAKE_BUILD_PARALLEL_LEVEL  build jobs (default: all cores)
"""
import os
import re
import shlex
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:  # setuptools 70.1 and later carry bdist_wheel themselves
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
    from wheel.bdist_wheel import bdist_wheel

ROOT = os.path.dirname(os.path.abspath(__file__))
PACKAGE_SRC = os.path.join(ROOT, "plugin", "python")
PLUGIN = "libH5Zparz.so"
WORK = os.path.abspath(os.environ.get("PARZ_WHEEL_WORK_DIR") or os.path.join(ROOT, "build-wheel"))


def codec_version():
    """PARZ_VERSION_MAJOR.MINOR.PATCH of codec/parz.h, the project's one version (CMake reads
    it the same way for the build tree's copy of the package)."""
    with open(os.path.join(ROOT, "codec", "parz.h")) as f:
        text = f.read()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define PARZ_VERSION_%s +([0-9]+)" % part, text, re.M)
        if not m:
            raise RuntimeError("parz: codec/parz.h defines no PARZ_VERSION_%s" % part)
        parts.append(m.group(1))
    return ".".join(parts)


def cmake_plugin_dir():
    """Builds the module with CMake in WORK/cmake; returns the directory that holds it."""
    build = os.path.join(WORK, "cmake")
    extra = shlex.split(os.environ.get("PARZ_CMAKE_ARGS", ""))
    args = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DPARZ_TESTS=OFF",
            "-DPARZ_EXAMPLES=OFF", "-DPARZ_BENCH=OFF"]
    nvcc = "/usr/local/cuda/bin/nvcc"
    if os.path.exists(nvcc) and not any(a.startswith(("-DCMAKE_CUDA_COMPILER", "-DPARZ_CUDA=OFF"))
                                        for a in extra):
        args.append("-DCMAKE_CUDA_COMPILER=" + nvcc)
    subprocess.check_call(args + extra)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    # the plugin's target alone (with the CUDA module it loads, where CUDA is built): the wheel
    # holds what lands in plugins/, not the parz command or libparz_h5.so
    subprocess.check_call(["cmake", "--build", build, "-j", jobs, "--target", "H5Zparz"])
    return os.path.join(build, "plugins")


class build_py_with_plugin(build_py):
    """Adds _version.py (from codec/parz.h) and the plugin module to the built package, with
    any other shared object the build put beside it in plugins/."""

    def run(self):
        super().run()
        package = os.path.join(self.build_lib, "parz")
        with open(os.path.join(PACKAGE_SRC, "_version.py.in")) as f:
            text = f.read().replace("@PARZ_VERSION@", codec_version())
        with open(os.path.join(package, "_version.py"), "w") as f:
            f.write(text)
        tree = os.environ.get("PARZ_WHEEL_BUILD_DIR")
        plugins = os.path.join(tree, "plugins") if tree else cmake_plugin_dir()
        if not os.path.isfile(os.path.join(plugins, PLUGIN)):
            raise RuntimeError("parz: no %s in %s (%s)" % (
                PLUGIN, plugins, "build that tree first" if tree else
                "CMake did not build it: HDF5's headers not found? see PARZ_CMAKE_ARGS"))
        for name in sorted(os.listdir(plugins)):
            if name.endswith(".so") or ".so." in name:
                shutil.copy(os.path.join(plugins, name), os.path.join(package, name))


class NativeDistribution(Distribution):
    """Holds native code (the module), though no Python extension: platform-specific files."""

    def has_ext_modules(self):
        return True


class bdist_wheel_any_python(bdist_wheel):
    """Platform-specific (the module is native code) but free of any Python ABI."""

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


os.makedirs(WORK, exist_ok=True)
setup(
    name="parz",
    version=codec_version(),
    description="ParZ: parallel-decodable zfp compression for HDF5, for h5py (filter 37050)",
    python_requires=">=3.7",
    install_requires=["h5py>=3.0", "numpy"],
    packages=["parz"],
    package_dir={"": os.path.relpath(PACKAGE_SRC, ROOT)},
    distclass=NativeDistribution,
    cmdclass={"build_py": build_py_with_plugin, "bdist_wheel": bdist_wheel_any_python},
    options={"build": {"build_base": os.path.join(WORK, "setuptools")},
             "egg_info": {"egg_base": WORK}},
    zip_safe=False,
)
