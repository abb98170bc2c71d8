// Device lambdas with captures, written in host code and passed to kernel templates: the closure
// object is a by-value kernel argument that the host compiler lays out and the device reads.
// Captures of scalars of mixed sizes, pointers, a small struct and an array, by `[=]` (in an
// order of first use unlike the order of declaration) and by name; a constant read without
// being captured (an integral const and a constexpr float); a reference variable captured by
// copy; generic lambdas with captures; a lambda the kernel hands to a device
// function; one lambda of a host function template in two instances.
#include "test_common.h"

#include "include/capturing_lambda_kernels.h"

struct Affine {
  char tag;
  double scale;
  short shift;
};

// A lambda in a host function template: each instance has its own closure type, spelled alike.
template <typename T>
void scale_and_shift(T* out, const T* in, T a, T b, int n) {
  auto op = [=] __device__(int i) { out[i] = a * in[i] + b; };
  for_each_index<128>(n, op);
}

// The same, through a kernel that hands the lambda to a device function.
template <typename T>
void offset_all(const T* in, T* out, T delta, int n) {
  transform_with([=] __device__(T v) { return v + delta; }, in, out, n);
}

int run_capturing_lambdas() {
  const int n = 777;
  std::vector<float> x(n);
  std::vector<int> k(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.125f * (i % 61) - 3.0f;
    k[i] = (i * 29) % 997 - 400;
  }
  float* dx = to_device(x);
  int* dk = to_device(k);
  float* dout;
  int* dout_i;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dout_i, n * sizeof(int)));
  int failures = 0;
  std::vector<float> want(n);
  std::vector<int> wanti(n);

  // [=]: pointers and scalars of several sizes, first used in another order than declared.
  char bump = 3;
  double weight = 0.5;
  short step = -2;
  long long base = 1000000000123LL;
  for_each_index<64>(n, [=] __device__(int i) {
    dout_i[i] = static_cast<int>(dk[i] * weight) + step + bump + static_cast<int>(base % 1000);
  });
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) wanti[i] = static_cast<int>(k[i] * weight) + step + bump + 123;
  failures += report("[=] scalars and pointers", count_mismatches("mixed", from_device(dout_i, n), wanti));

  // Captured by name, a struct among them.
  Affine affine{7, 0.25, 11};
  for_each_index<128>(n, [dx, dout, affine] __device__(int i) {
    dout[i] = static_cast<float>(dx[i] * affine.scale) + affine.shift - affine.tag;
  });
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = static_cast<float>(x[i] * affine.scale) + affine.shift - affine.tag;
  failures += report("struct captured by name", count_mismatches("affine", from_device(dout, n), want));

  // An array by copy, and a constant the lambda reads without capturing it.
  int table[4] = {5, -7, 9, 2};
  const int kMask = 3;
  for_each_index<32>(n, [=] __device__(int i) { dout_i[i] = table[dk[i] & kMask] * dk[i]; });
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) wanti[i] = table[k[i] & kMask] * k[i];
  failures += report("array capture and a constant", count_mismatches("table", from_device(dout_i, n), wanti));

  // A generic lambda with captures, through a kernel that hands it to a device function.
  float gain = 1.5f;
  int offset = -4;
  auto affine_map = [=] __device__(auto v) { return v * gain + offset; };
  transform_with(affine_map, dx, dout, n);
  for (int i = 0; i < n; ++i) want[i] = x[i] * gain + offset;
  failures += report("generic lambda with captures", count_mismatches("gain", from_device(dout, n), want));
  transform_with(affine_map, dk, dout_i, n);
  for (int i = 0; i < n; ++i) wanti[i] = static_cast<int>(k[i] * gain + offset);
  failures += report("the same lambda for int", count_mismatches("gain int", from_device(dout_i, n), wanti));

  // A __host__ __device__ lambda with captures: the host reference calls it too.
  int scale = 3;
  auto triple_plus = [scale, offset] __host__ __device__(int v) { return v * scale + offset; };
  transform_with(triple_plus, dk, dout_i, n);
  for (int i = 0; i < n; ++i) wanti[i] = triple_plus(k[i]);
  failures += report("host and device lambda", count_mismatches("triple", from_device(dout_i, n), wanti));

  // A constexpr float read as a value (no capture: it is not odr-used) beside a reference
  // variable, which `[=]` captures as a copy of what it refers to.
  constexpr float kHalf = 0.5f;
  int& scale_ref = scale;
  for_each_index<64>(n, [=] __device__(int i) { dout[i] = dx[i] * kHalf + scale_ref; });
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = x[i] * kHalf + scale;
  failures += report("constexpr read and a reference copied", count_mismatches("half", from_device(dout, n), want));

  // Written in the launch itself, by <<<>>> and by hipLaunchKernelGGL.
  int bias = 17;
  for_each_index_kernel<64><<<(n + 63) / 64, 64>>>(n, [=] __device__(int i) {
    dout_i[i] = __popc(static_cast<unsigned>(dk[i])) + bias;
  });
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) wanti[i] = __builtin_popcount(static_cast<unsigned>(k[i])) + bias;
  failures += report("lambda in a <<<>>> launch", count_mismatches("popc", from_device(dout_i, n), wanti));
  hipLaunchKernelGGL(for_each_index_kernel<32>, dim3((n + 31) / 32), dim3(32), 0, 0, n,
                     [=] __device__(int i) { dout_i[i] = dk[i] * bias - base % 7; });
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) wanti[i] = static_cast<int>(k[i] * bias - base % 7);
  failures += report("lambda in hipLaunchKernelGGL", count_mismatches("ggl", from_device(dout_i, n), wanti));

  // Two instances of one lambda in a host function template.
  scale_and_shift(dout, dx, 2.0f, -1.0f, n);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = 2.0f * x[i] - 1.0f;
  failures += report("template instance for float", count_mismatches("saxpb", from_device(dout, n), want));
  scale_and_shift(dout_i, dk, 3, 5, n);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) wanti[i] = 3 * k[i] + 5;
  failures += report("template instance for int", count_mismatches("saxpb int", from_device(dout_i, n), wanti));

  offset_all(dx, dout, 0.75f, n);
  for (int i = 0; i < n; ++i) want[i] = x[i] + 0.75f;
  failures += report("handed on, for float", count_mismatches("offset", from_device(dout, n), want));
  offset_all(dk, dout_i, -9, n);
  for (int i = 0; i < n; ++i) wanti[i] = k[i] - 9;
  failures += report("handed on, for int", count_mismatches("offset int", from_device(dout_i, n), wanti));

  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dk));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dout_i));
  return failures;
}

int main() {
  if (run_capturing_lambdas()) return 1;
  std::printf("capturing_device_lambdas PASSED\n");
  return 0;
}
