#!/usr/bin/env bash
# Installs the Debian (bookworm) packages ParZ needs.
#
#   scripts/deps.sh          the test set: build, test, benchmark everything (scripts/test.sh)
#   scripts/deps.sh --demo   the demo set alone: the CPU library, the plugin, h5py and h5dump
#                            (scripts/demo.sh)
#
# Extra packages can be added by other scripts: PARZ_EXTRA_PACKAGES="pkg1 pkg2".
# Quick when everything is there: dpkg is asked first, apt only for what is missing.
set -euo pipefail

DEMO_PACKAGES=(
  gcc libc6-dev make cmake                    # C compiler (with OpenMP) and build system
  libhdf5-dev hdf5-tools                      # serial HDF5 1.10 headers, h5dump
  python3 python3-h5py python3-numpy          # the demo's writer and reader
)
TEST_PACKAGES=(
  "${DEMO_PACKAGES[@]}"
  build-essential                             # g++ (host-side GPU tests), binutils (nm, objdump)
  pkgconf                                     # pkg-config: the install test builds with parz.pc
  libhdf5-openmpi-dev openmpi-bin             # parallel HDF5 + MPI (plugin load test, MPI example)
  python3-pytest                              # the Python tests
  python3-build python3-setuptools python3-wheel      # the wheel (python3 -m build --wheel)
  python3-venv python3-pip                            # its test: pip install into a venv
  libzfp-dev                                  # zfp 1.0: bit-exactness oracle in tests only
  hdf5-filter-plugin-zfp-serial               # H5Z-ZFP: h5repack conversion tests
  clang-14 libclang-rt-14-dev                 # sanitizer builds (scripts/sanitize.sh)
  python3-matplotlib                          # benchmark plots
  netcdf-bin python3-netcdf4 python3-h5netcdf python3-xarray  # client tests: netCDF-4, xarray
  python3-tables gdal-bin python3-gdal python3-dask           # PyTables, GDAL, dask
)

case "${1:-}" in
  --demo) PACKAGES=("${DEMO_PACKAGES[@]}") ;;
  "") PACKAGES=("${TEST_PACKAGES[@]}") ;;
  *) echo "usage: $0 [--demo]" >&2; exit 2 ;;
esac
read -r -a EXTRA <<< "${PARZ_EXTRA_PACKAGES:-}"

missing=()
for p in "${PACKAGES[@]}" "${EXTRA[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all $(( ${#PACKAGES[@]} + ${#EXTRA[@]} )) packages present"
  exit 0
fi

echo "deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps: run as root (or install sudo): missing ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
