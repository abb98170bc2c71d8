// Stream capture, as HIP programs use it: a pipeline captured on one stream and launched many
// times; work forked onto other streams through events and joined back (the branches run
// concurrently when the graph is launched); every kind of stream operation recorded (kernels,
// copies, memsets, host functions, event records and waits, prefetches, stream-ordered
// allocation, graph launches); capture status and info, dependencies updated by hand, the
// three capture modes with the calls each refuses, and misuse. Results are compared with host
// references on every element.
#include "test_common.h"

#include <atomic>
#include <thread>

__global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void square(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * x[i];
}

__global__ void add_into(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += a[i];
}

static void count_call(void* data) { static_cast<std::atomic<int>*>(data)->fetch_add(1); }

constexpr int N = 1 << 14;
constexpr size_t BYTES = N * sizeof(float);
constexpr int BLOCK = 256;

// Copy in, y = 2x + y, square, memset a scratch buffer, copy out, a host function: captured
// once, launched with new inputs each time.
static int linear(hipStream_t stream) {
  int bad = 0;
  std::vector<float> hx(N), hy(N), out(N);
  float *dx, *dy;
  HIP_CHECK(hipMalloc(&dx, BYTES));
  HIP_CHECK(hipMalloc(&dy, BYTES));
  int* scratch;
  HIP_CHECK(hipMalloc(&scratch, 64 * sizeof(int)));
  std::atomic<int> calls{0};

  HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal));
  hipStreamCaptureStatus status = hipStreamCaptureStatusNone;
  unsigned long long id = 0;
  HIP_CHECK(hipStreamGetCaptureInfo(stream, &status, &id));
  EXPECT(status == hipStreamCaptureStatusActive && id != 0);
  HIP_CHECK(hipMemcpyAsync(dx, hx.data(), BYTES, hipMemcpyHostToDevice, stream));
  HIP_CHECK(hipMemcpyAsync(dy, hy.data(), BYTES, hipMemcpyHostToDevice, stream));
  hipLaunchKernelGGL(axpy, dim3(N / BLOCK), dim3(BLOCK), 0, stream, 2.0f, dx, dy, N);
  square<<<N / BLOCK, BLOCK, 0, stream>>>(dy, N);
  HIP_CHECK(hipMemsetD32Async(scratch, 42, 64, stream));
  HIP_CHECK(hipMemcpyAsync(out.data(), dy, BYTES, hipMemcpyDeviceToHost, stream));
  HIP_CHECK(hipLaunchHostFunc(stream, count_call, &calls));
  // Nothing ran: the capture only recorded.
  EXPECT(calls.load() == 0);
  hipGraph_t graph;
  HIP_CHECK(hipStreamEndCapture(stream, &graph));
  HIP_CHECK(hipStreamIsCapturing(stream, &status));
  EXPECT(status == hipStreamCaptureStatusNone);
  size_t nodes = 0, roots = 0;
  HIP_CHECK(hipGraphGetNodes(graph, nullptr, &nodes));
  HIP_CHECK(hipGraphGetRootNodes(graph, nullptr, &roots));
  EXPECT(nodes == 7 && roots == 1);
  std::vector<hipGraphNode_t> all(nodes);
  HIP_CHECK(hipGraphGetNodes(graph, all.data(), &nodes));
  hipGraphNodeType type;
  HIP_CHECK(hipGraphNodeGetType(all[2], &type));
  EXPECT(type == hipGraphNodeTypeKernel);
  hipKernelNodeParams kp{};
  HIP_CHECK(hipGraphKernelNodeGetParams(all[2], &kp));
  EXPECT(kp.func == reinterpret_cast<void*>(axpy) &&
         *static_cast<float*>(kp.kernelParams[0]) == 2.0f);
  HIP_CHECK(hipGraphNodeGetType(all[4], &type));
  EXPECT(type == hipGraphNodeTypeMemset);

  hipGraphExec_t exec;
  HIP_CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < N; ++i) {
      hx[i] = float(i % 31) - round;
      hy[i] = float(i % 7) * 0.5f;
    }
    HIP_CHECK(hipGraphLaunch(exec, stream));
    HIP_CHECK(hipStreamSynchronize(stream));
    std::vector<float> want(N);
    for (int i = 0; i < N; ++i) {
      float v = 2.0f * hx[i] + hy[i];
      want[i] = v * v;
    }
    bad += count_mismatches("captured pipeline", out, want);
    bad += count_mismatches("captured memset", from_device(scratch, 64), std::vector<int>(64, 42));
  }
  EXPECT(calls.load() == 3);
  HIP_CHECK(hipGraphExecDestroy(exec));
  HIP_CHECK(hipGraphDestroy(graph));
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  HIP_CHECK(hipFree(scratch));
  if (bad) std::printf("linear: %d mismatches\n", bad);
  return bad;
}

// Fork and join across three streams through events: a = x * x on stream 1, b = y * y on
// stream 2, both after the copies on the origin stream; then b += a on the origin.
static int forked(hipStream_t origin) {
  int bad = 0;
  hipStream_t s1, s2;
  HIP_CHECK(hipStreamCreate(&s1));
  HIP_CHECK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
  hipEvent_t fork, join1, join2;
  HIP_CHECK(hipEventCreateWithFlags(&fork, hipEventDisableTiming));
  HIP_CHECK(hipEventCreate(&join1));
  HIP_CHECK(hipEventCreate(&join2));
  std::vector<float> hx(N), hy(N), out(N);
  float *dx, *dy;
  HIP_CHECK(hipMalloc(&dx, BYTES));
  HIP_CHECK(hipMalloc(&dy, BYTES));

  HIP_CHECK(hipStreamBeginCapture(origin, hipStreamCaptureModeThreadLocal));
  HIP_CHECK(hipMemcpyAsync(dx, hx.data(), BYTES, hipMemcpyHostToDevice, origin));
  HIP_CHECK(hipMemcpyAsync(dy, hy.data(), BYTES, hipMemcpyHostToDevice, origin));
  HIP_CHECK(hipEventRecord(fork, origin));
  // The captured event stands for a point of the graph: it cannot be waited for or queried.
  EXPECT_ERROR(hipEventQuery(fork), hipErrorCapturedEvent);
  EXPECT_ERROR(hipEventSynchronize(fork), hipErrorCapturedEvent);
  HIP_CHECK(hipStreamWaitEvent(s1, fork, 0));
  HIP_CHECK(hipStreamWaitEvent(s2, fork, 0));
  hipStreamCaptureStatus status;
  unsigned long long id_origin = 0, id_s1 = 0;
  HIP_CHECK(hipStreamGetCaptureInfo(origin, &status, &id_origin));
  HIP_CHECK(hipStreamGetCaptureInfo(s1, &status, &id_s1));
  EXPECT(status == hipStreamCaptureStatusActive && id_s1 == id_origin);
  square<<<N / BLOCK, BLOCK, 0, s1>>>(dx, N);
  square<<<N / BLOCK, BLOCK, 0, s2>>>(dy, N);
  HIP_CHECK(hipEventRecord(join1, s1));
  HIP_CHECK(hipEventRecord(join2, s2));
  HIP_CHECK(hipStreamWaitEvent(origin, join1, 0));
  HIP_CHECK(hipStreamWaitEvent(origin, join2, 0));
  // The origin now depends on both branches.
  const hipGraphNode_t* deps = nullptr;
  size_t count = 0;
  hipGraph_t being_captured = nullptr;
  HIP_CHECK(hipStreamGetCaptureInfo_v2(origin, &status, nullptr, &being_captured, &deps, &count));
  EXPECT(count == 2 && being_captured != nullptr);
  add_into<<<N / BLOCK, BLOCK, 0, origin>>>(dx, dy, N);
  HIP_CHECK(hipMemcpyAsync(out.data(), dy, BYTES, hipMemcpyDeviceToHost, origin));
  hipGraph_t graph;
  HIP_CHECK(hipStreamEndCapture(origin, &graph));
  EXPECT(graph == being_captured);
  // The joined streams left the capture with it.
  HIP_CHECK(hipStreamIsCapturing(s1, &status));
  EXPECT(status == hipStreamCaptureStatusNone);
  size_t nodes = 0, edges = 0;
  HIP_CHECK(hipGraphGetNodes(graph, nullptr, &nodes));
  HIP_CHECK(hipGraphGetEdges(graph, nullptr, nullptr, &edges));
  EXPECT(nodes == 6 && edges == 6);

  hipGraphExec_t exec;
  HIP_CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
  hipStream_t launch;
  HIP_CHECK(hipStreamCreate(&launch));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < N; ++i) {
      hx[i] = float(i % 11 + round);
      hy[i] = float(i % 5) - 2.0f;
    }
    HIP_CHECK(hipGraphLaunch(exec, launch));
    HIP_CHECK(hipStreamSynchronize(launch));
    std::vector<float> want(N);
    for (int i = 0; i < N; ++i) want[i] = hx[i] * hx[i] + hy[i] * hy[i];
    bad += count_mismatches("fork and join", out, want);
  }
  HIP_CHECK(hipGraphExecDestroy(exec));
  HIP_CHECK(hipGraphDestroy(graph));

  // A branch never joined back: the capture fails, and ends for every stream.
  HIP_CHECK(hipStreamBeginCapture(origin, hipStreamCaptureModeGlobal));
  square<<<N / BLOCK, BLOCK, 0, origin>>>(dx, N);
  HIP_CHECK(hipEventRecord(fork, origin));
  HIP_CHECK(hipStreamWaitEvent(s1, fork, 0));
  square<<<N / BLOCK, BLOCK, 0, s1>>>(dy, N);
  EXPECT_ERROR(hipStreamEndCapture(s1, &graph), hipErrorStreamCaptureUnmatched);
  EXPECT_ERROR(hipStreamEndCapture(origin, &graph), hipErrorStreamCaptureInvalidated);
  EXPECT(graph == nullptr);
  HIP_CHECK(hipStreamBeginCapture(origin, hipStreamCaptureModeGlobal));
  HIP_CHECK(hipEventRecord(fork, origin));
  HIP_CHECK(hipStreamWaitEvent(s2, fork, 0));
  square<<<N / BLOCK, BLOCK, 0, s2>>>(dy, N);
  EXPECT_ERROR(hipStreamEndCapture(origin, &graph), hipErrorStreamCaptureUnjoined);
  HIP_CHECK(hipStreamIsCapturing(s2, &status));
  EXPECT(status == hipStreamCaptureStatusNone);
  // A stream that only waited (no work of its own) needs no join.
  HIP_CHECK(hipStreamBeginCapture(origin, hipStreamCaptureModeGlobal));
  HIP_CHECK(hipEventRecord(fork, origin));
  HIP_CHECK(hipStreamWaitEvent(s2, fork, 0));
  square<<<N / BLOCK, BLOCK, 0, origin>>>(dy, N);
  HIP_CHECK(hipStreamEndCapture(origin, &graph));
  HIP_CHECK(hipGraphDestroy(graph));

  HIP_CHECK(hipStreamSynchronize(s1));
  HIP_CHECK(hipStreamDestroy(launch));
  HIP_CHECK(hipStreamDestroy(s1));
  HIP_CHECK(hipStreamDestroy(s2));
  HIP_CHECK(hipEventDestroy(fork));
  HIP_CHECK(hipEventDestroy(join1));
  HIP_CHECK(hipEventDestroy(join2));
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  if (bad) std::printf("forked: %d mismatches\n", bad);
  return bad;
}

// Stream-ordered allocation, prefetches, event nodes, a graph launched into a capture, and
// dependencies set by hand.
static int other_operations(hipStream_t stream) {
  int bad = 0;
  // A small graph to launch inside the capture: y += x.
  float *dx, *dy;
  HIP_CHECK(hipMalloc(&dx, BYTES));
  HIP_CHECK(hipMalloc(&dy, BYTES));
  hipGraph_t inner;
  HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal));
  add_into<<<N / BLOCK, BLOCK, 0, stream>>>(dx, dy, N);
  HIP_CHECK(hipStreamEndCapture(stream, &inner));
  hipGraphExec_t inner_exec;
  HIP_CHECK(hipGraphInstantiate(&inner_exec, inner, nullptr, nullptr, 0));

  float* managed;
  HIP_CHECK(hipMallocManaged(&managed, BYTES, hipMemAttachGlobal));
  std::vector<float> hx(N), out(N);
  hipEvent_t external;
  HIP_CHECK(hipEventCreate(&external));
  HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal));
  float* scratch = nullptr;
  HIP_CHECK(hipMallocAsync(&scratch, BYTES, stream));  // a graph allocation node
  EXPECT(scratch != nullptr);
  HIP_CHECK(hipMemcpyAsync(scratch, hx.data(), BYTES, hipMemcpyHostToDevice, stream));
  HIP_CHECK(hipMemcpyAsync(dx, scratch, BYTES, hipMemcpyDeviceToDevice, stream));
  HIP_CHECK(hipMemsetAsync(dy, 0, BYTES, stream));
  HIP_CHECK(hipGraphLaunch(inner_exec, stream));  // dy = 0 + x
  HIP_CHECK(hipGraphLaunch(inner_exec, stream));  // dy = 2x
  HIP_CHECK(hipMemPrefetchAsync(managed, BYTES, 0, stream));
  HIP_CHECK(hipMemcpyAsync(managed, dy, BYTES, hipMemcpyDeviceToDevice, stream));
  HIP_CHECK(hipFreeAsync(scratch, stream));  // a graph free node
  // Dependencies by hand: an empty node added to the captured graph, then made the stream's.
  hipStreamCaptureStatus status;
  hipGraph_t captured;
  const hipGraphNode_t* deps;
  size_t count;
  HIP_CHECK(hipStreamGetCaptureInfo_v2(stream, &status, nullptr, &captured, &deps, &count));
  hipGraphNode_t joint;
  HIP_CHECK(hipGraphAddEmptyNode(&joint, captured, deps, count));
  HIP_CHECK(hipStreamUpdateCaptureDependencies(stream, &joint, 1, hipStreamSetCaptureDependencies));
  HIP_CHECK(hipStreamGetCaptureInfo_v2(stream, &status, nullptr, nullptr, &deps, &count));
  EXPECT(count == 1 && deps[0] == joint);
  HIP_CHECK(hipMemcpyAsync(out.data(), managed, BYTES, hipMemcpyDeviceToHost, stream));
  hipGraph_t graph;
  HIP_CHECK(hipStreamEndCapture(stream, &graph));
  size_t nodes = 0;
  HIP_CHECK(hipGraphGetNodes(graph, nullptr, &nodes));
  std::vector<hipGraphNode_t> all(nodes);
  HIP_CHECK(hipGraphGetNodes(graph, all.data(), &nodes));
  hipGraphNodeType first, last_free;
  HIP_CHECK(hipGraphNodeGetType(all[0], &first));
  int frees = 0, allocs = 0;
  for (auto n : all) {
    HIP_CHECK(hipGraphNodeGetType(n, &last_free));
    frees += last_free == hipGraphNodeTypeMemFree;
    allocs += last_free == hipGraphNodeTypeMemAlloc;
  }
  EXPECT(first == hipGraphNodeTypeMemAlloc && frees == 1 && allocs == 1);

  hipGraphExec_t exec;
  HIP_CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < N; ++i) hx[i] = float(i % 19) * (round + 1);
    HIP_CHECK(hipGraphLaunch(exec, stream));
    HIP_CHECK(hipStreamSynchronize(stream));
    std::vector<float> want(N);
    for (int i = 0; i < N; ++i) want[i] = 2.0f * hx[i];
    bad += count_mismatches("captured graph launches and allocation", out, want);
  }
  HIP_CHECK(hipGraphExecDestroy(exec));
  HIP_CHECK(hipGraphDestroy(graph));
  HIP_CHECK(hipGraphExecDestroy(inner_exec));
  HIP_CHECK(hipGraphDestroy(inner));
  HIP_CHECK(hipEventDestroy(external));
  HIP_CHECK(hipFree(managed));
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  if (bad) std::printf("other operations: %d mismatches\n", bad);
  return bad;
}

// What each mode refuses while a capture is in progress.
static int modes(hipStream_t stream) {
  int bad = 0;
  int* p = nullptr;
  hipGraph_t graph;
  for (hipStreamCaptureMode mode : {hipStreamCaptureModeGlobal, hipStreamCaptureModeThreadLocal}) {
    HIP_CHECK(hipStreamBeginCapture(stream, mode));
    EXPECT_ERROR(hipMalloc(&p, 16), hipErrorStreamCaptureUnsupported);
    EXPECT_ERROR(hipStreamSynchronize(stream), hipErrorStreamCaptureUnsupported);
    EXPECT_ERROR(hipStreamEndCapture(stream, &graph), hipErrorStreamCaptureInvalidated);
  }
  // Relaxed: this thread may allocate; a thread in relaxed mode may too during another's
  // global capture.
  HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeRelaxed));
  HIP_CHECK(hipMalloc(&p, 16));
  HIP_CHECK(hipFree(p));
  HIP_CHECK(hipStreamEndCapture(stream, &graph));
  HIP_CHECK(hipGraphDestroy(graph));

  HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal));
  hipError_t from_global = hipSuccess, from_relaxed = hipErrorUnknown;
  std::thread([&] {
    int* q = nullptr;
    from_global = hipMalloc(&q, 16);
    hipStreamCaptureMode mode = hipStreamCaptureModeRelaxed;
    HIP_CHECK(hipThreadExchangeStreamCaptureMode(&mode));
    EXPECT(mode == hipStreamCaptureModeGlobal);
    from_relaxed = hipMalloc(&q, 16);
    if (from_relaxed == hipSuccess) HIP_CHECK(hipFree(q));
    mode = hipStreamCaptureModeGlobal;
    HIP_CHECK(hipThreadExchangeStreamCaptureMode(&mode));
  }).join();
  EXPECT(from_global == hipErrorStreamCaptureUnsupported && from_relaxed == hipSuccess);
  // A thread-local capture elsewhere does not bother another thread.
  HIP_CHECK(hipStreamEndCapture(stream, &graph));
  HIP_CHECK(hipGraphDestroy(graph));
  HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeThreadLocal));
  hipError_t other_thread = hipErrorUnknown;
  std::thread([&] {
    int* q = nullptr;
    other_thread = hipMalloc(&q, 16);
    if (other_thread == hipSuccess) HIP_CHECK(hipFree(q));
  }).join();
  EXPECT(other_thread == hipSuccess);
  // A capture begun in a thread-local mode must be ended by its thread.
  hipError_t wrong_thread = hipSuccess;
  std::thread([&] { wrong_thread = hipStreamEndCapture(stream, &graph); }).join();
  EXPECT(wrong_thread == hipErrorStreamCaptureWrongThread);
  HIP_CHECK(hipStreamEndCapture(stream, &graph));
  HIP_CHECK(hipGraphDestroy(graph));
  if (bad) std::printf("modes: %d mismatches\n", bad);
  return bad;
}

static int misuse(hipStream_t stream) {
  int bad = 0;
  hipGraph_t graph;
  int* d;
  HIP_CHECK(hipMalloc(&d, 64));
  int host[16] = {};
  EXPECT_ERROR(hipStreamBeginCapture(nullptr, hipStreamCaptureModeGlobal),
               hipErrorStreamCaptureUnsupported);
  EXPECT_ERROR(hipStreamBeginCapture(stream, hipStreamCaptureMode(7)), hipErrorInvalidValue);
  EXPECT_ERROR(hipStreamEndCapture(stream, &graph), hipErrorIllegalState);
  HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal));
  EXPECT_ERROR(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal), hipErrorIllegalState);
  EXPECT_ERROR(hipStreamQuery(stream), hipErrorStreamCaptureUnsupported);
  EXPECT_ERROR(hipStreamEndCapture(stream, &graph), hipErrorStreamCaptureInvalidated);

  // The legacy null stream would synchronize with the capturing (blocking) stream.
  HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal));
  EXPECT_ERROR(hipMemcpy(d, host, 64, hipMemcpyHostToDevice), hipErrorStreamCaptureImplicit);
  hipStreamCaptureStatus status;
  EXPECT_ERROR(hipStreamIsCapturing(nullptr, &status), hipErrorStreamCaptureImplicit);
  EXPECT_ERROR(hipStreamEndCapture(stream, &graph), hipErrorStreamCaptureInvalidated);
  // A non-blocking stream's capture leaves the null stream alone.
  hipStream_t nb;
  HIP_CHECK(hipStreamCreateWithFlags(&nb, hipStreamNonBlocking));
  HIP_CHECK(hipStreamBeginCapture(nb, hipStreamCaptureModeRelaxed));
  HIP_CHECK(hipMemcpy(d, host, 64, hipMemcpyHostToDevice));
  HIP_CHECK(hipStreamIsCapturing(nullptr, &status));
  EXPECT(status == hipStreamCaptureStatusNone);
  // Waiting for an event recorded outside the capture isolates nothing: refused.
  hipEvent_t outside;
  HIP_CHECK(hipEventCreate(&outside));
  HIP_CHECK(hipEventRecord(outside, nullptr));
  EXPECT_ERROR(hipStreamWaitEvent(nb, outside, 0), hipErrorStreamCaptureIsolation);
  EXPECT_ERROR(hipStreamEndCapture(nb, &graph), hipErrorStreamCaptureInvalidated);
  EXPECT_ERROR(hipStreamIsCapturing(stream, nullptr), hipErrorInvalidValue);
  EXPECT_ERROR(hipThreadExchangeStreamCaptureMode(nullptr), hipErrorInvalidValue);
  hipStreamCaptureMode mode = hipStreamCaptureMode(3);
  EXPECT_ERROR(hipThreadExchangeStreamCaptureMode(&mode), hipErrorInvalidValue);
  hipGraphNode_t node = nullptr;
  EXPECT_ERROR(hipStreamUpdateCaptureDependencies(stream, &node, 0, 0), hipErrorIllegalState);
  // A destroyed stream.
  hipStream_t gone;
  HIP_CHECK(hipStreamCreate(&gone));
  HIP_CHECK(hipStreamBeginCapture(gone, hipStreamCaptureModeGlobal));
  HIP_CHECK(hipStreamDestroy(gone));
  EXPECT_ERROR(hipStreamEndCapture(gone, &graph), hipErrorContextIsDestroyed);
  // With every capture over, the calls capture refused work again.
  HIP_CHECK(hipMemcpy(d, host, 64, hipMemcpyHostToDevice));
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipEventDestroy(outside));
  HIP_CHECK(hipStreamDestroy(nb));
  HIP_CHECK(hipFree(d));
  return bad;
}

int main() {
  hipStream_t stream;
  HIP_CHECK(hipStreamCreate(&stream));
  int bad = linear(stream);
  bad += forked(stream);
  bad += other_operations(stream);
  bad += modes(stream);
  bad += misuse(stream);
  // hipStreamPerThread captures too.
  hipGraph_t graph;
  float* d;
  HIP_CHECK(hipMalloc(&d, BYTES));
  HIP_CHECK(hipStreamBeginCapture(hipStreamPerThread, hipStreamCaptureModeGlobal));
  HIP_CHECK(hipMemsetAsync(d, 0, BYTES, hipStreamPerThread));
  HIP_CHECK(hipStreamEndCapture(hipStreamPerThread, &graph));
  HIP_CHECK(hipGraphDestroy(graph));
  HIP_CHECK(hipFree(d));
  HIP_CHECK(hipStreamDestroy(stream));
  return report("capture", bad);
}
