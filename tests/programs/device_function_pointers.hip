// Function pointers in device code: addresses of __device__ functions in locals, local and
// __device__/__constant__ tables (initialized statically), struct members, parameters of device
// functions and templates (type and non-type template parameters), chosen with ?:, returned from
// functions, compared and tested for null, called directly and through `(*fp)(...)`; a pointer read
// from a __device__ variable on the host (hipMemcpyFromSymbol) and passed to a kernel.
#include "test_common.h"

typedef int (*BinOp)(int, int);
using UnaryF = float (*)(float);

__device__ int add_op(int a, int b) { return a + b; }
__device__ int sub_op(int a, int b) { return a - b; }
static __device__ int mul_op(int a, int b) { return (a % 1000) * b; }
__device__ int max_op(int a, int b) { return a > b ? a : b; }

__device__ float half_of(float x) { return 0.5f * x; }
__device__ float square(float x) { return x * x; }
__device__ float plus_one(float x) { return x + 1.0f; }

// A table in device memory, initialized statically.
__device__ BinOp device_ops[4] = {add_op, sub_op, mul_op, &max_op};
__constant__ UnaryF constant_unary[3] = {half_of, square, plus_one};
// A pointer the host reads with hipMemcpyFromSymbol and passes back to a kernel.
__device__ BinOp device_max = max_op;

struct Stage {
  UnaryF fn;
  float scale;
};

// Function pointers as parameters, and a fold over an array.
__device__ int fold(const int* v, int n, BinOp op, int init) {
  int acc = init;
  for (int i = 0; i < n; ++i) acc = op(acc, v[i]);
  return acc;
}

// A template whose type parameter is deduced as a function pointer type.
template <typename F>
__device__ float apply_twice(F f, float x) {
  return f(f(x));
}

// A function returning a function pointer.
__device__ BinOp pick(int k) {
  switch (k & 3) {
    case 0: return add_op;
    case 1: return &sub_op;
    case 2: return mul_op;
    default: return max_op;
  }
}

__global__ void local_tables(const int* a, const int* b, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  BinOp ops[] = {add_op, sub_op, mul_op, max_op};
  int k = (a[i] ^ b[i]) & 3;
  int r = ops[k](a[i], b[i]);
  // Through a __device__ table, with the explicit dereference syntax.
  r += (*device_ops[(k + 1) & 3])(a[i], 3);
  // Chosen with ?:, compared with a function's address.
  BinOp chosen = (i & 1) ? add_op : &sub_op;
  if (chosen == add_op) r += 1000;
  r += chosen(r, b[i]);
  out[i] = r;
}

__global__ void through_parameters(const int* a, int* out, int n, int width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int* row = a + i * width;
  BinOp op = pick(i);
  int r = fold(row, width, op, i);
  // A pointer that changes inside a loop.
  BinOp step = add_op;
  for (int j = 0; j < width; ++j) {
    r = step(r, row[j]);
    step = (row[j] & 1) ? max_op : add_op;
  }
  // Null pointers are tested before being called.
  BinOp none = nullptr;
  if (none) r = none(r, r);
  if (!none && op != nullptr) r = op(r, 1);
  out[i] = r;
}

__global__ void struct_members(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Stage stages[3] = {{half_of, 2.0f}, {square, 0.25f}, {plus_one, -1.0f}};
  Stage s = stages[i % 3];
  float v = s.scale * s.fn(x[i]);
  v += constant_unary[i % 3](x[i]);
  v += apply_twice(constant_unary[(i + 1) % 3], x[i]);
  v += apply_twice(&plus_one, v);
  out[i] = v;
}

// A non-type template parameter of function pointer type.
template <int (*Op)(int, int)>
__global__ void combine(const int* a, const int* b, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = Op(a[i], b[i]);
}

// A function pointer passed by the host as a kernel argument.
__global__ void apply_op(BinOp op, const int* a, const int* b, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(a[i], b[i]);
}

// Host references.
static int h_add(int a, int b) { return a + b; }
static int h_sub(int a, int b) { return a - b; }
static int h_mul(int a, int b) { return (a % 1000) * b; }
static int h_max(int a, int b) { return a > b ? a : b; }
static float h_half(float x) { return 0.5f * x; }
static float h_square(float x) { return x * x; }
static float h_plus_one(float x) { return x + 1.0f; }
static int (*const h_ops[4])(int, int) = {h_add, h_sub, h_mul, h_max};
static float (*const h_unary[3])(float) = {h_half, h_square, h_plus_one};

template <typename F>
static float h_apply_twice(F f, float x) {
  return f(f(x));
}

static int close_enough(const char* what, const std::vector<float>& got,
                        const std::vector<float>& want) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    float tol = 1e-5f * (1.0f + std::fabs(want[i]));
    if (!(std::fabs(got[i] - want[i]) <= tol)) {
      if (bad < 5) std::printf("%s: mismatch at %zu: got %g, want %g\n", what, i, got[i], want[i]);
      ++bad;
    }
  }
  return bad;
}

int main() {
  const int n = 1000, width = 5;
  std::vector<int> a(n), b(n), m(n * width);
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) {
    a[i] = (i * 37) % 201 - 100;
    b[i] = (i * 11) % 53 - 20;
    x[i] = 0.01f * i - 3.0f;
  }
  for (int i = 0; i < n * width; ++i) m[i] = (i * 7919) % 97 - 48;
  int* da = to_device(a);
  int* db = to_device(b);
  int* dm = to_device(m);
  float* dx = to_device(x);
  int* dout;
  float* dfout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dfout, n * sizeof(float)));
  const int blocks = (n + 127) / 128;
  int failures = 0;

  local_tables<<<blocks, 128>>>(da, db, dout, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) {
    int k = (a[i] ^ b[i]) & 3;
    int r = h_ops[k](a[i], b[i]);
    r += h_ops[(k + 1) & 3](a[i], 3);
    int (*chosen)(int, int) = (i & 1) ? h_add : h_sub;
    if (i & 1) r += 1000;
    r += chosen(r, b[i]);
    want[i] = r;
  }
  failures += report("local and __device__ tables, ?:",
                     count_mismatches("tables", from_device(dout, n), want));

  through_parameters<<<blocks, 128>>>(dm, dout, n, width);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) {
    const int* row = &m[i * width];
    int (*op)(int, int) = h_ops[i & 3];
    int r = i;
    for (int j = 0; j < width; ++j) r = op(r, row[j]);
    int (*step)(int, int) = h_add;
    for (int j = 0; j < width; ++j) {
      r = step(r, row[j]);
      step = (row[j] & 1) ? h_max : h_add;
    }
    want[i] = op(r, 1);
  }
  failures += report("pointers as parameters and results",
                     count_mismatches("parameters", from_device(dout, n), want));

  struct_members<<<blocks, 128>>>(dx, dfout, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> wantf(n);
  const float scales[3] = {2.0f, 0.25f, -1.0f};
  for (int i = 0; i < n; ++i) {
    float v = scales[i % 3] * h_unary[i % 3](x[i]);
    v += h_unary[i % 3](x[i]);
    v += h_apply_twice(h_unary[(i + 1) % 3], x[i]);
    v += h_apply_twice(h_plus_one, v);
    wantf[i] = v;
  }
  failures += report("struct members, __constant__ table, templates",
                     close_enough("members", from_device(dfout, n), wantf));

  combine<mul_op><<<blocks, 128>>>(da, db, dout, n);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = h_mul(a[i], b[i]);
  failures += report("non-type template parameter",
                     count_mismatches("combine", from_device(dout, n), want));

  BinOp from_device_symbol = nullptr;
  HIP_CHECK(hipMemcpyFromSymbol(&from_device_symbol, HIP_SYMBOL(device_max), sizeof(BinOp)));
  apply_op<<<blocks, 128>>>(from_device_symbol, da, db, dout, n);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = a[i] > b[i] ? a[i] : b[i];
  failures += report("pointer from hipMemcpyFromSymbol as a kernel argument",
                     count_mismatches("apply_op", from_device(dout, n), want));

  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dm));
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dfout));
  if (failures) return 1;
  std::printf("device_function_pointers PASSED\n");
  return 0;
}
