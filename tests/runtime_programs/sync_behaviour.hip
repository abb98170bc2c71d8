// Which "synchronous" memory calls wait for the device before they return, as AMD's HIP does it:
// a fill of device memory does not (the stream keeps its order; the host cannot read such memory
// itself), unless the program asked for synchronous memory operations on the allocation
// (HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS); a fill of pinned host memory and every hipMemcpy do,
// device to device included (CUDA's does not wait there; programs written for AMD GPUs may count
// on it).
//
// A kernel holds the null stream until the host opens a gate in pinned memory. A call that must
// not wait returns while the kernel still waits (the stream is not ready); a call that must wait
// returns only after a helper thread opened the gate (the stream is then idle). A watchdog opens
// the gate after 20 s, so that a call waiting where it must not fails the test instead of hanging.
#include "test_common.h"

#include <atomic>
#include <chrono>
#include <algorithm>
#include <functional>
#include <thread>
#include <vector>

// The gate is read with plain volatile loads: an atomic on pinned host memory is not atomic
// with the host's own stores on a GPU behind PCIe (CUDA's documented rule), and a read-modify-write
// of 0 + 0 would write back the 0 the host just overwrote.
__global__ void hold_until_open(volatile int* gate, int* passed) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    while (*gate == 0) {
    }
    atomicAdd(passed, 1);
  }
}

__global__ void iota(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 3 * i + 1;
}

namespace {

constexpr int kCount = 1 << 16;
constexpr size_t kBytes = kCount * sizeof(int);

// The gate the kernel waits on, opened by the test or by the watchdog.
struct Gate {
  int* word = nullptr;
  std::atomic<bool> watchdog_opened{false};

  Gate() { HIP_CHECK(hipHostMalloc(&word, sizeof(int), hipHostMallocDefault)); }
  ~Gate() { HIP_CHECK(hipHostFree(word)); }

  void close() { __atomic_store_n(word, 0, __ATOMIC_SEQ_CST); }
  void open() { __atomic_store_n(word, 1, __ATOMIC_SEQ_CST); }
};

// Holds the null stream with a kernel waiting on `gate`, runs `call`, and reports whether the
// stream was still busy when `call` returned. With `opener`, a thread opens the gate 100 ms after
// the call began (a call that waits for the stream returns after that); the watchdog opens it
// after 20 s in any case.
int held_kernels = 0;

bool busy_after(Gate& gate, int* passed, bool opener, const char* what,
                const std::function<hipError_t()>& call) {
  ++held_kernels;
  gate.close();
  hipLaunchKernelGGL(hold_until_open, dim3(1), dim3(1), 0, 0, gate.word, passed);
  HIP_CHECK(hipGetLastError());
  std::atomic<bool> finished{false};
  std::thread watchdog([&] {
    auto start = std::chrono::steady_clock::now();
    while (!finished.load()) {
      auto waited = std::chrono::steady_clock::now() - start;
      if (opener && waited > std::chrono::milliseconds(100)) gate.open();
      if (waited > std::chrono::seconds(20)) {
        gate.watchdog_opened = true;
        gate.open();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  hipError_t e = call();
  hipError_t query = hipStreamQuery(nullptr);
  (void)hipGetLastError();  // the query's hipErrorNotReady is the answer, not an error
  finished = true;
  gate.open();
  watchdog.join();
  HIP_CHECK(hipDeviceSynchronize());
  if (e != hipSuccess) {
    std::printf("%s: %s\n", what, hipGetErrorName(e));
    std::exit(1);
  }
  if (query != hipSuccess && query != hipErrorNotReady) {
    std::printf("%s: hipStreamQuery said %s\n", what, hipGetErrorName(query));
    std::exit(1);
  }
  return query == hipErrorNotReady;
}

}  // namespace

int main() {
  int bad = 0;
  Gate gate;
  int* passed = nullptr;
  HIP_CHECK(hipMalloc(&passed, sizeof(int)));
  HIP_CHECK(hipMemset(passed, 0, sizeof(int)));

  int *a = nullptr, *b = nullptr, *c = nullptr, *pinned = nullptr;
  HIP_CHECK(hipMalloc(&a, kBytes));
  HIP_CHECK(hipMalloc(&b, kBytes));
  HIP_CHECK(hipMalloc(&c, kBytes));
  HIP_CHECK(hipHostMalloc(&pinned, kBytes, hipHostMallocDefault));
  hipLaunchKernelGGL(iota, dim3(kCount / 256), dim3(256), 0, 0, a, kCount);
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<int> host(kCount), want(kCount);
  for (int i = 0; i < kCount; ++i) want[i] = 3 * i + 1;

  // Copies wait, device to device too.
  EXPECT(!busy_after(gate, passed, true, "hipMemcpy device to device",
                     [&] { return hipMemcpy(b, a, kBytes, hipMemcpyDeviceToDevice); }));
  EXPECT(!busy_after(gate, passed, true, "hipMemcpy device to device (default kind)",
                     [&] { return hipMemcpy(c, a, kBytes, hipMemcpyDefault); }));
  EXPECT(!busy_after(gate, passed, true, "hipMemcpyDtoD",
                     [&] { return hipMemcpyDtoD(c, b, kBytes); }));
  HIP_CHECK(hipMemcpy(host.data(), c, kBytes, hipMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < kCount; ++i) wrong += host[i] != want[i];
  if (wrong) std::printf("device-to-device copies: %d of %d elements wrong\n", wrong, kCount);
  bad += wrong != 0;

  // Fills of device memory: the host goes on.
  EXPECT(busy_after(gate, passed, false, "hipMemset of device memory",
                    [&] { return hipMemset(b, 0x5a, kBytes); }));
  EXPECT(busy_after(gate, passed, false, "hipMemsetD32 of device memory",
                    [&] { return hipMemsetD32(c, 0x01020304, kCount); }));
  EXPECT(busy_after(gate, passed, false, "hipMemset2D of device memory", [&] {
    return hipMemset2D(a, 1024, 0x11, 1024, kBytes / 1024);
  }));
  EXPECT(!gate.watchdog_opened);
  HIP_CHECK(hipMemcpy(host.data(), b, kBytes, hipMemcpyDeviceToHost));
  wrong = 0;
  for (int v : host) wrong += v != 0x5a5a5a5a;
  HIP_CHECK(hipMemcpy(host.data(), c, kBytes, hipMemcpyDeviceToHost));
  for (int v : host) wrong += v != 0x01020304;
  HIP_CHECK(hipMemcpy(host.data(), a, kBytes, hipMemcpyDeviceToHost));
  for (int v : host) wrong += v != 0x11111111;
  if (wrong) std::printf("fills of device memory: %d elements wrong\n", wrong);
  bad += wrong != 0;

  // Host memory on either side, or a fill of pinned memory: the call returns once it is done.
  EXPECT(!busy_after(gate, passed, true, "hipMemcpy device to host",
                     [&] { return hipMemcpy(host.data(), b, kBytes, hipMemcpyDeviceToHost); }));
  EXPECT(!busy_after(gate, passed, true, "hipMemcpy device to pinned host",
                     [&] { return hipMemcpy(pinned, c, kBytes, hipMemcpyDeviceToHost); }));
  EXPECT(!busy_after(gate, passed, true, "hipMemcpy host to device",
                     [&] { return hipMemcpy(a, want.data(), kBytes, hipMemcpyHostToDevice); }));
  EXPECT(!busy_after(gate, passed, true, "hipMemset of pinned host memory",
                     [&] { return hipMemset(pinned, 0x22, kBytes); }));
  wrong = 0;
  for (int i = 0; i < kCount; ++i) wrong += pinned[i] != 0x22222222 || host[i] != 0x5a5a5a5a;
  if (wrong) std::printf("copies and fills of host memory: %d elements wrong\n", wrong);
  bad += wrong != 0;

  // Synchronous memory operations asked for on a device allocation: its fills wait.
  unsigned int on = 1;
  HIP_CHECK(hipPointerSetAttribute(&on, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS,
                                   reinterpret_cast<hipDeviceptr_t>(b)));
  EXPECT(!busy_after(gate, passed, true, "hipMemset of a SYNC_MEMOPS allocation",
                     [&] { return hipMemset(b, 0, kBytes); }));
  EXPECT(busy_after(gate, passed, false, "hipMemset of device memory without SYNC_MEMOPS",
                    [&] { return hipMemset(c, 0, kBytes); }));

  // Asynchronous copies: a pageable source is staged at the call, so the host goes on and may
  // change the source at once; a pageable destination is written before the call returns.
  std::vector<int> source(want);
  EXPECT(busy_after(gate, passed, false, "hipMemcpyAsync from pageable memory", [&] {
    hipError_t e = hipMemcpyAsync(a, source.data(), kBytes, hipMemcpyHostToDevice, nullptr);
    std::fill(source.begin(), source.end(), -1);  // too late for the copy to see
    return e;
  }));
  constexpr size_t kRow = 1000 * sizeof(int), kPitch = 1024 * sizeof(int), kRows = 60;
  std::vector<int> rows(kPitch / sizeof(int) * kRows);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int>(7 * i + 2);
  EXPECT(busy_after(gate, passed, false, "hipMemcpy2DAsync from pageable memory", [&] {
    hipError_t e = hipMemcpy2DAsync(b, kRow, rows.data(), kPitch, kRow, kRows,
                                    hipMemcpyHostToDevice, nullptr);
    std::fill(rows.begin(), rows.end(), -1);
    return e;
  }));
  std::fill(host.begin(), host.end(), 0);
  EXPECT(!busy_after(gate, passed, true, "hipMemcpyAsync to pageable memory", [&] {
    return hipMemcpyAsync(host.data(), a, kBytes, hipMemcpyDeviceToHost, nullptr);
  }));
  wrong = 0;
  for (int i = 0; i < kCount; ++i) wrong += host[i] != want[i];
  HIP_CHECK(hipMemcpy(host.data(), b, kRow * kRows, hipMemcpyDeviceToHost));
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t x = 0; x < kRow / sizeof(int); ++x) {
      size_t from = r * (kPitch / sizeof(int)) + x;
      wrong += host[r * (kRow / sizeof(int)) + x] != static_cast<int>(7 * from + 2);
    }
  }
  if (wrong) std::printf("asynchronous copies from pageable memory: %d elements wrong\n", wrong);
  bad += wrong != 0;

  // Every held kernel ran to its end, once.
  int count = 0;
  HIP_CHECK(hipMemcpy(&count, passed, sizeof(int), hipMemcpyDeviceToHost));
  EXPECT(count == held_kernels);
  EXPECT(!gate.watchdog_opened);

  HIP_CHECK(hipFree(a));
  HIP_CHECK(hipFree(b));
  HIP_CHECK(hipFree(c));
  HIP_CHECK(hipFree(passed));
  HIP_CHECK(hipHostFree(pinned));
  if (bad) {
    std::printf("sync_behaviour FAILED (%d)\n", bad);
    return 1;
  }
  std::printf("sync_behaviour PASSED\n");
  return 0;
}
