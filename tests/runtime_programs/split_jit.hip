// Kernels of a module of many kernels, built one kernel at a time at their first launches,
// communicate through __device__ variables: a value one kernel writes another reads, the host
// reads with hipMemcpyFromSymbol and writes with hipMemcpyToSymbol, and a pointer from
// hipGetSymbolAddress reaches the same variable the kernels use.
#include "test_common.h"

#include "split_jit_stages.h"

template <int K>
void launch_stages(int* trace) {
  if constexpr (K < kStages) {
    hipLaunchKernelGGL(stage<K>, dim3(1), dim3(1), 0, 0, trace);
    HIP_CHECK(hipGetLastError());
    launch_stages<K + 1>(trace);
  }
}

int main() {
  int bad = 0;
  const int host_weights[4] = {5, 6, 7, 8};
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(weights), host_weights, sizeof(host_weights)));

  // One kernel writes the mailbox, another reads it.
  const int seed = 10;
  hipLaunchKernelGGL(produce, dim3(1), dim3(kThreads), 0, 0, seed);
  HIP_CHECK(hipGetLastError());
  int* out = nullptr;
  HIP_CHECK(hipMalloc(&out, kThreads * sizeof(int)));
  hipLaunchKernelGGL(consume, dim3(1), dim3(kThreads), 0, 0, out);
  HIP_CHECK(hipGetLastError());
  std::vector<int> want_mail(kThreads), want_out(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    want_mail[i] = (seed + i) * host_weights[i % 4];
    want_out[i] = want_mail[i] + 1;
  }
  bad += count_mismatches("consume", from_device(out, kThreads), want_out);

  // The host reads what the kernels wrote.
  std::vector<int> mail(kThreads);
  HIP_CHECK(hipMemcpyFromSymbol(mail.data(), HIP_SYMBOL(mailbox), kThreads * sizeof(int)));
  bad += count_mismatches("mailbox", mail, want_mail);
  unsigned long long seen = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&seen, HIP_SYMBOL(weighed), sizeof(seen)));
  EXPECT(seen == kThreads);

  // The host writes the mailbox; the kernel built before reads the new values.
  std::vector<int> fresh(kThreads);
  for (int i = 0; i < kThreads; ++i) fresh[i] = 1000 - 3 * i;
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(mailbox), fresh.data(), kThreads * sizeof(int)));
  hipLaunchKernelGGL(consume, dim3(1), dim3(kThreads), 0, 0, out);
  for (int i = 0; i < kThreads; ++i) want_out[i] = fresh[i] + 1;
  bad += count_mismatches("consume after hipMemcpyToSymbol", from_device(out, kThreads), want_out);

  // Twenty kernels each add to one counter; a pointer from hipGetSymbolAddress reaches it too.
  int* trace = nullptr;
  HIP_CHECK(hipMalloc(&trace, kStages * sizeof(int)));
  launch_stages<0>(trace);
  void* total_address = nullptr;
  HIP_CHECK(hipGetSymbolAddress(&total_address, HIP_SYMBOL(total)));
  hipLaunchKernelGGL(add_through, dim3(1), dim3(1), 0, 0, static_cast<int*>(total_address), 7);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got_trace = from_device(trace, kStages);
  std::vector<int> want_trace(kStages);
  int running = 100;
  for (int k = 0; k < kStages; ++k) {
    want_trace[k] = running;  // the stream runs the stages in order
    running += k;
  }
  bad += count_mismatches("stage trace", got_trace, want_trace);
  int total_now = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&total_now, HIP_SYMBOL(total), sizeof(int)));
  EXPECT(total_now == running + 7);

  HIP_CHECK(hipFree(out));
  HIP_CHECK(hipFree(trace));
  return report("split_jit", bad);
}
