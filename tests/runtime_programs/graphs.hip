// Graphs built by hand, as HIP programs build them: nodes of every kind (kernel, 1-D / 2-D /
// 3-D copies, copies to and from device variables, memsets, host functions, event record and
// wait, empty, child graph, graph allocations), edges and queries, instantiation and repeated
// launches (a diamond whose branches run concurrently), parameter changes in the graph and in
// the executable graph, hipGraphExecUpdate, clones, DOT output, disabled nodes, and misuse.
// Every result is compared with a host reference on every element.
#include "test_common.h"

#include <atomic>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

__device__ int table[64];

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

__global__ void add(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

__global__ void add_table(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += table[i % 64];
}

struct HostStep {
  const float* seen;  // pinned memory an earlier copy filled
  float expected;     // what it should hold
  std::atomic<int> calls{0};
  std::atomic<int> wrong{0};
};

static void host_check(void* data) {
  auto* step = static_cast<HostStep*>(data);
  for (int i = 0; i < 16; ++i)
    if (step->seen[i] != step->expected) step->wrong.fetch_add(1);
  step->calls.fetch_add(1);
}

static void host_count(void* data) { static_cast<std::atomic<int>*>(data)->fetch_add(1); }

static hipKernelNodeParams kernel_params(void* func, dim3 grid, dim3 block, void** args) {
  hipKernelNodeParams p{};
  p.func = func;
  p.gridDim = grid;
  p.blockDim = block;
  p.sharedMemBytes = 0;
  p.kernelParams = args;
  p.extra = nullptr;
  return p;
}

static std::vector<hipGraphNode_t> nodes_of(hipGraph_t g) {
  size_t n = 0;
  HIP_CHECK(hipGraphGetNodes(g, nullptr, &n));
  std::vector<hipGraphNode_t> all(n);
  HIP_CHECK(hipGraphGetNodes(g, all.data(), &n));
  return all;
}

// A diamond: x and y copied in, scaled on two branches, added, copied out; launched many
// times with new inputs, and its executable graph updated in place.
static int diamond(hipStream_t stream) {
  const int n = 1 << 16;
  const size_t bytes = n * sizeof(float);
  std::vector<float> hx(n), hy(n), out(n);
  float *dx, *dy, *dz;
  HIP_CHECK(hipMalloc(&dx, bytes));
  HIP_CHECK(hipMalloc(&dy, bytes));
  HIP_CHECK(hipMalloc(&dz, bytes));
  hipGraph_t g;
  HIP_CHECK(hipGraphCreate(&g, 0));
  hipGraphNode_t in_x, in_y, sx, sy, sum, back;
  HIP_CHECK(hipGraphAddMemcpyNode1D(&in_x, g, nullptr, 0, dx, hx.data(), bytes,
                                    hipMemcpyHostToDevice));
  HIP_CHECK(hipGraphAddMemcpyNode1D(&in_y, g, nullptr, 0, dy, hy.data(), bytes,
                                    hipMemcpyHostToDevice));
  float two = 2.0f, three = 3.0f;
  int count = n;
  void* sx_args[] = {&dx, &two, &count};
  void* sy_args[] = {&dy, &three, &count};
  void* sum_args[] = {&dx, &dy, &dz, &count};
  hipKernelNodeParams p = kernel_params(reinterpret_cast<void*>(scale), dim3(n / 256), dim3(256),
                                        sx_args);
  HIP_CHECK(hipGraphAddKernelNode(&sx, g, &in_x, 1, &p));
  p.kernelParams = sy_args;
  HIP_CHECK(hipGraphAddKernelNode(&sy, g, &in_y, 1, &p));
  hipGraphNode_t both[] = {sx, sy};
  p = kernel_params(reinterpret_cast<void*>(add), dim3(n / 256), dim3(256), sum_args);
  HIP_CHECK(hipGraphAddKernelNode(&sum, g, both, 2, &p));
  HIP_CHECK(hipGraphAddMemcpyNode1D(&back, g, &sum, 1, out.data(), dz, bytes,
                                    hipMemcpyDeviceToHost));
  // The arguments were copied: changing them now changes nothing.
  two = 100.0f;

  // Queries.
  size_t count_nodes = 0, count_edges = 0, count_roots = 0;
  HIP_CHECK(hipGraphGetNodes(g, nullptr, &count_nodes));
  HIP_CHECK(hipGraphGetEdges(g, nullptr, nullptr, &count_edges));
  HIP_CHECK(hipGraphGetRootNodes(g, nullptr, &count_roots));
  int bad = 0;
  EXPECT(count_nodes == 6 && count_edges == 5 && count_roots == 2);
  std::vector<hipGraphNode_t> from(5), to(5);
  HIP_CHECK(hipGraphGetEdges(g, from.data(), to.data(), &count_edges));
  int into_sum = 0;
  for (size_t i = 0; i < count_edges; ++i)
    into_sum += to[i] == sum && (from[i] == sx || from[i] == sy);
  EXPECT(into_sum == 2);
  size_t deps = 0, dependents = 0;
  HIP_CHECK(hipGraphNodeGetDependencies(sum, nullptr, &deps));
  HIP_CHECK(hipGraphNodeGetDependentNodes(sum, nullptr, &dependents));
  EXPECT(deps == 2 && dependents == 1);
  hipGraphNodeType type;
  HIP_CHECK(hipGraphNodeGetType(sum, &type));
  EXPECT(type == hipGraphNodeTypeKernel);
  HIP_CHECK(hipGraphNodeGetType(back, &type));
  EXPECT(type == hipGraphNodeTypeMemcpy);
  // A bigger array than needed gets nulls past the end and the count written.
  std::vector<hipGraphNode_t> roots(4, reinterpret_cast<hipGraphNode_t>(1));
  count_roots = roots.size();
  HIP_CHECK(hipGraphGetRootNodes(g, roots.data(), &count_roots));
  EXPECT(count_roots == 2 && roots[2] == nullptr && roots[3] == nullptr);
  hipKernelNodeParams got{};
  HIP_CHECK(hipGraphKernelNodeGetParams(sx, &got));
  EXPECT(got.func == reinterpret_cast<void*>(scale) && got.gridDim.x == unsigned(n / 256) &&
         *static_cast<float*>(got.kernelParams[1]) == 2.0f);
  if (bad) std::printf("diamond: %d query mismatches\n", bad);

  hipGraphExec_t exec;
  HIP_CHECK(hipGraphInstantiate(&exec, g, nullptr, nullptr, 0));
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < n; ++i) {
      hx[i] = float(i % 97 + round);
      hy[i] = float(i % 13) - round;
    }
    HIP_CHECK(hipGraphLaunch(exec, stream));
    HIP_CHECK(hipStreamSynchronize(stream));
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) want[i] = 2.0f * hx[i] + 3.0f * hy[i];
    bad += count_mismatches("diamond launch", out, want);
  }

  // The executable graph's own parameters change; the graph's do not.
  float five = 5.0f;
  void* five_args[] = {&dx, &five, &count};
  p = kernel_params(reinterpret_cast<void*>(scale), dim3(n / 256), dim3(256), five_args);
  HIP_CHECK(hipGraphExecKernelNodeSetParams(exec, sx, &p));
  HIP_CHECK(hipGraphLaunch(exec, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = 5.0f * hx[i] + 3.0f * hy[i];
  bad += count_mismatches("exec kernel params", out, want);
  HIP_CHECK(hipGraphKernelNodeGetParams(sx, &got));
  EXPECT(*static_cast<float*>(got.kernelParams[1]) == 2.0f);

  // A disabled node does nothing: the y branch stays unscaled.
  HIP_CHECK(hipGraphNodeSetEnabled(exec, sy, 0));
  unsigned enabled = 1;
  HIP_CHECK(hipGraphNodeGetEnabled(exec, sy, &enabled));
  EXPECT(enabled == 0);
  HIP_CHECK(hipGraphLaunch(exec, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  for (int i = 0; i < n; ++i) want[i] = 5.0f * hx[i] + hy[i];
  bad += count_mismatches("disabled node", out, want);
  HIP_CHECK(hipGraphNodeSetEnabled(exec, sy, 1));
  EXPECT_ERROR(hipGraphNodeSetEnabled(exec, nullptr, 0), hipErrorInvalidValue);

  // hipGraphExecUpdate from a graph of the same shape with other parameters (a clone whose
  // scale node multiplies by 7).
  hipGraph_t copy;
  HIP_CHECK(hipGraphClone(&copy, g));
  hipGraphNode_t sx_copy;
  HIP_CHECK(hipGraphNodeFindInClone(&sx_copy, sx, copy));
  float seven = 7.0f;
  void* seven_args[] = {&dx, &seven, &count};
  p = kernel_params(reinterpret_cast<void*>(scale), dim3(n / 256), dim3(256), seven_args);
  HIP_CHECK(hipGraphKernelNodeSetParams(sx_copy, &p));
  hipGraphNode_t error_node = nullptr;
  hipGraphExecUpdateResult result;
  HIP_CHECK(hipGraphExecUpdate(exec, copy, &error_node, &result));
  EXPECT(result == hipGraphExecUpdateSuccess);
  HIP_CHECK(hipGraphLaunch(exec, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  for (int i = 0; i < n; ++i) want[i] = 7.0f * hx[i] + 3.0f * hy[i];
  bad += count_mismatches("exec update", out, want);

  // Updates that change the topology, a node's type or a copy's direction are refused and
  // leave the executable graph as it was.
  HIP_CHECK(hipGraphRemoveDependencies(copy, &sx_copy, &nodes_of(copy)[4], 1));
  EXPECT_ERROR(hipGraphExecUpdate(exec, copy, &error_node, &result),
               hipErrorGraphExecUpdateFailure);
  EXPECT(result == hipGraphExecUpdateErrorTopologyChanged);
  hipGraph_t other;
  HIP_CHECK(hipGraphCreate(&other, 0));
  hipGraphNode_t a, b, c, d, e, f;
  HIP_CHECK(hipGraphAddMemcpyNode1D(&a, other, nullptr, 0, dx, hx.data(), bytes,
            hipMemcpyHostToDevice));
  HIP_CHECK(hipGraphAddMemcpyNode1D(&b, other, nullptr, 0, hy.data(), dy, bytes,
            hipMemcpyDeviceToHost));
  HIP_CHECK(hipGraphAddEmptyNode(&c, other, &a, 1));
  HIP_CHECK(hipGraphAddEmptyNode(&d, other, &b, 1));
  hipGraphNode_t cd[] = {c, d};
  HIP_CHECK(hipGraphAddEmptyNode(&e, other, cd, 2));
  HIP_CHECK(hipGraphAddEmptyNode(&f, other, &e, 1));
  EXPECT_ERROR(hipGraphExecUpdate(exec, other, &error_node, &result),
               hipErrorGraphExecUpdateFailure);
  EXPECT(result == hipGraphExecUpdateErrorParametersChanged && error_node == b);
  HIP_CHECK(hipGraphLaunch(exec, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  bad += count_mismatches("after refused updates", out, want);

  HIP_CHECK(hipGraphExecDestroy(exec));
  HIP_CHECK(hipGraphDestroy(other));
  HIP_CHECK(hipGraphDestroy(copy));
  HIP_CHECK(hipGraphDestroy(g));
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  HIP_CHECK(hipFree(dz));
  return bad;
}

// Memsets (1-D and 2-D), 3-D copies between pitched memory, copies to and from a device
// variable, a host node, event nodes, a child graph and an empty node.
static int every_kind(hipStream_t stream) {
  int bad = 0;
  const int w = 40, h = 6;  // bytes per row, rows
  size_t pitch = 0;
  unsigned char* pitched;
  HIP_CHECK(hipMallocPitch(reinterpret_cast<void**>(&pitched), &pitch, w, h));
  int* ints;
  const int n = 256;
  HIP_CHECK(hipMalloc(&ints, n * sizeof(int)));
  float* pinned;
  HIP_CHECK(hipHostMalloc(&pinned, 16 * sizeof(float)));
  float* dfloats;
  HIP_CHECK(hipMalloc(&dfloats, 16 * sizeof(float)));
  std::vector<float> ones(16, 1.5f);

  hipGraph_t g;
  HIP_CHECK(hipGraphCreate(&g, 0));
  // 2-D memset: rows of 40 bytes of 0x5a, the padding untouched (it was 0x11).
  HIP_CHECK(hipMemset(pitched, 0x11, pitch * h));
  hipMemsetParams ms{};
  ms.dst = pitched;
  ms.elementSize = 1;
  ms.value = 0x5a;
  ms.width = w;
  ms.height = h;
  ms.pitch = pitch;
  hipGraphNode_t set2d, set1d, to_table, kernel, from_table, fill_pinned, check, empty;
  HIP_CHECK(hipGraphAddMemsetNode(&set2d, g, nullptr, 0, &ms));
  hipMemsetParams back_params{};
  HIP_CHECK(hipGraphMemsetNodeGetParams(set2d, &back_params));
  EXPECT(back_params.width == size_t(w) && back_params.pitch == pitch && back_params.value == 0x5a);
  // 1-D memset of 32-bit values.
  ms = hipMemsetParams{};
  ms.dst = ints;
  ms.elementSize = 4;
  ms.value = 1000;
  ms.width = n;
  ms.height = 1;
  HIP_CHECK(hipGraphAddMemsetNode(&set1d, g, nullptr, 0, &ms));
  // A device variable filled from the host, added by a kernel, read back.
  std::vector<int> table_in(64), table_out(64);
  for (int i = 0; i < 64; ++i) table_in[i] = i * 3 - 7;
  HIP_CHECK(hipGraphAddMemcpyNodeToSymbol(&to_table, g, nullptr, 0, HIP_SYMBOL(table),
                                          table_in.data(), sizeof(int) * 64, 0,
                                          hipMemcpyHostToDevice));
  int count = n;
  void* args[] = {&ints, &count};
  hipKernelNodeParams kp = kernel_params(reinterpret_cast<void*>(add_table), dim3(n / 64),
                                         dim3(64), args);
  hipGraphNode_t before_kernel[] = {set1d, to_table};
  HIP_CHECK(hipGraphAddKernelNode(&kernel, g, before_kernel, 2, &kp));
  HIP_CHECK(hipGraphAddMemcpyNodeFromSymbol(&from_table, g, &to_table, 1, table_out.data(),
                                            HIP_SYMBOL(table), sizeof(int) * 32, sizeof(int) * 32,
                                            hipMemcpyDeviceToHost));
  // A child graph: device floats filled from the host, then copied to pinned memory.
  hipGraph_t child;
  HIP_CHECK(hipGraphCreate(&child, 0));
  hipGraphNode_t c_in, c_out;
  HIP_CHECK(hipGraphAddMemcpyNode1D(&c_in, child, nullptr, 0, dfloats, ones.data(),
                                    16 * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipGraphAddMemcpyNode1D(&c_out, child, &c_in, 1, pinned, dfloats,
                                    16 * sizeof(float), hipMemcpyDeviceToHost));
  HIP_CHECK(hipGraphAddChildGraphNode(&fill_pinned, g, nullptr, 0, child));
  HIP_CHECK(hipGraphDestroy(child));  // the node holds its own copy
  hipGraph_t held;
  HIP_CHECK(hipGraphChildGraphNodeGetGraph(fill_pinned, &held));
  size_t held_nodes = 0;
  HIP_CHECK(hipGraphGetNodes(held, nullptr, &held_nodes));
  EXPECT(held_nodes == 2);
  // The host node runs after the child graph's copy landed.
  HostStep step;
  step.seen = pinned;
  step.expected = 1.5f;
  hipHostNodeParams hp{host_check, &step};
  HIP_CHECK(hipGraphAddHostNode(&check, g, &fill_pinned, 1, &hp));
  hipGraphNode_t all_done[] = {set2d, kernel, from_table, check};
  HIP_CHECK(hipGraphAddEmptyNode(&empty, g, all_done, 4));
  // Events: recorded after everything, and waited for by a second graph.
  hipEvent_t done;
  HIP_CHECK(hipEventCreate(&done));
  hipGraphNode_t record;
  HIP_CHECK(hipGraphAddEventRecordNode(&record, g, &empty, 1, done));
  hipEvent_t got_event = nullptr;
  HIP_CHECK(hipGraphEventRecordNodeGetEvent(record, &got_event));
  EXPECT(got_event == done);
  // A 3-D copy node: the pitched rows into a packed host box.
  std::vector<unsigned char> box(w * h, 0);
  hipMemcpy3DParms cp{};
  cp.srcPtr = make_hipPitchedPtr(pitched, pitch, w, h);
  cp.dstPtr = make_hipPitchedPtr(box.data(), w, w, h);
  cp.extent = make_hipExtent(w, h, 1);
  cp.kind = hipMemcpyDeviceToHost;
  hipGraphNode_t copy3d;
  HIP_CHECK(hipGraphAddMemcpyNode(&copy3d, g, &set2d, 1, &cp));
  hipMemcpy3DParms cp_back{};
  HIP_CHECK(hipGraphMemcpyNodeGetParams(copy3d, &cp_back));
  EXPECT(cp_back.srcPtr.ptr == pitched && cp_back.extent.height == size_t(h));

  hipGraphExec_t exec;
  HIP_CHECK(hipGraphInstantiate(&exec, g, nullptr, nullptr, 0));
  // Only 1-D memsets are updated in an executable graph: not the 2-D node, nor the 1-D one
  // made 2-D; the 1-D one with its own parameters again is taken.
  hipMemsetParams update{};
  HIP_CHECK(hipGraphMemsetNodeGetParams(set2d, &update));
  EXPECT_ERROR(hipGraphExecMemsetNodeSetParams(exec, set2d, &update), hipErrorInvalidValue);
  HIP_CHECK(hipGraphMemsetNodeGetParams(set1d, &update));
  HIP_CHECK(hipGraphExecMemsetNodeSetParams(exec, set1d, &update));
  update.height = 2;
  update.pitch = update.width * update.elementSize;
  update.width /= 2;
  EXPECT_ERROR(hipGraphExecMemsetNodeSetParams(exec, set1d, &update), hipErrorInvalidValue);
  for (int round = 0; round < 3; ++round) {
    std::memset(pinned, 0, 16 * sizeof(float));
    HIP_CHECK(hipGraphLaunch(exec, stream));
    HIP_CHECK(hipEventSynchronize(done));
    HIP_CHECK(hipStreamSynchronize(stream));
    std::vector<int> want_ints(n);
    for (int i = 0; i < n; ++i) want_ints[i] = 1000 + table_in[i % 64];
    bad += count_mismatches("memset + symbol + kernel", from_device(ints, n), want_ints);
    std::vector<int> want_table(table_in.begin() + 32, table_in.end());
    std::vector<int> got_table(table_out.begin(), table_out.begin() + 32);
    bad += count_mismatches("copy from symbol", got_table, want_table);
    bad += count_mismatches("3-D copy", box, std::vector<unsigned char>(w * h, 0x5a));
    std::vector<unsigned char> rows(pitch * h);
    HIP_CHECK(hipMemcpy(rows.data(), pitched, pitch * h, hipMemcpyDeviceToHost));
    for (int y = 0; y < h; ++y)
      for (size_t x = 0; x < pitch; ++x)
        EXPECT(rows[y * pitch + x] == (x < size_t(w) ? 0x5a : 0x11));
  }
  EXPECT(step.calls.load() == 3 && step.wrong.load() == 0);

  // A second graph waits for the event the first records.
  hipGraph_t waiter;
  HIP_CHECK(hipGraphCreate(&waiter, 0));
  hipGraphNode_t wait, after;
  HIP_CHECK(hipGraphAddEventWaitNode(&wait, waiter, nullptr, 0, done));
  std::atomic<int> after_calls{0};
  hipHostNodeParams count_params{host_count, &after_calls};
  HIP_CHECK(hipGraphAddHostNode(&after, waiter, &wait, 1, &count_params));
  hipGraphExec_t wexec;
  HIP_CHECK(hipGraphInstantiate(&wexec, waiter, nullptr, nullptr, 0));
  hipStream_t other;
  HIP_CHECK(hipStreamCreateWithFlags(&other, hipStreamNonBlocking));
  HIP_CHECK(hipGraphLaunch(exec, stream));
  HIP_CHECK(hipGraphLaunch(wexec, other));
  HIP_CHECK(hipStreamSynchronize(other));
  // The waiter ran after the first graph's record: the host node saw its copy.
  EXPECT(after_calls.load() == 1 && step.calls.load() == 4);
  HIP_CHECK(hipStreamSynchronize(stream));

  // Host node parameters in the graph and in the executable graph.
  hipHostNodeParams hp_back{};
  HIP_CHECK(hipGraphHostNodeGetParams(check, &hp_back));
  EXPECT(hp_back.fn == host_check && hp_back.userData == &step);
  HIP_CHECK(hipGraphExecHostNodeSetParams(exec, check, &count_params));
  HIP_CHECK(hipGraphLaunch(exec, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  EXPECT(after_calls.load() == 2 && step.calls.load() == 4);

  // hipGraphDebugDotPrint.
  const char* dot = "graphs_test.dot";
  HIP_CHECK(hipGraphDebugDotPrint(g, dot, hipGraphDebugDotFlagsVerbose));
  std::ifstream in(dot);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  EXPECT(s.find("digraph") != std::string::npos && s.find("KERNEL") != std::string::npos &&
         s.find("add_table") != std::string::npos && s.find("->") != std::string::npos &&
         s.find("cluster") != std::string::npos);
  std::remove(dot);

  // Removing a node removes its edges.
  size_t edges_before = 0, edges_after = 0;
  HIP_CHECK(hipGraphGetEdges(g, nullptr, nullptr, &edges_before));
  HIP_CHECK(hipGraphDestroyNode(empty));
  HIP_CHECK(hipGraphGetEdges(g, nullptr, nullptr, &edges_after));
  EXPECT(edges_after == edges_before - 5);

  HIP_CHECK(hipGraphExecDestroy(wexec));
  HIP_CHECK(hipGraphExecDestroy(exec));
  HIP_CHECK(hipGraphDestroy(waiter));
  HIP_CHECK(hipGraphDestroy(g));
  HIP_CHECK(hipStreamDestroy(other));
  HIP_CHECK(hipEventDestroy(done));
  HIP_CHECK(hipFree(pitched));
  HIP_CHECK(hipFree(ints));
  HIP_CHECK(hipFree(dfloats));
  HIP_CHECK(hipHostFree(pinned));
  if (bad) std::printf("every_kind: %d mismatches\n", bad);
  return bad;
}

// A graph allocation: allocated, filled by a memset, copied out and freed inside the graph;
// then one freed outside it; the device's graph-memory statistics.
static int allocations(hipStream_t stream) {
  int bad = 0;
  const int n = 1024;
  hipGraph_t g;
  HIP_CHECK(hipGraphCreate(&g, 0));
  hipMemAllocNodeParams ap{};
  ap.poolProps.allocType = hipMemAllocationTypePinned;
  ap.poolProps.location.type = hipMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = n * sizeof(int);
  hipGraphNode_t alloc, fill, out, release;
  HIP_CHECK(hipGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
  EXPECT(ap.dptr != nullptr);
  hipMemsetParams ms{};
  ms.dst = ap.dptr;
  ms.elementSize = 4;
  ms.value = 77;
  ms.width = n;
  ms.height = 1;
  HIP_CHECK(hipGraphAddMemsetNode(&fill, g, &alloc, 1, &ms));
  std::vector<int> host(n, 0);
  HIP_CHECK(hipGraphAddMemcpyNode1D(&out, g, &fill, 1, host.data(), ap.dptr, n * sizeof(int),
                                    hipMemcpyDeviceToHost));
  HIP_CHECK(hipGraphAddMemFreeNode(&release, g, &out, 1, ap.dptr));
  EXPECT_ERROR(hipGraphAddMemFreeNode(&release, g, &out, 1, ap.dptr), hipErrorInvalidValue);
  hipMemAllocNodeParams ap_back{};
  HIP_CHECK(hipGraphMemAllocNodeGetParams(alloc, &ap_back));
  EXPECT(ap_back.dptr == ap.dptr && ap_back.bytesize == ap.bytesize);
  void* freed = nullptr;
  HIP_CHECK(hipGraphMemFreeNodeGetParams(release, &freed));
  EXPECT(freed == ap.dptr);
  EXPECT_ERROR(hipGraphClone(nullptr, g), hipErrorInvalidValue);
  hipGraph_t clone;
  EXPECT_ERROR(hipGraphClone(&clone, g), hipErrorNotSupported);
  hipGraphExec_t exec, second;
  HIP_CHECK(hipGraphInstantiate(&exec, g, nullptr, nullptr, 0));
  EXPECT_ERROR(hipGraphInstantiate(&second, g, nullptr, nullptr, 0), hipErrorNotSupported);
  for (int round = 0; round < 3; ++round) {
    std::fill(host.begin(), host.end(), 0);
    HIP_CHECK(hipGraphLaunch(exec, stream));
    HIP_CHECK(hipStreamSynchronize(stream));
    bad += count_mismatches("graph allocation", host, std::vector<int>(n, 77));
  }
  uint64_t used = 1, reserved = 0;
  HIP_CHECK(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemCurrent, &used));
  HIP_CHECK(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrReservedMemCurrent, &reserved));
  EXPECT(used == 0 && reserved >= n * sizeof(int));
  HIP_CHECK(hipGraphExecDestroy(exec));
  HIP_CHECK(hipGraphDestroy(g));

  // An allocation the graph does not free stays allocated after the launch, until hipFree.
  HIP_CHECK(hipGraphCreate(&g, 0));
  HIP_CHECK(hipGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
  HIP_CHECK(hipGraphInstantiate(&exec, g, nullptr, nullptr, 0));
  HIP_CHECK(hipGraphLaunch(exec, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  HIP_CHECK(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemCurrent, &used));
  EXPECT(used == n * sizeof(int));
  HIP_CHECK(hipMemset(ap.dptr, 3, n * sizeof(int)));
  // Launching again before it is freed is refused.
  EXPECT_ERROR(hipGraphLaunch(exec, stream), hipErrorInvalidValue);
  HIP_CHECK(hipFree(ap.dptr));
  EXPECT_ERROR(hipFree(ap.dptr), hipErrorInvalidValue);
  HIP_CHECK(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemCurrent, &used));
  EXPECT(used == 0);
  uint64_t high = 0, zero = 0;
  HIP_CHECK(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemHigh, &high));
  EXPECT(high >= n * sizeof(int));
  HIP_CHECK(hipDeviceSetGraphMemAttribute(0, hipGraphMemAttrUsedMemHigh, &zero));
  HIP_CHECK(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemHigh, &high));
  EXPECT(high == 0);
  uint64_t one = 1;
  EXPECT_ERROR(hipDeviceSetGraphMemAttribute(0, hipGraphMemAttrUsedMemHigh, &one),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipDeviceGetGraphMemAttribute(0, static_cast<hipGraphMemAttributeType>(7), &used),
               hipErrorInvalidValue);
  HIP_CHECK(hipGraphExecDestroy(exec));
  HIP_CHECK(hipGraphDestroy(g));
  // Nothing holds the two blocks now: the trim gives them back.
  HIP_CHECK(hipDeviceGraphMemTrim(0));
  HIP_CHECK(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrReservedMemCurrent, &reserved));
  EXPECT(reserved == 0);
  if (bad) std::printf("allocations: %d mismatches\n", bad);
  return bad;
}

// User objects held by graphs: released when the graph, its clones and its executable graphs
// are all gone.
static std::atomic<int> destroyed{0};
static void destroy_resource(void* p) { destroyed.fetch_add(*static_cast<int*>(p)); }

static int user_objects() {
  int bad = 0;
  static int weight = 1;
  hipUserObject_t object;
  HIP_CHECK(hipUserObjectCreate(&object, &weight, destroy_resource, 1,
            hipUserObjectNoDestructorSync));
  hipGraph_t g, copy;
  HIP_CHECK(hipGraphCreate(&g, 0));
  hipGraphNode_t node;
  HIP_CHECK(hipGraphAddEmptyNode(&node, g, nullptr, 0));
  HIP_CHECK(hipGraphRetainUserObject(g, object, 1, hipGraphUserObjectMove));  // our reference
  HIP_CHECK(hipGraphRetainUserObject(g, object, 2, 0));                        // two new ones
  HIP_CHECK(hipGraphReleaseUserObject(g, object, 1));
  HIP_CHECK(hipGraphClone(&copy, g));
  hipGraphExec_t exec;
  HIP_CHECK(hipGraphInstantiate(&exec, g, nullptr, nullptr, 0));
  HIP_CHECK(hipGraphDestroy(g));
  HIP_CHECK(hipGraphDestroy(copy));
  EXPECT(destroyed.load() == 0);  // the executable graph still holds it
  HIP_CHECK(hipGraphLaunch(exec, nullptr));
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipGraphExecDestroy(exec));
  EXPECT(destroyed.load() == 1);
  EXPECT_ERROR(hipUserObjectRetain(object, 1), hipErrorInvalidValue);  // gone
  HIP_CHECK(hipGraphCreate(&g, 0));
  EXPECT_ERROR(hipGraphReleaseUserObject(g, object, 1), hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphRetainUserObject(g, object, 1, 4), hipErrorInvalidValue);
  HIP_CHECK(hipGraphDestroy(g));
  if (bad) std::printf("user objects: %d mismatches\n", bad);
  return bad;
}

// Misuse: HIP's error codes, never a crash.
static int misuse() {
  hipGraph_t g;
  HIP_CHECK(hipGraphCreate(&g, 0));
  EXPECT_ERROR(hipGraphCreate(nullptr, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphCreate(&g, 1), hipErrorInvalidValue);
  hipGraphNode_t a, b, c;
  HIP_CHECK(hipGraphAddEmptyNode(&a, g, nullptr, 0));
  HIP_CHECK(hipGraphAddEmptyNode(&b, g, &a, 1));
  EXPECT_ERROR(hipGraphAddEmptyNode(&c, g, nullptr, 3), hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphAddEmptyNode(nullptr, g, nullptr, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphAddDependencies(g, &a, &b, 1), hipErrorInvalidValue);  // exists
  EXPECT_ERROR(hipGraphAddDependencies(g, &a, &a, 1), hipErrorInvalidValue);  // itself
  EXPECT_ERROR(hipGraphRemoveDependencies(g, &b, &a, 1), hipErrorInvalidValue);  // no edge
  // No dependencies: nothing to read, whatever the lists.
  HIP_CHECK(hipGraphAddDependencies(g, nullptr, nullptr, 0));
  HIP_CHECK(hipGraphRemoveDependencies(g, &a, nullptr, 0));
  hipKernelNodeParams kp{};
  kp.func = nullptr;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(1);
  EXPECT_ERROR(hipGraphAddKernelNode(&c, g, nullptr, 0, &kp), hipErrorInvalidDeviceFunction);
  kp.func = reinterpret_cast<void*>(scale);
  EXPECT_ERROR(hipGraphAddKernelNode(&c, g, nullptr, 0, &kp), hipErrorInvalidValue);  // no args
  hipKernelNodeParams got;
  EXPECT_ERROR(hipGraphKernelNodeGetParams(a, &got), hipErrorInvalidValue);  // not a kernel
  hipMemsetParams ms{};
  ms.dst = nullptr;
  ms.elementSize = 4;
  ms.width = 4;
  ms.height = 1;
  EXPECT_ERROR(hipGraphAddMemsetNode(&c, g, nullptr, 0, &ms), hipErrorInvalidValue);
  int* p;
  HIP_CHECK(hipMalloc(&p, 64));
  ms.dst = p;
  ms.elementSize = 3;
  EXPECT_ERROR(hipGraphAddMemsetNode(&c, g, nullptr, 0, &ms), hipErrorInvalidValue);
  // A memset past the end of its 64-byte allocation is refused when the node is made.
  ms.elementSize = 4;
  ms.width = 17;
  EXPECT_ERROR(hipGraphAddMemsetNode(&c, g, nullptr, 0, &ms), hipErrorInvalidValue);
  ms.width = 4;
  ms.height = 5;
  ms.pitch = 16;
  EXPECT_ERROR(hipGraphAddMemsetNode(&c, g, nullptr, 0, &ms), hipErrorInvalidValue);
  ms.height = 4;
  hipGraphNode_t whole;
  HIP_CHECK(hipGraphAddMemsetNode(&whole, g, nullptr, 0, &ms));
  ms.height = 1;
  int host[4];
  EXPECT_ERROR(hipGraphAddMemcpyNode1D(&c, g, nullptr, 0, p, host, 0, hipMemcpyHostToDevice),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphAddMemcpyNode1D(&c, g, nullptr, 0, p, host, 16, hipMemcpyKind(9)),
               hipErrorInvalidMemcpyDirection);
  // A copy running past the end of its device allocation (64 bytes), either way, from its
  // start or from inside it, is refused when the node is made.
  std::vector<int> big(32);
  EXPECT_ERROR(hipGraphAddMemcpyNode1D(&c, g, nullptr, 0, big.data(), p, 128,
                                       hipMemcpyDeviceToHost),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphAddMemcpyNode1D(&c, g, nullptr, 0, p + 8, big.data(), 64,
                                       hipMemcpyHostToDevice),
               hipErrorInvalidValue);
  HIP_CHECK(hipGraphAddMemcpyNode1D(&c, g, nullptr, 0, p + 8, big.data(), 32,
                                    hipMemcpyHostToDevice));
  // Overlapping source and destination have no defined result; a copy onto itself is fine.
  EXPECT_ERROR(hipGraphMemcpyNodeSetParams1D(c, p + 1, p, 16, hipMemcpyDeviceToDevice),
               hipErrorInvalidValue);
  HIP_CHECK(hipGraphMemcpyNodeSetParams1D(c, p, p, 16, hipMemcpyDeviceToDevice));
  HIP_CHECK(hipGraphMemcpyNodeSetParams1D(c, p + 4, p, 16, hipMemcpyDeviceToDevice));
  EXPECT_ERROR(hipGraphMemcpyNodeSetParams1D(c, p, big.data(), 65, hipMemcpyHostToDevice),
               hipErrorInvalidValue);
  hipHostNodeParams hp{nullptr, nullptr};
  EXPECT_ERROR(hipGraphAddHostNode(&c, g, nullptr, 0, &hp), hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphAddEventRecordNode(&c, g, nullptr, 0, nullptr), hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphAddChildGraphNode(&c, g, nullptr, 0, g), hipErrorInvalidValue);
  hipGraphNode_t foreign;
  hipGraph_t other;
  HIP_CHECK(hipGraphCreate(&other, 0));
  HIP_CHECK(hipGraphAddEmptyNode(&foreign, other, nullptr, 0));
  EXPECT_ERROR(hipGraphAddEmptyNode(&c, g, &foreign, 1), hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphAddDependencies(g, &foreign, &a, 1), hipErrorInvalidValue);
  // A cycle is refused at instantiation.
  HIP_CHECK(hipGraphAddDependencies(g, &b, &a, 1));
  hipGraphExec_t exec;
  EXPECT_ERROR(hipGraphInstantiate(&exec, g, nullptr, nullptr, 0), hipErrorInvalidValue);
  HIP_CHECK(hipGraphRemoveDependencies(g, &b, &a, 1));
  HIP_CHECK(hipGraphInstantiate(&exec, g, nullptr, nullptr, 0));
  EXPECT_ERROR(hipGraphInstantiateWithFlags(&exec, g, hipGraphInstantiateFlagDeviceLaunch),
               hipErrorNotSupported);
  EXPECT_ERROR(hipGraphInstantiateWithFlags(&exec, g, 1 << 10), hipErrorInvalidValue);
  unsigned long long flags = 7;
  HIP_CHECK(hipGraphExecGetFlags(exec, &flags));
  int bad = 0;
  EXPECT(flags == 0);
  EXPECT_ERROR(hipGraphExecKernelNodeSetParams(exec, a, &kp), hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphExecHostNodeSetParams(exec, foreign, &hp), hipErrorInvalidValue);
  HIP_CHECK(hipGraphExecDestroy(exec));
  EXPECT_ERROR(hipGraphLaunch(exec, nullptr), hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphExecDestroy(exec), hipErrorInvalidValue);
  HIP_CHECK(hipGraphDestroy(g));
  EXPECT_ERROR(hipGraphAddEmptyNode(&c, g, nullptr, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphNodeGetType(a, reinterpret_cast<hipGraphNodeType*>(&flags)),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphDestroy(g), hipErrorInvalidValue);
  EXPECT_ERROR(hipGraphDebugDotPrint(other, nullptr, 0), hipErrorInvalidValue);
  // A file that cannot be written (an empty path, a folder that does not exist).
  EXPECT_ERROR(hipGraphDebugDotPrint(other, "", 0), hipErrorOperatingSystem);
  EXPECT_ERROR(hipGraphDebugDotPrint(other, "no-such-folder/graph.dot", 0),
               hipErrorOperatingSystem);
  HIP_CHECK(hipGraphDestroy(other));
  HIP_CHECK(hipFree(p));
  return bad;
}

// A clone of a graph whose edges were added after its nodes, some from a node made later to
// one made earlier (copy-out made first, then the kernel, then copy-in): the clone keeps every
// edge, so it copies out only what the kernel computed.
static int clone_with_later_edges(hipStream_t stream) {
  const int n = 4096;
  const size_t bytes = n * sizeof(float);
  std::vector<float> in(n), out(n, -1.0f), want(n);
  for (int i = 0; i < n; ++i) {
    in[i] = static_cast<float>(i % 97) - 40.0f;
    want[i] = in[i] * 5.0f;
  }
  float* d;
  HIP_CHECK(hipMalloc(&d, bytes));
  HIP_CHECK(hipMemset(d, 0, bytes));
  hipGraph_t g, copy;
  HIP_CHECK(hipGraphCreate(&g, 0));
  hipGraphNode_t back, times_five, there;
  HIP_CHECK(hipGraphAddMemcpyNode1D(&back, g, nullptr, 0, out.data(), d, bytes,
                                    hipMemcpyDeviceToHost));
  float five = 5.0f;
  int count = n;
  void* args[] = {&d, &five, &count};
  hipKernelNodeParams p = kernel_params(reinterpret_cast<void*>(scale), dim3(n / 256), dim3(256),
                                        args);
  HIP_CHECK(hipGraphAddKernelNode(&times_five, g, nullptr, 0, &p));
  HIP_CHECK(hipGraphAddMemcpyNode1D(&there, g, nullptr, 0, d, in.data(), bytes,
                                    hipMemcpyHostToDevice));
  HIP_CHECK(hipGraphAddDependencies(g, &times_five, &back, 1));
  HIP_CHECK(hipGraphAddDependencies(g, &there, &times_five, 1));
  HIP_CHECK(hipGraphClone(&copy, g));
  size_t edges = 0;
  HIP_CHECK(hipGraphGetEdges(copy, nullptr, nullptr, &edges));
  int bad = 0;
  EXPECT(edges == 2);
  hipGraphExec_t exec;
  HIP_CHECK(hipGraphInstantiate(&exec, copy, nullptr, nullptr, 0));
  HIP_CHECK(hipGraphLaunch(exec, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  bad += count_mismatches("clone with edges added later", out, want);
  HIP_CHECK(hipGraphExecDestroy(exec));
  HIP_CHECK(hipGraphDestroy(copy));
  HIP_CHECK(hipGraphDestroy(g));
  HIP_CHECK(hipFree(d));
  return bad;
}

int main() {
  hipStream_t stream;
  HIP_CHECK(hipStreamCreate(&stream));
  int bad = diamond(stream);
  bad += every_kind(stream);
  bad += allocations(stream);
  bad += user_objects();
  bad += misuse();
  bad += clone_with_later_edges(stream);
  // The null stream launches graphs too.
  HIP_CHECK(hipStreamDestroy(stream));
  return report("graphs", bad);
}
