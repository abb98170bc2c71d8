// The memory API and device queries from a HIP program: managed memory used by host and kernel,
// pinned memory, memsets of every width, 2-D copies, hipMemGetInfo, hipPointerGetAttributes,
// hipDeviceGetAttribute; and misuse (null pointers, bad sizes, foreign pointers, unknown
// kernels, launches too large for the device), each an error code with the runtime working after.
#include "test_common.h"

#include <algorithm>

__global__ void scale_add(long* p, long mul, long add, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * mul + add;
}

__global__ void fill_rows(int* m, int pitch_elems, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x < width && y < height) m[y * pitch_elems + x] = y * 1000 + x;
}

int main() {
  hipDeviceProp_t props;
  HIP_CHECK(hipGetDeviceProperties(&props, 0));
  int value = 0, bad = 0;
  HIP_CHECK(hipDeviceGetAttribute(&value, hipDeviceAttributeMaxThreadsPerBlock, 0));
  if (value != props.maxThreadsPerBlock) ++bad;
  HIP_CHECK(hipDeviceGetAttribute(&value, hipDeviceAttributeWarpSize, 0));
  if (value != props.warpSize) ++bad;
  HIP_CHECK(hipDeviceGetAttribute(&value, hipDeviceAttributeMultiprocessorCount, 0));
  if (value != props.multiProcessorCount) ++bad;

  // Managed memory: written by the host, updated by a kernel, read by the host.
  const int n = 10000;
  long* managed = nullptr;
  HIP_CHECK(hipMallocManaged(&managed, n * sizeof(long)));
  std::vector<long> want(n);
  for (int i = 0; i < n; ++i) {
    managed[i] = i - 5000;
    want[i] = (i - 5000) * 3L - 7;
  }
  hipLaunchKernelGGL(scale_add, dim3((n + 255) / 256), dim3(256), 0, 0, managed, 3L, -7L, n);
  HIP_CHECK(hipDeviceSynchronize());
  bad += count_mismatches("managed", std::vector<long>(managed, managed + n), want);
  hipPointerAttribute_t attr;
  HIP_CHECK(hipPointerGetAttributes(&attr, managed + 10));
  if (attr.type != hipMemoryTypeManaged || !attr.isManaged) ++bad;

  // Memsets of 8, 16 and 32 bits.
  unsigned* words = nullptr;
  HIP_CHECK(hipMalloc(&words, 64 * sizeof(unsigned)));
  HIP_CHECK(hipMemsetD32(words, 0x11223344, 64));
  HIP_CHECK(hipMemsetD16(words + 1, 0xABCD, 2));
  HIP_CHECK(hipMemsetD8(words + 2, 0x5A, 4));
  HIP_CHECK(hipMemset(words + 3, 0, 4));
  std::vector<unsigned> got_words = from_device(words, 64);
  std::vector<unsigned> want_words(64, 0x11223344u);
  want_words[1] = 0xABCDABCDu;
  want_words[2] = 0x5A5A5A5Au;
  want_words[3] = 0;
  bad += count_mismatches("memset", got_words, want_words);
  HIP_CHECK(hipPointerGetAttributes(&attr, words));
  if (attr.type != hipMemoryTypeDevice) ++bad;

  // A pitched matrix filled by a 2-D launch, copied out with hipMemcpy2D.
  const int width = 100, height = 37;
  int* mat = nullptr;
  size_t pitch = 0;
  HIP_CHECK(hipMallocPitch(&mat, &pitch, width * sizeof(int), height));
  hipLaunchKernelGGL(fill_rows, dim3((width + 63) / 64, height), dim3(64), 0, 0, mat,
                     int(pitch / sizeof(int)), width, height);
  std::vector<int> host_mat(width * height), want_mat(width * height);
  HIP_CHECK(hipMemcpy2D(host_mat.data(), width * sizeof(int), mat, pitch, width * sizeof(int), height,
                        hipMemcpyDeviceToHost));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) want_mat[y * width + x] = y * 1000 + x;
  bad += count_mismatches("memcpy2D", host_mat, want_mat);

  size_t free_mem = 0, total_mem = 0;
  HIP_CHECK(hipMemGetInfo(&free_mem, &total_mem));
  if (!(total_mem == props.totalGlobalMem && free_mem <= total_mem)) ++bad;

  // ---- misuse ----
  std::vector<unsigned> host(128);
  EXPECT_ERROR(hipMalloc(static_cast<void**>(nullptr), 16), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemcpy(words, host.data(), 65 * sizeof(unsigned), hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemcpy(nullptr, words, 4, hipMemcpyDeviceToHost), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemcpy(host.data(), words, 4, static_cast<hipMemcpyKind>(42)), hipErrorInvalidMemcpyDirection);
  EXPECT_ERROR(hipMemsetD32(words + 60, 0, 5), hipErrorInvalidValue);
  EXPECT_ERROR(hipFree(host.data()), hipErrorInvalidValue);
  EXPECT_ERROR(hipFree(words + 1), hipErrorInvalidValue);
  EXPECT_ERROR(hipHostFree(words), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemcpy2D(host.data(), 4, mat, pitch, 8, 2, hipMemcpyDeviceToHost), hipErrorInvalidPitchValue);
  EXPECT_ERROR(hipMallocManaged(&managed, 64, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipPointerGetAttributes(nullptr, words), hipErrorInvalidValue);
  EXPECT_ERROR(hipDeviceGetAttribute(&value, hipDeviceAttributeWarpSize, 3), hipErrorInvalidDevice);
  EXPECT_ERROR(hipSetDevice(7), hipErrorInvalidDevice);
  EXPECT_ERROR(hipLaunchKernelByName("no_such_kernel", dim3(1), dim3(1), 0, 0, nullptr, 0), hipErrorInvalidDeviceFunction);
  // Launches too large for the device, and empty ones.
  EXPECT_ERROR(hipLaunchKernelGGL(scale_add, dim3(1), dim3(props.maxThreadsPerBlock + 1), 0, 0, managed, 1L, 0L, n),
               hipErrorInvalidConfiguration);
  EXPECT_ERROR(hipLaunchKernelGGL(scale_add, dim3(0), dim3(64), 0, 0, managed, 1L, 0L, n), hipErrorInvalidValue);
  // More shared memory than a block can have (opted in or not: hipmlir opts a launch in as far
  // as the device allows, for programs written for AMD's 64 KiB): hipErrorOutOfMemory, as HIP
  // answers.
  const size_t most_shared = std::max(props.sharedMemPerBlock, props.sharedMemPerBlockOptin);
  EXPECT_ERROR(hipLaunchKernelGGL(scale_add, dim3(1), dim3(64), most_shared + 1, 0, managed, 1L, 0L, n),
               hipErrorOutOfMemory);
  // Device limits: what OpenCL can honour succeeds, the rest is an error code.
  size_t printf_size = 0, stack_size = 0, heap_size = 0;
  HIP_CHECK(hipDeviceGetLimit(&printf_size, hipLimitPrintfFifoSize));
  HIP_CHECK(hipDeviceGetLimit(&stack_size, hipLimitStackSize));
  HIP_CHECK(hipDeviceGetLimit(&heap_size, hipLimitMallocHeapSize));
  if (printf_size == 0 || stack_size == 0 || heap_size == 0) {
    std::printf("limits: printf %zu, stack %zu, heap %zu\n", printf_size, stack_size, heap_size);
    return 1;
  }
  HIP_CHECK(hipDeviceSetLimit(hipLimitStackSize, 16384));
  HIP_CHECK(hipDeviceSetLimit(hipLimitPrintfFifoSize, printf_size));
  // A printf buffer of another size: the CUDA driver takes it (and reads it back), OpenCL's is
  // fixed (hipErrorNotSupported, said once); never an abort.
  auto resize_printf = [&](size_t size) {
    hipError_t e = hipDeviceSetLimit(hipLimitPrintfFifoSize, size);
    size_t now = 0;
    HIP_CHECK(hipDeviceGetLimit(&now, hipLimitPrintfFifoSize));
    if (e == hipSuccess ? now != size : e != hipErrorNotSupported || now != printf_size) {
      std::printf("printf limit %zu: %s, reads %zu\n", size, hipGetErrorName(e), now);
      ++bad;
    }
    (void)hipGetLastError();
    if (e == hipSuccess) HIP_CHECK(hipDeviceSetLimit(hipLimitPrintfFifoSize, printf_size));
  };
  resize_printf(printf_size + 4096);
  // No kernel has allocated yet: the device heap's size can still change.
  HIP_CHECK(hipDeviceSetLimit(hipLimitMallocHeapSize, 1 << 20));
  HIP_CHECK(hipDeviceGetLimit(&heap_size, hipLimitMallocHeapSize));
  if (heap_size != (1 << 20)) {
    std::printf("heap limit %zu after setting %d\n", heap_size, 1 << 20);
    return 1;
  }
  EXPECT_ERROR(hipDeviceGetLimit(nullptr, hipLimitStackSize), hipErrorInvalidValue);
  resize_printf(2 * printf_size);
  // The program's own host memory, registered: copies reach it at its own address.
  HIP_CHECK(hipHostRegister(host.data(), 64 * sizeof(unsigned), 0));
  HIP_CHECK(hipMemcpy(host.data(), words, 64 * sizeof(unsigned), hipMemcpyDeviceToHost));
  bad += count_mismatches("registered", std::vector<unsigned>(host.begin(), host.begin() + 64),
                          want_words);
  HIP_CHECK(hipHostUnregister(host.data()));
  EXPECT_ERROR(hipHostUnregister(host.data()), hipErrorHostMemoryNotRegistered);
  // A null symbol is HIP's invalid-symbol error.
  EXPECT_ERROR(hipMemcpyToSymbol(nullptr, host.data(), 4, 0, hipMemcpyHostToDevice), hipErrorInvalidSymbol);

  // Mapped host memory copied through its device address onto itself (the two addresses are one
  // here): nothing moves, and the copy still waits for the kernel that wrote it. A copy whose
  // source and destination partly overlap is the program's error.
  long* mapped = nullptr;
  long* mapped_d = nullptr;
  HIP_CHECK(hipHostMalloc(&mapped, n * sizeof(long), hipHostMallocMapped));
  HIP_CHECK(hipHostGetDevicePointer(reinterpret_cast<void**>(&mapped_d), mapped, 0));
  for (int i = 0; i < n; ++i) mapped[i] = i;
  hipLaunchKernelGGL(scale_add, dim3((n + 255) / 256), dim3(256), 0, 0, mapped_d, 3L, 1L, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(mapped, mapped_d, n * sizeof(long), hipMemcpyDeviceToHost));
  std::vector<long> want_mapped(n);
  for (int i = 0; i < n; ++i) want_mapped[i] = 3L * i + 1;
  bad += count_mismatches("mapped memory copied onto itself",
                          std::vector<long>(mapped, mapped + n), want_mapped);
  EXPECT_ERROR(hipMemcpy(mapped_d + 1, mapped_d, (n - 1) * sizeof(long), hipMemcpyDeviceToDevice),
               hipErrorInvalidValue);
  HIP_CHECK(hipHostFree(mapped));

  // Everything still works.
  hipLaunchKernelGGL(scale_add, dim3((n + 255) / 256), dim3(256), 0, 0, managed, 1L, 7L, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  for (int i = 0; i < n; ++i) want[i] += 7;
  bad += count_mismatches("after misuse", std::vector<long>(managed, managed + n), want);

  HIP_CHECK(hipFree(managed));
  HIP_CHECK(hipFree(words));
  HIP_CHECK(hipFree(mat));
  return report("memory_and_misuse", bad);
}
