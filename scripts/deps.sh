#!/usr/bin/env bash
# Installs the Debian (bookworm) packages ParZ needs to build, test and run its demo.
# Quick when everything is there: dpkg is asked first, apt only for what is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake                       # compiler, binutils (nm, objdump), build system
  pkgconf                                     # pkg-config: the install test builds with parz.pc
  libhdf5-dev hdf5-tools                      # serial HDF5 1.10, h5dump / h5repack / h5ls
  libhdf5-openmpi-dev openmpi-bin             # parallel HDF5 + MPI (plugin load test, MPI example)
  python3 python3-h5py python3-numpy python3-pytest   # the Python helper and its tests
  python3-build python3-setuptools python3-wheel      # the wheel (python3 -m build --wheel)
  python3-venv python3-pip                            # its test: pip install into a venv
  libzfp-dev                                  # zfp 1.0: bit-exactness oracle in tests only
  hdf5-filter-plugin-zfp-serial               # H5Z-ZFP: h5repack conversion tests
  clang-14 libclang-rt-14-dev                 # sanitizer builds (scripts/sanitize.sh)
  python3-matplotlib                          # benchmark plots
)
# Extra packages can be added by other scripts: PARZ_EXTRA_PACKAGES="pkg1 pkg2".
read -r -a EXTRA <<< "${PARZ_EXTRA_PACKAGES:-}"

missing=()
for p in "${PACKAGES[@]}" "${EXTRA[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#PACKAGES[@]} packages present"
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
