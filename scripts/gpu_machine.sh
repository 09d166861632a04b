#!/usr/bin/env bash
# Runs on the GPU machine (the `device` tool's H100 host: Ubuntu, nvcc, no HDF5, no internet).
# Unpacks Debian's HDF5 and libzfp from .gpu/*.deb into /opt/h5, the real arrays from
# .gpu/data/*.xz into $PARZ_GPU_DATA, and builds ParZ for the local GPU in build-gpu-machine.
#
#   scripts/gpu_machine.sh setup [TARGET...] # unpack + build everything or just TARGETs (idempotent)
#   scripts/gpu_machine.sh unpack           # only unpack (HDF5's headers and tools, the arrays)
#   scripts/gpu_machine.sh env              # print the exports for later commands (eval it)
#   scripts/gpu_machine.sh cmake-args       # print the CMake configure arguments for this machine
#
# Prepare here once: see DEVELOPING.md ("The GPU machine").
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build-gpu-machine"
DATA="${PARZ_GPU_DATA:-/tmp/parz-data}"
H5LIB=/opt/h5/usr/lib/x86_64-linux-gnu

print_env() {
  echo "export LD_LIBRARY_PATH=$H5LIB:$H5LIB/hdf5/serial\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
  echo "export PATH=/opt/h5/usr/bin:/usr/local/cuda/bin:\$PATH"
  echo "export HDF5_PLUGIN_PATH=$BUILD/plugins:$H5LIB/hdf5/serial/plugins"
  echo "export PARZ_SHARED_DATA=$DATA PARZ_BUILD=$BUILD"
}

# Configure arguments for this machine's GPU and the unpacked HDF5 and zfp, one per line.
cmake_args() {
  printf '%s\n' -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_ARCHITECTURES=native \
    "-DCMAKE_PREFIX_PATH=/opt/h5/usr;$H5LIB/hdf5/serial" -DZFP_ROOT=/opt/h5/usr
}

unpack() {
  mkdir -p /opt/h5 "$DATA"
  for f in "$ROOT"/.gpu/*.deb; do dpkg -x "$f" /opt/h5; done
  cp "$ROOT/.gpu/data/README.md" "$DATA/" 2>/dev/null || true
  for f in "$ROOT"/.gpu/data/*.xz; do
    [ -e "$f" ] || continue
    out="$DATA/$(basename "${f%.xz}")"
    [ -f "$out" ] || xz -d -c "$f" > "$out"
  done
}

case "${1:-setup}" in
  env) print_env; exit 0 ;;
  cmake-args) mapfile -t args < <(cmake_args); printf '%q ' "${args[@]}"; echo; exit 0 ;;
  unpack) unpack; exit 0 ;;
  setup) if [ $# -gt 0 ]; then shift; fi ;;
  *) echo "usage: $0 setup|unpack|env|cmake-args" >&2; exit 2 ;;
esac

unpack
eval "$(print_env)"
mapfile -t args < <(cmake_args)
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DPARZ_SHARED_DATA="$DATA" "${args[@]}" \
  >"$BUILD.configure.log" 2>&1 || { tail -30 "$BUILD.configure.log"; exit 1; }
grep -E "ParZ|CUDA|HDF5|zfp" "$BUILD.configure.log" | head -20 || true
cmake --build "$BUILD" -j"$(nproc)" ${1:+--target "$@"} >"$BUILD.build.log" 2>&1 || { grep -B2 -A8 -E "error" "$BUILD.build.log" | head -80; exit 1; }
echo "gpu_machine.sh: built in $BUILD"
