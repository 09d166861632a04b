"""Sparse ParZ datasets under each of HDF5's chunk indexes, for the tests
(python_tests/test_hostile_index.py) and the benchmark (bench/bench_index.py) of the readers'
walk of the chunk index."""
import numpy as np

# libver and maxshape that make HDF5 1.10 and later pick each index: version 1 B-tree (the
# default), fixed array, extensible array, version 2 B-tree (no, one, two unlimited dimensions).
# The 1.10 format, not "latest": HDF5 2.0's latest is a format HDF5 1.10 cannot read.
V110 = ("v110", "v110")
INDEXES = {"btree1": ("earliest", None), "fixed_array": (V110, None),
           "extensible_array": (V110, (None, 4000)), "btree2": (V110, (None, None))}


def write_sparse(h5py, parz, path, index, stored=2000, seed=3):
    """/x, 4000 x 4000 float32 in 4 x 4 chunks (a grid of a million places) of which `stored`
    are written, at random places and at [0,0], each holding 0..15; returns the places."""
    libver, maxshape = INDEXES[index]
    with h5py.File(path, "w", libver=libver) as f:
        d = f.create_dataset("x", shape=(4000, 4000), maxshape=maxshape, dtype="f4",
                             chunks=(4, 4), compression=parz.Parz(accuracy=1e-3))
        d[:4, :4] = np.arange(16, dtype="f4").reshape(4, 4)
        mask, chunk = d.id.read_direct_chunk((0, 0))
        rng = np.random.default_rng(seed)
        places = {(0, 0)}
        while len(places) < stored:
            places.add((4 * int(rng.integers(1000)), 4 * int(rng.integers(1000))))
        for at in places:
            d.id.write_direct_chunk(at, chunk, mask)
    return places
