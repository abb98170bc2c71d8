// Streams, events and asynchronous copies as a HIP program uses them: a pipeline over chunks on
// several streams, pinned host memory, events with timing, hipStreamWaitEvent across streams,
// the null stream's ordering with blocking streams, host functions in stream order
// (hipLaunchHostFunc, hipStreamAddCallback), and misuse of streams and events.
#include "test_common.h"

#include <atomic>
#include <chrono>
#include <thread>

// What a host function saw: the copy before it had landed, and it ran before the copy after it.
struct HostStep {
  const int* seen;       // pinned memory the earlier copy filled
  int* publish;          // pinned memory the later copy reads
  int expected;          // what the earlier copy brought
  std::atomic<int> calls{0};
  std::atomic<int> saw_wrong{0};
  std::atomic<int> status{-1};
};

static void host_step(void* data) {
  auto* step = static_cast<HostStep*>(data);
  // Slow on purpose: work after this function must still wait for it.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (int i = 0; i < 256; ++i) {
    if (step->seen[i] != step->expected) step->saw_wrong.fetch_add(1);
    step->publish[i] = step->expected * 10 + i;
  }
  step->calls.fetch_add(1);
}

// Holds its stream for a while (work queued after it waits).
static void sleep_a_while(void*) { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }

static void stream_callback(hipStream_t, hipError_t status, void* data) {
  auto* step = static_cast<HostStep*>(data);
  step->status.store(status);
  host_step(data);
}

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Reads host memory (pinned, device-accessible) when it runs.
__global__ void add_from_host(int* p, const int* host, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += host[i];
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
  // A destroyed stream, or a handle that never was one, is hipErrorContextIsDestroyed where it
  // is named, as HIP answers; a kernel launch answers hipErrorInvalidValue (HIP's code there).
  EXPECT_ERROR(hipStreamSynchronize(dead), hipErrorContextIsDestroyed);
  EXPECT_ERROR(hipMemcpyAsync(dx, hx, 16, hipMemcpyHostToDevice, dead), hipErrorContextIsDestroyed);
  EXPECT_ERROR(hipStreamDestroy(dead), hipErrorContextIsDestroyed);
  hipLaunchKernelGGL(add_int, dim3(1), dim3(1), 0, dead, counter, 1, 1);
  if (hipGetLastError() != hipErrorInvalidValue) {
    std::printf("a launch on a destroyed stream did not fail with hipErrorInvalidValue\n");
    return 1;
  }
  int not_a_stream = 0;
  EXPECT_ERROR(hipStreamSynchronize(reinterpret_cast<hipStream_t>(&not_a_stream)),
               hipErrorContextIsDestroyed);
  EXPECT_ERROR(hipStreamCreateWithFlags(&dead, 0x40), hipErrorInvalidValue);
  hipEvent_t ev;
  HIP_CHECK(hipEventCreate(&ev));
  EXPECT_ERROR(hipEventElapsedTime(&ms, ev, stop), hipErrorInvalidHandle);  // never recorded
  HIP_CHECK(hipEventDestroy(ev));
  EXPECT_ERROR(hipEventRecord(ev, 0), hipErrorInvalidHandle);
  EXPECT_ERROR(hipEventSynchronize(ev), hipErrorInvalidHandle);
  // A shared event keeps no timestamps: hipEventInterprocess needs hipEventDisableTiming.
  EXPECT_ERROR(hipEventCreateWithFlags(&ev, hipEventInterprocess), hipErrorInvalidValue);

  // Host functions: kernel -> copy to host -> host function reads it and writes pinned memory ->
  // kernel reading that memory; on a created stream and on the null stream.
  for (hipStream_t on : {blocking, static_cast<hipStream_t>(nullptr)}) {
    for (int use_callback = 0; use_callback < 2; ++use_callback) {
      int* pinned_in = nullptr;
      int* pinned_out = nullptr;
      int* dev = nullptr;
      HIP_CHECK(hipHostMalloc(&pinned_in, 256 * sizeof(int)));
      HIP_CHECK(hipHostMalloc(&pinned_out, 256 * sizeof(int)));
      HIP_CHECK(hipMalloc(&dev, 256 * sizeof(int)));
      for (int i = 0; i < 256; ++i) pinned_out[i] = -1000;  // stale until the function runs
      HIP_CHECK(hipMemsetAsync(dev, 0, 256 * sizeof(int), on));
      hipLaunchKernelGGL(add_int, dim3(1), dim3(256), 0, on, dev, 7, 256);
      HIP_CHECK(hipMemcpyAsync(pinned_in, dev, 256 * sizeof(int), hipMemcpyDeviceToHost, on));
      HostStep step;
      step.seen = pinned_in;
      step.publish = pinned_out;
      step.expected = 7;
      if (use_callback) {
        HIP_CHECK(hipStreamAddCallback(on, stream_callback, &step, 0));
      } else {
        HIP_CHECK(hipLaunchHostFunc(on, host_step, &step));
      }
      // The kernel reads what the host function wrote, when it runs: only after the function.
      hipLaunchKernelGGL(add_from_host, dim3(1), dim3(256), 0, on, dev, pinned_out, 256);
      HIP_CHECK(hipStreamSynchronize(on));
      std::vector<int> want_host(256);
      for (int i = 0; i < 256; ++i) want_host[i] = 7 + 70 + i;
      bad += count_mismatches("host function order", from_device(dev, 256), want_host);
      if (step.calls.load() != 1 || step.saw_wrong.load() != 0 ||
          (use_callback && step.status.load() != hipSuccess)) {
        std::printf("host function: %d calls, %d wrong values seen, status %d\n",
                    step.calls.load(), step.saw_wrong.load(), step.status.load());
        ++bad;
      }
      HIP_CHECK(hipFree(dev));
      HIP_CHECK(hipHostFree(pinned_in));
      HIP_CHECK(hipHostFree(pinned_out));
    }
  }
  EXPECT_ERROR(hipLaunchHostFunc(blocking, nullptr, nullptr), hipErrorInvalidValue);
  EXPECT_ERROR(hipStreamAddCallback(blocking, stream_callback, nullptr, 1), hipErrorInvalidValue);

  hipLaunchKernelGGL(add_int, dim3(16), dim3(256), 0, blocking, counter, 1, 4096);
  HIP_CHECK(hipStreamSynchronize(blocking));
  std::vector<int> want46(4096, 46);
  bad += count_mismatches("after misuse", from_device(counter, 4096), want46);

  // Asynchronous copies with pageable host memory (a std::vector) are done when the call returns,
  // as in HIP and CUDA: the destination is read and the source reused at once, with no sync.
  {
    const int n = 1 << 16;
    std::vector<int> source(n), read_back(n, -1), want_pageable(n);
    for (int i = 0; i < n; ++i) source[i] = want_pageable[i] = 7 * i + 1;
    int* dev = nullptr;
    HIP_CHECK(hipMalloc(&dev, n * sizeof(int)));
    HIP_CHECK(hipMemcpyAsync(dev, source.data(), n * sizeof(int), hipMemcpyHostToDevice, blocking));
    std::fill(source.begin(), source.end(), 0);  // reused at once
    hipLaunchKernelGGL(add_int, dim3(n / 256), dim3(256), 0, blocking, dev, 1, n);
    HIP_CHECK(hipMemcpyAsync(read_back.data(), dev, n * sizeof(int), hipMemcpyDeviceToHost,
                             blocking));
    for (int& v : want_pageable) v += 1;
    bad += count_mismatches("pageable async copies", read_back, want_pageable);  // no sync
    HIP_CHECK(hipStreamSynchronize(blocking));
    HIP_CHECK(hipFree(dev));
  }

  // A destroyed stream's work still runs, and device-wide waits wait for it: hipFree of memory
  // that work writes returns only once the work is done (freed under it, the memory would be
  // written after its release).
  {
    hipStream_t doomed;
    HIP_CHECK(hipStreamCreate(&doomed));
    int* written = nullptr;
    int* done = nullptr;  // pinned: the destroyed stream's last kernel writes it
    HIP_CHECK(hipMalloc(&written, n * sizeof(int)));
    HIP_CHECK(hipHostMalloc(&done, sizeof(int)));
    *done = 0;
    HIP_CHECK(hipLaunchHostFunc(doomed, sleep_a_while, nullptr));
    hipLaunchKernelGGL(add_int, dim3(n / 256), dim3(256), 0, doomed, written, 1, n);
    hipLaunchKernelGGL(add_int, dim3(1), dim3(1), 0, doomed, done, 1, 1);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipStreamDestroy(doomed));
    HIP_CHECK(hipFree(written));
    if (__atomic_load_n(done, __ATOMIC_SEQ_CST) != 1) {
      std::printf("hipFree returned before a destroyed stream's work on the memory was done\n");
      ++bad;
    }
    HIP_CHECK(hipHostFree(done));
  }

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
