"""ParZ for h5py: compression settings for the ParZ HDF5 filter (id 37050).

    import h5py, parz
    parz.register()                     # only needed when the plugin is not installed
    with h5py.File("out.h5", "w") as f:
        f.create_dataset("x", data=array, chunks=(256, 256),
                         compression=parz.Parz(accuracy=1e-3))

Reading needs nothing but the plugin: h5py, h5dump and h5repack decode transparently.
The values passed to HDF5 (``Parz(...).filter_options``) follow the user cd_values layout of
README.md: the mode first (numbered as H5Z-ZFP numbers them), then its values, doubles as the
high and low 32-bit words of their IEEE-754 binary64 bit pattern, then optionally
segment_blocks, partition_segments and table kind.
"""
import os

from ._filter import (FILTER_ID, MODE_ACCURACY, MODE_EXPERT, MODE_PRECISION, MODE_RATE,
                      MODE_REVERSIBLE, TABLE_AUTO, TABLE_HYBRID, TABLE_LENGTHS, TABLE_NONE,
                      TABLE_OFFSETS, Parz, cd_values, double_words)

__all__ = ["FILTER_ID", "Parz", "cd_values", "double_words", "register", "plugin_dir",
           "MODE_RATE", "MODE_PRECISION", "MODE_ACCURACY", "MODE_EXPERT", "MODE_REVERSIBLE",
           "TABLE_AUTO", "TABLE_NONE", "TABLE_OFFSETS", "TABLE_LENGTHS", "TABLE_HYBRID"]

PLUGIN_NAME = "libH5Zparz.so"


def _candidate_dirs():
    try:
        from ._plugin_dir import PLUGIN_DIR  # written by CMake (build tree or install)
        yield PLUGIN_DIR
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    yield here  # a plugin shipped inside the package directory
    yield "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins"
    yield "/usr/local/hdf5/lib/plugin"


def plugin_dir():
    """Directory of the libH5Zparz.so this package was built or installed with, or None."""
    for d in _candidate_dirs():
        if d and os.path.isfile(os.path.join(d, PLUGIN_NAME)):
            return d
    return None


def register(path=None):
    """Adds a directory holding libH5Zparz.so to h5py's plugin search path (first place) and
    returns it. path=None: the build-tree or installed plugin of this package. Registering the
    same directory twice is harmless. Raises FileNotFoundError when no plugin is there."""
    import h5py
    d = path if path is not None else plugin_dir()
    if d is None or not os.path.isfile(os.path.join(d, PLUGIN_NAME)):
        raise FileNotFoundError(
            "parz: %s not found%s; build ParZ (cmake) or pass its directory to parz.register()"
            % (PLUGIN_NAME, "" if d is None else " in " + d))
    d = os.path.abspath(d)
    present = [os.fsdecode(h5py.h5pl.get(i)) for i in range(h5py.h5pl.size())]
    if d not in present:
        h5py.h5pl.prepend(d.encode())
    return d
