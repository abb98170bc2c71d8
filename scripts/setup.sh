#!/usr/bin/env bash
# Installs what hipmlir needs on Debian 12, and nothing twice:
#  - LLVM/MLIR/clang 22 (with llvm-22-tools: lit and FileCheck for tests/lit), spirv-tools, the OpenCL ICD loader and libc++ (and cmake, for the README's CMake example test) from Debian's packages;
#    patchelf gives the installed runtime its versioned soname (make install); OpenMPI
#    (openmpi-bin, libopenmpi-dev: mpirun and mpicxx) for the MPI test programs (tests/mpi);
#  - Intel's OpenCL CPU runtime from PyPI into /opt/hipmlir-deps/intel-ocl-<version>, registered
#    as an OpenCL vendor (/etc/OpenCL/vendors) so that every program finds it with no variables
#    set. It lives outside the clone: the registration is machine-wide, and a clone that is
#    deleted must not take every other clone's OpenCL device with it.
#  - libdevice (libdevice.10.bc: the __nv_* math functions of PTX kernels) from NVIDIA's
#    nvidia-cuda-nvcc-cu12 wheel on PyPI (no CUDA toolkit download) into
#    /opt/hipmlir-deps/libdevice, where hipmlir looks for it (src/paths.rs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps="$root/.deps"
mkdir -p "$deps"

sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# --- Debian packages -------------------------------------------------------------------------
packages=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools libclang-22-dev clang-22 libpolly-22-dev
  libzstd-dev libz3-dev libxml2-dev zlib1g-dev spirv-tools ocl-icd-libopencl1 ocl-icd-opencl-dev
  libc++-22-dev libc++abi-22-dev libclang-rt-22-dev clang-tools-22 python3 unzip cmake patchelf openmpi-bin libopenmpi-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_if_needed apt-get update -q
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# --- Rust toolchain components used by the checks --------------------------------------------
command -v cargo >/dev/null || { echo "setup: cargo is missing (install Rust with rustup)" >&2; exit 1; }

# --- Intel OpenCL CPU runtime ----------------------------------------------------------------
version="2026.2.0"
ocl="/opt/hipmlir-deps/intel-ocl-$version"
if [ ! -f "$ocl/lib/libintelocl.so" ]; then
  echo "setup: installing Intel's OpenCL CPU runtime $version into $ocl"
  work="$deps/wheels"
  rm -rf "$work"
  mkdir -p "$work/lib"
  python3 -m pip download -q --no-deps -d "$work" \
    "intel-opencl-rt==$version" "tbb==2023.*" "intel-cmplr-lib-rt==$version"
  for w in "$work"/*.whl; do
    python3 -m zipfile -e "$w" "$work/unpacked"
  done
  # One folder: libintelocl.so finds its companions through RUNPATH $ORIGIN.
  for d in "$work"/unpacked/*.data/data/lib; do cp -a "$d"/. "$work/lib/"; done
  # The runtime ships its own ICD loader; programs use Debian's, so keep it out of the way.
  rm -f "$work"/lib/libOpenCL.so*
  # Installed whole or not at all (a stopped copy leaves no half runtime behind).
  sudo_if_needed mkdir -p "$(dirname "$ocl")"
  sudo_if_needed rm -rf "$ocl.partial"
  sudo_if_needed mkdir -p "$ocl.partial"
  sudo_if_needed cp -a "$work/lib" "$ocl.partial/lib"
  echo "$version" | sudo_if_needed tee "$ocl.partial/version" >/dev/null
  sudo_if_needed mv "$ocl.partial" "$ocl"
  rm -rf "$work"
fi
icd=/etc/OpenCL/vendors/hipmlir-intel-cpu.icd
if [ "$(cat "$icd" 2>/dev/null)" != "$ocl/lib/libintelocl.so" ]; then
  echo "setup: registering $ocl/lib/libintelocl.so in $icd"
  sudo_if_needed mkdir -p /etc/OpenCL/vendors
  echo "$ocl/lib/libintelocl.so" | sudo_if_needed tee "$icd" >/dev/null
fi

# --- libdevice for PTX ------------------------------------------------------------------------
# The CUDA 13 wheels moved libdevice to nvidia-nvvm (with a 75 MB libnvvm); the CUDA 12 nvcc
# wheel holds the same libdevice.10.bc in a smaller download.
libdevice_wheel="nvidia-cuda-nvcc-cu12==12.9.86"
libdevice_dir=/opt/hipmlir-deps/libdevice
if [ "$(cat "$libdevice_dir/version" 2>/dev/null)" != "$libdevice_wheel" ]; then
  echo "setup: installing libdevice from $libdevice_wheel into $libdevice_dir"
  work="$deps/libdevice"
  rm -rf "$work"
  mkdir -p "$work"
  python3 -m pip download -q --no-deps -d "$work" "$libdevice_wheel"
  python3 - "$work" <<'PY'
import glob, sys, zipfile
work = sys.argv[1]
wheel = glob.glob(work + "/*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith("nvvm/libdevice/libdevice.10.bc"))
    with open(work + "/libdevice.10.bc", "wb") as out:
        out.write(z.read(name))
PY
  sudo_if_needed rm -rf "$libdevice_dir.partial"
  sudo_if_needed mkdir -p "$libdevice_dir.partial"
  sudo_if_needed cp "$work/libdevice.10.bc" "$libdevice_dir.partial/"
  echo "$libdevice_wheel" | sudo_if_needed tee "$libdevice_dir.partial/version" >/dev/null
  sudo_if_needed rm -rf "$libdevice_dir"
  sudo_if_needed mv "$libdevice_dir.partial" "$libdevice_dir"
  rm -rf "$work"
fi
