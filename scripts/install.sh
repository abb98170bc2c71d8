#!/usr/bin/env bash
# `make install` and `make uninstall`: hipmlir under a prefix, relocatable as a whole.
#
#   scripts/install.sh PREFIX               installs what `make build` built
#   scripts/install.sh --uninstall PREFIX   removes exactly what the install wrote
#
# Layout: bin/hipmlir (the launcher) with bin/hipcc and bin/hipconfig beside it (links: the
# program acts by the name it is called by) and bin/hipmlir-compiler (the compiler it runs),
# include/hip/, lib/libhipmlir_rt.so.<version> (soname libhipmlir_rt.so.<major>) and
# lib/libhiprtc.so.<version> (soname libhiprtc.so.<major>) with their links, lib/cmake/hip/
# (find_package(hip)) and lib/cmake/hiprtc/ (find_package(hiprtc)), share/doc/hipmlir/,
# lib/hipmlir/libdevice.10.bc (when the set-up installed it).
# The compiler is installed once: libhiprtc.so holds all of it (for hiprtc), and
# bin/hipmlir-compiler is a small program that loads it (src/bin/hipmlir-compiler-shared.rs).
# The library is installed without its symbol table (a third of its size).
# The installed compiler finds its headers and runtime relative to itself, so the prefix can be
# moved. share/hipmlir/install-manifest.txt lists every path written, for the uninstall.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
manifest_path=share/hipmlir/install-manifest.txt

uninstall=0
if [ "${1:-}" = "--uninstall" ]; then uninstall=1; shift; fi
[ $# -eq 1 ] || { echo "usage: $0 [--uninstall] PREFIX" >&2; exit 2; }
prefix=$1

if [ $uninstall -eq 1 ]; then
  manifest="$prefix/$manifest_path"
  [ -f "$manifest" ] || { echo "uninstall: no hipmlir install in $prefix ($manifest is missing)" >&2; exit 1; }
  # Files and links first, then the folders the install made, deepest first, if now empty.
  while IFS= read -r path; do
    rm -f "$prefix/$path"
  done < "$manifest"
  rm -f "$manifest"
  sort -r "$manifest.dirs" 2>/dev/null | while IFS= read -r dir; do
    rmdir "$prefix/$dir" 2>/dev/null || true
  done
  rm -f "$manifest.dirs"
  rmdir "$prefix/share/hipmlir" "$prefix/share" "$prefix" 2>/dev/null || true
  echo "uninstall: removed hipmlir from $prefix"
  exit 0
fi

release="$root/target/release"
for f in hipmlir hipmlir-compiler-shared libhipmlir_rt.so libhiprtc.so; do
  [ -f "$release/$f" ] || { echo "install: $release/$f is missing: run make build first" >&2; exit 1; }
done
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)
major=${version%%.*}
library="libhipmlir_rt.so.$version"

written=()
made_dirs=()
make_dir() {
  local rel=$1 parts="" part
  IFS=/ read -r -a segments <<< "$rel"
  for part in "${segments[@]}"; do
    parts=${parts:+$parts/}$part
    if [ ! -d "$prefix/$parts" ]; then
      mkdir -p "$prefix/$parts"
      made_dirs+=("$parts")
    fi
  done
}
put() { # put SOURCE REL MODE
  make_dir "$(dirname "$2")"
  install -m "$3" "$1" "$prefix/$2"
  written+=("$2")
}
link() { # link TARGET REL
  make_dir "$(dirname "$2")"
  ln -sfn "$1" "$prefix/$2"
  written+=("$2")
}

mkdir -p "$prefix"
put "$release/hipmlir" bin/hipmlir 755
put "$release/hipmlir-compiler-shared" bin/hipmlir-compiler 755
link hipmlir bin/hipcc
link hipmlir bin/hipconfig
while IFS= read -r header; do
  put "$root/headers/$header" "include/$header" 644
done < <(cd "$root/headers" && find . -type f -name '*.h' | sed 's|^\./||' | sort)
put "$release/libhipmlir_rt.so" "lib/$library" 755
patchelf --set-soname "libhipmlir_rt.so.$major" "$prefix/lib/$library"
link "$library" "lib/libhipmlir_rt.so.$major"
link "libhipmlir_rt.so.$major" lib/libhipmlir_rt.so
put "$release/libhiprtc.so" "lib/libhiprtc.so.$version" 755
strip --strip-unneeded "$prefix/lib/libhiprtc.so.$version"
patchelf --set-soname "libhiprtc.so.$major" "$prefix/lib/libhiprtc.so.$version"
link "libhiprtc.so.$version" "lib/libhiprtc.so.$major"
link "libhiprtc.so.$major" lib/libhiprtc.so
hip_version=$(awk '/#define HIP_VERSION_(MAJOR|MINOR|PATCH) /{v=v (v?".":"") $3} END{print v}' "$root/headers/hip/hip_version.h")
for package in hip hiprtc; do
  put "$root/cmake/$package-config.cmake" "lib/cmake/$package/$package-config.cmake" 644
  sed "s/@HIP_VERSION@/$hip_version/" "$root/cmake/hip-config-version.cmake.in" \
    > "$prefix/lib/cmake/$package/$package-config-version.cmake"
  written+=("lib/cmake/$package/$package-config-version.cmake")
done
# libdevice (the set-up's copy, scripts/setup.sh) where the installed compiler looks for it
# (src/paths.rs): PTX kernels calling math functions need it.
if [ -f /opt/hipmlir-deps/libdevice/libdevice.10.bc ]; then
  put /opt/hipmlir-deps/libdevice/libdevice.10.bc lib/hipmlir/libdevice.10.bc 644
fi
put "$root/README.md" share/doc/hipmlir/README.md 644
make_dir share/hipmlir
printf '%s\n' "${written[@]}" > "$prefix/$manifest_path"
printf '%s\n' "${made_dirs[@]}" > "$prefix/$manifest_path.dirs"
echo "install: hipmlir $version (HIP $hip_version) in $prefix: ${#written[@]} files"
