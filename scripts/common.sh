# Shared by the scripts (sourced, not run).
PARZ_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PARZ_BUILD_DIR="${PARZ_BUILD_DIR:-$PARZ_ROOT/build}"
PARZ_SHARED_DATA="${PARZ_SHARED_DATA:-$PARZ_ROOT/../shared/data}"
export PARZ_SHARED_DATA

# The Python that can import h5py: Debian's /usr/bin/python3 first (a pyenv python3 earlier on
# PATH usually cannot).
parz_python() {
  local py
  for py in /usr/bin/python3 "$(command -v python3 || true)"; do
    if [ -n "$py" ] && "$py" -c "import h5py, numpy" 2>/dev/null; then
      echo "$py"
      return 0
    fi
  done
  echo "no python3 that imports h5py and numpy (install python3-h5py)" >&2
  return 1
}

# Whether this machine has an NVIDIA GPU: its driver's device node, or nvidia-smi lists one.
parz_gpu_present() {
  [ -e /dev/nvidia0 ] || nvidia-smi -L >/dev/null 2>&1
}

# Configures ParZ in $PARZ_BUILD_DIR (Release), with the CMake arguments given after the defaults.
# CUDA code is compiled when nvcc is there (no GPU is needed to build it) unless -DPARZ_CUDA=OFF.
parz_configure() {
  local args=(-DCMAKE_BUILD_TYPE=Release "-DPARZ_SHARED_DATA=$PARZ_SHARED_DATA")
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
  fi
  cmake -S "$PARZ_ROOT" -B "$PARZ_BUILD_DIR" "${args[@]}" "$@"
}

# Configures (with the CMake arguments given) and builds everything in $PARZ_BUILD_DIR.
parz_build() {
  parz_configure "$@" && cmake --build "$PARZ_BUILD_DIR" -j2
}

# Environment that lets HDF5 and Python find the build tree's plugin and helper. Setting
# HDF5_PLUGIN_PATH replaces HDF5's default directory, so that one (H5Z-ZFP) is listed after it.
parz_env() {
  export HDF5_PLUGIN_PATH="$PARZ_BUILD_DIR/plugins:/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins"
  export PYTHONPATH="$PARZ_BUILD_DIR/python${PYTHONPATH:+:$PYTHONPATH}"
}
