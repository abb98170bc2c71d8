#!/bin/sh
# Rewrites runtime/README.md's table of every function of HIP 6.2's hip_runtime_api.h from the
# library this checkout builds (see runtime/tests/api_table.rs); then checks it.
set -e
cd "$(dirname "$0")/.."
HIPMLIR_UPDATE_API_TABLE=1 cargo test --release -p hipmlir-runtime --test api_table
cargo test --release -p hipmlir-runtime --test api_table
