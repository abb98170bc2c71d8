#!/usr/bin/env bash
# hip-tests.sh [--rtc] [--update-expected] [-R REGEX] [--part REGEX]: the HIP project's own unit suite
# (../shared/hip-tests, or $HIPMLIR_HIP_TESTS) against a fresh install of this checkout, exactly as
# the suite's README configures it: install into build/hip-tests/prefix, configure
# catch/ with -DHIP_PLATFORM=spirv -DHIP_PATH=<prefix> -DCATCH2_DISCOVER_TESTS_COMPILE_TIME=ON,
# build every executable (make -k build_tests), run ctest, and compare the outcome with
# tests/hip-tests-expected.tsv (scripts/hip_tests_report.py): an unlisted failure, or a listed
# test or executable that now works, fails the run. -R passes a test-name regex to ctest (the
# build is still whole). --update-expected rewrites the list from this run, keeping the reasons
# already written. --rtc configures the suite's RTC_TESTING mode as well (-DRTC_TESTING=ON: every
# kernel compiled at run time through hiprtc), in build/hip-tests/build-rtc, checked against
# tests/hip-tests-expected.tsv and what that mode adds, tests/hip-tests-rtc-expected.tsv. --part builds and runs only the folders matching a regex
# (`unit/(memory|stream)`: what CI runs): their executables and the files their tests need (code
# objects, libraries), as `make build_tests` builds them; the list is checked for those alone.
# Logs and the table: build/hip-tests/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
suite=${HIPMLIR_HIP_TESTS:-$root/../shared/hip-tests}
out="$root/build/hip-tests"
prefix="$out/prefix"
build="$out/build"
jobs=${HIP_TESTS_BUILD_JOBS:-$(nproc)}
# Test cases run one at a time by default: the OpenCL CPU device uses every core for each.
test_jobs=${HIP_TESTS_JOBS:-1}
timeout=${HIP_TESTS_TIMEOUT:-300}

report_args=()
ctest_args=()
part=
mode=normal
while [ $# -gt 0 ]; do
  case "$1" in
    --update-expected) report_args+=(--update-expected) ;;
    -R) ctest_args+=(-R "$2"); report_args+=(--partial); shift ;;
    --rtc) mode=rtc ;;
    --part) part=$2; report_args+=(--part "$2"); shift ;;
    *) echo "usage: $0 [--rtc] [--update-expected] [-R REGEX] [--part REGEX]" >&2; exit 2 ;;
  esac
  shift
done
configure_args=()
# RTC mode holds the normal run's list too, and its own for what the mode adds.
expected=("$root/tests/hip-tests-expected.tsv")
if [ "$mode" = rtc ]; then
  build="$out/build-rtc"
  configure_args+=(-DRTC_TESTING=ON)
  expected+=("$root/tests/hip-tests-rtc-expected.tsv")
fi
logs="$out/$mode"
mkdir -p "$logs"

[ -f "$suite/catch/CMakeLists.txt" ] || { echo "hip-tests: no suite at $suite (set HIPMLIR_HIP_TESTS)" >&2; exit 1; }
mkdir -p "$out"

# A fresh install each run: the suite sees exactly what `make install` gives a user.
if [ -f "$prefix/share/hipmlir/install-manifest.txt" ]; then
  "$root/scripts/install.sh" --uninstall "$prefix" > /dev/null
fi
rm -rf "$prefix"
"$root/scripts/install.sh" "$prefix"

# The run's compile server and caches live in folders of their own (removed at the end, which
# ends the server), so that the run leaves no process behind and reads no user's cache.
work=$(mktemp -d "${TMPDIR:-/tmp}/hipmlir-hip-tests.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HIPMLIR_COMPILE_SERVER_DIR="$work/server"
export HIPMLIR_CACHE_DIR="$out/cache"

echo "hip-tests: configuring $suite/catch against $prefix ($mode)"
# spirv.cmake makes the folders the suite leaves out on spirv although hipmlir has what they
# test: the rtc folder's executable of platform-independent tests, the surface and texture
# folders.
cmake -S "$suite/catch" -B "$build" -DHIP_PLATFORM=spirv -DHIP_PATH="$prefix" \
  -DCATCH2_DISCOVER_TESTS_COMPILE_TIME=ON \
  -DCMAKE_PROJECT_INCLUDE="$root/scripts/hip-tests/spirv.cmake" \
  ${configure_args[@]+"${configure_args[@]}"} \
  > "$logs/configure.log" 2>&1 \
  || { tail -30 "$logs/configure.log" >&2; echo "hip-tests: the configure failed ($logs/configure.log)" >&2; exit 1; }

targets=build_tests
if [ -n "$part" ]; then
  list() {
    python3 "$root/scripts/hip_tests_report.py" --build "$build" --junit none \
      --expected "${expected[@]}" --table /dev/null --part "$part" --list "$1"
  }
  targets=$(list targets)
  [ -n "$targets" ] || { echo "hip-tests: no executable in a folder matching '$part'" >&2; exit 2; }
fi
echo "hip-tests: building $( [ -n "$part" ] && echo "the executables of $part" || echo "every executable") (make -k -j$jobs; log: $logs/build.log)"
started=$(date +%s)
# Catch2's compile-time discovery appends an executable's tests to its list at every link: a
# list that grows during this build keeps only what this build's link wrote (else a second run
# in the same folder runs every test twice).
lists=$(find "$build" -name '*_tests-*.cmake' -printf '%s %p\n' 2>/dev/null || true)
# shellcheck disable=SC2086 # the targets are words
make -C "$build" -k -j"$jobs" $targets > "$logs/build.log" 2>&1 || true
while read -r size list; do
  if [ -n "$list" ] && [ -f "$list" ] && [ "$(stat -c %s "$list")" -gt "$size" ]; then
    tail -c +$((size + 1)) "$list" > "$list.new" && mv "$list.new" "$list"
  fi
done <<< "$lists"
echo "hip-tests: build took $(( $(date +%s) - started )) s"

echo "hip-tests: running ctest (-j$test_jobs, ${timeout} s a test; log: $logs/ctest.log)"
started=$(date +%s)

# The parent PID of process $1 (empty when it is gone).
parent_of() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  stat=${stat##*) }
  set -- $stat
  echo "${2:-}"
}
# The PIDs of the suite's processes.
suite_processes() {
  local proc exe
  for proc in /proc/[0-9]*; do
    exe=$(readlink "$proc/exe" 2>/dev/null) || continue
    case $exe in "$build"/*) echo "${proc#/proc/}" ;; esac
  done
}
# Test cases that fork (IPC, multiproc) can leave a child behind, spinning, when their parent
# fails or ctest stops it at its timeout: such a child belongs to no test any more, and it took a
# core from every later test (two spun for 15 minutes in one run). While ctest runs, a suite
# process none of whose ancestors is ctest is stopped.
reap_orphans() {
  local pid up depth
  while sleep 5; do
    for pid in $(suite_processes); do
      up=$pid
      for depth in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
        up=$(parent_of "$up")
        case $up in ''|0|1) break ;; esac
        [ "$(cat "/proc/$up/comm" 2>/dev/null)" = ctest ] && continue 2
      done
      echo "hip-tests: stopping test process $pid, left behind by its test" >> "$logs/ctest.log"
      kill -9 "$pid" 2>/dev/null || true
    done
  done
}
rm -f "$logs"/ctest*.xml "$logs/ctest.log"
reap_orphans &
reaper=$!
# A part runs ctest in each of its folders (ctest there sees only the tests below it), so that
# executables an earlier whole run built are left out.
folders=.
[ -z "$part" ] || folders=$(list folders)
junits=()
n=0
for folder in $folders; do
  n=$((n + 1))
  junit="$logs/ctest-$n.xml"
  dir="$build"
  [ "$folder" = . ] || dir="$build/catch_tests/$folder"
  [ -d "$dir" ] || continue
  (cd "$dir" && ctest -j"$test_jobs" --timeout "$timeout" --output-junit "$junit" \
    ${ctest_args[@]+"${ctest_args[@]}"} >> "$logs/ctest.log" 2>&1) || true
  junits+=("$junit")
done
echo "hip-tests: tests took $(( $(date +%s) - started )) s"
kill "$reaper" 2>/dev/null || true
wait "$reaper" 2>/dev/null || true

# No process of the suite's executables outlives the run.
left=()
for pid in $(suite_processes); do left+=("$pid"); done
if [ ${#left[@]} -gt 0 ]; then
  echo "hip-tests: stopping ${#left[@]} test process(es) left behind: ${left[*]}"
  kill -9 "${left[@]}" 2>/dev/null || true
fi

exec python3 "$root/scripts/hip_tests_report.py" --build "$build" --junit ${junits[@]+"${junits[@]}"} none \
  --expected "${expected[@]}" --table "$logs/table.md" ${report_args[@]+"${report_args[@]}"}
