"""parz.read with a GPU: into GPU memory (device="cuda"), handed to CuPy and PyTorch without a copy
(__cuda_array_interface__, DLPack), its memory freed when every holder is gone, on the stream
given; into host memory through the GPU (device="cpu" with PARZ_EXEC=cuda). Skipped where no
GPU is usable (CI); run on the GPU machine with CuPy and PyTorch installed
(scripts/gpu_read_check.sh)."""
import gc

import numpy as np
import pytest

import h5py
import parz
from conftest import flip_payload_bit, fresh_python, native, same

pytestmark = pytest.mark.skipif(not parz.get_config().gpu, reason="no usable CUDA GPU")


def host(a):
    """A device array's values in host memory, through CuPy or PyTorch (whichever is present)."""
    try:
        import cupy
        return cupy.asnumpy(cupy.asarray(a))
    except ImportError:
        import torch
        return torch.as_tensor(a, device="cuda").cpu().numpy()


def free_device_bytes():
    try:
        import cupy
        return cupy.cuda.runtime.memGetInfo()[0]
    except ImportError:
        import torch
        return torch.cuda.mem_get_info()[0]


@pytest.mark.parametrize("name", ["f32", "f64", "i32", "i64", "be", "f4d", "fill"])
def test_device_whole(read_file, name):
    with h5py.File(read_file, "r") as f:
        d = f[name]
        a = parz.read(d, device="cuda")
        assert isinstance(a, parz.CudaArray) and a.shape == d.shape
        assert same(host(a), native(d[...]))


@pytest.mark.parametrize("name, sel", [
    ("f32", (slice(10, 70), slice(100, 600))), ("f32", 5), ("f32", (Ellipsis, slice(990, None))),
    ("f64", (1, slice(3, 40))), ("i32", slice(995, 2005)), ("fill", (slice(40, 80), slice(30, 99))),
    ("f32", (slice(50, 50),))])
def test_device_boxes(read_file, name, sel):
    with h5py.File(read_file, "r") as f:
        d = f[name]
        assert same(host(parz.read(d, sel, device="cuda")), native(np.asarray(d[sel])))


def test_cupy_zero_copy(read_file):
    cupy = pytest.importorskip("cupy")
    with h5py.File(read_file, "r") as f:
        d = f["f32"]
        a = parz.read(d, device="cuda")
        c = cupy.asarray(a)
        assert c.data.ptr == a.ptr and c.shape == a.shape and c.dtype == a.dtype
        c2 = cupy.from_dlpack(a)
        assert c2.data.ptr == a.ptr
        del a
        gc.collect()
        assert same(cupy.asnumpy(c), d[...]) and same(cupy.asnumpy(c2), d[...])


def test_torch_zero_copy(read_file):
    torch = pytest.importorskip("torch")
    with h5py.File(read_file, "r") as f:
        d = f["i64"]
        a = parz.read(d, device="cuda")
        t = torch.from_dlpack(a)
        assert t.data_ptr() == a.ptr and tuple(t.shape) == a.shape and t.is_cuda
        t2 = torch.as_tensor(a, device="cuda")
        assert t2.data_ptr() == a.ptr
        del a
        gc.collect()
        assert same(t.cpu().numpy(), d[...]) and same(t2.cpu().numpy(), d[...])


def test_dlpack_protocol(read_file):
    with h5py.File(read_file, "r") as f:
        a = parz.read(f["f32"], device="cuda")
    assert a.__dlpack_device__() == (2, a.device)
    legacy = a.__dlpack__()
    versioned = a.__dlpack__(max_version=(1, 0))
    assert "dltensor" in repr(legacy) and "dltensor_versioned" in repr(versioned)
    with pytest.raises(BufferError):
        a.__dlpack__(dl_device=(1, 0))
    with pytest.raises(BufferError):
        a.__dlpack__(copy=True)
    del legacy, versioned  # unconsumed capsules give their references back
    cai = a.__cuda_array_interface__
    assert cai["version"] == 3 and cai["data"] == (a.ptr, False) and cai["stream"] == 1
    assert cai["typestr"] == "<f4" and cai["shape"] == a.shape and cai["strides"] is None


def test_memory_freed(tmp_path):
    """64 MiB read 12 times, each dropped with whatever holds it: the device's free memory
    comes back (it would shrink by 768 MiB if any holder leaked)."""
    p = str(tmp_path / "big.h5")
    data = np.arange(16 * 2**20, dtype=np.float32).reshape(4096, 4096)
    with h5py.File(p, "w") as f:
        f.create_dataset("x", data=data, chunks=(1024, 4096), compression=parz.Parz(rate=8))
    holders = [lambda a: a, lambda a: a.__dlpack__(), lambda a: a.__dlpack__(max_version=(1, 0))]
    try:
        import cupy
        holders += [cupy.asarray, cupy.from_dlpack]
    except ImportError:
        pass
    try:
        import torch
        holders += [torch.from_dlpack, lambda a: torch.as_tensor(a, device="cuda")]
    except ImportError:
        pass
    with h5py.File(p, "r") as f:
        d = f["x"]
        keep = holders[0](parz.read(d, device="cuda"))  # warm-up: the library's buffers
        del keep
        gc.collect()
        before = free_device_bytes()
        for i in range(12):
            held = holders[i % len(holders)](parz.read(d, device="cuda"))
            del held
            gc.collect()
        after = free_device_bytes()
    assert before - after < 3 * 64 * 2**20, (before, after)


def test_out_cupy_and_torch(read_file):
    with h5py.File(read_file, "r") as f:
        d = f["f64"]
        outs = []
        try:
            import cupy
            outs.append(cupy.empty(d.shape, np.float64))
        except ImportError:
            pass
        try:
            import torch
            outs.append(torch.empty(d.shape, dtype=torch.float64, device="cuda"))
        except ImportError:
            pass
        if not outs:
            pytest.skip("neither CuPy nor PyTorch")
        for o in outs:
            assert parz.read(d, out=o, device="cuda") is o
            assert same(host(o), d[...])
        with pytest.raises(ValueError, match="^parz: out="):
            parz.read(d, (slice(0, 3),), out=outs[0], device="cuda")
        with pytest.raises(TypeError, match="^parz: out="):
            parz.read(d, out=np.empty(d.shape), device="cuda")


def test_streams(read_file):
    with h5py.File(read_file, "r") as f:
        d = f["f32"]
        try:
            import cupy
            s = cupy.cuda.Stream(non_blocking=True)
            a = parz.read(d, device="cuda", stream=s)
            assert a.__cuda_array_interface__["stream"] == s.ptr
            with s:
                assert same(cupy.asnumpy(cupy.asarray(a)), d[...])
            b = parz.read(d, device="cuda", stream=s.ptr)
            assert b.__cuda_array_interface__["stream"] == s.ptr
        except ImportError:
            pass
        try:
            import torch
            ts = torch.cuda.Stream()
            a = parz.read(d, device="cuda", stream=ts)
            assert a.__cuda_array_interface__["stream"] == ts.cuda_stream
            assert same(torch.from_dlpack(a).cpu().numpy(), d[...])
        except ImportError:
            pass
        with pytest.raises(TypeError, match="^parz: stream="):
            parz.read(d, device="cuda", stream="fast")


def test_device_corrupt_chunk(read_file):
    with h5py.File(read_file, "r") as f:
        with pytest.raises(OSError,
                           match=r"^parz: .*payload checksum.*\(the chunk at \[64,0\]\)"):
            parz.read(f["corrupt"], device="cuda")


def test_payload_bit_flip_on_gpu(flipped_file, monkeypatch):
    """One payload bit flipped: the GPU decoder's checksum verification fails the read into GPU
    memory and the host read through the GPU; reads that leave the chunk out give h5py's
    values."""
    bad = r"^parz: .*payload checksum.*\(the chunk at \[128,0\]\)"
    with h5py.File(flipped_file, "r") as f:
        d = f["x"]
        with pytest.raises(OSError, match=bad):
            parz.read(d, device="cuda")
        assert same(host(parz.read(d, (slice(0, 128), slice(None)), device="cuda")), d[0:128, :])
        monkeypatch.setenv("PARZ_EXEC", "cuda")
        with pytest.raises(OSError, match=bad):
            parz.read(d)
        assert same(parz.read(d, (slice(None), slice(128, None))), d[:, 128:])


@pytest.mark.parametrize("name", ["f32", "f64", "i64", "be", "fill", "corrupt"])
def test_host_read_through_gpu(read_file, name, monkeypatch):
    """device='cpu' with PARZ_EXEC=cuda: decoded on the GPU, brought down through pinned memory."""
    monkeypatch.setenv("PARZ_EXEC", "cuda")
    with h5py.File(read_file, "r") as f:
        d = f[name]
        if name == "corrupt":
            with pytest.raises(OSError, match=r"payload checksum.*\(the chunk at \[64,0\]\)"):
                parz.read(d)
            return
        assert same(parz.read(d), native(d[...]))
        sel = tuple(slice(n // 4, n - n // 5) for n in d.shape)
        assert same(parz.read(d, sel), native(d[sel]))


@pytest.fixture(scope="module")
def bounded_file(tmp_path_factory, etopo, levitus):
    """Error-bounded datasets (codec 4): etopo5 as float32 and float64 at two bounds, with NaN and
    infinities (exceptions), levitus with its land as the fill value (masked), a 3-D and a 1-D
    one; chunks of several sizes, edge chunks included."""
    p = str(tmp_path_factory.mktemp("bounded") / "bounded.h5")
    a = etopo[:300, :1000].copy()
    a[7, 11] = np.nan
    a[100:103, 500] = np.inf
    a[299, 999] = -np.inf
    with h5py.File(p, "w") as f:
        f.create_dataset("f32", data=a, chunks=(64, 384),
                         compression=parz.Parz(codec="bounded", error_bound=1.0))
        f.create_dataset("f32_fine", data=a, chunks=(128, 1000),
                         compression=parz.Parz(codec="bounded", error_bound=1e-2))
        f.create_dataset("f64", data=a.astype("f8"), chunks=(100, 250),
                         compression=parz.Parz(codec="bounded", error_bound=0.5))
        f.create_dataset("f3d", data=a[:240].reshape(6, 40, 1000), chunks=(3, 17, 300),
                         compression=parz.Parz(codec="bounded", error_bound=2.0))
        f.create_dataset("f1d", data=a.ravel()[:123457], chunks=(40000,),
                         compression=parz.Parz(codec="bounded", error_bound=1.0))
        f.create_dataset("levitus", data=levitus, chunks=(5, 90, 360), fillvalue=-1e10,
                         compression=parz.Parz(codec="bounded", error_bound=1e-3 * 30))
    return p


BOUNDED = ["f32", "f32_fine", "f64", "f3d", "f1d", "levitus"]


def serial_read(d, sel, monkeypatch):
    monkeypatch.setenv("PARZ_EXEC", "serial")
    out = np.asarray(d[sel])
    monkeypatch.delenv("PARZ_EXEC")
    return out


@pytest.mark.parametrize("name", BOUNDED)
def test_bounded_on_the_gpu(bounded_file, name, monkeypatch):
    """parz.read(device="cuda") (which has no CPU path), the same through the GPU into host
    memory, and the filter under PARZ_EXEC=cuda decode bounded chunks on the GPU: the serial
    decoder's values bit for bit, whole and in boxes across chunks."""
    with h5py.File(bounded_file, "r") as f:
        d = f[name]
        for sel in [Ellipsis, tuple(slice(n // 4, n - n // 5) for n in d.shape)]:
            want = serial_read(d, sel, monkeypatch)
            assert same(host(parz.read(d, sel, device="cuda")), want)
            monkeypatch.setenv("PARZ_EXEC", "cuda")
            assert same(parz.read(d, sel), want)
            assert same(np.asarray(d[sel]), want)
            monkeypatch.delenv("PARZ_EXEC")


def test_bounded_corrupt_chunk_on_the_gpu(tmp_path, etopo, monkeypatch):
    """A payload bit flipped in one bounded chunk: parz.read into GPU memory and through the GPU
    into host memory fail with the GPU decoder's message, naming the chunk, where the serial
    decoder gives its own; reads that leave the chunk out give the serial decoder's values."""
    p = str(tmp_path / "flipped.h5")
    with h5py.File(p, "w") as f:
        f.create_dataset("x", data=etopo[:256, :256], chunks=(128, 128),
                         compression=parz.Parz(codec="bounded", error_bound=1.0))
    flip_payload_bit(p, "x", (128, 0))
    gpu = r"^parz: .*corrupt payload \(GPU decoder\).*\(the chunk at \[128,0\]\)"
    with h5py.File(p, "r") as f:
        d = f["x"]
        monkeypatch.setenv("PARZ_EXEC", "serial")
        with pytest.raises(OSError, match=r"\(the chunk at \[128,0\]\)") as cpu:
            parz.read(d)
        assert "GPU decoder" not in str(cpu.value)
        top = parz.read(d, (slice(0, 128), slice(None)))
        monkeypatch.delenv("PARZ_EXEC")
        with pytest.raises(OSError, match=gpu):
            parz.read(d, device="cuda")
        assert same(host(parz.read(d, (slice(0, 128), slice(None)), device="cuda")), top)
        monkeypatch.setenv("PARZ_EXEC", "cuda")
        with pytest.raises(OSError, match=gpu):
            parz.read(d)


def special_f32(n):
    """float32 values with NaN payloads, -0.0, subnormals and infinities among a smooth field."""
    a = np.linspace(-3.0, 5.0, n, dtype=np.float32).view(np.uint32).copy()
    a[5::37] = np.array([0x7fc00001, 0xffa00123, 0x80000000, 0x00000001, 0x007fffff,
                         0x7f800000, 0xff800000], dtype=np.uint32)[np.arange(len(a[5::37])) % 7]
    return a.view(np.float32)


@pytest.fixture(scope="module")
def lossless_file(tmp_path_factory, etopo, vasp, ccsm):
    """Lossless datasets (codec 3): every type, ranks 1 to 4, both predictors, special bit
    patterns, edge chunks; each dataset's values also in NAME.npy beside the file. The series
    ask for the stack predictor (Lorenzo's below rank 4) so that the encoder does not choose
    Holt's predictor or the value dictionary (tested apart)."""
    d = tmp_path_factory.mktemp("lossless")
    p = str(d / "lossless.h5")
    rng = np.random.default_rng(39)
    data = {
        "f32": (etopo[:300, :1000], (64, 384), {}),
        "f64": (vasp[:20], (8, 64, 64), {}),
        "i32": (rng.integers(-2**30, 2**30, 10007).astype(np.int32), (3000,), {"stack": True}),
        "i64": (np.cumsum(rng.integers(-2**40, 2**40, (50, 70)), axis=1), (16, 32), {}),
        "f4d": (ccsm[:, :20], (1, 20, 64, 128), {"stack": True}),
        "special": (special_f32(20000), (8192,), {"stack": True}),
    }
    with h5py.File(p, "w") as f:
        for name, (a, chunks, opts) in data.items():
            f.create_dataset(name, data=a, chunks=chunks,
                             compression=parz.Parz(codec="lossless", **opts))
            np.save(str(d / name) + ".npy", a)
    return p, data


@pytest.mark.parametrize("name", ["f32", "f64", "i32", "i64", "f4d", "special"])
def test_lossless_device(lossless_file, name):
    """parz.read(device="cuda") of lossless chunks: decoded by the GPU's kernels, every bit."""
    with h5py.File(lossless_file[0], "r") as f:
        d = f[name]
        want = native(lossless_file[1][name][0])
        assert same(host(parz.read(d, device="cuda")), want)
        sel = tuple(slice(n // 4, n - n // 5) for n in d.shape)
        assert same(host(parz.read(d, sel, device="cuda")), want[sel])


def test_lossless_filter_on_gpu(lossless_file):
    """The filter under PARZ_EXEC=cuda, which tries the GPU's filter path first
    (parz_gpu_chunk_decode, held to the serial decoder by test_gpu_lossless): every bit back and
    no warning."""
    code = """
import sys, h5py, numpy as np, parz
with h5py.File(sys.argv[1], "r") as f:
    for name in f:
        a = np.load(sys.argv[1][:-len("lossless.h5")] + name + ".npy")
        assert f[name][...].tobytes() == a.tobytes(), name
        print("ok", name)
"""
    p = fresh_python(code.replace("sys.argv[1]", repr(lossless_file[0])), PARZ_EXEC="cuda")
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("ok ") == len(lossless_file[1]), p.stdout
    assert "parz: " not in p.stderr, p.stderr


def test_lossless_series_modes(tmp_path):
    """Holt's predictor (a trend) and the value dictionary (a record of few levels) on the GPU:
    parz.read(device="cuda") and the filter under PARZ_EXEC=cuda give every bit back, without a
    warning."""
    n = np.arange(30000)
    noise = np.random.default_rng(39).integers(0, 5, n.size)
    series = {"trend": 250.0 + 0.37 * n + 0.05 * (n % 400 - 200) + 1e-6 * noise,
              "levels": np.array([-2.2e-4, -2.15e-4, -0.0, 1e300])[(n // 7 + noise) % 4]}
    path = str(tmp_path / "modes.h5")
    with h5py.File(path, "w") as f:
        for name, a in series.items():
            f.create_dataset(name, data=a, chunks=(30000,), **parz.Parz(codec="lossless"))
            np.save(str(tmp_path / name) + ".npy", a)
    with h5py.File(path, "r") as f:
        for name, mode in (("trend", "predictor 2"), ("levels", "transform 128")):
            _, raw = f[name].id.read_direct_chunk((0,))
            assert (raw[48], raw[49]) == ((0, 2) if name == "trend" else (128, 0)), name
            want = np.load(str(tmp_path / name) + ".npy")
            assert host(parz.read(f[name], device="cuda")).tobytes() == want.tobytes(), mode
    code = """
import h5py, numpy as np, parz
with h5py.File(%r, "r") as f:
    for name in ("trend", "levels"):
        assert f[name][...].tobytes() == np.load(%r + name + ".npy").tobytes(), name
        print("ok", name)
""" % (path, str(tmp_path) + "/")
    p = fresh_python(code, PARZ_EXEC="cuda")
    assert p.returncode == 0 and p.stdout.count("ok ") == 2, (p.stdout, p.stderr)
    assert "parz: " not in p.stderr, p.stderr
