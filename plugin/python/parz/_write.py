"""parz.write: whole chunks of a ParZ dataset written at the encoders' speed, from a numpy array or
from GPU memory (CuPy, PyTorch, any __cuda_array_interface__ or DLPack array), through the plugin
module's dataset writers (plugin/dataset/parz_h5_write.h, plugin/dataset/parz_h5_device.h) on the HDF5 library h5py
uses."""
import ctypes

import numpy as np

from . import _args
from ._read import _KDL_CUDA, _call_on_box, _functions, _interface_stream

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


def _dlpack_view(array, handle):
    """The tensor of a DLPack capsule, borrowed: the capsule (kept alive in the view) still owns
    it, and its destructor frees it once the write is done."""
    try:
        try:
            capsule = array.__dlpack__(stream=_interface_stream(handle))
        except TypeError:
            capsule = array.__dlpack__()
    except Exception as e:  # the array's own refusal, whatever its class
        raise ValueError("parz: %s.__dlpack__ failed: %s: %s"
                         % (type(array).__name__, type(e).__name__, e)) from None
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
    return _args.DeviceView((t.data or 0) + t.byte_offset, dtype, shape,
                            _args.contiguous(shape, strides, dtype.itemsize), None,
                            (capsule, array))


def _device_view(array, handle):
    """A DeviceView of a GPU array, or None for anything else."""
    cai = getattr(array, "__cuda_array_interface__", None)
    if isinstance(cai, dict):
        return _args.cuda_interface(array, cai, "the GPU array's")
    if hasattr(array, "__dlpack__") and hasattr(array, "__dlpack_device__"):
        try:
            kind = tuple(array.__dlpack_device__())[0]
        except (TypeError, IndexError):
            raise ValueError("parz: %s.__dlpack_device__() gave no (device type, device id)"
                             % type(array).__name__) from None
        if kind in (_KDL_CUDA, _KDL_CUDA_MANAGED):
            return _dlpack_view(array, handle)
    return None


# numpy kinds that hold no numbers: objects (what numpy makes of None, a dict, ...), strings,
# records, times
_NOT_NUMBERS = "OSUVMm"


def _host_array(array, dtype):
    """array as a C-contiguous, aligned numpy array of the dataset's native dtype (byte order
    converted, values never)."""
    if not isinstance(array, np.ndarray):
        try:
            if hasattr(array, "__dlpack__") and hasattr(np, "from_dlpack"):
                array = np.from_dlpack(array)
            else:
                array = np.asarray(array)
        except Exception as e:  # a ragged list, an export numpy cannot take, ...
            raise ValueError("parz: numpy cannot take the array (%s): %s: %s"
                             % (_args.describe(array), type(e).__name__, e)) from None
    if array.dtype.kind in _NOT_NUMBERS:
        raise TypeError("parz: the array must hold numbers (a numpy array, what numpy takes, or "
                        "a GPU array); numpy makes it an array of %s" % array.dtype)
    if array.dtype.kind != dtype.kind or array.dtype.itemsize != dtype.itemsize:
        raise ValueError("parz: the array holds %s values, the dataset %s; convert it first "
                         "(parz.write stores the values as they are)" % (array.dtype, dtype))
    host = np.ascontiguousarray(array, dtype=dtype)
    if not _args.aligned(host.ctypes.data, dtype):
        # An array over a buffer at an odd offset: the encoders load whole values.
        host = host.copy()
    return host


def _check_shape(shape, box_shape, count, what):
    if tuple(shape) != tuple(box_shape) and tuple(shape) != tuple(count):
        raise ValueError("parz: the %s has shape %s, the selection %s" % (what, tuple(shape),
                                                                           tuple(box_shape)))


def _check_writable(dset):
    """OSError ("parz: ...") when dset's file is open read-only: HDF5 would refuse each chunk,
    and a refused H5Dwrite_chunk can leave that chunk unreadable to the next read in this
    process."""
    import h5py
    if not h5py.h5i.get_file_id(dset.id).get_intent() & h5py.h5f.ACC_RDWR:
        raise OSError("parz: cannot write %s: the file %s is open read-only; open it with "
                      "h5py.File(name, 'r+') to write" % (dset.name, dset.file.filename))


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
    A numpy array whose data is not aligned to the values' size (over a buffer at an odd offset)
    is encoded from an aligned copy; a GPU array must be aligned.
    The file holds the chunks H5Dwrite through the filter stores for the same values, edge chunks
    padded past the extent with the fill value as HDF5 pads them. An argument of the wrong type
    (dset not an h5py Dataset, array not an array of numbers) raises TypeError("parz: ..."); a
    selection that cuts chunks, an array of another shape or dtype, or a dataset that is not
    ParZ alone ValueError("parz: ...") (use dset[...] = array for those); a file open read-only
    OSError("parz: ..."); all before anything is written."""
    nthreads = _args.threads(threads)
    handle = _args.stream_handle(stream)
    dtype, extent = _args.dataset(dset, "write")
    start, count, shape = _args.box(extent, selection)
    _check_writable(dset)
    view = _device_view(array, handle)
    if view is None:
        host = _host_array(array, dtype)
        _check_shape(host.shape, shape, count, "array")
        lib = _functions("parz_h5_write", "has no parz_h5_write; it is older than this Python "
                         "package")
        _call_on_box(lib.parz_h5_write, dset, start, count,
                     (host.ctypes.data, host.nbytes, nthreads), "writing %s" % dset.name)
        return
    if view.dtype != dtype:
        raise ValueError("parz: the GPU array holds %s values, the dataset %s; convert it first"
                         % (view.dtype, dtype))
    _check_shape(view.shape, shape, count, "GPU array")
    if not view.contiguous:
        raise ValueError("parz: the GPU array is not C-contiguous; make it so first (e.g. "
                         "cupy.ascontiguousarray, tensor.contiguous())")
    _args.check_device_pointer(view.ptr, dtype, view.nbytes, "the GPU array's",
                               "write an aligned copy of it (e.g. a.copy())")
    lib = _functions("parz_h5_write_cuda", "was built without the CUDA codec; write a numpy array")
    if stream is None and view.stream is not None:
        handle = view.stream
    _call_on_box(lib.parz_h5_write_cuda, dset, start, count,
                 (view.ptr, view.nbytes, handle or None), "writing %s from GPU memory" % dset.name)
