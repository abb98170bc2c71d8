#!/usr/bin/env bash
# corpus.sh [ID...]: builds and runs the real programs of the development corpus (../shared/corpus,
# or $HIPMLIR_CORPUS) with this checkout's compiler, through the corpus' own run.sh, and checks the
# outcome against tests/corpus-expected.tsv (the programs expected to fail, each with the missing
# feature it needs). Fails when a program fails that is not listed, and when a listed one passes:
# the list must stay true. The table is kept in build/corpus.tsv (build and run times included).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${HIPMLIR_CORPUS:-$root/../shared/corpus}
expected="$root/tests/corpus-expected.tsv"
compiler="$root/target/release/hipmlir"
if [ ! -x "$corpus/run.sh" ] || [ ! -f "$corpus/manifest.tsv" ]; then
  echo "corpus: no corpus at $corpus (run.sh and manifest.tsv); set HIPMLIR_CORPUS" >&2
  exit 1
fi
[ -x "$compiler" ] || { echo "corpus: $compiler is not built (make build)" >&2; exit 1; }
mkdir -p "$root/build"
table="$root/build/corpus.tsv"

# What the compiler's caches hold before the run (hipmlir's cache folder, as the compiler finds
# it): programs built again find the precompiled preambles their earlier builds made.
cache=${HIPMLIR_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hipmlir}
if [ -n "${HIPMLIR_DISABLE_CACHE:-}" ] && [[ ! $HIPMLIR_DISABLE_CACHE =~ ^(0|false|no|off)$ ]]; then
  caches="none (HIPMLIR_DISABLE_CACHE)"
else
  # (A cache folder not made yet holds none: find's failure there is no error.)
  device=$( (find "$cache/preamble" -name '*.pch' 2>/dev/null || true) | wc -l)
  host=$( (find "$cache/host-preamble" -name 'preamble.h.[gp]ch' 2>/dev/null || true) | wc -l)
  caches="$device device and $host host precompiled preambles"
fi

# The run's compile server lives in a folder of its own, removed at the end (which ends it), so
# that the run leaves no process behind.
if [ -z "${HIPMLIR_COMPILE_SERVER_DIR:-}" ]; then
  HIPMLIR_COMPILE_SERVER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hipmlir-corpus.XXXXXX")
  export HIPMLIR_COMPILE_SERVER_DIR
  trap 'rm -rf "$HIPMLIR_COMPILE_SERVER_DIR"' EXIT
fi

# run.sh exits non-zero whenever any program fails; the verdict below is ours.
"$corpus/run.sh" "$compiler" "$@" | tee "$table" || true
echo "# caches before this run: $caches" >> "$table"

declare -A listed=()
while IFS=$'\t' read -r id reason; do
  case "$id" in '' | '#'*) continue ;; esac
  [ -n "$reason" ] || { echo "corpus: $expected: '$id' has no reason" >&2; exit 1; }
  listed[$id]=$reason
done < "$expected"

unexpected_fail=() unexpected_pass=() passed=0 failed=0
while IFS=$'\t' read -r id build_ok build_s run_ok run_s error; do
  case "$id" in corpus:* | '#'*) continue ;; esac
  if [ "$run_ok" = 1 ]; then
    passed=$((passed + 1))
    [ -n "${listed[$id]:-}" ] && unexpected_pass+=("$id (listed: ${listed[$id]})")
  else
    failed=$((failed + 1))
    [ -z "${listed[$id]:-}" ] && unexpected_fail+=("$id: $error")
  fi
done < "$table"

total=$((passed + failed))
echo
echo "corpus: $passed of $total programs pass ($((total ? 100 * passed / total : 0)) %);" \
  "$((failed - ${#unexpected_fail[@]})) of the $failed failures are listed in tests/corpus-expected.tsv"
status=0
if [ ${#unexpected_fail[@]} -gt 0 ]; then
  echo "corpus: failed but not listed in tests/corpus-expected.tsv:"
  printf '  %s\n' "${unexpected_fail[@]}"
  status=1
fi
if [ ${#unexpected_pass[@]} -gt 0 ]; then
  echo "corpus: passed but listed as expected to fail (remove them from tests/corpus-expected.tsv):"
  printf '  %s\n' "${unexpected_pass[@]}"
  status=1
fi
[ $status -eq 0 ] && echo "corpus check: OK"
exit $status
