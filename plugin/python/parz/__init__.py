"""ParZ for h5py: compression settings for the ParZ HDF5 filter (id 37050).

    import h5py, parz                   # registers the filter with h5py's own HDF5
    with h5py.File("out.h5", "w") as f:
        f.create_dataset("x", data=array, chunks=(256, 256),
                         compression=parz.Parz(accuracy=1e-3))

Importing parz loads the plugin module that comes with the package (inside it when installed
from the wheel, else the build tree's or the installed one) and registers the filter with the
HDF5 library h5py uses: no HDF5_PLUGIN_PATH and no system install needed. h5py, h5dump and
h5repack then decode transparently (the last two find the plugin through HDF5's plugin path).
parz.read(dset, selection) reads a ParZ dataset faster than dset[selection]: its chunks decoded
straight into a numpy array, or into GPU memory with device="cuda" (see its help).
parz.write(dset, array, selection) stores whole chunks of one faster than dset[selection] = array,
from a numpy array or from GPU memory (CuPy, PyTorch, DLPack), encoded on the GPU where it can.
The values passed to HDF5 (``Parz(...).filter_options``) follow the user cd_values layout of
docs/cd_values.md: the mode first (zfp's numbered as H5Z-ZFP numbers them; plus 65536 times the
codec's id for a codec other than zfp, chosen with Parz(codec=NAME, ...)), then its values, doubles as the
high and low 32-bit words of their IEEE-754 binary64 bit pattern, then optionally
segment_blocks, partition_segments and table kind.
"""
import collections
import os
import warnings

from . import _codecs, _lib
from ._read import CudaArray, read
from ._write import write
from ._filter import (FILTER_ID, MODE_ACCURACY, MODE_EXPERT, MODE_PRECISION, MODE_RATE,
                      MODE_REVERSIBLE, TABLE_AUTO, TABLE_HYBRID, TABLE_LENGTHS, TABLE_NONE,
                      TABLE_OFFSETS, Parz, cd_values, double_words)
from ._version import __version__

__all__ = ["FILTER_ID", "Parz", "cd_values", "codecs", "double_words", "register", "plugin_dir",
           "get_config", "read", "write", "CudaArray", "__version__",
           "MODE_RATE", "MODE_PRECISION", "MODE_ACCURACY", "MODE_EXPERT", "MODE_REVERSIBLE",
           "TABLE_AUTO", "TABLE_NONE", "TABLE_OFFSETS", "TABLE_LENGTHS", "TABLE_HYBRID"]

PLUGIN_NAME = _lib.PLUGIN_NAME

Config = collections.namedtuple("Config", "version plugin openmp cuda gpu")
Config.__doc__ = """What get_config() reports: the plugin's version ("major.minor.patch"), its
file, and its back ends: openmp (chunks decode on OpenMP threads), cuda (the CUDA decoder: built
with it, and its module parz_cuda.so, beside the plugin, loads), gpu (a usable CUDA GPU is present
now)."""


def plugin_dir():
    """Directory of the libH5Zparz.so this package uses, or None when there is none."""
    try:
        return os.path.dirname(_lib.find())
    except FileNotFoundError:
        return None


def register(path=None):
    """Loads libH5Zparz.so from `path` (the file or its directory; None: the package's own, see
    plugin_dir) and registers the filter with h5py's HDF5 in this process; returns the module's
    directory. `import parz` does this for the default module; registering again is harmless,
    and another module file replaces the filter with its own. Raises TypeError when path is not a
    path, FileNotFoundError when no module is there, OSError when it cannot be loaded or
    registered."""
    return os.path.dirname(_lib.module_path(_lib.load(path)))


def codecs():
    """{codec name: (mode name, ...)}: the codecs Parz(codec=...) takes in this process (those of
    the registered plugin module; zfp before one is registered) and their modes, the keywords
    that follow codec=."""
    return {name: tuple(m.name for m in modes) for name, modes in _codecs.table().items()}


def get_config():
    """The registered plugin's version, file and back ends (a Config)."""
    lib = _lib.library()
    c = _lib.config(lib)
    return Config(version="%d.%d.%d" % (c.version_major, c.version_minor, c.version_patch),
                  plugin=_lib.module_path(lib), openmp=bool(c.openmp), cuda=bool(c.cuda),
                  gpu=bool(c.gpu))


try:
    _lib.load()
except OSError as _e:  # FileNotFoundError included: the settings stay usable without a plugin
    warnings.warn("%s; ParZ datasets cannot be read or written in this process until "
                  "parz.register(path) succeeds" % _e, RuntimeWarning, stacklevel=2)
