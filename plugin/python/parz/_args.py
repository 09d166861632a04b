"""The arguments parz.read and parz.write share, checked before the plugin is called: the dataset,
the selection (a box), threads, the CUDA stream, GPU arrays' __cuda_array_interface__, and the
alignment of the arrays the plugin's readers and writers get. A wrong type raises
TypeError("parz: ..."), a wrong value ValueError("parz: ...")."""
import operator

import numpy as np

_C_INT_MAX = 2**31 - 1     # threads is a C int
_POINTER_MAX = 2**64 - 1   # a CUDA stream handle is a pointer


def describe(x):
    """A short description of an argument for messages: its type, an h5py object's name, a
    string's value."""
    kind = type(x).__name__
    if type(x).__module__.split(".")[0] == "h5py" and isinstance(getattr(x, "name", None), str):
        return "an h5py %s (%s)" % (kind, x.name)
    if isinstance(x, (str, bytes)):
        return "%s %r" % (kind, x[:60])
    return kind


def dataset(dset, function):
    """(native dtype of its values, shape) of dset, once it is an open h5py Dataset of a type
    ParZ stores; `function` ("read", "write") names the caller in the messages."""
    import h5py
    if not isinstance(dset, h5py.Dataset):
        raise TypeError("parz: %s takes an h5py Dataset (f[name] of an open h5py.File), got %s"
                        % (function, describe(dset)))
    if not dset.id.valid:
        raise ValueError("parz: %s: the dataset is not open (its file was closed)" % function)
    shape = dset.shape
    if shape is None:
        raise ValueError("parz: dataset %s has no dataspace (h5py.Empty): no values to %s"
                         % (dset.name, function))
    dtype = np.dtype(dset.dtype)
    if not stored(dtype):
        raise ValueError("parz: dataset %s holds %s values; ParZ stores %s"
                         % (dset.name, dtype, STORED))
    return dtype.newbyteorder("="), shape


STORED = "float32, float64, int32 and int64"


def stored(dtype):
    """Whether ParZ stores values of dtype (of either byte order)."""
    return dtype.kind in "fi" and dtype.itemsize in (4, 8)


def integer(x):
    """x as an int when it is an integer (a NumPy one, any __index__), else None; never a bool."""
    if isinstance(x, (bool, np.bool_)):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def threads(value):
    """The thread count for the C call (0: the default) from None or a positive integer."""
    if value is None:
        return 0
    n = integer(value)
    message = "parz: threads must be a positive integer or None, got %r" % (value,)
    if n is None:
        raise TypeError(message)
    if not 1 <= n <= _C_INT_MAX:
        raise ValueError("%s (at most %d)" % (message, _C_INT_MAX))
    return n


def stream_handle(stream):
    """A CUDA stream handle (int) from None (the legacy default stream), an int, or a stream
    object of CuPy (.ptr) or PyTorch (.cuda_stream)."""
    if stream is None:
        return 0
    handle = stream
    for attr in ("cuda_stream", "ptr"):
        if hasattr(stream, attr):
            handle = getattr(stream, attr)
            break
    n = integer(handle)
    message = ("parz: stream= takes a CUDA stream handle (int), a cupy.cuda.Stream or a "
               "torch.cuda.Stream, got %r" % (stream,))
    if n is None:
        raise TypeError(message)
    if not 0 <= n <= _POINTER_MAX:
        raise ValueError("%s: a handle is a pointer, 0..2**64-1" % message)
    return n


def aligned(ptr, dtype):
    """Whether values of dtype at address ptr are aligned to their size: the codec and the GPU
    load and store whole values, which C and CUDA require aligned."""
    return int(ptr) % dtype.itemsize == 0


def check_device_pointer(ptr, dtype, nbytes, whose, remedy):
    """Refuses GPU memory the plugin cannot use: NULL holding values, or not aligned to the
    values' size. The message starts with `whose` ("out='s") and ends with `remedy`."""
    if not ptr and nbytes:
        raise ValueError("parz: %s data pointer is NULL for %d bytes" % (whose, nbytes))
    if not aligned(ptr, dtype):
        raise ValueError("parz: %s data pointer 0x%x is not aligned to %d bytes (the size of its "
                         "%s values); %s" % (whose, ptr, dtype.itemsize, dtype, remedy))


class DeviceView:
    """A GPU array's pointer, dtype, shape, layout, CUDA stream (None: none named) and read-only
    flag, and whatever keeps its memory alive."""

    def __init__(self, ptr, dtype, shape, contiguous, stream, keep, readonly=False):
        self.ptr, self.dtype, self.shape = ptr, dtype, tuple(shape)
        self.contiguous, self.stream, self.keep, self.readonly = contiguous, stream, keep, readonly
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * dtype.itemsize


def contiguous(shape, strides, itemsize):
    """Whether byte strides (None: C order) lay out `shape` densely in C order."""
    if strides is None:
        return True
    run = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n > 1 and s != run:
            return False
        run *= n
    return True


def cuda_interface(obj, cai, whose):
    """The DeviceView of obj's __cuda_array_interface__ `cai` (a dict); one that lacks what
    version 3 requires, or holds values of the wrong kind, raises ValueError naming `whose`."""
    try:
        dtype = np.dtype(cai["typestr"])
        shape = tuple(operator.index(n) for n in cai["shape"])
        ptr, readonly = cai["data"]
        ptr = operator.index(ptr or 0)
        strides = cai.get("strides")
        strides = None if strides is None else tuple(operator.index(n) for n in strides)
        stream = cai.get("stream")
        stream = None if stream in (None, 1, 2) else operator.index(stream)
        if not 0 <= ptr <= _POINTER_MAX or min(shape, default=0) < 0:
            raise ValueError("data pointer %r, shape %r" % (cai["data"][0], shape))
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError("parz: %s __cuda_array_interface__ is malformed (%s: %s)"
                         % (whose, type(e).__name__, e)) from None
    return DeviceView(ptr, dtype, shape, contiguous(shape, strides, dtype.itemsize), stream, obj,
                      bool(readonly))


# Selections that h5py or numpy take but parz.read and parz.write do not (a ValueError: another
# value of the right kind); anything else is not a selection at all (a TypeError).
_OTHER_SELECTIONS = (list, tuple, np.ndarray, type(None), str, bytes)


def box(shape, selection):
    """(start, count, result shape) of an h5py-style selection: None (everything), or an index
    or a tuple of integers, slices of step 1 and at most one Ellipsis."""
    rank = len(shape)
    if selection is None:
        return (0,) * rank, tuple(shape), tuple(shape)
    sel = selection if isinstance(selection, tuple) else (selection,)
    if sum(1 for s in sel if s is Ellipsis) > 1:
        raise ValueError("parz: a selection holds at most one Ellipsis, got %r" % (selection,))
    if any(s is Ellipsis for s in sel):
        at = next(i for i, s in enumerate(sel) if s is Ellipsis)
        fill = rank - (len(sel) - 1)
        if fill < 0:
            raise ValueError("parz: %d indices for a dataset of rank %d" % (len(sel) - 1, rank))
        sel = sel[:at] + (slice(None),) * fill + sel[at + 1:]
    if len(sel) > rank:
        raise ValueError("parz: %d indices for a dataset of rank %d" % (len(sel), rank))
    sel = sel + (slice(None),) * (rank - len(sel))
    start, count, out = [], [], []
    for axis, (s, n) in enumerate(zip(sel, shape)):
        index = integer(s)
        if index is not None:
            i = index + (n if index < 0 else 0)
            if not 0 <= i < n:
                raise ValueError("parz: index %d is out of range for axis %d of extent %d"
                                 % (index, axis, n))
            start.append(i)
            count.append(1)
        elif isinstance(s, slice):
            try:
                begin, stop, step = s.indices(n)
            except TypeError:
                raise TypeError("parz: slice %r of axis %d: its start, stop and step must be "
                                "integers or None" % (s, axis)) from None
            except ValueError as e:  # a step of 0
                raise ValueError("parz: slice %r of axis %d: %s" % (s, axis, e)) from None
            if step != 1:
                raise ValueError(
                    "parz: slice %r of axis %d has step %d; parz.read reads boxes (step 1): read "
                    "the box and step through it with numpy, or use dset[...]" % (s, axis, step))
            start.append(begin)
            count.append(max(0, stop - begin))
            out.append(count[-1])
        else:
            other = isinstance(s, _OTHER_SELECTIONS + (bool, np.bool_)) or (
                type(s).__module__.split(".")[0] == "h5py")
            raise (ValueError if other else TypeError)(
                "parz: selection element %r of axis %d: integers, slices of step 1 and Ellipsis "
                "only" % (s, axis))
    return tuple(start), tuple(count), tuple(out)
