#!/usr/bin/env bash
# Emits the device code of every test program into one folder, so that two builds of the
# compiler can be compared byte for byte (a refactoring must not change what users get):
#
#   scripts/emit-all.sh OUT [HIPMLIR]      (HIPMLIR defaults to target/release/hipmlir)
#   diff -r BEFORE AFTER
#
# STAGES=0 leaves out the MLIR of the named stages (a faster run).
#
# For each source (examples, tests/programs, tests/runtime_programs, tests/printf,
# tests/driver/*): its SPIR-V (--emit-spirv), its PTX for sm_70 and sm_90
# (--emit-ptx), its code object (--genco: SPIR-V, its float-atomics variant, PTX and the
# kernel metadata) and the MLIR of the named stages; a source that does not build leaves its
# diagnostics instead. The relocatable sources of tests/driver/rdc are also linked into one
# image (the device link's stage MLIR, metadata and split-off images). Paths in diagnostics are
# relative to the repository.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/emit-all.sh OUT [HIPMLIR]}
hipmlir=$(realpath "${2:-target/release/hipmlir}")
rm -rf "$out"
mkdir -p "$out"
out=$(realpath "$out")
# Every compile runs the compiler itself, never a compile server started by an older build.
export HIPMLIR_COMPILE_SERVER=0

# One output of one source: `emit NAME SUFFIX FLAGS... SOURCE...`; a failure keeps stderr
# (NAME.SUFFIX.err) and the exit status.
emit() {
  local name=$1 suffix=$2
  shift 2
  "$hipmlir" "$@" -o "$out/$name.$suffix" 2> "$out/$name.$suffix.err"
  local status=$?
  if [ $status != 0 ]; then
    echo "exit $status" >> "$out/$name.$suffix.err"
    rm -f "$out/$name.$suffix"
  fi
  [ -s "$out/$name.$suffix.err" ] || rm -f "$out/$name.$suffix.err"
}

sources=(examples/*.hip tests/programs/*.hip tests/runtime_programs/*.hip tests/printf/*.hip
  tests/driver/*/*.hip tests/driver/*/*.cu)
for src in "${sources[@]}"; do
  # tests/driver/rdc/main.hip → driver-rdc-main
  name=$(echo "${src%.*}" | sed 's|^tests/||; s|^examples/|example-|; s|/|-|g')
  dir=$(dirname "$src")
  includes=()
  [ -d "$dir/include" ] && includes=(-I "$dir/include")
  emit "$name" spv --emit-spirv "${includes[@]}" "$src"
  emit "$name" sm_70.ptx --emit-ptx --offload-arch=sm_70 "${includes[@]}" "$src"
  emit "$name" sm_90.ptx --emit-ptx --offload-arch=sm_90 "${includes[@]}" "$src"
  emit "$name" co --genco "${includes[@]}" "$src"
  [ "${STAGES:-1}" = 0 ] && continue
  for stage in outlined lowered spirv; do
    emit "$name" "$stage.mlir" --emit-mlir=$stage "${includes[@]}" "$src"
  done
done

# The device link of relocatable objects.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
objects=()
for src in tests/driver/rdc/{main,kernels,physics}.hip; do
  object="$tmp/$(basename "${src%.*}").o"
  "$hipmlir" -fgpu-rdc -I tests/driver/rdc/include -c "$src" -o "$object" 2>> "$out/rdc-link.err"
  objects+=("$object")
done
(cd "$tmp" && "$hipmlir" -fgpu-rdc --save-temps=cwd --split-device-code "${objects[@]}" -o app) \
  >> "$out/rdc-link.err" 2>&1 || echo "exit $?" >> "$out/rdc-link.err"
for f in "$tmp"/*.hipk "$tmp"/*.metadata.json "$tmp"/*.mlir; do
  [ -e "$f" ] && cp "$f" "$out/rdc-link.$(basename "$f")"
done
[ -s "$out/rdc-link.err" ] || rm -f "$out/rdc-link.err"

echo "emit-all: $(find "$out" -type f | wc -l) files, $(du -sb "$out" | cut -f1) bytes in $out"
