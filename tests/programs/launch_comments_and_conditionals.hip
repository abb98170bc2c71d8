// Launches written the way real code formats them: comments (holding commas, parentheses and
// `>>>`) and preprocessor conditionals inside `<<< >>>`, inside the kernel's arguments, and inside
// hipLaunchKernelGGL's arguments; launches over several lines, and configurations holding
// template arguments that end in `>>`.
#include "test_common.h"

#include <algorithm>

#define THREADS 128
#define ON_STREAM 1
// #define USE_DOUBLE

#ifdef USE_DOUBLE
typedef double real;
#else
typedef float real;
#endif

__global__ void axpy(real a, const real* x, real* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T, int Step>
__global__ void ramp(T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<T>(i * Step);
}

template <typename T>
struct Blocks {
  static constexpr int value = 64;
};

int main() {
  const int n = 3000;
  const int blocks = (n + THREADS - 1) / THREADS;
  std::vector<real> x(n), y(n), want(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<real>(i % 17) - 8;
    y[i] = static_cast<real>(i % 5);
    want[i] = y[i];
  }
  real* dx = to_device(x);
  real* dy = to_device(y);
  hipStream_t stream;
  HIP_CHECK(hipStreamCreate(&stream));
  int failures = 0;

  // Comments and a conditional inside <<< >>>.
  axpy<<<blocks, /* threads, (one per element) >>> */ THREADS  // per block, see THREADS
#if ON_STREAM
         ,
         0, stream
#endif
         >>>(2, dx, dy, n);
  for (int i = 0; i < n; ++i) want[i] += 2 * x[i];

  // Comments and a conditional inside the kernel's arguments.
  axpy<<<dim3(blocks), dim3(THREADS), 0, stream>>>(
      /* a, the scale */ 3,
#ifdef USE_DOUBLE
      nullptr,
#else
      dx,
#endif
      dy,  // y += a * x (in place)
      n);
  for (int i = 0; i < n; ++i) want[i] += 3 * x[i];

  // The same inside hipLaunchKernelGGL.
  hipLaunchKernelGGL(axpy, dim3(blocks), dim3(THREADS), /* no shared memory, (none) */ 0,
#if ON_STREAM
                     stream,
#else
                     0,
#endif
                     /* a */ -1, dx, /* y, in place */ dy, n);
  for (int i = 0; i < n; ++i) want[i] -= x[i];
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipStreamSynchronize(stream));
  std::vector<real> got = from_device(dy, n);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += got[i] != want[i];
  failures += report("comments and conditionals in launches", bad);

  // Template arguments ending in `>>` in the configuration and the kernel's name, a launch
  // spread over lines.
  int* ramp_out;
  HIP_CHECK(hipMalloc(&ramp_out, n * sizeof(int)));
  ramp<int, 3>
      <<<std::max<int>(1, (n + Blocks<Blocks<int>>::value - 1) / Blocks<Blocks<int>>::value),
         Blocks<Blocks<int>>::value>>>(ramp_out, n);
  std::vector<int> ramp_want(n);
  for (int i = 0; i < n; ++i) ramp_want[i] = 3 * i;
  failures +=
      report("template arguments in a launch", count_mismatches("ramp<int, 3>",
                                                                 from_device(ramp_out, n), ramp_want));

  HIP_CHECK(hipFree(ramp_out));
  HIP_CHECK(hipStreamDestroy(stream));
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  if (failures) return 1;
  std::printf("launch_comments_and_conditionals PASSED\n");
  return 0;
}
