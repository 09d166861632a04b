"""The ParZ plugin module in this process: found, loaded with ctypes, bound to h5py's HDF5.

`library()` returns the loaded module (a ctypes.CDLL) once the filter is registered with the
HDF5 library that h5py uses; other modules call the module's exported parz_h5_* functions
through it, holding `hdf5_lock()`. Those functions use the HDF5 library the module is bound to,
so identifiers (hid_t) from h5py objects (`dset.id.id`) are valid there.

How the binding works: h5py's compiled modules are linked to the HDF5 library h5py was built
for (Debian's libhdf5_serial, or the copy pip's wheel carries in h5py.libs). Looking a name up
through the handle of one of them searches that module and the libraries it needs, so it finds
HDF5's own H5Zregister; parz_h5_register (H5Zparz.c) is given that address, binds the module's
HDF5 function table to the library containing it, and registers the filter there.
"""
import contextlib
import ctypes
import os
import threading

PLUGIN_NAME = "libH5Zparz.so"
# Where HDF5 looks for plugins by default: Debian's serial HDF5, and HDF5's own default.
HDF5_PLUGIN_DIRS = ("/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins", "/usr/local/hdf5/lib/plugin")

_lock = threading.Lock()
_loaded = {}      # real path of a module -> its registered CDLL
_current = None   # the module registered last: the one HDF5 runs for the filter


class Config(ctypes.Structure):
    """H5Z_parz_config of H5Zparz_register.h."""
    _fields_ = [("version_major", ctypes.c_uint), ("version_minor", ctypes.c_uint),
                ("version_patch", ctypes.c_uint), ("openmp", ctypes.c_int),
                ("cuda", ctypes.c_int), ("gpu", ctypes.c_int)]


def _candidate_dirs():
    # A module shipped inside the package (the wheel) comes first, then the one this package was
    # built or installed with (written by CMake), then HDF5's usual plugin directories.
    yield os.path.dirname(os.path.abspath(__file__))
    try:
        from ._plugin_dir import PLUGIN_DIR
        yield PLUGIN_DIR
    except ImportError:
        pass
    for d in HDF5_PLUGIN_DIRS:
        yield d


def find(path=None):
    """Path of the module: `path` (the file, or a directory holding it), else the first
    candidate directory that holds it. FileNotFoundError ("parz: ...") when there is none."""
    if path is not None:
        try:
            path = os.fsdecode(path)
        except TypeError:
            raise TypeError("parz: the module's path must be a str, bytes or os.PathLike, got %s"
                            % type(path).__name__) from None
        f = os.path.join(path, PLUGIN_NAME) if os.path.isdir(path) else path
        if not os.path.isfile(f):
            raise FileNotFoundError("parz: %s not found in %s" % (PLUGIN_NAME, path))
        return os.path.abspath(f)
    searched = []
    for d in _candidate_dirs():
        if d and d not in searched:
            searched.append(d)
            f = os.path.join(d, PLUGIN_NAME)
            if os.path.isfile(f):
                return os.path.abspath(f)
    raise FileNotFoundError(
        "parz: %s not found (looked in %s); build ParZ (cmake) or install its wheel, or pass "
        "the module's directory to parz.register()" % (PLUGIN_NAME, ", ".join(searched)))


def hdf5_lock():
    """h5py's lock around HDF5 calls (HDF5 itself is not thread-safe in h5py's builds): hold it
    while calling into the module from Python, as h5py does for its own calls."""
    import h5py
    try:
        return h5py._objects.phil
    except AttributeError:
        return contextlib.nullcontext()


def hdf5_function_address():
    """Address of H5Zregister in the HDF5 library that h5py uses."""
    import h5py
    module = h5py.h5z.__file__
    try:
        handle = ctypes.CDLL(module, mode=os.RTLD_LOCAL | os.RTLD_NOLOAD)
        return ctypes.cast(handle.H5Zregister, ctypes.c_void_p).value
    except (OSError, AttributeError) as e:
        raise OSError("parz: cannot find h5py's HDF5 library through %s: %s" % (module, e))


def _open(path):
    lib = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
    try:
        lib.parz_h5_register.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.parz_h5_register.restype = ctypes.c_int
        lib.parz_h5_config.argtypes = [ctypes.POINTER(Config)]
        lib.parz_h5_config.restype = None
    except AttributeError:
        raise OSError("parz: %s lacks parz_h5_register; it is older than this Python package"
                      % path)
    return lib


def load(path=None):
    """Loads the module (see find), registers the filter with h5py's HDF5 and returns the CDLL.
    Loading the same module again only registers it again; a different module file replaces
    the filter with its own. OSError ("parz: ...") when it cannot be loaded or registered."""
    global _current
    f = os.path.realpath(find(path))
    with _lock:
        lib = _loaded.get(f)
        if lib is None:
            try:
                lib = _open(f)
            except OSError as e:
                msg = str(e)
                raise OSError(msg if msg.startswith("parz:") else "parz: cannot load %s: %s"
                              % (f, msg))
        why = ctypes.create_string_buffer(512)
        address = hdf5_function_address()
        with hdf5_lock():
            rc = lib.parz_h5_register(address, why, len(why))
        if rc != 0:
            raise OSError(why.value.decode(errors="replace") or "parz: registration failed")
        _loaded[f] = lib
        _current = lib
        return lib


def current():
    """The module registered with h5py's HDF5, or None while none is."""
    return _current


def library():
    """The module registered with h5py's HDF5 (loading the default one first if none is)."""
    lib = _current
    return lib if lib is not None else load()


def module_path(lib=None):
    """File of a loaded module (default: the registered one)."""
    lib = library() if lib is None else lib
    for f, loaded in _loaded.items():
        if loaded is lib:
            return f
    return lib._name


def config(lib=None):
    """The module's H5Z_parz_config."""
    lib = library() if lib is None else lib
    c = Config()
    lib.parz_h5_config(ctypes.byref(c))
    return c
