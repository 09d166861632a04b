"""Every wrong argument to the package's public functions and classes (parz.read, parz.write,
parz.Parz, parz.cd_values, parz.double_words, parz.register, parz.CudaArray) raises an error
starting with "parz: " of the class that says what is wrong: TypeError for an argument of the
wrong type, ValueError for a wrong value, OSError for a file that cannot be written; never
AttributeError, KeyError or an error of ctypes. A refused write stores nothing and leaves the
dataset readable with its values."""
import os

import h5py
import numpy as np
import pytest

import parz
from conftest import same

VALUES = np.arange(64 * 64, dtype="f4").reshape(64, 64)


@pytest.fixture
def path(tmp_path):
    p = str(tmp_path / "args.h5")
    with h5py.File(p, "w") as f:
        f.create_dataset("x", data=VALUES, chunks=(32, 32), compression=parz.Parz(reversible=True))
        f.create_group("g")
        f.create_dataset("empty", data=h5py.Empty("f4"))
    return p


def expect(error, pattern, call):
    with pytest.raises(error, match="^parz: " + pattern) as e:
        call()
    assert type(e.value) is error or error is OSError, type(e.value)


class Stream:
    def __init__(self, ptr):
        self.ptr = ptr


class CAI:
    def __init__(self, **cai):
        self.__cuda_array_interface__ = cai


class BadDLPackDevice:
    def __dlpack__(self, stream=None):
        raise AssertionError("not to be called")

    def __dlpack_device__(self):
        return 2


class RefusingDLPack:
    def __dlpack__(self, stream=None):
        raise RuntimeError("cannot export")

    def __dlpack_device__(self):
        return (2, 0)


CAI_OK = dict(shape=(64, 64), typestr="<f4", data=(4096, False), version=3)

# (id, error, message pattern, call on the dataset /x of a file open read-only, or on the file)
READ = [
    ("group", TypeError, "read takes an h5py Dataset .*Group \\(/g\\)",
     lambda f: parz.read(f["g"])),
    ("file", TypeError, "read takes an h5py Dataset .*File", lambda f: parz.read(f)),
    ("name", TypeError, "read takes an h5py Dataset .*str 'x'", lambda f: parz.read("x")),
    ("ndarray", TypeError, "read takes an h5py Dataset .*ndarray",
     lambda f: parz.read(np.zeros(3))),
    ("None", TypeError, "read takes an h5py Dataset .*NoneType", lambda f: parz.read(None)),
    ("h5py.Empty", ValueError, "dataset /empty has no dataspace",
     lambda f: parz.read(f["empty"])),
    ("float index", TypeError, "selection element 1.5 of axis 0",
     lambda f: parz.read(f["x"], 1.5)),
    ("dict selection", TypeError, "selection element", lambda f: parz.read(f["x"], {})),
    ("float slice", TypeError, "slice .* of axis 1: its start, stop and step must be integers",
     lambda f: parz.read(f["x"], (slice(None), slice(1.5, 3)))),
    ("zero step", ValueError, "slice .* of axis 0: slice step cannot be zero",
     lambda f: parz.read(f["x"], slice(0, 4, 0))),
    ("list selection", ValueError, "selection element \\[1, 2\\] of axis 0",
     lambda f: parz.read(f["x"], [1, 2])),
    ("bool selection", ValueError, "selection element True", lambda f: parz.read(f["x"], True)),
    ("threads float", TypeError, "threads must be", lambda f: parz.read(f["x"], threads=1.5)),
    ("threads str", TypeError, "threads must be", lambda f: parz.read(f["x"], threads="2")),
    ("threads bool", TypeError, "threads must be", lambda f: parz.read(f["x"], threads=True)),
    ("threads 0", ValueError, "threads must be", lambda f: parz.read(f["x"], threads=0)),
    ("threads past C int", ValueError, "threads must be .*at most 2147483647",
     lambda f: parz.read(f["x"], threads=2**32 + 2)),
    ("device None", TypeError, "device must be", lambda f: parz.read(f["x"], device=None)),
    ("device 0", TypeError, "device must be", lambda f: parz.read(f["x"], device=0)),
    ("device gpu", ValueError, "device must be", lambda f: parz.read(f["x"], device="gpu")),
    ("stream str", TypeError, "stream= takes", lambda f: parz.read(f["x"], stream="fast")),
    ("stream float", TypeError, "stream= takes", lambda f: parz.read(f["x"], stream=1.0)),
    ("stream negative", ValueError, "stream= takes .*0..2\\*\\*64-1",
     lambda f: parz.read(f["x"], device="cuda", stream=-1)),
    ("stream past 64 bits", ValueError, "stream= takes",
     lambda f: parz.read(f["x"], device="cuda", stream=2**64)),
    ("stream object's ptr", TypeError, "stream= takes",
     lambda f: parz.read(f["x"], device="cuda", stream=Stream("x"))),
    ("out list", TypeError, "out= must be .*list", lambda f: parz.read(f["x"], out=[0.0])),
    ("out bytearray", TypeError, "out= must be .*bytearray",
     lambda f: parz.read(f["x"], out=bytearray(64 * 64 * 4))),
    ("out dtype", ValueError, "out= must be .*float64",
     lambda f: parz.read(f["x"], out=np.empty((64, 64)))),
    ("cuda out numpy", TypeError, "out= for device='cuda' must expose",
     lambda f: parz.read(f["x"], out=np.empty((64, 64), "f4"), device="cuda")),
    ("cuda out typestr", ValueError, "out='s __cuda_array_interface__ is malformed",
     lambda f: parz.read(f["x"], out=CAI(**dict(CAI_OK, typestr="zz")), device="cuda")),
    ("cuda out no data", ValueError, "out='s __cuda_array_interface__ is malformed",
     lambda f: parz.read(f["x"], out=CAI(shape=(64, 64), typestr="<f4"), device="cuda")),
    ("cuda out shape", ValueError, "out='s __cuda_array_interface__ is malformed",
     lambda f: parz.read(f["x"], out=CAI(**dict(CAI_OK, shape="ab")), device="cuda")),
    ("cuda out read-only", ValueError, "out= must be a writeable .*read-only",
     lambda f: parz.read(f["x"], out=CAI(**dict(CAI_OK, data=(4096, True))), device="cuda")),
    ("cuda out NULL", ValueError, "out='s data pointer is NULL",
     lambda f: parz.read(f["x"], out=CAI(**dict(CAI_OK, data=(0, False))), device="cuda")),
]

WRITE = [
    ("group", TypeError, "write takes an h5py Dataset .*Group",
     lambda f: parz.write(f["g"], VALUES)),
    ("name", TypeError, "write takes an h5py Dataset .*str", lambda f: parz.write("x", VALUES)),
    ("ndarray", TypeError, "write takes an h5py Dataset .*ndarray",
     lambda f: parz.write(VALUES, VALUES)),
    ("array None", TypeError, "the array must hold numbers .*object",
     lambda f: parz.write(f["x"], None)),
    ("array str", TypeError, "the array must hold numbers .*<U",
     lambda f: parz.write(f["x"], "ab")),
    ("array dict", TypeError, "the array must hold numbers", lambda f: parz.write(f["x"], {})),
    ("array ragged", ValueError, "numpy cannot take the array \\(list\\)",
     lambda f: parz.write(f["x"], [[1.0], [1.0, 2.0]])),
    ("array float64", ValueError, "the array holds float64 values, the dataset float32",
     lambda f: parz.write(f["x"], VALUES.astype("f8"))),
    ("array shape", ValueError, "the array has shape", lambda f: parz.write(f["x"], VALUES[:9])),
    ("cuda typestr", ValueError, "the GPU array's __cuda_array_interface__ is malformed",
     lambda f: parz.write(f["x"], CAI(**dict(CAI_OK, typestr="zz")))),
    ("cuda shape", ValueError, "the GPU array's __cuda_array_interface__ is malformed",
     lambda f: parz.write(f["x"], CAI(**dict(CAI_OK, shape="ab")))),
    ("cuda negative pointer", ValueError,
     "the GPU array's __cuda_array_interface__ is malformed \\(ValueError: data pointer -8",
     lambda f: parz.write(f["x"], CAI(**dict(CAI_OK, data=(-8, False))))),
    ("cuda negative extent", ValueError,
     "the GPU array's __cuda_array_interface__ is malformed .*shape \\(-64, -64\\)",
     lambda f: parz.write(f["x"], CAI(**dict(CAI_OK, shape=(-64, -64))))),
    ("cuda NULL", ValueError, "the GPU array's data pointer is NULL",
     lambda f: parz.write(f["x"], CAI(**dict(CAI_OK, data=(None, False))))),
    ("dlpack device", ValueError, "BadDLPackDevice.__dlpack_device__\\(\\) gave no",
     lambda f: parz.write(f["x"], BadDLPackDevice())),
    ("dlpack refused", ValueError, "RefusingDLPack.__dlpack__ failed: RuntimeError",
     lambda f: parz.write(f["x"], RefusingDLPack())),
    ("threads float", TypeError, "threads must be",
     lambda f: parz.write(f["x"], VALUES, threads=2.0)),
    ("threads negative", ValueError, "threads must be",
     lambda f: parz.write(f["x"], VALUES, threads=-1)),
    ("stream object", TypeError, "stream= takes",
     lambda f: parz.write(f["x"], VALUES, stream=object())),
    ("float selection", TypeError, "selection element 0.5",
     lambda f: parz.write(f["x"], VALUES, 0.5)),
]


@pytest.mark.parametrize("error, pattern, call", [c[1:] for c in READ], ids=[c[0] for c in READ])
def test_read_arguments(path, error, pattern, call):
    with h5py.File(path, "r") as f:
        expect(error, pattern, lambda: call(f))


@pytest.mark.parametrize("error, pattern, call", [c[1:] for c in WRITE],
                         ids=[c[0] for c in WRITE])
def test_write_arguments(path, error, pattern, call):
    with h5py.File(path, "r+") as f:
        before = {i: f["x"].id.read_direct_chunk(f["x"].id.get_chunk_info(i).chunk_offset)
                  for i in range(f["x"].id.get_num_chunks())}
        expect(error, pattern, lambda: call(f))
        assert {i: f["x"].id.read_direct_chunk(f["x"].id.get_chunk_info(i).chunk_offset)
                for i in range(f["x"].id.get_num_chunks())} == before
        assert same(parz.read(f["x"]), VALUES)


def test_closed_dataset(path):
    with h5py.File(path, "r+") as f:
        d = f["x"]
    expect(ValueError, "read: the dataset is not open", lambda: parz.read(d))
    expect(ValueError, "write: the dataset is not open", lambda: parz.write(d, VALUES))


def test_write_to_read_only_file(path):
    """OSError naming the file, before HDF5 is asked to store a chunk: an H5Dwrite_chunk that
    HDF5 refuses leaves the chunk unreadable to the next read in the process (HDF5 1.10)."""
    with h5py.File(path, "r") as f:
        d = f["x"]
        for array in (np.zeros((64, 64), "f4"), CAI(**CAI_OK)):
            expect(OSError, "cannot write /x: the file .*args.h5 is open read-only",
                   lambda: parz.write(d, array))
        assert same(parz.read(d), VALUES)
        assert same(d[...], VALUES)
    with h5py.File(path, "r") as f:
        assert same(parz.read(f["x"]), VALUES)


SETTINGS = [
    ("accuracy str", TypeError, "accuracy must be a finite number", dict(accuracy="1e-3")),
    ("accuracy None only", ValueError, "give exactly one of", dict(accuracy=None)),
    ("accuracy huge int", ValueError, "accuracy must be a finite number",
     dict(accuracy=10**400)),
    ("rate list", TypeError, "rate must be", dict(rate=[8])),
    ("precision str", TypeError, "precision must be an integer", dict(precision="20")),
    ("precision bool", TypeError, "precision must be an integer", dict(precision=True)),
    ("precision 2.5", ValueError, "precision must be an integer", dict(precision=2.5)),
    ("reversible str", TypeError, "reversible must be True or False", dict(reversible="no")),
    ("reversible 1", TypeError, "reversible must be True or False", dict(reversible=1)),
    ("expert int", TypeError, "expert=\\(minbits", dict(expert=5)),
    ("expert str", TypeError, "expert=\\(minbits", dict(expert="abcd")),
    ("expert three", ValueError, "expert=\\(minbits", dict(expert=(1, 2, 3))),
    ("expert minexp str", TypeError, "expert minexp must be an integer",
     dict(expert=(1, 2, 3, "x"))),
    ("expert minexp 0.5", ValueError, "expert minexp must be an integer",
     dict(expert=(1, 2, 3, 0.5))),
    ("expert maxbits str", TypeError, "maxbits must be an integer", dict(expert=(1, "2", 3, 0))),
    ("table list", TypeError, "table must be an integer", dict(reversible=True, table=[1])),
    ("table 2.5", ValueError, "table must be an integer", dict(reversible=True, table=2.5)),
    ("table name", ValueError, "table must be one of", dict(reversible=True, table="hybird")),
    ("segment_blocks str", TypeError, "segment_blocks must be",
     dict(reversible=True, segment_blocks="4")),
    ("partition_segments -1", ValueError, "partition_segments must be",
     dict(reversible=True, partition_segments=-1)),
    ("checksum 1", TypeError, "checksum must be True or False", dict(accuracy=1e-3, checksum=1)),
    ("mask str", TypeError, "mask must be True or False", dict(accuracy=1e-3, mask="yes")),
    ("fill_value str", TypeError, "fill_value must be a number",
     dict(accuracy=1e-3, fill_value="1.5")),
    ("fill_value bool", TypeError, "fill_value must be a number",
     dict(accuracy=1e-3, fill_value=True)),
    ("fill_value huge", ValueError, "fill_value .* beyond the range of a double",
     dict(accuracy=1e-3, fill_value=10**400)),
]


@pytest.mark.parametrize("error, pattern, kwargs", [c[1:] for c in SETTINGS],
                         ids=[c[0] for c in SETTINGS])
def test_settings(error, pattern, kwargs):
    expect(error, pattern, lambda: parz.Parz(**kwargs))
    expect(error, pattern, lambda: parz.cd_values(**kwargs))


def test_settings_numpy_scalars():
    """NumPy's numbers and booleans are numbers and booleans."""
    assert (parz.Parz(accuracy=np.float32(0.5), checksum=np.False_, mask=np.True_,
                      fill_value=np.int16(-9), segment_blocks=np.uint8(4)).filter_options
            == parz.Parz(accuracy=0.5, checksum=False, mask=True, fill_value=-9,
                         segment_blocks=4).filter_options)
    assert parz.Parz(reversible=np.True_).filter_options == (parz.MODE_REVERSIBLE,)


@pytest.mark.parametrize("error, pattern, x", [
    (TypeError, "double_words takes a real number", None),
    (TypeError, "double_words takes a real number", "1.0"),
    (TypeError, "double_words takes a real number", 1j),
    (ValueError, ".* beyond the range of a double", 10**400),
])
def test_double_words(error, pattern, x):
    expect(error, pattern, lambda: parz.double_words(x))


def test_register_arguments(tmp_path):
    expect(TypeError, "the module's path must be", lambda: parz.register(123))
    expect(FileNotFoundError, "libH5Zparz.so not found",
           lambda: parz.register(os.fsencode(tmp_path)))
    assert parz.register(os.fsencode(parz.plugin_dir())) == parz.plugin_dir()


@pytest.mark.parametrize("error, pattern, args", [
    (TypeError, "shape must be a sequence of integers", (5, "f4")),
    (TypeError, "shape must be a sequence of integers", ((2.5,), "f4")),
    (ValueError, "shape must hold extents >= 0", ((-1, 2), "f4")),
    (TypeError, "dtype must be", ((2,), "no such type")),
    (ValueError, "dtype must be float32, .* got uint16", ((2,), "u2")),
    (ValueError, "dtype must be .* native byte order", ((2,), ">f4" if np.little_endian
                                                        else "<f4")),
])
def test_cuda_array_arguments(error, pattern, args):
    expect(error, pattern, lambda: parz.CudaArray(*args))


def test_cuda_array_without_cuda():
    if parz.get_config().cuda:
        pytest.skip("the plugin has the CUDA decoder")
    expect(OSError, ".* built without the CUDA decoder", lambda: parz.CudaArray((2, 2), "f4"))


@pytest.mark.parametrize("kwargs", [dict(dl_device=2), dict(max_version=1),
                                    dict(max_version=())])
def test_cuda_array_dlpack_arguments(kwargs):
    """__dlpack__'s arguments are checked before its memory is touched: an array with no GPU
    memory behind it (made without __init__) shows that here without a GPU."""
    a = object.__new__(parz.CudaArray)
    a.shape, a.dtype, a.device = (2,), np.dtype("f4"), 0
    expect(TypeError, "__dlpack__ takes dl_device=", lambda: a.__dlpack__(**kwargs))
