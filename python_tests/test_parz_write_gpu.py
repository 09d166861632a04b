"""parz.write from GPU memory: CuPy arrays, PyTorch tensors, an object offering DLPack only, and
parz.read's own CudaArray, each against h5py's write of the same values through the filter
(PARZ_EXEC=omp), chunk by chunk; on the stream given; numpy arrays through the GPU
(PARZ_EXEC=cuda); and the refusals of GPU arrays that are not C-contiguous or of another dtype.
Skipped where no GPU is usable (CI); run on the GPU machine with CuPy and PyTorch installed
(scripts/gpu_encode_check.sh)."""
import numpy as np
import pytest

import h5py
import parz
from conftest import DLPackOnly
from test_parz_write import assert_same_file, both_ways

pytestmark = pytest.mark.skipif(not parz.get_config().gpu, reason="no usable CUDA GPU")


@pytest.fixture(autouse=True)
def omp(monkeypatch):
    monkeypatch.setenv("PARZ_EXEC", "omp")  # h5py's writes: the reference, on the CPU


def to_device(a):
    """a on the GPU, through CuPy or PyTorch (whichever is present)."""
    try:
        import cupy
        return cupy.asarray(a)
    except ImportError:
        import torch
        return torch.as_tensor(a, device="cuda")


def gpu_write(d, a, sel):
    parz.write(d, to_device(np.asarray(a)), sel)


@pytest.mark.parametrize("dtype", ["f4", "f8", "i4", "i8"])
def test_types_and_edges(tmp_path, etopo, dtype):
    data = etopo[:300, :1000].astype(dtype)
    with h5py.File(tmp_path / "w.h5", "w") as f:
        comp = parz.Parz(accuracy=1.0, mask=False) if dtype[0] == "f" else parz.Parz(precision=24)
        assert_same_file(*both_ways(f, "x", data, (64, 384), comp, writer=gpu_write,
                                    fillvalue=7))


@pytest.mark.parametrize("sel", [(slice(64, 192), slice(384, 1000)), (slice(256, 300),), 2],
                         ids=["box to the edge", "last rows", "integer"])
def test_boxes(tmp_path, etopo, sel):
    data = etopo[:300, :1000]
    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(f, "x", data[sel], (1, 384) if sel == 2 else (64, 384),
                                    parz.Parz(accuracy=1.0, mask=False), selection=sel, writer=gpu_write,
                                    shape=data.shape, dtype="f4", fillvalue=-3.5))


def test_3d_big_endian(tmp_path, vasp):
    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(f, "x", vasp[:20], (8, 64, 64), parz.Parz(reversible=True, mask=False),
                                    writer=gpu_write, dtype=">f8"))


@pytest.mark.parametrize("checksum", [True, False])
def test_checksums_on_off(tmp_path, etopo, checksum):
    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(f, "x", etopo[:300, :1000], (64, 384),
                                    parz.Parz(accuracy=1.0, mask=False, checksum=checksum),
                                    writer=gpu_write))


def test_cupy_on_a_stream(tmp_path, etopo):
    cupy = pytest.importorskip("cupy")
    data = etopo[:256, :1024]
    with h5py.File(tmp_path / "w.h5", "w") as f:
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            a = cupy.asarray(data) * 2  # queued on s: the write must wait for it
        ref, got = both_ways(f, "x", data * 2, (128, 256), parz.Parz(accuracy=1.0, mask=False),
                             writer=lambda d, _, sel: parz.write(d, a, sel, stream=s))
        assert_same_file(ref, got)


def test_torch(tmp_path, etopo):
    torch = pytest.importorskip("torch")
    data = etopo[:256, :1024]
    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(
            f, "x", data, (128, 256), parz.Parz(accuracy=1.0, mask=False),
            writer=lambda d, a, sel: parz.write(d, torch.as_tensor(a, device="cuda"), sel)))


def test_dlpack_only(tmp_path, etopo):
    data = etopo[:256, :1024]
    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(
            f, "x", data, (128, 256), parz.Parz(accuracy=1.0, mask=False),
            writer=lambda d, a, sel: parz.write(d, DLPackOnly(to_device(a)), sel)))


def test_cuda_array_from_read(tmp_path, etopo):
    data = etopo[:256, :1024]
    with h5py.File(tmp_path / "w.h5", "w") as f:
        src = f.create_dataset("src", data=data, chunks=(128, 256),
                               compression=parz.Parz(reversible=True, mask=False))
        a = parz.read(src, device="cuda")
        ref, got = both_ways(f, "x", data, (128, 256), parz.Parz(accuracy=1.0, mask=False),
                             writer=lambda d, _, sel: parz.write(d, a, sel))
        assert_same_file(ref, got)


@pytest.mark.parametrize("dtype", ["f4", "f8"])
@pytest.mark.parametrize("mask", [False, None], ids=["no mask", "mask"])
def test_bounded(tmp_path, etopo, dtype, mask):
    """The error-bounded codec: its GPU encoder writes the bytes h5py's write stores, edge chunks
    (padded with the fill value, masked where the mask is on: those boxes are encoded on the CPU)
    included."""
    data = etopo[:300, :1000].astype(dtype)
    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(f, "x", data, (64, 384),
                                    parz.Parz(codec="bounded", error_bound=0.5, mask=mask),
                                    writer=gpu_write, fillvalue=7))


@pytest.mark.parametrize("dtype", ["f4", "f8", "i4", "i8"])
def test_lossless(tmp_path, etopo, dtype):
    """The lossless codec: its GPU encoder writes the bytes h5py's write stores, edge chunks
    included, NaN payloads, -0.0, subnormals and infinities too."""
    data = etopo[:300, :1000].astype(dtype)
    if dtype[0] == "f":
        bits = data.view("u4" if dtype == "f4" else "u8")
        specials = ([0x7FC00001, 0x80000000, 0x00000001, 0x7F800000, 0xFF800000] if dtype == "f4"
                    else [0x7FF8000000000123, 1 << 63, 1, 0x7FF0 << 48, 0xFFF0 << 48])
        for k, b in enumerate(specials):
            bits[7 * k + 3, 11 * k::97] = b
    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(f, "x", data, (64, 384), parz.Parz(codec="lossless"),
                                    writer=gpu_write, fillvalue=7))


def test_lossless_stack(tmp_path, ccsm):
    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(f, "x", ccsm, (1, 55, 64, 128),
                                    parz.Parz(codec="lossless", stack=True), writer=gpu_write))


def test_lossless_series_on_the_cpu(tmp_path, etopo):
    """A series under the encoder's choice of predictor (Holt's, the dictionary) is refused by the
    GPU encoder before any work and encoded on the CPU: the same bytes."""
    data = np.ascontiguousarray(etopo[:8, :]).reshape(-1)
    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(f, "x", data, (10000,), parz.Parz(codec="lossless"),
                                    writer=gpu_write))


def test_numpy_through_the_gpu(tmp_path, etopo, monkeypatch):
    data = etopo[:300, :1000]

    def through_gpu(d, a, sel):
        monkeypatch.setenv("PARZ_EXEC", "cuda")
        parz.write(d, a, sel)
        monkeypatch.setenv("PARZ_EXEC", "omp")

    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(f, "x", data, (64, 384), parz.Parz(accuracy=1.0, mask=False),
                                    writer=through_gpu))


def test_refused(tmp_path, etopo):
    with h5py.File(tmp_path / "w.h5", "w") as f:
        d = f.create_dataset("x", shape=(128, 256), dtype="f4", chunks=(64, 64),
                             compression=parz.Parz(accuracy=1.0, mask=False))
        a = to_device(np.ascontiguousarray(etopo[:256, :128]))
        with pytest.raises(ValueError, match="C-contiguous"):
            parz.write(d, a.T)
        with pytest.raises(ValueError, match="float64"):
            parz.write(d, to_device(etopo[:128, :256].astype("f8")))
        with pytest.raises(ValueError, match="cuts its chunks"):
            parz.write(d, to_device(etopo[:100, :256]), slice(0, 100))
        assert d.id.get_storage_size() == 0


@pytest.mark.parametrize("mask", [True, False], ids=["mask", "no mask"])
def test_chunks_the_gpu_encoder_refuses(tmp_path, etopo, mask):
    """Chunks the GPU encoder leaves to the CPU (an undeclared -1e34 beside small values puts
    blocks at risk of the accuracy bound; NaN of more bit patterns than its mask's set holds):
    parz.write of a GPU array encodes them on the CPU, the chunks h5py's write stores."""
    data = np.ascontiguousarray(etopo[:256, :512]) * np.float32(1e-3)
    data[:, :100] = -1e34
    rng = np.random.default_rng(4)
    data[200:, 400:] = (0x7fc00000 + rng.integers(1, 4000, size=(56, 112))).astype(
        np.uint32).view(np.float32)  # thousands of NaN patterns
    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(f, "x", data, (128, 256),
                                    parz.Parz(accuracy=1e-3, mask=mask), writer=gpu_write))
