#!/usr/bin/env bash
# Builds the folder to carry to an NVIDIA GPU machine (no Rust, no network there): every test
# program and the example built by hipmlir as a user builds them (one binary with SPIR-V and
# PTX), libhipmlir_rt.so,
# the CUDA backend's test executable, and run.sh, which runs them all with the backend chosen
# as a user's program chooses it (GPUs first) and ends with "N passed, M failed".
#
#   scripts/gpu-check.sh [OUT]     (make gpu-check; OUT defaults to build/gpu-check)
#
# Then, on the GPU machine: OUT/run.sh. The same binaries also run here, on OpenCL.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/gpu-check}
hipmlir=target/release/hipmlir
rm -rf "$out"
mkdir -p "$out"
names=()
# Every runtime program runs there too: graphs, capture, pools, virtual memory, the rest of the
# API, the synchronous calls' waits, host functions, and kernels of a module loaded per kernel
# sharing device variables (split_jit; `HIPMLIR_JIT=kernel run.sh` loads every program so).
# (modules and empty_module take a module file as their argument: modules is built below with
# its module files; make test runs empty_module.)
for src in examples/vector_add.hip tests/programs/*.hip tests/runtime_programs/*.hip; do
  name=$(basename "${src%.*}")
  case $name in modules | empty_module) continue ;; esac
  if "$hipmlir" "$src" -o "$out/$name" > "$out/$name.build.log" 2>&1; then
    names+=("$name")
    # Keep the log only when it says something (a warning that a program has no PTX).
    [ -s "$out/$name.build.log" ] || rm -f "$out/$name.build.log"
  else
    echo "gpu-check: $src does not build (see $out/$name.build.log)" >&2
    exit 1
  fi
done
# A program of several sources with relocatable device code: virtual calls and deletes in one
# source on objects of classes only another builds (the device link chains the dispatchers).
rdc=tests/driver/rdc_virtual
if "$hipmlir" -fgpu-rdc -I"$rdc/include" "$rdc/main.hip" "$rdc/scene.hip" "$rdc/shapes.hip" \
      -o "$out/rdc_virtual" > "$out/rdc_virtual.build.log" 2>&1; then
  names+=(rdc_virtual)
  [ -s "$out/rdc_virtual.build.log" ] || rm -f "$out/rdc_virtual.build.log"
else
  echo "gpu-check: tests/driver/rdc_virtual does not build (see $out/rdc_virtual.build.log)" >&2
  exit 1
fi
# Programs that device code stops (a trap, abort(), a failed assert): run.sh expects SIGABRT and
# the runtime's line naming the kernel, for each way the program takes as its argument.
stops=()
for src in tests/stopping_programs/*.hip; do
  name=$(basename "${src%.*}")
  if "$hipmlir" "$src" -o "$out/$name" > "$out/$name.build.log" 2>&1; then
    stops+=("$name")
    [ -s "$out/$name.build.log" ] || rm -f "$out/$name.build.log"
  else
    echo "gpu-check: $src does not build (see $out/$name.build.log)" >&2
    exit 1
  fi
done
# The memory checker (-fsanitize=address): each bad access of bad_accesses must be reported and
# fail with hipErrorIllegalAddress until hipDeviceReset (the program prints REPORTED), and a
# program that ignores it exits 1; correct programs built with the flag pass unreported.
checked=()
for src in tests/memcheck_programs/bad_accesses.hip tests/memcheck_programs/index_bounds.hip tests/memcheck_programs/host_bugs.hip tests/memcheck_programs/correct_patterns.hip tests/memcheck_programs/scalar_kernels.hip examples/vector_add.hip \
  tests/programs/{device_globals,managed_variables,dynamic_shared,device_malloc,shared_and_atomics,pointer_walk,cpp_objects,class_hierarchies,virtual_base_construction}.hip; do
  name=checked_$(basename "${src%.*}")
  if "$hipmlir" -fsanitize=address "$src" -o "$out/$name" > "$out/$name.build.log" 2>&1; then
    case $name in checked_bad_accesses | checked_index_bounds) ;; *) checked+=("$name") ;; esac
    [ -s "$out/$name.build.log" ] || rm -f "$out/$name.build.log"
  else
    echo "gpu-check: $src does not build with -fsanitize=address (see $out/$name.build.log)" >&2
    exit 1
  fi
done
# Module files loaded by hipModuleLoad (modules.hip takes one as its argument): the program's own
# kernels as `--genco` writes them, and as hiprtc compiles them (scripts/gpu-check/rtc_code.cpp,
# here: hiprtc cannot run on the GPU machine, which has no LLVM), the code object a program
# compiling at run time loads with hipModuleLoadData.
module_files=()
if "$hipmlir" tests/runtime_programs/modules.hip -o "$out/modules" > "$out/modules.build.log" 2>&1 \
  && "$hipmlir" --genco tests/runtime_programs/modules.hip -o "$out/modules_genco.code" \
    >> "$out/modules.build.log" 2>&1 \
  && "$hipmlir" scripts/gpu-check/rtc_code.cpp -o "$out/rtc_code" >> "$out/modules.build.log" 2>&1 \
  && "$out/rtc_code" tests/runtime_programs/modules.hip "$out/modules_rtc.code" \
    -Itests/runtime_programs >> "$out/modules.build.log" 2>&1; then
  module_files=(modules_genco.code modules_rtc.code)
  rm -f "$out/rtc_code" "$out/modules.build.log"
else
  echo "gpu-check: the module files do not build (see $out/modules.build.log)" >&2
  exit 1
fi
cp target/release/libhipmlir_rt.so "$out/"
# The runtime's test executables that run on a GPU as they are (no compiler needed there): the
# CUDA backend's own, several devices, peers and IPC, and the memory tests whose kernels are none
# (registered memory's needs clang).
for t in cuda_backend cuda_devices arrays_and_memsets pointer_attributes; do
  test_exe=$(cargo test --release -p hipmlir-runtime --test "$t" --no-run --message-format=json 2>/dev/null \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
  cp "$test_exe" "$out/${t}_test"
done
cat > "$out/run.sh" <<RUN
#!/usr/bin/env bash
# Generated by scripts/gpu-check.sh: runs every program on the machine's GPU (the runtime picks
# it); a program passes when it exits 0 and prints PASSED after checking every element.
cd "\$(dirname "\$0")"
export LD_LIBRARY_PATH=\$PWD\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
pass=0; fail=0
for p in ${names[*]}; do
  out=\$(HIPMLIR_BACKEND=\${HIPMLIR_BACKEND:-cuda} timeout 120 ./\$p 2>&1); rc=\$?
  if [ \$rc -eq 0 ] && echo "\$out" | grep -q PASSED; then
    pass=\$((pass+1)); echo "PASS \$p"
  else
    fail=\$((fail+1)); echo "FAIL \$p (exit \$rc):"; echo "\$out" | tail -12
  fi
done
for p in ${stops[*]}; do
  for how in builtin_trap trap abort assert bad_function_pointer; do
    out=\$(HIPMLIR_BACKEND=\${HIPMLIR_BACKEND:-cuda} timeout 120 ./\$p \$how 2>&1); rc=\$?
    if [ \$rc -eq 134 ] && echo "\$out" | grep -q "stopped the program from device code" \\
        && ! echo "\$out" | grep -q "the host went on"; then
      pass=\$((pass+1)); echo "PASS \$p \$how (stopped)"
    else
      fail=\$((fail+1)); echo "FAIL \$p \$how (exit \$rc, SIGABRT expected):"; echo "\$out" | tail -12
    fi
  done
done
for p in ${checked[*]}; do
  out=\$(HIPMLIR_BACKEND=\${HIPMLIR_BACKEND:-cuda} timeout 120 ./\$p 2>&1); rc=\$?
  if [ \$rc -eq 0 ] && echo "\$out" | grep -q PASSED && ! echo "\$out" | grep -q "memory checker"; then
    pass=\$((pass+1)); echo "PASS \$p (memory checker on)"
  else
    fail=\$((fail+1)); echo "FAIL \$p (exit \$rc, memory checker on):"; echo "\$out" | tail -12
  fi
done
# Reads at both ends of allocations (each case in a process of its own on a GPU): the last
# element inside passes, the first outside is reported.
out=\$(HIPMLIR_BACKEND=\${HIPMLIR_BACKEND:-cuda} timeout 600 ./checked_index_bounds 2>&1); rc=\$?
if [ \$rc -eq 0 ] && echo "\$out" | grep -q PASSED; then
  pass=\$((pass+1)); echo "PASS checked_index_bounds: \$(echo "\$out" | grep PASSED)"
else
  fail=\$((fail+1)); echo "FAIL checked_index_bounds (exit \$rc):"; echo "\$out" | grep -v "memory checker" | tail -12
fi
for how in write_past read_past use_after_free wild atomic cas shared dynamic_shared local helper_local loop_past shared_loop strided_loop divergent through_initializer byval_past block_2d warp_block_2d ignore; do
  out=\$(HIPMLIR_BACKEND=\${HIPMLIR_BACKEND:-cuda} timeout 120 ./checked_bad_accesses \$how 2>&1); rc=\$?
  want=0; seen=REPORTED
  [ \$how = ignore ] && { want=1; seen="IGNORED hipErrorIllegalAddress"; }
  # The bad thread: 5 of block 1 (of blocks of 8 x 4, thread (5,1,0)).
  thread="thread (5,0,0) of block (1,0,0)"
  case \$how in *_2d) thread="thread (5,1,0) of block (1,0,0)" ;; esac
  if [ \$rc -eq \$want ] && echo "\$out" | grep -q "\$seen" && echo "\$out" | grep -qF "\$thread" \\
      && [ "\$(echo "\$out" | grep -c "memory checker: illegal")" = 1 ]; then
    pass=\$((pass+1)); echo "PASS checked_bad_accesses \$how: \$(echo "\$out" | grep "memory checker: illegal")"
  else
    fail=\$((fail+1)); echo "FAIL checked_bad_accesses \$how (exit \$rc, \$want expected):"; echo "\$out" | tail -12
  fi
done
# Reads through a pointer a device variable's initializer holds, at every element of its table.
out=\$(HIPMLIR_BACKEND=\${HIPMLIR_BACKEND:-cuda} timeout 120 ./checked_bad_accesses within_initializer 2>&1); rc=\$?
if [ \$rc -eq 0 ] && echo "\$out" | grep -q "NOT REPORTED" && ! echo "\$out" | grep -q "memory checker"; then
  pass=\$((pass+1)); echo "PASS checked_bad_accesses within_initializer (not reported)"
else
  fail=\$((fail+1)); echo "FAIL checked_bad_accesses within_initializer (exit \$rc):"; echo "\$out" | tail -12
fi
for f in ${module_files[*]}; do
  out=\$(HIPMLIR_BACKEND=\${HIPMLIR_BACKEND:-cuda} timeout 120 ./modules \$f 2>&1); rc=\$?
  if [ \$rc -eq 0 ] && echo "\$out" | grep -q PASSED; then
    pass=\$((pass+1)); echo "PASS modules \$f"
  else
    fail=\$((fail+1)); echo "FAIL modules \$f (exit \$rc):"; echo "\$out" | tail -12
  fi
done
# The runtime's test executables count as one check each (their own lines show which test).
test_executable() {
  local t=\$1 shown=\$2; shift 2
  out=\$(./\$t "\$@" 2>&1); rc=\$?
  echo "\$out" | grep -E "\$shown" | head -40
  if [ \$rc -eq 0 ]; then
    pass=\$((pass+1)); echo "PASS \$t"
  else
    fail=\$((fail+1)); echo "FAIL \$t (exit \$rc)"
  fi
}
for t in cuda_backend_test cuda_devices_test; do
  test_executable \$t "panicked|^test |test result|PASSED|skipped|peer access" --test-threads=1 --nocapture
done
test_executable arrays_and_memsets_test "panicked|FAILED|test result"
test_executable pointer_attributes_test "panicked|FAILED|test result" --skip registered
echo "\$pass passed, \$fail failed"
RUN
chmod +x "$out/run.sh"
du -sh "$out"
