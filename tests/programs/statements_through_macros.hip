// Every statement form written through macros, as real kernels write them: grid-stride loop
// headers, conditions, whole loops, bodies, if statements with init statements, and launches.
#include "test_common.h"

#define LOOP(i, n) for (int i = threadIdx.x; i < n; i += blockDim.x)
#define GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += gridDim.x * blockDim.x)
#define COND(i, n) (i) < (n)
#define STEP(i) i += 3
#define NO_INIT_LOOP(i, n) for (; COND(i, n);)
#define NO_COND_LOOP(i) for (int i = 0;; ++i)
#define NO_INC_LOOP(i, n) for (int i = 0; i < n;)
#define ONLY_INC_LOOP(i) for (;; STEP(i))
#define WHILE_BELOW(i, n) while (COND(i, n))
#define BODY(dst, src, i) \
  {                       \
    dst[i] = 2 * src[i];  \
  }
#define IF_IN_RANGE(i, n) if (COND(i, n))
#define LAUNCH(kernel, grid, block, ...) kernel<<<grid, block>>>(__VA_ARGS__)

// Loop headers from macros; the condition is a macro argument.
__global__ void doubled(int* y, const int* x, int n) {
  LOOP(i, n) BODY(y, x, i)
}

__global__ void grid_stride(int* y, const int* x, size_t n) {
  GRID_STRIDE(i, n) { y[i] = x[i] + 1; }
}

// Headers with a part left out, each written through a macro.
__global__ void partial_headers(int* out, int n) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  int i = 0;
  int sum = 0;
  NO_INIT_LOOP(i, n) { sum += i; ++i; }  // no init: condition only
  out[0] = sum;
  NO_COND_LOOP(j) {  // no condition: init and increment
    if (j >= n) break;
    out[1] += j;
  }
  NO_INC_LOOP(k, n) { out[2] += 2; ++k; }  // no increment
  int m = 0;
  ONLY_INC_LOOP(m) {  // increment only
    if (m > n) break;
    out[3] += m;
  }
  int w = 0;
  WHILE_BELOW(w, n) { out[4] += w; w += 2; }
  for (int a = 0; COND(a, n); STEP(a)) out[5] += a;  // condition and step from macros
}

// if statements with init statements and condition variables.
__global__ void if_forms(int* out, const int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (int v = x[i]; v % 3 == 0) {
    out[i] = v;
  } else if (int w = v * 2) {
    out[i] = w;
  } else {
    out[i] = -1;
  }
  IF_IN_RANGE(i, n / 2) out[i] += 1000;
}

int main() {
  const int n = 1000;
  std::vector<int> x(n);
  for (int i = 0; i < n; ++i) x[i] = i - 17;
  int* dx = to_device(x);
  int* dy;
  HIP_CHECK(hipMalloc(&dy, (n + 64) * sizeof(int)));
  int failures = 0;

  // Launch with fewer threads than elements, past the end guarded only by the loop condition.
  HIP_CHECK(hipMemset(dy, 0x7f, (n + 64) * sizeof(int)));
  LAUNCH(doubled, 1, 64, dy, dx, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got = from_device(dy, n + 64);
  std::vector<int> want(n + 64, 0x7f7f7f7f);
  for (int i = 0; i < n; ++i) want[i] = 2 * x[i];
  failures += report("loop header from a macro", count_mismatches("doubled", got, want));

  HIP_CHECK(hipMemset(dy, 0, (n + 64) * sizeof(int)));
  hipLaunchKernelGGL(grid_stride, dim3(3), dim3(32), 0, 0, dy, dx, (size_t)n);
  got = from_device(dy, n + 64);
  for (int i = 0; i < n + 64; ++i) want[i] = i < n ? x[i] + 1 : 0;
  failures += report("grid-stride loop from a macro", count_mismatches("grid_stride", got, want));

  HIP_CHECK(hipMemset(dy, 0, 8 * sizeof(int)));
  LAUNCH(partial_headers, 1, 32, dy, 10);
  got = from_device(dy, 8);
  std::vector<int> partial(8, 0);
  for (int i = 0; i < 10; ++i) partial[0] += i;
  for (int j = 0; j < 10; ++j) partial[1] += j;
  partial[2] = 2 * 10;
  for (int m = 0; m <= 10; m += 3) partial[3] += m;
  for (int w = 0; w < 10; w += 2) partial[4] += w;
  for (int a = 0; a < 10; a += 3) partial[5] += a;
  failures += report("for headers with parts left out", count_mismatches("partial", got, partial));

  HIP_CHECK(hipMemset(dy, 0, n * sizeof(int)));
  LAUNCH(if_forms, (n + 127) / 128, 128, dy, dx, n);
  got = from_device(dy, n);
  std::vector<int> forms(n);
  for (int i = 0; i < n; ++i) {
    int v = x[i];
    forms[i] = v % 3 == 0 ? v : (v * 2 != 0 ? v * 2 : -1);
    if (i < n / 2) forms[i] += 1000;
  }
  got.resize(n);
  failures += report("if with init statements", count_mismatches("if_forms", got, forms));

  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  if (failures) return 1;
  std::printf("statements_through_macros PASSED\n");
  return 0;
}
