// A program may end at any moment after its first runtime call: a tool that only asks how many
// devices there are, a test case that creates a stream and returns. The runtime may still be
// loading the program's kernels then (the CUDA backend loads them on a thread of its own as
// soon as the device is set up); the exit must not crash under it. The program runs itself
// again a few times, each child exiting right after hipStreamCreate, with many kernels to load
// (on NVIDIA GPUs compiled by the driver at each start); then it checks one of those kernels on
// the device.
#include "test_common.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstring>
#include <utility>

// Enough distinct kernels that loading them takes a while.
template <int N>
__global__ void polynomial(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], acc = 0.0f;
#pragma unroll
  for (int k = 0; k <= N % 13; ++k) acc = acc * v + static_cast<float>(N + k);
  y[i] = acc;
}

using Kernel = void (*)(const float*, float*, int);

template <int... N>
constexpr auto table(std::integer_sequence<int, N...>) {
  return std::array<Kernel, sizeof...(N)>{polynomial<N>...};
}

static const auto kKernels = table(std::make_integer_sequence<int, 96>{});

static float host_polynomial(int which, float v) {
  float acc = 0.0f;
  for (int k = 0; k <= which % 13; ++k) acc = acc * v + static_cast<float>(which + k);
  return acc;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "child") == 0) {
    // On NVIDIA GPUs the driver then compiles the kernels' PTX at every start (no disk cache),
    // so that loading them is surely under way when the child exits.
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    hipStream_t stream;
    HIP_CHECK(hipStreamCreate(&stream));
    HIP_CHECK(hipStreamDestroy(stream));
    return 0;  // while the kernels may still be loading
  }

  int bad = 0;
  for (int run = 0; run < 8; ++run) {
    pid_t child = fork();
    if (child == 0) {
      execl("/proc/self/exe", argv[0], "child", static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child) {
      std::printf("run %d: could not run the child\n", run);
      return 1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::printf("run %d: the child %s %d\n", run,
                  WIFSIGNALED(status) ? "died of signal" : "exited with",
                  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
      ++bad;
    }
  }

  // The kernels themselves work: one of them checked on every element.
  constexpr int n = 1000;
  constexpr int which = 77;
  std::vector<float> x(n), y(n), want(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.001f * static_cast<float>(i % 17);
    want[i] = host_polynomial(which, x[i]);
  }
  float *dx = nullptr, *dy = nullptr;
  HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dy, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(kKernels[which], dim3((n + 127) / 128), dim3(128), 0, 0, dx, dy, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    // Same operations in the same order; a device may fuse the multiply-add.
    if (std::fabs(y[i] - want[i]) > 1e-5f * std::fabs(want[i]) + 1e-6f) {
      if (bad < 5) std::printf("y[%d] = %g, want %g\n", i, y[i], want[i]);
      ++bad;
    }
  }
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  if (bad) {
    std::printf("early_exit FAILED (%d)\n", bad);
    return 1;
  }
  std::printf("early_exit PASSED\n");
  return 0;
}
