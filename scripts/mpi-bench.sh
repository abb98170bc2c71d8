#!/usr/bin/env bash
# Builds the folder to carry to a machine with NVIDIA GPUs, nvcc and Open MPI (no Rust, no
# hipmlir needed there) that times the MPI Jacobi solver (tests/mpi) built by hipmlir against its
# CUDA twin (bench/mpi/jacobi_cuda.cu) on 1 and 2 GPUs:
#
#   scripts/mpi-bench.sh [OUT]      (make mpi-bench; OUT defaults to build/mpi-bench)
#   then, on the GPU machine: OUT/run.sh      (see bench/mpi/run.sh)
#
# The programs use MPI's C API alone, so they link libmpi alone (the C wrapper's link flags): a
# binary built against Open MPI 4 runs with Open MPI 5, which keeps the C ABI and has no C++
# bindings library. GPU_ARCH (default sm_90) is the architecture the PTX is built for; SPIR-V is
# built too, so the same binaries run here on OpenCL.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/mpi-bench}
arch=${GPU_ARCH:-sm_90}
hipmlir=target/release/hipmlir
rm -rf "$out"
mkdir -p "$out"
common=(tests/mpi/problem.cpp tests/mpi/device_block.cpp)
# shellcheck disable=SC2046 # the wrapper's flags are words
"$hipmlir" --offload-arch="spirv64,$arch" -O3 $(mpicc --showme:compile) "${common[@]}" \
  tests/mpi/jacobi_mpi.cpp $(mpicc --showme:link) -o "$out/jacobi_mpi"
"$hipmlir" --offload-arch="spirv64,$arch" -O3 "${common[@]}" tests/mpi/jacobi_devices.cpp \
  -o "$out/jacobi_devices"
if readelf -d "$out/jacobi_mpi" | grep -q 'libmpi_cxx'; then
  echo "mpi-bench: jacobi_mpi needs libmpi_cxx, which Open MPI 5 does not have" >&2
  exit 1
fi
cp target/release/libhipmlir_rt.so "$out/"
cp bench/mpi/jacobi_cuda.cu bench/mpi/run.sh tests/mpi/problem.h tests/mpi/problem.cpp "$out/"
du -sh "$out"
