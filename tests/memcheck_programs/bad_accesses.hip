// One bad device access per run, chosen by argv[1]; the memory checker (-fsanitize=address)
// must report it and fail the launch with hipErrorIllegalAddress (sticky until hipDeviceReset).
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "bad_kernels.h"

#define HIP_CHECK(call)                                                              \
  do {                                                                               \
    hipError_t e_ = (call);                                                          \
    if (e_ != hipSuccess) {                                                          \
      std::printf("%s failed: %s\n", #call, hipGetErrorName(e_));                    \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

// Whether device 0 is an NVIDIA GPU: there the driver keeps a kernel's fault (the checker's
// trap) until the process ends, whatever a reset does (CUDA's documented rule for launch
// failures), so the device is not used again after it.
static bool fault_ends_the_device() {
  static int answer = -1;
  if (answer < 0) {
    hipDeviceProp_t props;
    answer = hipGetDeviceProperties(&props, 0) == hipSuccess &&
             std::strncmp(props.gcnArchName, "sm_", 3) == 0;
  }
  return answer == 1;
}

// Every later call fails with the same error; a reset clears it and the device works again
// (where a fault does not end the device for the process).
static int after_the_error(hipError_t synced) {
  if (synced != hipErrorIllegalAddress) {
    std::printf("synchronize gave %s, not hipErrorIllegalAddress\n", hipGetErrorName(synced));
    return 1;
  }
  int* probe = nullptr;
  hipError_t later = hipMalloc(&probe, 16);
  if (later != hipErrorIllegalAddress) {
    std::printf("a later call gave %s\n", hipGetErrorName(later));
    return 1;
  }
  HIP_CHECK(hipDeviceReset());
  if (fault_ends_the_device()) {
    std::printf("REPORTED\n");
    return 0;
  }
  // After the reset a correct kernel runs and gives the right results.
  const int n = 64;
  int* d = nullptr;
  HIP_CHECK(hipMalloc(&d, n * sizeof(int)));
  for (int who = 0; who < n; ++who) store_at<int><<<2, 32>>>(d, who, who * 3, who);
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<int> h(n);
  HIP_CHECK(hipMemcpy(h.data(), d, n * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (h[i] != i * 3) {
      std::printf("after the reset: element %d is %d\n", i, h[i]);
      return 1;
    }
  HIP_CHECK(hipFree(d));
  std::printf("REPORTED\n");
  return 0;
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "";
  const int who = 13;  // block 1, thread 5 of blocks of 8
  fault_ends_the_device();  // asked before the fault
  if (!std::strcmp(what, "write_past") || !std::strcmp(what, "ignore")) {
    // 16 registered ints followed by 16 more of the program's that the device must not touch.
    int* host = static_cast<int*>(std::aligned_alloc(4096, 4096));
    for (int i = 0; i < 32; ++i) host[i] = -7;
    HIP_CHECK(hipHostRegister(host, 16 * sizeof(int), hipHostRegisterDefault));
    int* d = nullptr;
    HIP_CHECK(hipHostGetDevicePointer(reinterpret_cast<void**>(&d), host, 0));
    store_at<int><<<2, 8>>>(d, 16 + 3, 99, who);
    hipError_t synced = hipDeviceSynchronize();
    for (int i = 16; i < 32; ++i)
      if (host[i] != -7) {
        std::printf("the bad write reached element %d\n", i);
        return 1;
      }
    if (!std::strcmp(what, "ignore")) {
      std::printf("IGNORED %s\n", hipGetErrorName(synced));
      std::free(host);
      return 0;
    }
    // The host compile has AddressSanitizer too (-fsanitize=address): nothing may leak.
    int result = after_the_error(synced);
    std::free(host);
    return result;
  }
  if (!std::strcmp(what, "read_past")) {
    int *d = nullptr, *out = nullptr;
    HIP_CHECK(hipMalloc(&d, 64));
    HIP_CHECK(hipMalloc(&out, sizeof(int)));
    load_at<<<2, 8>>>(d, 16 + 2, out, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "use_after_free")) {
    double* d = nullptr;
    HIP_CHECK(hipMalloc(&d, 64 * sizeof(double)));
    HIP_CHECK(hipFree(d));
    store_at<double><<<2, 8>>>(d, 5, 1.5, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "wild")) {
    int* d = nullptr;
    HIP_CHECK(hipMalloc(&d, 64));
    int* wild = reinterpret_cast<int*>(static_cast<uintptr_t>(0x10));
    store_at<int><<<2, 8>>>(wild, 0, 1, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "atomic")) {
    int* d = nullptr;
    HIP_CHECK(hipMalloc(&d, 64));
    add_at<<<2, 8>>>(d, 16, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "shared")) {
    int* d = nullptr;
    HIP_CHECK(hipMalloc(&d, 16 * sizeof(int)));
    shared_past<<<2, 8>>>(d, 64 + 3, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "local")) {
    float* d = nullptr;
    HIP_CHECK(hipMalloc(&d, 16 * sizeof(float)));
    local_past<<<2, 8>>>(d, 8 + 1, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "cas")) {
    unsigned int *d = nullptr, *old = nullptr;
    HIP_CHECK(hipMalloc(&d, 16 * sizeof(unsigned int)));
    HIP_CHECK(hipMalloc(&old, sizeof(unsigned int)));
    cas_at<<<2, 8>>>(d, 16, old, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "dynamic_shared")) {
    int* d = nullptr;
    HIP_CHECK(hipMalloc(&d, 16 * sizeof(int)));
    // A launch with more dynamic shared memory first: its size is not the next launch's bound.
    dynamic_past<<<2, 8, 64 * sizeof(int)>>>(d, 40, -1);
    HIP_CHECK(hipDeviceSynchronize());
    dynamic_past<<<2, 8, 8 * sizeof(int)>>>(d, 8 + 3, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "loop_past")) {
    int *d = nullptr, *out = nullptr;
    HIP_CHECK(hipMalloc(&d, 64));
    HIP_CHECK(hipMalloc(&out, sizeof(int)));
    sum_range<<<2, 8>>>(d, 10, 8, out, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "shared_loop")) {
    int* d = nullptr;
    HIP_CHECK(hipMalloc(&d, 16 * sizeof(int)));
    shared_range<<<2, 8>>>(d, 60, 8, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "through_initializer") || !std::strcmp(what, "within_initializer")) {
    int* out = nullptr;
    HIP_CHECK(hipMalloc(&out, sizeof(int)));
    if (!std::strcmp(what, "within_initializer")) {
      // Every element of the table through the pointer: no report.
      for (int index = -8; index < 56; ++index) {
        read_through_cursor<<<2, 8>>>(index, out, who);
        HIP_CHECK(hipDeviceSynchronize());
      }
      std::printf("NOT REPORTED\n");
      return 0;
    }
    // Far past the table's end, beyond the module's other variables.
    read_through_cursor<<<2, 8>>>(56 + (1 << 18), out, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "byval_past")) {
    int* out = nullptr;
    HIP_CHECK(hipMalloc(&out, sizeof(int)));
    byval_past<<<2, 8>>>(Window{{1, 2, 3, 4}, 4}, 4 + 2, out, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "strided_loop")) {
    int *d = nullptr, *out = nullptr;
    HIP_CHECK(hipMalloc(&d, 64));
    HIP_CHECK(hipMalloc(&out, sizeof(int)));
    // Elements 0, 4, 8, 12 and 20 (16 is skipped): element 20 is 16 bytes past the end.
    strided_range<<<2, 8>>>(d, 40, 16, out, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "helper_local")) {
    float* d = nullptr;
    HIP_CHECK(hipMalloc(&d, 16 * sizeof(float)));
    helper_local_past<<<2, 8>>>(d, 8 + 1, who);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "divergent")) {
    int *d = nullptr, *out = nullptr;
    HIP_CHECK(hipMalloc(&d, 64));
    HIP_CHECK(hipMalloc(&out, 16 * sizeof(int)));
    // Threads 0-13 read elements 3-16: thread 13 (5 of block 1) reads one past the end.
    read_where<<<2, 8>>>(d, 3, 14, out);
    return after_the_error(hipDeviceSynchronize());
  }
  if (!std::strcmp(what, "block_2d") || !std::strcmp(what, "warp_block_2d")) {
    int* d = nullptr;
    HIP_CHECK(hipMalloc(&d, 64));
    // Thread (5, 1) of block 1 writes 12 bytes past the end.
    if (!std::strcmp(what, "block_2d"))
      store_at_2d<<<2, dim3(8, 4)>>>(d, 16 + 3, 5, 1);
    else
      warp_sum_at_2d<<<2, dim3(8, 4)>>>(d, 16 + 3, 5, 1);
    return after_the_error(hipDeviceSynchronize());
  }
  std::printf("usage: bad_accesses write_past|read_past|use_after_free|wild|atomic|cas|shared|dynamic_shared|local|loop_past|shared_loop|strided_loop|divergent|through_initializer|within_initializer|byval_past|block_2d|warp_block_2d|ignore\n");
  return 2;
}
