"""parz.read: a ParZ dataset (or a box of it) read at the decoders' speed, into a numpy array or
into GPU memory, through the plugin module's dataset readers (plugin/dataset/parz_h5_read.h,
plugin/dataset/parz_h5_device.h) on the HDF5 library h5py uses."""
import ctypes

import numpy as np

from . import _args, _lib

# parz_status (codec/parz.h)
_ERR_ARG, _ERR_TYPE, _ERR_DIMS, _ERR_PARAM, _ERR_BUFFER = 1, 2, 3, 4, 5
_ERR_UNSUPPORTED = 12
# The caller's mistakes: a ValueError. Everything else (a corrupt chunk, memory, the GPU): OSError.
_VALUE_ERRORS = {_ERR_ARG, _ERR_TYPE, _ERR_DIMS, _ERR_PARAM, _ERR_BUFFER, _ERR_UNSUPPORTED}
# Function names the C readers start their messages with; Python says "parz: " instead.
_C_PREFIXES = ("parz_h5_read_device: ", "parz_h5_read: ", "parz_omp_assemble: ",
               "parz_gpu_assemble: ", "parz_h5_write_device: ", "parz_h5_write: ",
               "parz_gpu_encode_box: ")

_H5S_ALL = 0
_KDL_CUDA = 2           # DLPack's device type for CUDA memory
_DL_INT, _DL_FLOAT = 0, 2


class _Error(ctypes.Structure):
    """parz_error of codec/parz.h."""
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 256)]


_bound = {}


def _functions(needed=None, otherwise=None):
    """The plugin module with the readers' and writers' argument types set (once per module).
    When it lacks the function `needed`, OSError("parz: <module> <otherwise>")."""
    lib = _lib.library()
    if id(lib) not in _bound:
        _bind(lib)
    if needed is not None and not hasattr(lib, needed):
        raise OSError("parz: %s %s" % (_lib.module_path(lib), otherwise))
    return lib


def _bind(lib):
    hid, size, ptr, err = ctypes.c_int64, ctypes.c_size_t, ctypes.c_void_p, ctypes.POINTER(_Error)
    try:
        lib.parz_h5_read.argtypes = [hid, hid, ptr, size, ctypes.c_int, err]
        lib.parz_h5_read.restype = ctypes.c_int
    except AttributeError:
        raise OSError("parz: %s has no parz_h5_read; it is older than this Python package"
                      % _lib.module_path(lib))
    if hasattr(lib, "parz_h5_write"):
        lib.parz_h5_write.argtypes = [hid, hid, ptr, size, ctypes.c_int, err]
        lib.parz_h5_write.restype = ctypes.c_int
    if hasattr(lib, "parz_h5_write_cuda"):
        lib.parz_h5_write_cuda.argtypes = [hid, hid, ptr, size, ptr, err]
        lib.parz_h5_write_cuda.restype = ctypes.c_int
    if hasattr(lib, "parz_h5_read_cuda"):
        lib.parz_h5_read_cuda.argtypes = [hid, hid, ptr, size, ptr, err]
        lib.parz_h5_read_cuda.restype = ctypes.c_int
        lib.parz_h5_device_alloc.argtypes = [size, ctypes.POINTER(ptr),
                                             ctypes.POINTER(ctypes.c_int), err]
        lib.parz_h5_device_alloc.restype = ptr
        lib.parz_h5_device_release.argtypes = [ptr]
        lib.parz_h5_device_release.restype = None
        lib.parz_h5_dlpack.argtypes = [ptr, ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
                                       ctypes.c_int, ctypes.c_int, ctypes.c_int, err]
        lib.parz_h5_dlpack.restype = ptr
        lib.parz_h5_dlpack_free.argtypes = [ptr, ctypes.c_int]
        lib.parz_h5_dlpack_free.restype = None
    _bound[id(lib)] = True


def _raise(e, action):
    message = e.message.decode(errors="replace")
    for prefix in _C_PREFIXES:
        while message.startswith(prefix):
            message = message[len(prefix):]
    text = "parz: %s: %s" % (action, message)
    raise (ValueError if e.code in _VALUE_ERRORS else OSError)(text)


def _file_space(dset, start, count):
    """An h5py SpaceID selecting the box (held by the caller during the read), and its hid_t;
    H5S_ALL for the whole dataset."""
    if tuple(start) == (0,) * len(start) and tuple(count) == tuple(dset.shape):
        return None, _H5S_ALL
    space = dset.id.get_space()
    if 0 in count:
        space.select_none()
    else:
        space.select_hyperslab(tuple(start), tuple(count))
    return space, space.id


def _call_on_box(fn, dset, start, count, args, action):
    """fn(dataset, file space, *args, error) under h5py's HDF5 lock, the box selected; a status
    other than 0 raised as parz: <action>: <message>."""
    e = _Error()
    with _lib.hdf5_lock():
        space, hid = _file_space(dset, start, count)  # space: held during the call
        rc = fn(dset.id.id, hid, *args, ctypes.byref(e))
    if rc:
        _raise(e, action)


def _host_out(out, shape, dtype):
    """(the array to decode into, the out= array to copy it to afterwards, or None)."""
    if out is None:
        return np.empty(shape, dtype), None
    wanted = ("parz: out= must be a writeable C-contiguous numpy array of dtype %s and shape %s; "
              "got " % (dtype, shape))
    if not isinstance(out, np.ndarray):
        raise TypeError(wanted + _args.describe(out))
    if (out.dtype != dtype or out.shape != shape or not out.flags.c_contiguous
            or not out.flags.writeable):
        raise ValueError(wanted + "a %s array of shape %s%s%s" % (
            out.dtype, out.shape, "" if out.flags.c_contiguous else ", not C-contiguous",
            "" if out.flags.writeable else ", read-only"))
    if not _args.aligned(out.ctypes.data, dtype):
        # An array over a buffer at an odd offset: the decoders store whole values, so they
        # fill an aligned array, copied into out= afterwards.
        return np.empty(shape, dtype), out
    return out, None


def _interface_stream(handle):
    """The stream value __cuda_array_interface__ and __dlpack__ speak of: 1 for the legacy
    default stream (0 is not allowed there)."""
    return handle if handle else 1


def _device_out(out, shape, dtype):
    """(pointer, CUDA stream in its interface or None) of an out= object exposing
    __cuda_array_interface__."""
    cai = getattr(out, "__cuda_array_interface__", None)
    if not isinstance(cai, dict):
        raise TypeError("parz: out= for device='cuda' must expose __cuda_array_interface__ (a "
                        "CuPy array, a torch tensor on the GPU, ...); got %s" % _args.describe(out))
    view = _args.cuda_interface(out, cai, "out='s")
    if view.dtype != dtype or view.shape != shape or not view.contiguous or view.readonly:
        raise ValueError("parz: out= must be a writeable C-contiguous GPU array of dtype %s and "
                         "shape %s; its __cuda_array_interface__ says typestr %s, shape %s, "
                         "strides %s%s" % (dtype, shape, cai.get("typestr"), cai.get("shape"),
                                           cai.get("strides"),
                                           ", read-only" if view.readonly else ""))
    _args.check_device_pointer(view.ptr, dtype, view.nbytes, "out='s",
                               "read into an aligned array and copy from there")
    return view.ptr, view.stream


_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_NAMES = ((b"dltensor", 0), (b"dltensor_versioned", 1))


@_DESTRUCTOR
def _capsule_destructor(capsule):
    # A capsule nobody consumed still owns its tensor (a consumer renames it "used_...").
    api = ctypes.pythonapi
    for name, versioned in _NAMES:
        if api.PyCapsule_IsValid(ctypes.c_void_p(capsule), name):
            tensor = api.PyCapsule_GetPointer(ctypes.c_void_p(capsule), name)
            _lib.library().parz_h5_dlpack_free(tensor, versioned)
            return


def _capsule_api():
    api = ctypes.pythonapi
    api.PyCapsule_New.restype = ctypes.py_object
    api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _DESTRUCTOR]
    api.PyCapsule_IsValid.restype = ctypes.c_int
    api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    return api


class _DeviceBuffer:
    """GPU memory allocated by the plugin module, freed when this object and every DLPack
    tensor made from it are gone (the module counts the references)."""

    def __init__(self, nbytes):
        lib = _cuda_functions()
        data, device, e = ctypes.c_void_p(), ctypes.c_int(), _Error()
        self._lib = lib
        self.handle = lib.parz_h5_device_alloc(nbytes, ctypes.byref(data), ctypes.byref(device),
                                               ctypes.byref(e))
        if not self.handle:
            _raise(e, "allocating %d bytes of GPU memory" % nbytes)
        self.ptr = data.value or 0
        self.device = device.value

    def __del__(self):
        handle, self.handle = getattr(self, "handle", None), None
        if handle:
            self._lib.parz_h5_device_release(handle)


def _cuda_functions():
    """The plugin module, when it has the CUDA dataset readers."""
    return _functions("parz_h5_read_cuda",
                      "was built without the CUDA decoder; read with device='cpu'")


def _array_shape(shape):
    """A CudaArray's shape: a sequence of integers >= 0."""
    try:
        dims = [_args.integer(n) for n in shape]
    except TypeError:  # not a sequence
        dims = [None]
    if None in dims:
        raise TypeError("parz: shape must be a sequence of integers, got %r" % (shape,))
    if any(n < 0 for n in dims):
        raise ValueError("parz: shape must hold extents >= 0, got %r" % (shape,))
    return tuple(dims)


def _array_dtype(dtype):
    """A CudaArray's dtype: one ParZ stores, in native byte order."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError("parz: dtype must be %s, got %r" % (_args.STORED, dtype)) from None
    if not _args.stored(dt) or not dt.isnative:
        raise ValueError("parz: dtype must be %s in native byte order, got %s"
                         % (_args.STORED, dt))
    return dt


class CudaArray:
    """An array in GPU memory that parz.read(..., device="cuda") returns: C-contiguous values of
    `dtype` and `shape` at `ptr` on GPU `device`. CuPy (cupy.asarray) and PyTorch
    (torch.from_dlpack, torch.as_tensor) take it without a copy, through
    __cuda_array_interface__ (version 3) and __dlpack__ / __dlpack_device__; the memory is freed
    when this object and every array made from it are gone. The values are complete when
    parz.read returns (it waits for its stream)."""

    def __init__(self, shape, dtype, stream=0):
        self.shape, self.dtype = _array_shape(shape), _array_dtype(dtype)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * self.dtype.itemsize
        self._stream = _args.stream_handle(stream)
        self._buffer = _DeviceBuffer(self.nbytes)
        self.ptr = self._buffer.ptr
        self.device = self._buffer.device

    ndim = property(lambda self: len(self.shape))

    def __repr__(self):
        return "parz.CudaArray(shape=%s, dtype=%s, device=%d)" % (self.shape, self.dtype,
                                                                 self.device)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "descr": [("", self.dtype.str)],
                "data": (self.ptr, False), "strides": None, "version": 3,
                "stream": _interface_stream(self._stream)}

    def __dlpack_device__(self):
        return (_KDL_CUDA, self.device)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        # The values are complete (parz.read waited for its stream), so they may be used on any
        # stream the consumer names: nothing to order.
        try:
            wanted = None if dl_device is None else tuple(dl_device)
            versioned = 1 if max_version is not None and tuple(max_version)[0] >= 1 else 0
        except (TypeError, IndexError):
            raise TypeError("parz: __dlpack__ takes dl_device=(device type, device id) and "
                            "max_version=(major, minor), got %r and %r"
                            % (dl_device, max_version)) from None
        if wanted is not None and wanted != self.__dlpack_device__():
            raise BufferError("parz: the array lives on %s, not %s"
                              % (self.__dlpack_device__(), wanted))
        if copy:
            raise BufferError("parz: __dlpack__(copy=True) is not supported; the array is shared")
        lib = _functions()
        shape = (ctypes.c_int64 * max(1, self.ndim))(*self.shape)
        code = _DL_FLOAT if self.dtype.kind == "f" else _DL_INT
        e = _Error()
        tensor = lib.parz_h5_dlpack(self._buffer.handle, self.ndim, shape, code,
                                    8 * self.dtype.itemsize, versioned, ctypes.byref(e))
        if not tensor:
            _raise(e, "exporting through DLPack")
        return _capsule_api().PyCapsule_New(tensor, _NAMES[versioned][0], _capsule_destructor)


def read(dset, selection=None, *, out=None, device="cpu", threads=None, stream=None):
    """Reads a ParZ dataset, or a box of it, at the decoders' speed.

    dset: an h5py Dataset whose only filter is ParZ. selection: None (everything), or what
    dset[...] takes made of integers, slices of step 1 and Ellipsis (an integer drops its axis,
    as in numpy). Values come back in native byte order, densely in C order.

    device="cpu": into a new numpy array, or into out= (a writeable C-contiguous numpy array of
    the selection's shape and the native dtype; one whose data is not aligned to the values'
    size, over a buffer at an odd offset, is filled through an aligned array of its size). The
    stored chunks are read unfiltered and decoded straight into the array on `threads` OpenMP
    threads (None: PARZ_THREADS, else OpenMP's default). PARZ_EXEC applies as to the filter:
    with auto (the default) or cuda and a usable GPU, large reads decode there and come down
    through pinned memory; omp and serial stay on the CPU.

    device="cuda": into GPU memory: a new parz.CudaArray (cupy.asarray and torch.from_dlpack take
    it without a copy), or out= (any object with __cuda_array_interface__ of that shape and
    dtype, e.g. a CuPy array or a CUDA torch tensor, its data aligned to the values' size). Only
    compressed bytes cross PCIe. The work runs on `stream` (a CUDA stream handle, a
    cupy.cuda.Stream or a torch.cuda.Stream; None: the stream of out='s interface, else the
    legacy default stream) and is complete on return.

    Chunks never written take the fill value; chunks stored without the filter are copied. An
    argument of the wrong type (dset not an h5py Dataset, out= not an array) raises
    TypeError("parz: ..."); a selection or out= that does not fit, or a dataset that is not ParZ
    alone, ValueError("parz: ..."); a corrupt chunk OSError("parz: ... (the chunk at [i,j])")."""
    if not isinstance(device, str) or device not in ("cpu", "cuda"):
        raise (ValueError if isinstance(device, str) else TypeError)(
            "parz: device must be 'cpu' or 'cuda', got %r" % (device,))
    nthreads = _args.threads(threads)
    handle = _args.stream_handle(stream)
    dtype, extent = _args.dataset(dset, "read")
    start, count, shape = _args.box(extent, selection)
    if device == "cpu":
        result, copy_to = _host_out(out, shape, dtype)
        _call_on_box(_functions().parz_h5_read, dset, start, count,
                     (result.ctypes.data, result.nbytes, nthreads), "reading %s" % dset.name)
        if copy_to is None:
            return result
        np.copyto(copy_to, result)
        return copy_to
    if out is None:
        lib = _cuda_functions()
        result = CudaArray(shape, dtype, handle)
        ptr = result.ptr
    else:
        ptr, out_stream = _device_out(out, shape, dtype)
        lib = _cuda_functions()
        if stream is None and out_stream is not None:
            handle = out_stream
        result = out
    _call_on_box(lib.parz_h5_read_cuda, dset, start, count,
                 (ptr, int(np.prod(shape, dtype=np.int64)) * dtype.itemsize, handle or None),
                 "reading %s into GPU memory" % dset.name)
    return result
