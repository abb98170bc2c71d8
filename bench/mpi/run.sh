#!/usr/bin/env bash
# Strong scaling of the MPI Jacobi solver on this machine's NVIDIA GPUs: hipmlir's build of
# tests/mpi/jacobi_mpi.cpp (carried here by `make mpi-bench`) against its CUDA twin
# (jacobi_cuda.cu, built here by nvcc with Open MPI's mpicxx as host compiler), each on 1 and
# 2 ranks (one GPU each) for one fixed problem. Also hipmlir's one-process build over every GPU
# (jacobi_devices, peer copies). Every program checks its result against a one-process run on
# every point; a small problem first also checks against the host.
#
#   ./run.sh                  NX=16384 NY=16384 ITERATIONS=1000 REPEAT=3 GPU_ARCH=sm_90
#   MPIRUN_FLAGS="--mca pml ob1" ./run.sh      extra mpirun flags, where the defaults complain
#
# Prints one table row per program and rank count (best of REPEAT timed runs, after one checked
# run) and ends with "N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")"
nx=${NX:-16384}
ny=${NY:-16384}
iterations=${ITERATIONS:-1000}
repeat=${REPEAT:-3}
arch=${GPU_ARCH:-sm_90}
export LD_LIBRARY_PATH=$PWD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# hipmlir's runtime on the GPUs (the CUDA driver), never quietly on an OpenCL device
# (HIPMLIR_BACKEND=opencl runs it on OpenCL, to try the script where there is no GPU).
export HIPMLIR_BACKEND=${HIPMLIR_BACKEND:-cuda}
mpirun_flags=(-x LD_LIBRARY_PATH -x HIPMLIR_BACKEND)
[ "$(id -u)" -eq 0 ] && mpirun_flags+=(--allow-run-as-root)
# shellcheck disable=SC2206 # extra flags are words
mpirun_flags+=(${MPIRUN_FLAGS:-})

nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader || true
mpirun --version | head -1
ompi_info --parsable --all 2>/dev/null | grep -m1 'mpi_built_with_cuda_support:value' || true
nvcc --version | tail -1

pass=0
fail=0
if nvcc -O3 -std=c++17 -arch="$arch" -ccbin mpicxx jacobi_cuda.cu problem.cpp -o jacobi_cuda \
  > nvcc.log 2>&1; then
  programs=(jacobi_mpi jacobi_cuda)
else
  echo "FAIL nvcc build of jacobi_cuda:"; tail -20 nvcc.log
  fail=$((fail + 1))
  programs=(jacobi_mpi)
fi

# run NAME LOG COMMAND...: passes when the command exits 0 and prints NAME PASSED.
run() {
  local name=$1 log=$2
  shift 2
  if timeout 900 "$@" > "$log" 2>&1 && grep -q "$name PASSED" "$log"; then
    pass=$((pass + 1))
    echo "PASS $name: $(grep "$name PASSED" "$log")"
  else
    fail=$((fail + 1))
    echo "FAIL $name ($*):"
    tail -15 "$log"
  fi
}

# The seconds a run printed for its sweeps ("R ranks: I sweeps in T s" / "P parts on ...").
seconds() { sed -n 's/.* sweeps in \([0-9.]*\) s (.*/\1/p' "$1" | head -1; }

declare -A best
for p in "${programs[@]}"; do
  for ranks in 1 2; do
    run "$p" "$p.small.$ranks.log" mpirun "${mpirun_flags[@]}" -np "$ranks" "./$p"
    run "$p" "$p.$ranks.log" mpirun "${mpirun_flags[@]}" -np "$ranks" "./$p" \
      --nx "$nx" --ny "$ny" --iterations "$iterations"
    b=$(seconds "$p.$ranks.log")
    for ((k = 1; k < repeat; ++k)); do
      timeout 900 mpirun "${mpirun_flags[@]}" -np "$ranks" "./$p" --nx "$nx" --ny "$ny" \
        --iterations "$iterations" --no-check > "$p.$ranks.time.log" 2>&1
      t=$(seconds "$p.$ranks.time.log")
      [ -n "$t" ] && { [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; } && b=$t
    done
    best[$p.$ranks]=$b
  done
done
run jacobi_devices jacobi_devices.small.log ./jacobi_devices
run jacobi_devices jacobi_devices.log ./jacobi_devices --nx "$nx" --ny "$ny" --iterations "$iterations"
devices_time=$(seconds jacobi_devices.log)

# The table as a section of BENCHMARKS.md (hipmlir-bench --merge-gpu takes it from this output).
echo
echo "<!-- mpi-section: begin -->"
echo "## Several GPUs: MPI strong scaling"
echo
echo "Written by \`bench/mpi/run.sh\` (\`make mpi-bench\` prepares it) on $(date -u '+%Y-%m-%d %H:%M UTC') on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ *\([0-9]*\) /\1 x /' | paste -sd, -), $(mpirun --version 2>/dev/null | head -1). \`jacobi_mpi\` and \`jacobi_devices\` (tests/mpi) are built by hipmlir, \`jacobi_cuda\` (bench/mpi, the same algorithm) by nvcc; every run is checked against a one-process run. Jacobi, ${nx} x ${ny} float points, ${iterations} sweeps, halos staged through pinned host memory unless MPI is CUDA-aware."
echo
echo "| program | GPUs | seconds (best of $repeat) | us per sweep | speed-up over 1 GPU |"
echo "| --- | --- | --- | --- | --- |"
for p in "${programs[@]}"; do
  for ranks in 1 2; do
    t=${best[$p.$ranks]:-}
    one=${best[$p.1]:-}
    if [ -n "$t" ] && [ -n "$one" ]; then
      awk -v p="$p" -v r="$ranks" -v t="$t" -v one="$one" -v it="$iterations" \
        'BEGIN { printf "| %s, %d MPI rank%s | %d | %.4f | %.1f | %.2f |\n", p, r, (r > 1 ? "s" : ""), r, t, 1e6 * t / it, one / t }'
    else
      echo "| $p, $ranks MPI rank(s) | $ranks | (no time) | | |"
    fi
  done
done
[ -n "$devices_time" ] && awk -v t="$devices_time" -v it="$iterations" \
  'BEGIN { printf "| jacobi_devices, one process, peer copies | all | %.4f | %.1f | |\n", t, 1e6 * t / it }'
echo "<!-- mpi-section: end -->"
echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
