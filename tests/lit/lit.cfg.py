# lit configuration of hipmlir's fast tests: .mlir files run through hipmlir-opt (one pass each,
# the IR before in the file, CHECK lines for after) and .hip files through
# `hipmlir --emit-mlir=frontend`, checked with FileCheck.
#
#   lit tests/lit                       (lit and FileCheck come with Debian's llvm-22-tools)
#   lit -Dhipmlir_bin=<dir> tests/lit   hipmlir and hipmlir-opt from <dir> (default target/release)
import os

import lit.formats

config.name = "hipmlir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".hip"]
config.test_source_root = os.path.dirname(__file__)
repo = os.path.abspath(os.path.join(config.test_source_root, "..", ".."))
# Temporary files (%t) go under target/, not beside the tests.
config.test_exec_root = os.path.join(repo, "target", "lit")
hipmlir_bin = lit_config.params.get("hipmlir_bin", os.path.join(repo, "target", "release"))
llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-22/bin")
for tool in ("hipmlir", "hipmlir-opt"):
    if not os.path.isfile(os.path.join(hipmlir_bin, tool)):
        lit_config.fatal(f"no {tool} in {hipmlir_bin}: build first (cargo build --release)")
if not os.path.isfile(os.path.join(llvm_bin, "FileCheck")):
    lit_config.fatal(f"no FileCheck in {llvm_bin}: install llvm-22-tools (scripts/setup.sh)")

# hipmlir and hipmlir-opt first, then LLVM's FileCheck and not.
config.environment["PATH"] = os.pathsep.join(
    [hipmlir_bin, llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))]
)
# The runtime is found beside the compiler (target/release); nothing here runs a device.
for name in ("HIPMLIR_INCLUDE_DIR", "HIPMLIR_RUNTIME_DIR", "HOME"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
