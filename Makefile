# hipmlir: `make run` builds and runs the example, `make test` runs the whole test suite.
# Both install what is missing first (scripts/setup.sh) and are cheap to run again.
CARGO ?= cargo
HIPMLIR := target/release/hipmlir
# LLVM's lit (llvm-22-tools, installed by scripts/setup.sh); FileCheck and not come with it.
LIT ?= /usr/lib/llvm-22/bin/lit

.PHONY: all setup build run test lit corpus hip-tests hip-tests-ci hip-tests-rtc-ci lint bench gpu-check gpu-bench mpi-bench clean install uninstall

all: build

setup:
	@scripts/setup.sh

build: setup
	$(CARGO) build --release --workspace

run: build
	@mkdir -p build
	$(HIPMLIR) examples/vector_add.hip -o build/vector_add
	./build/vector_add

test: build
	$(MAKE) --no-print-directory lit
	$(CARGO) test --release --workspace
	$(MAKE) --no-print-directory lint

# The fast layer (seconds): each pass on .mlir files through hipmlir-opt, and .hip files through
# hipmlir --emit-mlir, checked with FileCheck (tests/lit).
lit: build
	$(LIT) -sv tests/lit

# Real public programs (../shared/corpus): each built and run, the outcome checked against
# tests/corpus-expected.tsv. IDS="a b" runs only those.
corpus: build
	scripts/corpus.sh $(IDS)

# The HIP project's own unit suite (../shared/hip-tests) against a fresh install, configured as
# its README says; the outcome checked against tests/hip-tests-expected.tsv (scripts/hip-tests.sh).
# UPDATE=1 rewrites the list from the run; TESTS=regex runs only the matching test cases; RTC=1
# runs the suite's RTC_TESTING mode (every kernel through hiprtc; tests/hip-tests-rtc-expected.tsv).
# PART=regex builds and runs only the executables of the matching folders; CI runs HIP_TESTS_CI,
# the folders whose tests take seconds (make hip-tests-ci; graph, memory, stream and multiproc take
# minutes, and deviceLib's 33 sources minutes to build: they are left to make hip-tests).
HIP_TESTS_CI = ^(ABM/AddKernels|TypeQualifiers|unit/(channelDescriptor|compiler|context|device|dynamicLoading|errorHandling|event|kernel|multiThread|p2p|printf|rtc|surface|synchronization|threadfence))$$
hip-tests-ci: build
	scripts/hip-tests.sh --part '$(HIP_TESTS_CI)'

# The same part in the suite's RTC_TESTING mode (its kernels compiled at run time by hiprtc).
hip-tests-rtc-ci: build
	scripts/hip-tests.sh --rtc --part '$(HIP_TESTS_CI)'

hip-tests: build
	scripts/hip-tests.sh $(if $(filter-out 0,$(RTC)),--rtc) $(if $(filter-out 0,$(UPDATE)),--update-expected) $(if $(TESTS),-R '$(TESTS)') $(if $(PART),--part '$(PART)')

# Benchmarks side by side with peers (never part of `make test`): writes BENCHMARKS.md and prints a
# summary. QUICK=1 runs the short version.
# The folder to carry to an NVIDIA GPU machine (no Rust needed there): every test program and the
# example built once (SPIR-V and PTX), the runtime, and run.sh. OUT=dir chooses the folder.
gpu-check: build
	scripts/gpu-check.sh $(OUT)

bench: build
	target/release/hipmlir-bench $(if $(filter-out 0,$(QUICK)),--quick)

# The folder that measures BENCHMARKS.md's GPU section on a machine with an NVIDIA GPU and nvcc
# (no Rust there): OUT/run.sh RESULT_DIR there, then here
# target/release/hipmlir-bench --merge-gpu RESULT_DIR/BENCHMARKS.md. GPU_ARCH defaults to this
# machine's GPU, else sm_90. Where this machine has the GPU and nvcc, `make bench` measures it.
gpu-bench: build
	target/release/hipmlir-bench --gpu-prepare $(or $(OUT),build/gpu-bench) $(if $(GPU_ARCH),--gpu-arch $(GPU_ARCH))

# The folder that times the MPI Jacobi solver (tests/mpi) built by hipmlir against its CUDA twin
# (bench/mpi) on 1 and 2 NVIDIA GPUs: OUT/run.sh there (nvcc and Open MPI, no Rust needed).
# OUT defaults to build/mpi-bench; GPU_ARCH (default sm_90) is the PTX's architecture.
mpi-bench: build
	scripts/mpi-bench.sh $(OUT)

# hipmlir, hipcc, hipconfig, the headers, the runtime and find_package(hip) under PREFIX
# (relocatable: the prefix may be moved afterwards). `make uninstall` removes exactly that.
PREFIX ?= /usr/local
install: build
	scripts/install.sh "$(DESTDIR)$(PREFIX)"

uninstall:
	scripts/install.sh --uninstall "$(DESTDIR)$(PREFIX)"

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings

clean:
	rm -rf build
	$(CARGO) clean
