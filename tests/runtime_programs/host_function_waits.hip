// Host functions (hipLaunchHostFunc, hipStreamAddCallback) that call back into the runtime.
// A wait for work queued behind the function itself (its own stream, the null stream a blocking
// stream holds back, the whole device, an event recorded after it, a synchronous copy, fill,
// hipFree or hipDeviceReset) can never end: each is refused with hipErrorIllegalState instead
// of hanging. Calls that wait for nothing behind the function still work, and the stream's work
// around the function runs in order, checked element by element.
#include "test_common.h"

#include <atomic>
#include <csignal>
#include <unistd.h>

__global__ void add_value(int* p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += v;
}

constexpr int kN = 512;

enum class Kind { Blocking, NonBlocking, Null };

struct Inside {
  Kind kind = Kind::Blocking;
  hipStream_t own = nullptr;
  hipStream_t other = nullptr;  // a non-blocking stream with no work behind the function
  int* dev = nullptr;
  hipEvent_t after = nullptr;    // recorded on `own` after the function was enqueued
  std::atomic<int> event_recorded{0};
  int refused = 0;
  int wrong_code = 0;
  int* leaked = nullptr;  // hipFree was refused inside: freed after
};

// `refused`: the call waits for work behind the function (hipErrorIllegalState expected), else
// it must succeed.
static void expect(Inside* in, bool refused, hipError_t got, const char* what) {
  hipError_t want = refused ? hipErrorIllegalState : hipSuccess;
  if (got != want) {
    std::printf("inside a host function: %s returned %s, expected %s\n", what,
                hipGetErrorName(got), hipGetErrorName(want));
    ++in->wrong_code;
  } else if (refused) {
    ++in->refused;
  }
}

static void calls_into_the_runtime(Inside* in) {
  while (in->event_recorded.load() == 0) usleep(1000);
  // Null-stream work waits for blocking streams (and is itself the null stream's), never for a
  // non-blocking one.
  bool null_waits = in->kind != Kind::NonBlocking;
  std::vector<int> host(kN);
  int* scratch = nullptr;
  expect(in, false, hipMalloc(&scratch, kN * sizeof(int)), "hipMalloc");
  expect(in, true, hipStreamSynchronize(in->own), "hipStreamSynchronize(own stream)");
  expect(in, null_waits, hipStreamSynchronize(nullptr), "hipStreamSynchronize(null stream)");
  expect(in, true, hipDeviceSynchronize(), "hipDeviceSynchronize");
  expect(in, true, hipEventSynchronize(in->after), "hipEventSynchronize(a later event)");
  expect(in, null_waits,
         hipMemcpy(host.data(), in->dev, kN * sizeof(int), hipMemcpyDeviceToHost), "hipMemcpy");
  // A fill of device memory does not wait for the stream (HIP's rule), so it is never refused.
  expect(in, false, hipMemset(scratch, 0, kN * sizeof(int)), "hipMemset");
  expect(in, true, hipDeviceReset(), "hipDeviceReset");
  expect(in, true, hipFree(scratch), "hipFree");
  // Nothing of these waits behind the function.
  expect(in, false, hipStreamSynchronize(in->other), "hipStreamSynchronize(another stream)");
  hipError_t q = hipStreamQuery(in->own);
  if (q != hipErrorNotReady) {
    std::printf("inside a host function: hipStreamQuery(own) returned %s\n", hipGetErrorName(q));
    ++in->wrong_code;
  }
  in->leaked = scratch;
}

static void host_function(void* user) { calls_into_the_runtime(static_cast<Inside*>(user)); }

static void stream_callback(hipStream_t, hipError_t status, void* user) {
  if (status != hipSuccess) std::printf("callback status %s\n", hipGetErrorName(status));
  calls_into_the_runtime(static_cast<Inside*>(user));
}

int main() {
  // A wait that never ends fails the test rather than hanging it.
  alarm(120);
  int bad = 0;
  hipStream_t blocking, non_blocking, other;
  HIP_CHECK(hipStreamCreate(&blocking));
  HIP_CHECK(hipStreamCreateWithFlags(&non_blocking, hipStreamNonBlocking));
  HIP_CHECK(hipStreamCreateWithFlags(&other, hipStreamNonBlocking));
  int expected_refusals = 0;
  const std::pair<Kind, hipStream_t> streams[] = {
      {Kind::Blocking, blocking}, {Kind::NonBlocking, non_blocking}, {Kind::Null, nullptr}};
  for (auto [kind, on] : streams) {
    for (int use_callback = 0; use_callback < 2; ++use_callback) {
      Inside in;
      in.kind = kind;
      in.own = on;
      in.other = other;
      HIP_CHECK(hipMalloc(&in.dev, kN * sizeof(int)));
      HIP_CHECK(hipEventCreate(&in.after));
      HIP_CHECK(hipMemsetAsync(in.dev, 0, kN * sizeof(int), on));
      hipLaunchKernelGGL(add_value, dim3(kN / 128), dim3(128), 0, on, in.dev, 3, kN);
      if (use_callback) {
        HIP_CHECK(hipStreamAddCallback(on, stream_callback, &in, 0));
      } else {
        HIP_CHECK(hipLaunchHostFunc(on, host_function, &in));
      }
      hipLaunchKernelGGL(add_value, dim3(kN / 128), dim3(128), 0, on, in.dev, 40, kN);
      HIP_CHECK(hipEventRecord(in.after, on));
      in.event_recorded.store(1);
      HIP_CHECK(hipStreamSynchronize(on));
      HIP_CHECK(hipEventSynchronize(in.after));
      bad += count_mismatches("work around the host function", from_device(in.dev, kN),
                              std::vector<int>(kN, 43));
      int want_refused = kind == Kind::NonBlocking ? 5 : 7;
      expected_refusals += want_refused;
      if (in.refused != want_refused || in.wrong_code) {
        std::printf("stream kind %d, %s: %d of %d waits refused, %d wrong answers\n", int(kind),
                    use_callback ? "callback" : "host function", in.refused, want_refused,
                    in.wrong_code);
        ++bad;
      }
      (void)hipGetLastError();
      HIP_CHECK(hipFree(in.leaked));
      HIP_CHECK(hipEventDestroy(in.after));
      HIP_CHECK(hipFree(in.dev));
    }
  }
  // The device works normally afterwards, hipDeviceReset included.
  HIP_CHECK(hipDeviceReset());
  int* dev = nullptr;
  HIP_CHECK(hipMalloc(&dev, kN * sizeof(int)));
  HIP_CHECK(hipMemset(dev, 0, kN * sizeof(int)));
  hipLaunchKernelGGL(add_value, dim3(kN / 128), dim3(128), 0, 0, dev, 5, kN);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("after the host functions", from_device(dev, kN),
                          std::vector<int>(kN, 5));
  HIP_CHECK(hipFree(dev));
  if (bad) {
    std::printf("host_function_waits FAILED (%d)\n", bad);
    return 1;
  }
  std::printf("host_function_waits PASSED (%d waits refused)\n", expected_refusals);
  return 0;
}
