#!/bin/sh
# Packs the MPI benchmark for a machine that has OpenMPI 4.x (libmpi.so.40) but no parallel
# HDF5, e.g. an Ubuntu 24.04 GPU host without internet: the programs built here, the plugin,
# and Debian's libhdf5_openmpi.so.103 (HDF5 1.10.8, which needs only libmpi.so.40, libcurl,
# libsz/libaec, libz and libcrypto from the target).
#
#   bench/bench_mpi_bundle.sh [BUILD] [DEST]         (defaults: ../build-mpi, BUILD/bundle)
# then, on the target:
#   DEST/bench_mpi.sh 1 2 4 8 16                     (finds everything in its own directory)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$here/../build-mpi}
DEST=${2:-$BUILD/bundle}
mkdir -p "$DEST"
cp "$BUILD/bench/bench_mpi" "$BUILD/examples/mpi_checkpoint" "$BUILD/plugins/libH5Zparz.so" \
   "$here/bench_mpi.sh" "$DEST/"
lib=$(ldd "$BUILD/bench/bench_mpi" | awk '/libhdf5_openmpi|libhdf5\.so/ {print $3; exit}')
[ -n "$lib" ] || { echo "bench_mpi_bundle.sh: bench_mpi links no parallel libhdf5?" >&2; exit 1; }
cp -L "$lib" "$DEST/"
echo "bundle in $DEST:"; ls -l "$DEST"
