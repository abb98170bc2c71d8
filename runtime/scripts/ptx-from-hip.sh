#!/usr/bin/env bash
# PTX for a HIP source, made outside the compiler (until its NVPTX lowering lands), and a
# program that carries it: hipmlir's outlined MLIR with SPIR-V's generic address space (4)
# renumbered to NVPTX's (0), lowered by mlir-opt-22 to PTX, added to the source's device image
# (runtime/examples/bundle_add_ptx.rs), and the program linked again with that image.
#
#   runtime/scripts/ptx-from-hip.sh <hipmlir> <bundle_add_ptx> <src.hip> <out-exe> [sm_70]
set -euo pipefail
hipmlir=$(realpath "$1"); add=$(realpath "$2"); src=$(realpath "$3"); out=$4; arch=${5:-sm_70}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
stem=$(basename "${src%.*}")
"$hipmlir" "$src" --emit-mlir=outlined -o "$work/$stem.outlined.mlir"
sed -e 's/!llvm\.ptr<4>/!llvm.ptr/g' -e 's/syncscope("agent")/syncscope("device")/g' -e 's/syncscope("workgroup")/syncscope("block")/g' "$work/$stem.outlined.mlir" > "$work/$stem.nv.mlir"
mlir-opt-22 --pass-pipeline="builtin.module(nvvm-attach-target{chip=$arch},convert-scf-to-cf,gpu.module(convert-gpu-to-nvvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})" \
  "$work/$stem.nv.mlir" -o "$work/$stem.bin.mlir"
python3 - "$work/$stem.bin.mlir" "$work/$stem.ptx" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r'assembly = "((?:[^"\\]|\\.)*)"', text)
if not m:
    sys.exit("no PTX assembly in the lowered module")
raw = m.group(1)
out = re.sub(r'\\([0-9A-Fa-f]{2})', lambda h: chr(int(h.group(1), 16)), raw)
open(sys.argv[2], "w").write(out)
PY
# Build with the stages kept, swap the image for one with the PTX, and link again.
(cd "$work" && "$hipmlir" -v --save-temps "$src" -o "$work/$stem.exe" > "$work/log" 2>&1) || { cat "$work/log"; exit 1; }
"$add" "$work/$stem.hipfb" "$arch" "$work/$stem.ptx" "$work/$stem.new.hipfb"
mv "$work/$stem.new.hipfb" "$work/$stem.hipfb"
# -v printed the host compile, the image compile, `ld -r` and the link: run the last three again.
(cd "$work" && grep -E '^(g\+\+|ld|clang)' log | tail -n 3 \
  | sed -E 's#/tmp/hipmlir-[^ ]*/[^ ]*\.o#./combined.o#g' > relink.sh && bash -e relink.sh)
cp "$work/$stem.exe" "$out"
cp "$work/$stem.ptx" "$out.ptx"
