// Device variables: __constant__ and __device__ globals with initializers, read and written by
// kernels and from the host by symbol (hipMemcpyToSymbol/FromSymbol and their Async forms, with
// HIP_SYMBOL or the variable itself), by address (hipGetSymbolAddress with hipMemcpy and as a
// kernel argument), hipGetSymbolSize, a variable in a namespace, a struct-typed __constant__, the
// constant memory a kernel's attributes count, and misuse returning error codes.
#include "test_common.h"

#include <cstring>

constexpr int kCoeffs = 16;

__constant__ float coeffs[kCoeffs] = {1.0f, 2.0f,  3.0f,  4.0f,  5.0f,  6.0f,  7.0f,  8.0f,
                                      9.0f, 10.0f, 11.0f, 12.0f, 13.0f, 14.0f, 15.0f, 16.0f};

__device__ int counter = 0;

namespace physics {
__device__ float gravity = 9.75f;
}

struct Transform {
  float scale;
  float shift;
  int repeat;
  int pad;
};

__constant__ Transform transform = {2.0f, 0.5f, 3, 0};

__device__ long long histogram[8];

// out[i] = sum of coeffs[(i + k) % 16] for k < transform.repeat, scaled and shifted.
__global__ void apply_coeffs(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float acc = 0.0f;
    for (int k = 0; k < transform.repeat; ++k) acc += coeffs[(i + k) % kCoeffs];
    out[i] = in[i] * acc * transform.scale + transform.shift;
  }
}

__global__ void count_positive(const int* values, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && values[i] > 0) atomicAdd(&counter, 1);
}

__global__ void fall(float* v, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += physics::gravity * dt * i;
}

__global__ void bin(const int* values, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&histogram[values[i] & 7], 1LL);
}

// Adds `by` to every element of a buffer passed by pointer (here: a device variable's address).
__global__ void add_all(long long* p, int n, long long by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += by;
}

static std::vector<float> apply_reference(const std::vector<float>& in, const float* c,
                                          const Transform& t) {
  std::vector<float> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    float acc = 0.0f;
    for (int k = 0; k < t.repeat; ++k) acc += c[(i + k) % kCoeffs];
    out[i] = in[i] * acc * t.scale + t.shift;
  }
  return out;
}

// Floats computed the same way on both sides compare exactly; print them as scaled integers.
static int compare_floats(const char* what, const std::vector<float>& got,
                          const std::vector<float>& want) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    float tolerance = 1e-5f * (want[i] < 0 ? -want[i] : want[i]) + 1e-6f;
    float diff = got[i] - want[i];
    if (diff > tolerance || diff < -tolerance) {
      if (bad < 5) std::printf("%s: mismatch at %zu: got %g, want %g\n", what, i, got[i], want[i]);
      ++bad;
    }
  }
  return bad;
}

#define EXPECT_ERROR(call, code)                                                          \
  do {                                                                                    \
    hipError_t e_ = (call);                                                               \
    if (e_ != (code)) {                                                                   \
      std::printf("%s:%d: %s returned %s, want %s\n", __FILE__, __LINE__, #call,           \
                  hipGetErrorName(e_), hipGetErrorName(code));                            \
      ++bad;                                                                              \
    }                                                                                     \
    if (hipGetLastError() != (code)) {                                                    \
      std::printf("%s:%d: the last error is not %s\n", __FILE__, __LINE__,                \
                  hipGetErrorName(code));                                                 \
      ++bad;                                                                              \
    }                                                                                     \
  } while (0)

int main() {
  int bad = 0;
  const int n = 1000;
  const int threads = 128;
  const int blocks = (n + threads - 1) / threads;

  // 0. A kernel's constSizeBytes counts the constant memory of its source's __constant__
  // variables (coeffs and transform), as the CUDA driver counts a module's.
  hipFuncAttributes attr{};
  HIP_CHECK(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(apply_coeffs)));
  if (attr.constSizeBytes != sizeof(coeffs) + sizeof(Transform)) {
    std::printf("constSizeBytes %zu, want %zu\n", attr.constSizeBytes,
                sizeof(coeffs) + sizeof(Transform));
    ++bad;
  }

  // 1. The __constant__ initializers, read by a kernel; then coeffs overwritten by symbol.
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = 0.25f * (i % 37) - 3.0f;
  float* d_in = to_device(in);
  float* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
  float host_coeffs[kCoeffs];
  for (int i = 0; i < kCoeffs; ++i) host_coeffs[i] = float(i + 1);
  Transform host_transform = {2.0f, 0.5f, 3, 0};
  hipLaunchKernelGGL(apply_coeffs, dim3(blocks), dim3(threads), 0, 0, d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  bad += compare_floats("initial coeffs", from_device(d_out, n),
                        apply_reference(in, host_coeffs, host_transform));

  std::vector<float> initial(kCoeffs);
  HIP_CHECK(hipMemcpyFromSymbol(initial.data(), HIP_SYMBOL(coeffs), sizeof(coeffs)));
  bad += compare_floats("coeffs read back", initial,
                        std::vector<float>(host_coeffs, host_coeffs + kCoeffs));

  for (int i = 0; i < kCoeffs; ++i) host_coeffs[i] = 0.5f * i - 2.0f;
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(coeffs), host_coeffs, sizeof(host_coeffs)));
  hipLaunchKernelGGL(apply_coeffs, dim3(blocks), dim3(threads), 0, 0, d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  bad += compare_floats("overwritten coeffs", from_device(d_out, n),
                        apply_reference(in, host_coeffs, host_transform));

  // Part of the array, passing the variable itself and an offset.
  const float middle[4] = {100.0f, -100.0f, 50.0f, -50.0f};
  HIP_CHECK(hipMemcpyToSymbol(coeffs, middle, sizeof(middle), 6 * sizeof(float)));
  std::memcpy(host_coeffs + 6, middle, sizeof(middle));
  std::vector<float> window(5);
  HIP_CHECK(hipMemcpyFromSymbol(window.data(), coeffs, 5 * sizeof(float), 5 * sizeof(float),
                                hipMemcpyDeviceToHost));
  bad += compare_floats("coeffs window", window,
                        std::vector<float>(host_coeffs + 5, host_coeffs + 10));

  // 2. A struct-typed __constant__, replaced whole.
  Transform t2 = {-1.5f, 4.0f, 5, 0};
  HIP_CHECK(hipMemcpyToSymbol(transform, &t2, sizeof(Transform)));
  Transform t2_back = {};
  HIP_CHECK(hipMemcpyFromSymbol(&t2_back, transform, sizeof(Transform)));
  if (std::memcmp(&t2, &t2_back, sizeof(Transform)) != 0) {
    std::printf("transform read back differs\n");
    ++bad;
  }
  hipLaunchKernelGGL(apply_coeffs, dim3(blocks), dim3(threads), 0, 0, d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  bad += compare_floats("struct constant", from_device(d_out, n),
                        apply_reference(in, host_coeffs, t2));

  // 3. A __device__ counter incremented with atomicAdd, read by symbol; launched twice.
  std::vector<int> values(n);
  int positives = 0;
  for (int i = 0; i < n; ++i) {
    values[i] = (i * 7919) % 201 - 100;
    if (values[i] > 0) ++positives;
  }
  int* d_values = to_device(values);
  int start = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&start, HIP_SYMBOL(counter), sizeof(int)));
  bad += count_mismatches("counter initializer", std::vector<int>{start}, std::vector<int>{0});
  hipLaunchKernelGGL(count_positive, dim3(blocks), dim3(threads), 0, 0, d_values, n);
  hipLaunchKernelGGL(count_positive, dim3(blocks), dim3(threads), 0, 0, d_values, n);
  HIP_CHECK(hipGetLastError());
  int counted = -1;
  HIP_CHECK(hipMemcpyFromSymbol(&counted, counter, sizeof(counted)));
  bad += count_mismatches("counter", std::vector<int>{counted}, std::vector<int>{2 * positives});
  // Reset by symbol, count again.
  const int zero = 0;
  HIP_CHECK(hipMemcpyToSymbol(counter, &zero, sizeof(zero)));
  hipLaunchKernelGGL(count_positive, dim3(blocks), dim3(threads), 0, 0, d_values, n);
  HIP_CHECK(hipMemcpyFromSymbol(&counted, counter, sizeof(counted)));
  bad += count_mismatches("counter after reset", std::vector<int>{counted},
                          std::vector<int>{positives});

  // 4. A variable in a namespace.
  float g = 0.0f;
  HIP_CHECK(hipMemcpyFromSymbol(&g, physics::gravity, sizeof(g)));
  bad += compare_floats("physics::gravity", std::vector<float>{g}, std::vector<float>{9.75f});
  const float moon = 1.625f;
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(physics::gravity), &moon, sizeof(moon)));
  std::vector<float> heights(n, 1.0f);
  float* d_heights = to_device(heights);
  hipLaunchKernelGGL(fall, dim3(blocks), dim3(threads), 0, 0, d_heights, n, 0.5f);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) heights[i] += moon * 0.5f * i;
  bad += compare_floats("fall", from_device(d_heights, n), heights);

  // 5. hipGetSymbolSize and hipGetSymbolAddress (with hipMemcpy, hipMemset and as an argument).
  size_t size = 0;
  HIP_CHECK(hipGetSymbolSize(&size, coeffs));
  bad += count_mismatches("sizeof coeffs", std::vector<size_t>{size},
                          std::vector<size_t>{sizeof(float) * kCoeffs});
  HIP_CHECK(hipGetSymbolSize(&size, HIP_SYMBOL(transform)));
  bad += count_mismatches("sizeof transform", std::vector<size_t>{size},
                          std::vector<size_t>{sizeof(Transform)});
  HIP_CHECK(hipGetSymbolSize(&size, histogram));
  bad += count_mismatches("sizeof histogram", std::vector<size_t>{size},
                          std::vector<size_t>{8 * sizeof(long long)});

  long long* d_hist = nullptr;
  HIP_CHECK(hipGetSymbolAddress(reinterpret_cast<void**>(&d_hist), HIP_SYMBOL(histogram)));
  void* again = nullptr;
  HIP_CHECK(hipGetSymbolAddress(&again, histogram));
  if (again != d_hist || d_hist == nullptr) {
    std::printf("hipGetSymbolAddress gave %p and %p\n", static_cast<void*>(d_hist), again);
    ++bad;
  }
  HIP_CHECK(hipMemset(d_hist, 0, 8 * sizeof(long long)));
  hipLaunchKernelGGL(bin, dim3(blocks), dim3(threads), 0, 0, d_values, n);
  HIP_CHECK(hipGetLastError());
  std::vector<long long> want_hist(8, 0);
  for (int i = 0; i < n; ++i) want_hist[values[i] & 7]++;
  bad += count_mismatches("histogram by address", from_device(d_hist, 8), want_hist);
  hipLaunchKernelGGL(add_all, dim3(1), dim3(8), 0, 0, d_hist, 8, 1000LL);
  HIP_CHECK(hipGetLastError());
  for (auto& h : want_hist) h += 1000;
  std::vector<long long> hist(8);
  HIP_CHECK(hipMemcpyFromSymbol(hist.data(), histogram, sizeof(long long) * 8));
  bad += count_mismatches("histogram by symbol", hist, want_hist);
  std::vector<long long> seeded = {1, 2, 3, 4, 5, 6, 7, 8};
  HIP_CHECK(hipMemcpy(d_hist, seeded.data(), 8 * sizeof(long long), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpyFromSymbol(hist.data(), histogram, sizeof(long long) * 8));
  bad += count_mismatches("histogram by hipMemcpy", hist, seeded);
  // Device to device between an allocation and a variable.
  long long* d_copy = nullptr;
  HIP_CHECK(hipMalloc(&d_copy, 8 * sizeof(long long)));
  HIP_CHECK(hipMemcpyFromSymbol(d_copy, histogram, 8 * sizeof(long long), 0,
                                hipMemcpyDeviceToDevice));
  bad += count_mismatches("histogram to an allocation", from_device(d_copy, 8), seeded);

  // 6. The Async forms on a stream, ordered with a kernel on the same stream.
  hipStream_t stream;
  HIP_CHECK(hipStreamCreate(&stream));
  std::vector<float> async_coeffs(kCoeffs);
  for (int i = 0; i < kCoeffs; ++i) async_coeffs[i] = 1.0f / (i + 1);
  Transform t3 = {3.0f, -1.0f, 2, 0};
  HIP_CHECK(hipMemcpyToSymbolAsync(coeffs, async_coeffs.data(), sizeof(float) * kCoeffs, 0,
                                   hipMemcpyHostToDevice, stream));
  HIP_CHECK(hipMemcpyToSymbolAsync(HIP_SYMBOL(transform), &t3, sizeof(t3), 0,
                                   hipMemcpyHostToDevice, stream));
  hipLaunchKernelGGL(apply_coeffs, dim3(blocks), dim3(threads), 0, stream, d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> async_out(n);
  HIP_CHECK(hipMemcpyAsync(async_out.data(), d_out, n * sizeof(float), hipMemcpyDeviceToHost,
                           stream));
  Transform t3_back = {};
  HIP_CHECK(hipMemcpyFromSymbolAsync(&t3_back, transform, sizeof(t3_back), 0,
                                     hipMemcpyDeviceToHost, stream));
  int counter_async = -1;
  HIP_CHECK(hipMemcpyFromSymbolAsync(&counter_async, HIP_SYMBOL(counter), sizeof(int), 0,
                                     hipMemcpyDeviceToHost, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  bad += compare_floats("async coeffs", async_out, apply_reference(in, async_coeffs.data(), t3));
  if (std::memcmp(&t3, &t3_back, sizeof(Transform)) != 0) {
    std::printf("async transform read back differs\n");
    ++bad;
  }
  bad += count_mismatches("async counter", std::vector<int>{counter_async},
                          std::vector<int>{positives});
  HIP_CHECK(hipStreamDestroy(stream));

  // 7. Misuse: error codes, and the runtime keeps working.
  int not_a_device_variable = 0;
  float four[4] = {};
  EXPECT_ERROR(hipMemcpyToSymbol(not_a_device_variable, four, sizeof(int)),
               hipErrorInvalidSymbol);
  EXPECT_ERROR(hipMemcpyFromSymbol(four, HIP_SYMBOL(not_a_device_variable), sizeof(int)),
               hipErrorInvalidSymbol);
  EXPECT_ERROR(hipGetSymbolSize(&size, not_a_device_variable), hipErrorInvalidSymbol);
  EXPECT_ERROR(hipMemcpyToSymbol(coeffs, four, sizeof(four), 13 * sizeof(float)),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipMemcpyFromSymbol(four, counter, 2 * sizeof(int)), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemcpyToSymbolAsync(transform, four, sizeof(float), sizeof(Transform),
                                      hipMemcpyHostToDevice, 0),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipMemcpyToSymbol(counter, nullptr, sizeof(int)), hipErrorInvalidValue);
  EXPECT_ERROR(hipGetSymbolAddress(nullptr, counter), hipErrorInvalidValue);
  EXPECT_ERROR(hipFree(d_hist), hipErrorInvalidValue);
  // Past the end of a variable through its address.
  EXPECT_ERROR(hipMemcpy(hist.data(), d_hist + 4, 5 * sizeof(long long), hipMemcpyDeviceToHost),
               hipErrorInvalidValue);

  HIP_CHECK(hipMemcpyToSymbol(counter, &zero, sizeof(zero)));
  hipLaunchKernelGGL(count_positive, dim3(blocks), dim3(threads), 0, 0, d_values, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpyFromSymbol(&counted, counter, sizeof(counted)));
  bad += count_mismatches("counter after misuse", std::vector<int>{counted},
                          std::vector<int>{positives});

  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_values));
  HIP_CHECK(hipFree(d_heights));
  HIP_CHECK(hipFree(d_copy));
  return report("device_globals", bad);
}
