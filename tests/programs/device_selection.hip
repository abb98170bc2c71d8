// Choosing a device the ways real programs do (by properties, by PCI bus id), device flags, and
// copies ordered on a stream that return when done (hipMemcpyWithStream).
#include "test_common.h"

#include <cstring>
#include <string>

__global__ void add_index(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += i;
}

int main() {
  int count = 0;
  HIP_CHECK(hipGetDeviceCount(&count));

  // Any device meets a request for compute capability 1.0 and one thread per block.
  hipDeviceProp_t wanted;
  std::memset(&wanted, 0, sizeof wanted);
  wanted.major = 1;
  wanted.maxThreadsPerBlock = 1;
  int chosen = -1;
  HIP_CHECK(hipChooseDevice(&chosen, &wanted));
  bool ok = chosen >= 0 && chosen < count;
  HIP_CHECK(hipSetDevice(chosen));

  // The bus id names the device it was read from, and only that one.
  char bus_id[32];
  HIP_CHECK(hipDeviceGetPCIBusId(bus_id, sizeof bus_id, chosen));
  int found = -1;
  HIP_CHECK(hipDeviceGetByPCIBusId(&found, bus_id));
  ok = ok && found == chosen && std::strlen(bus_id) == 12 && bus_id[4] == ':';
  int none = -1;
  ok = ok && hipDeviceGetByPCIBusId(&none, "not a bus id") == hipErrorInvalidValue;
  (void)hipGetLastError();

  HIP_CHECK(hipSetDeviceFlags(hipDeviceScheduleYield));
  unsigned int flags = 0;
  HIP_CHECK(hipGetDeviceFlags(&flags));
  ok = ok && flags == hipDeviceScheduleYield;

  const int n = 4096;
  std::vector<int> host(n), want(n);
  for (int i = 0; i < n; ++i) {
    host[i] = 3 * i - 7;
    want[i] = host[i] + 2 * i;
  }
  hipStream_t stream;
  HIP_CHECK(hipStreamCreate(&stream));
  int* d = nullptr;
  HIP_CHECK(hipMalloc(&d, n * sizeof(int)));
  HIP_CHECK(hipMemcpyWithStream(d, host.data(), n * sizeof(int), hipMemcpyHostToDevice, stream));
  add_index<<<(n + 255) / 256, 256, 0, stream>>>(d, n);
  add_index<<<(n + 255) / 256, 256, 0, stream>>>(d, n);
  std::vector<int> got(n, 0);
  // Returns after the kernels before it on the stream and the copy itself are done.
  HIP_CHECK(hipMemcpyWithStream(got.data(), d, n * sizeof(int), hipMemcpyDeviceToHost, stream));
  int bad = count_mismatches("add_index", got, want);
  HIP_CHECK(hipFree(d));
  HIP_CHECK(hipStreamDestroy(stream));
  ok = ok && bad == 0;
  std::printf("device %d of %d, bus id %s\n", chosen, count, bus_id);
  std::printf(ok ? "device_selection PASSED\n" : "device_selection FAILED\n");
  return ok ? 0 : 1;
}
