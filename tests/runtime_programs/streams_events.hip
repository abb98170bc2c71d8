// Streams, events and asynchronous copies as a HIP program uses them: a pipeline over chunks on
// several streams, pinned host memory, events with timing, hipStreamWaitEvent across streams,
// the null stream's ordering with blocking streams, and misuse of streams and events.
#include "test_common.h"

#include <chrono>

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void add_int(int* p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += v;
}

int main() {
  const int n = 1 << 18, chunks = 4, chunk = n / chunks;
  float* hx = nullptr;
  float* hy = nullptr;
  HIP_CHECK(hipHostMalloc(&hx, n * sizeof(float)));
  HIP_CHECK(hipHostMalloc(&hy, n * sizeof(float)));
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = (i % 1000) * 0.5f;
    hy[i] = (i % 7) - 3.0f;
    want[i] = 2.0f * hx[i] + hy[i];
  }
  float *dx = nullptr, *dy = nullptr;
  HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dy, n * sizeof(float)));

  hipStream_t streams[chunks];
  for (int s = 0; s < chunks; ++s) HIP_CHECK(hipStreamCreateWithFlags(&streams[s], hipStreamNonBlocking));
  hipEvent_t start, stop;
  HIP_CHECK(hipEventCreate(&start));
  HIP_CHECK(hipEventCreate(&stop));
  HIP_CHECK(hipEventRecord(start, streams[0]));
  auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < chunks; ++s) {
    size_t off = size_t(s) * chunk;
    HIP_CHECK(hipMemcpyAsync(dx + off, hx + off, chunk * sizeof(float), hipMemcpyHostToDevice, streams[s]));
    HIP_CHECK(hipMemcpyAsync(dy + off, hy + off, chunk * sizeof(float), hipMemcpyHostToDevice, streams[s]));
    hipLaunchKernelGGL(saxpy, dim3(chunk / 256), dim3(256), 0, streams[s], 2.0f, dx + off, dy + off, chunk);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpyAsync(hy + off, dy + off, chunk * sizeof(float), hipMemcpyDeviceToHost, streams[s]));
  }
  // stop waits for every stream through events recorded on each.
  for (int s = 1; s < chunks; ++s) {
    hipEvent_t done;
    HIP_CHECK(hipEventCreateWithFlags(&done, hipEventDisableTiming));
    HIP_CHECK(hipEventRecord(done, streams[s]));
    HIP_CHECK(hipStreamWaitEvent(streams[0], done, 0));
    HIP_CHECK(hipEventDestroy(done));
  }
  HIP_CHECK(hipEventRecord(stop, streams[0]));
  HIP_CHECK(hipEventSynchronize(stop));
  auto host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  float ms = -1.0f;
  HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
  if (!(ms >= 0.0f && ms <= host_ms + 50.0)) {
    std::printf("elapsed %f ms is not within the host's %f ms\n", ms, host_ms);
    return 1;
  }
  for (int s = 0; s < chunks; ++s) HIP_CHECK(hipStreamQuery(streams[s]));
  std::vector<float> got(hy, hy + n);
  int bad = count_mismatches("saxpy", got, want);

  // Null stream vs a blocking stream: alternate and every step sees the previous one.
  hipStream_t blocking;
  HIP_CHECK(hipStreamCreate(&blocking));
  std::vector<int> zeros(4096, 0);
  int* counter = to_device(zeros);
  for (int r = 0; r < 10; ++r) {
    hipLaunchKernelGGL(add_int, dim3(16), dim3(256), 0, r % 2 ? blocking : 0, counter, r, 4096);
  }
  std::vector<int> want_counter(4096, 45);
  bad += count_mismatches("null stream ordering", from_device(counter, 4096), want_counter);

  // Misuse: destroyed or foreign handles, bad flags; the runtime keeps working.
  hipStream_t dead;
  HIP_CHECK(hipStreamCreate(&dead));
  HIP_CHECK(hipStreamDestroy(dead));
  EXPECT_ERROR(hipStreamSynchronize(dead), hipErrorInvalidHandle);
  EXPECT_ERROR(hipMemcpyAsync(dx, hx, 16, hipMemcpyHostToDevice, dead), hipErrorInvalidHandle);
  hipLaunchKernelGGL(add_int, dim3(1), dim3(1), 0, dead, counter, 1, 1);
  if (hipGetLastError() != hipErrorInvalidHandle) {
    std::printf("a launch on a destroyed stream did not fail with hipErrorInvalidHandle\n");
    return 1;
  }
  EXPECT_ERROR(hipStreamCreateWithFlags(&dead, 0x40), hipErrorInvalidValue);
  hipEvent_t ev;
  HIP_CHECK(hipEventCreate(&ev));
  EXPECT_ERROR(hipEventElapsedTime(&ms, ev, stop), hipErrorInvalidHandle);  // never recorded
  HIP_CHECK(hipEventDestroy(ev));
  EXPECT_ERROR(hipEventRecord(ev, 0), hipErrorInvalidHandle);
  EXPECT_ERROR(hipEventSynchronize(ev), hipErrorInvalidHandle);
  EXPECT_ERROR(hipEventCreateWithFlags(&ev, hipEventInterprocess), hipErrorNotSupported);

  hipLaunchKernelGGL(add_int, dim3(16), dim3(256), 0, blocking, counter, 1, 4096);
  HIP_CHECK(hipStreamSynchronize(blocking));
  std::vector<int> want46(4096, 46);
  bad += count_mismatches("after misuse", from_device(counter, 4096), want46);

  for (int s = 0; s < chunks; ++s) HIP_CHECK(hipStreamDestroy(streams[s]));
  HIP_CHECK(hipStreamDestroy(blocking));
  HIP_CHECK(hipEventDestroy(start));
  HIP_CHECK(hipEventDestroy(stop));
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  HIP_CHECK(hipFree(counter));
  HIP_CHECK(hipHostFree(hx));
  HIP_CHECK(hipHostFree(hy));
  return report("streams_events", bad);
}
