"""parz.write: whole chunks of a ParZ dataset written at the encoders' speed, from a numpy array or
from GPU memory (CuPy, PyTorch, any __cuda_array_interface__ or DLPack array), through the plugin
module's dataset writers (plugin/parz_h5_write.h, plugin/parz_h5_device.h) on the HDF5 library h5py
uses."""
import ctypes
import numbers

import numpy as np

from . import _lib
from ._read import _KDL_CUDA, _box, _call_on_box, _functions, _interface_stream, _stream_handle

_KDL_CUDA_MANAGED = 13
_DL_CODES = {0: "i", 2: "f"}  # DLPack's int and float type codes, as numpy kinds


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


def _contiguous(shape, strides, itemsize):
    """Whether byte strides (None: C order) lay out `shape` densely in C order."""
    if strides is None:
        return True
    run = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n > 1 and s != run:
            return False
        run *= n
    return True


class _DeviceView:
    """A GPU array's pointer, dtype, shape and stream, and whatever keeps it alive."""

    def __init__(self, ptr, dtype, shape, contiguous, stream, keep):
        self.ptr, self.dtype, self.shape = ptr, dtype, tuple(shape)
        self.contiguous, self.stream, self.keep = contiguous, stream, keep


def _cai_view(array, cai):
    typestr = cai.get("typestr", "")
    dtype = np.dtype(typestr)
    shape = tuple(int(n) for n in cai.get("shape", ()))
    ptr = int(cai.get("data", (0, False))[0] or 0)
    s = cai.get("stream")
    stream = int(s) if s not in (None, 1, 2) else None
    return _DeviceView(ptr, dtype, shape, _contiguous(shape, cai.get("strides"), dtype.itemsize),
                       stream, array)


def _dlpack_view(array, handle):
    """The tensor of a DLPack capsule, borrowed: the capsule (kept alive in the view) still owns
    it, and its destructor frees it once the write is done."""
    try:
        capsule = array.__dlpack__(stream=_interface_stream(handle))
    except TypeError:
        capsule = array.__dlpack__()
    api = ctypes.pythonapi
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_IsValid.restype = ctypes.c_int
    api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    if not api.PyCapsule_IsValid(capsule, b"dltensor"):
        raise ValueError("parz: %s.__dlpack__ gave no DLPack tensor" % type(array).__name__)
    t = _DLManagedTensor.from_address(api.PyCapsule_GetPointer(capsule, b"dltensor")).dl_tensor
    if t.dtype.code not in _DL_CODES or t.dtype.lanes != 1 or t.dtype.bits not in (32, 64):
        raise ValueError("parz: the array's DLPack type (code %d, %d bits, %d lanes) is not "
                         "float32, float64, int32 or int64"
                         % (t.dtype.code, t.dtype.bits, t.dtype.lanes))
    dtype = np.dtype("%s%d" % (_DL_CODES[t.dtype.code], t.dtype.bits // 8))
    shape = tuple(t.shape[k] for k in range(t.ndim))
    strides = (None if not t.strides else
               tuple(t.strides[k] * dtype.itemsize for k in range(t.ndim)))
    return _DeviceView((t.data or 0) + t.byte_offset, dtype, shape,
                       _contiguous(shape, strides, dtype.itemsize), None, (capsule, array))


def _device_view(array, handle):
    """A _DeviceView of a GPU array, or None for anything else."""
    cai = getattr(array, "__cuda_array_interface__", None)
    if isinstance(cai, dict):
        return _cai_view(array, cai)
    if hasattr(array, "__dlpack__") and hasattr(array, "__dlpack_device__"):
        kind = tuple(array.__dlpack_device__())[0]
        if kind in (_KDL_CUDA, _KDL_CUDA_MANAGED):
            return _dlpack_view(array, handle)
    return None


def _host_array(array, dtype):
    """array as a C-contiguous numpy array of the dataset's native dtype (byte order converted,
    values never)."""
    if not isinstance(array, np.ndarray):
        if hasattr(array, "__dlpack__") and hasattr(np, "from_dlpack"):
            array = np.from_dlpack(array)
        else:
            array = np.asarray(array)
    if array.dtype.kind != dtype.kind or array.dtype.itemsize != dtype.itemsize:
        raise ValueError("parz: the array holds %s values, the dataset %s; convert it first "
                         "(parz.write stores the values as they are)" % (array.dtype, dtype))
    return np.ascontiguousarray(array, dtype=dtype)


def _check_shape(shape, box_shape, count, what):
    if tuple(shape) != tuple(box_shape) and tuple(shape) != tuple(count):
        raise ValueError("parz: the %s has shape %s, the selection %s" % (what, tuple(shape),
                                                                           tuple(box_shape)))


def write(dset, array, selection=None, *, threads=None, stream=None):
    """Writes whole chunks of a ParZ dataset at the encoders' speed.

    dset: an h5py Dataset whose only filter is ParZ. selection: None (everything), or what
    dset[...] takes made of integers, slices of step 1 and Ellipsis, selecting whole chunks: it
    starts at chunk boundaries and ends at one or at the dataset's extent. array: the selection's
    values, of its shape (an integer drops its axis, as in numpy; the shape with that axis of
    extent 1 is taken too) and of the dataset's dtype (its byte order aside: values are never
    converted), in one of
      - a numpy array (or anything numpy takes): its chunks are encoded on `threads` OpenMP
        threads (None: PARZ_THREADS, else OpenMP's default), or, with PARZ_EXEC auto (the
        default) or cuda and a usable GPU, large writes go up to the GPU and are encoded there;
      - a C-contiguous GPU array exposing __cuda_array_interface__ (CuPy, PyTorch, Numba,
        parz.CudaArray) or DLPack (__dlpack__, on a CUDA device): its chunks are encoded on the
        GPU and only their compressed bytes come down. The work runs on `stream` (a CUDA stream
        handle, a cupy.cuda.Stream or a torch.cuda.Stream; None: the stream of the array's
        interface, else the legacy default stream) and is complete on return.
    The file holds the chunks H5Dwrite through the filter stores for the same values, edge chunks
    padded past the extent with the fill value as HDF5 pads them. A selection that cuts chunks,
    an array of another shape or dtype, or a dataset that is not ParZ alone raises
    ValueError("parz: ...") before anything is written; use dset[...] = array for those."""
    if threads is not None and (not isinstance(threads, numbers.Integral) or threads < 1):
        raise ValueError("parz: threads must be a positive integer or None, got %r" % (threads,))
    dtype = np.dtype(dset.dtype)
    if dtype.kind not in "fi" or dtype.itemsize not in (4, 8):
        raise ValueError("parz: dataset %s holds %s values; ParZ stores float32, float64, int32 "
                         "and int64" % (dset.name, dtype))
    dtype = dtype.newbyteorder("=")
    start, count, shape = _box(dset.shape, selection)
    lib = _functions()
    if not hasattr(lib, "parz_h5_write"):
        raise OSError("parz: %s has no parz_h5_write; it is older than this Python package"
                      % _lib.module_path(lib))
    handle = _stream_handle(stream)
    view = _device_view(array, handle)
    if view is None:
        host = _host_array(array, dtype)
        _check_shape(host.shape, shape, count, "array")
        _call_on_box(lib.parz_h5_write, dset, start, count,
                     (host.ctypes.data, host.nbytes, int(threads or 0)), "writing %s" % dset.name)
        return
    if not hasattr(lib, "parz_h5_write_cuda"):
        raise OSError("parz: %s was built without the CUDA codec; write a numpy array"
                      % _lib.module_path(lib))
    if view.dtype != dtype:
        raise ValueError("parz: the GPU array holds %s values, the dataset %s; convert it first"
                         % (view.dtype, dtype))
    _check_shape(view.shape, shape, count, "GPU array")
    if not view.contiguous:
        raise ValueError("parz: the GPU array is not C-contiguous; make it so first (e.g. "
                         "cupy.ascontiguousarray, tensor.contiguous())")
    if stream is None and view.stream is not None:
        handle = view.stream
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    _call_on_box(lib.parz_h5_write_cuda, dset, start, count, (view.ptr, nbytes, handle or None),
                 "writing %s from GPU memory" % dset.name)
