// Variable templates in device memory: each instance is a device variable of its own, used by
// kernels and reached from the host by symbol (hipMemcpyToSymbol/FromSymbol with the instance,
// HIP_SYMBOL, hipGetSymbolAddress), with initializers, an explicit specialization, instances in a
// namespace, and kernel templates that pick the instance of their own type.
#include "test_common.h"

constexpr int kTaps = 5;

template <class T>
__constant__ T taps[kTaps];

template <class T>
__device__ T bias = T(3);

template <>
__device__ char bias<char> = 7;

namespace counters {
template <class T>
__device__ T hits[2] = {T(1), T(2)};
}

// out[i] = sum over k of taps<T>[k] * in[i + k] + bias<T>, counting the calls in hits<T>.
template <class T>
__global__ void convolve(const T* in, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  T acc = bias<T>;
  for (int k = 0; k < kTaps; ++k) acc += taps<T>[k] * in[i + k];
  out[i] = acc;
  if (i == 0) counters::hits<T>[1] += 1;
}

__global__ void read_char_bias(int* out) {
  out[0] = bias<char>;
  bias<char> = 9;
}

template <class T>
static int run(const char* name) {
  const int n = 256;
  std::vector<T> in(n + kTaps), want(n);
  for (int i = 0; i < n + kTaps; ++i) in[i] = T(i % 17);
  const T weights[kTaps] = {T(1), T(-2), T(3), T(-1), T(2)};
  HIP_CHECK(hipMemcpyToSymbol(taps<T>, weights, sizeof(weights)));
  const T new_bias = T(5);
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(bias<T>), &new_bias, sizeof(T)));
  for (int i = 0; i < n; ++i) {
    T acc = new_bias;
    for (int k = 0; k < kTaps; ++k) acc += weights[k] * in[i + k];
    want[i] = acc;
  }
  T* d_in = to_device(in);
  T* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(T)));
  convolve<T><<<n / 64, 64>>>(d_in, d_out, n);
  convolve<T><<<n / 64, 64>>>(d_in, d_out, n);
  int bad = count_mismatches(name, from_device(d_out, n), want);

  // The instance's own storage: read back by symbol and through its address.
  T hits[2] = {};
  HIP_CHECK(hipMemcpyFromSymbol(hits, counters::hits<T>, sizeof(hits)));
  T* address = nullptr;
  size_t size = 0;
  HIP_CHECK(hipGetSymbolAddress(reinterpret_cast<void**>(&address), HIP_SYMBOL(taps<T>)));
  HIP_CHECK(hipGetSymbolSize(&size, HIP_SYMBOL(taps<T>)));
  std::vector<T> read_taps(kTaps);
  HIP_CHECK(hipMemcpy(read_taps.data(), address, sizeof(weights), hipMemcpyDeviceToHost));
  bad += count_mismatches(name, std::vector<T>{hits[0], hits[1], T(size)},
                          std::vector<T>{T(1), T(4), T(sizeof(weights))});
  bad += count_mismatches(name, read_taps, std::vector<T>(weights, weights + kTaps));
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return bad;
}

int main() {
  int bad = run<int>("int instances") + run<float>("float instances") +
            run<long long>("long long instances");

  // The explicit specialization keeps its own initializer; a kernel's write stays.
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, 2 * sizeof(int)));
  read_char_bias<<<1, 1>>>(d_out);
  read_char_bias<<<1, 1>>>(d_out + 1);
  char device_bias = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&device_bias, bias<char>, sizeof(char)));
  std::vector<int> got = from_device(d_out, 2);
  got.push_back(device_bias);
  bad += count_mismatches("bias<char>", got, std::vector<int>{7, 9, 9});
  HIP_CHECK(hipFree(d_out));
  return report("variable_templates", bad);
}
