// Virtual memory management as HIP programs use it: physical allocations mapped into reserved
// address ranges, several of them side by side as one buffer for copies, fills and kernels;
// one allocation mapped at two addresses (the same bytes at both); part of an allocation at an
// offset; access given, read back, narrowed to reading; handles retained and released;
// hipMemGetInfo counting physical allocations; an allocation exported as a file descriptor to a
// child process that changes it; and misuse.
// Device results are compared with host references on every element.
//
// Run with an argument "child <fd> <bytes>" it is that child: it imports the descriptor, maps
// it and adds 1 to every int.
#include "test_common.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ void square(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * p[i];
}

__global__ void add(const int* in, int* out, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + k;
}

namespace {

hipMemAllocationProp device_prop(int device, bool exportable = false) {
  hipMemAllocationProp prop{};
  prop.type = hipMemAllocationTypePinned;
  prop.location.type = hipMemLocationTypeDevice;
  prop.location.id = device;
  if (exportable) prop.requestedHandleTypes = hipMemHandleTypePosixFileDescriptor;
  return prop;
}

void give_access(void* p, size_t bytes, int device,
                 hipMemAccessFlags flags = hipMemAccessFlagsProtReadWrite) {
  hipMemAccessDesc access{};
  access.location.type = hipMemLocationTypeDevice;
  access.location.id = device;
  access.flags = flags;
  HIP_CHECK(hipMemSetAccess(p, bytes, &access, 1));
}

std::vector<int> iota_from(int base, size_t n) {
  std::vector<int> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = base + static_cast<int>(i);
  return v;
}

int blocks(size_t n) { return static_cast<int>((n + 255) / 256); }

// Whether the runtime itself refuses copies and fills a device may not make (on OpenCL, where
// the runtime knows every range); a GPU faults on them instead, a fault that ends the context,
// so on the CUDA driver (gcnArchName sm_XX) they are not tried.
bool runtime_checks_access() {
  hipDeviceProp_t props;
  HIP_CHECK(hipGetDeviceProperties(&props, 0));
  return std::strncmp(props.gcnArchName, "sm_", 3) != 0;
}

// Three physical chunks side by side in one reservation: one buffer for copies, a memset and
// a kernel; the handles are released at once (the mappings keep the memory).
int chunks_as_one_buffer(size_t chunk) {
  int bad = 0;
  constexpr int kChunks = 3;
  const size_t bytes = kChunks * chunk, n = bytes / sizeof(int);
  void* base = nullptr;
  HIP_CHECK(hipMemAddressReserve(&base, bytes, 0, nullptr, 0));
  for (int c = 0; c < kChunks; ++c) {
    hipMemGenericAllocationHandle_t h;
    hipMemAllocationProp prop = device_prop(0);
    HIP_CHECK(hipMemCreate(&h, chunk, &prop, 0));
    HIP_CHECK(hipMemMap(static_cast<char*>(base) + c * chunk, chunk, 0, h, 0));
    HIP_CHECK(hipMemRelease(h));
  }
  give_access(base, bytes, 0);
  int* p = static_cast<int*>(base);
  std::vector<int> in = iota_from(-1000, n), out(n), want(n);
  HIP_CHECK(hipMemcpy(p, in.data(), bytes, hipMemcpyHostToDevice));
  square<<<blocks(n), 256>>>(p, static_cast<int>(n));
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(out.data(), p, bytes, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n; ++i) want[i] = in[i] * in[i];
  bad += count_mismatches("three chunks squared", out, want);

  // A memset across the seam of two chunks, on a stream.
  hipStream_t s;
  HIP_CHECK(hipStreamCreate(&s));
  const size_t from = n / 3 - 100, count = 200;
  HIP_CHECK(hipMemsetD32Async(p + from, 0x01020304, count, s));
  HIP_CHECK(hipMemcpyAsync(out.data(), p, bytes, hipMemcpyDeviceToHost, s));
  HIP_CHECK(hipStreamSynchronize(s));
  for (size_t i = from; i < from + count; ++i) want[i] = 0x01020304;
  bad += count_mismatches("memset across chunks", out, want);
  HIP_CHECK(hipStreamDestroy(s));

  // The pointer is device memory of device 0.
  hipPointerAttribute_t attrs{};
  HIP_CHECK(hipPointerGetAttributes(&attrs, p + n / 2));
  EXPECT(attrs.type == hipMemoryTypeDevice && attrs.device == 0);

  // Unmapping one chunk alone is not a whole range of the others.
  EXPECT_ERROR(hipMemUnmap(base, chunk + chunk / 2), hipErrorInvalidValue);
  HIP_CHECK(hipMemUnmap(base, bytes));
  if (runtime_checks_access()) {
    EXPECT_ERROR(hipMemcpy(out.data(), p, 4, hipMemcpyDeviceToHost), hipErrorInvalidValue);
  }
  HIP_CHECK(hipMemAddressFree(base, bytes));
  return bad;
}

// One allocation at two addresses: what a kernel writes through one is read through the other.
int one_allocation_two_addresses(size_t size) {
  int bad = 0;
  const size_t n = size / sizeof(int);
  hipMemGenericAllocationHandle_t h;
  hipMemAllocationProp prop = device_prop(0);
  HIP_CHECK(hipMemCreate(&h, size, &prop, 0));
  void *a = nullptr, *b = nullptr;
  HIP_CHECK(hipMemAddressReserve(&a, size, 0, nullptr, 0));
  HIP_CHECK(hipMemAddressReserve(&b, size, 0, nullptr, 0));
  EXPECT(a != b);
  HIP_CHECK(hipMemMap(a, size, 0, h, 0));
  HIP_CHECK(hipMemMap(b, size, 0, h, 0));
  give_access(a, size, 0);
  give_access(b, size, 0);
  std::vector<int> in = iota_from(7, n), out(n), want(n);
  HIP_CHECK(hipMemcpy(a, in.data(), size, hipMemcpyHostToDevice));
  // Reads b, writes a: each element is read and written by one thread only.
  add<<<blocks(n), 256>>>(static_cast<int*>(b), static_cast<int*>(a), 5, static_cast<int>(n));
  HIP_CHECK(hipMemcpy(out.data(), b, size, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n; ++i) want[i] = in[i] + 5;
  bad += count_mismatches("written through a, read through b", out, want);

  // The handle retained from either address is the one created; properties come back.
  hipMemGenericAllocationHandle_t again = nullptr;
  HIP_CHECK(hipMemRetainAllocationHandle(&again, static_cast<char*>(b) + size - 1));
  EXPECT(again == h);
  HIP_CHECK(hipMemRelease(again));
  hipMemAllocationProp back{};
  HIP_CHECK(hipMemGetAllocationPropertiesFromHandle(&back, h));
  EXPECT(back.type == hipMemAllocationTypePinned &&
         back.location.type == hipMemLocationTypeDevice && back.location.id == 0);

  // Released while mapped: both mappings keep the memory.
  HIP_CHECK(hipMemRelease(h));
  EXPECT_ERROR(hipMemRelease(h), hipErrorInvalidValue);
  HIP_CHECK(hipMemcpy(out.data(), a, size, hipMemcpyDeviceToHost));
  bad += count_mismatches("after release", out, want);

  // Freeing a reservation still mapped is refused; unmapped, it is freed.
  EXPECT_ERROR(hipMemAddressFree(a, size), hipErrorInvalidValue);
  HIP_CHECK(hipMemUnmap(a, size));
  HIP_CHECK(hipMemUnmap(b, size));
  HIP_CHECK(hipMemAddressFree(a, size));
  HIP_CHECK(hipMemAddressFree(b, size));
  EXPECT_ERROR(hipMemRetainAllocationHandle(&again, a), hipErrorInvalidValue);
  return bad;
}

// One allocation mapped at two addresses shows the same bytes at both; an offset into it is
// refused (HIP and CUDA map an allocation from its start).
int one_allocation_at_two_addresses(size_t g) {
  int bad = 0;
  const size_t whole = 2 * g, n = whole / sizeof(int);
  hipMemGenericAllocationHandle_t h;
  hipMemAllocationProp prop = device_prop(0);
  HIP_CHECK(hipMemCreate(&h, whole, &prop, 0));
  void *first = nullptr, *second = nullptr;
  HIP_CHECK(hipMemAddressReserve(&first, whole, 0, nullptr, 0));
  HIP_CHECK(hipMemAddressReserve(&second, whole, 0, nullptr, 0));
  EXPECT_ERROR(hipMemMap(first, g, g, h, 0), hipErrorInvalidValue);
  HIP_CHECK(hipMemMap(first, whole, 0, h, 0));
  HIP_CHECK(hipMemMap(second, whole, 0, h, 0));
  give_access(first, whole, 0);
  give_access(second, whole, 0);
  std::vector<int> in = iota_from(1, n), out(n);
  HIP_CHECK(hipMemcpy(first, in.data(), whole, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(out.data(), second, whole, hipMemcpyDeviceToHost));
  bad += count_mismatches("one allocation at two addresses", out, in);
  HIP_CHECK(hipMemRelease(h));
  HIP_CHECK(hipMemUnmap(first, whole));
  HIP_CHECK(hipMemUnmap(second, whole));
  HIP_CHECK(hipMemAddressFree(first, whole));
  HIP_CHECK(hipMemAddressFree(second, whole));
  return bad;
}

// Access: none until set, read-write, then read only (the device reads but may not write).
int access_rules(size_t g) {
  int bad = 0;
  const size_t n = g / sizeof(int);
  hipMemGenericAllocationHandle_t h;
  hipMemAllocationProp prop = device_prop(0);
  HIP_CHECK(hipMemCreate(&h, g, &prop, 0));
  void* p = nullptr;
  HIP_CHECK(hipMemAddressReserve(&p, g, 0, nullptr, 0));
  std::vector<int> in = iota_from(40, n), out(n);
  const bool checked = runtime_checks_access();
  // Reserved, not mapped; then mapped without access.
  if (checked) EXPECT_ERROR(hipMemcpy(p, in.data(), g, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemSetAccess(p, g, nullptr, 1), hipErrorInvalidValue);
  HIP_CHECK(hipMemMap(p, g, 0, h, 0));
  if (checked) {
    EXPECT_ERROR(hipMemcpy(p, in.data(), g, hipMemcpyHostToDevice), hipErrorInvalidValue);
    EXPECT_ERROR(hipMemcpy(p, in.data(), g, hipMemcpyDefault), hipErrorInvalidValue);
  }
  hipMemLocation here{hipMemLocationTypeDevice, 0};
  unsigned long long flags = 99;
  HIP_CHECK(hipMemGetAccess(&flags, &here, p));
  EXPECT(flags == hipMemAccessFlagsProtNone);

  give_access(p, g, 0);
  HIP_CHECK(hipMemGetAccess(&flags, &here, static_cast<char*>(p) + g - 1));
  EXPECT(flags == hipMemAccessFlagsProtReadWrite);
  HIP_CHECK(hipMemcpy(p, in.data(), g, hipMemcpyHostToDevice));

  give_access(p, g, 0, hipMemAccessFlagsProtRead);
  HIP_CHECK(hipMemGetAccess(&flags, &here, p));
  EXPECT(flags == hipMemAccessFlagsProtRead);
  HIP_CHECK(hipMemcpy(out.data(), p, g, hipMemcpyDeviceToHost));
  bad += count_mismatches("read-only memory read", out, in);
  if (checked) {
    EXPECT_ERROR(hipMemcpy(p, in.data(), g, hipMemcpyHostToDevice), hipErrorInvalidValue);
    EXPECT_ERROR(hipMemset(p, 0, g), hipErrorInvalidValue);
  }
  // A kernel reads it into ordinary memory.
  int* d = nullptr;
  HIP_CHECK(hipMalloc(&d, g));
  add<<<blocks(n), 256>>>(static_cast<int*>(p), d, -40, static_cast<int>(n));
  HIP_CHECK(hipMemcpy(out.data(), d, g, hipMemcpyDeviceToHost));
  bad += count_mismatches("kernel read read-only memory", out, iota_from(0, n));
  HIP_CHECK(hipFree(d));

  // Misuse of the queries and of hipFree.
  EXPECT_ERROR(hipMemGetAccess(nullptr, &here, p), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemGetAccess(&flags, nullptr, p), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemGetAccess(&flags, &here, static_cast<char*>(p) + g), hipErrorInvalidValue);
  hipMemLocation nowhere{hipMemLocationTypeDevice, 1 << 20};
  EXPECT_ERROR(hipMemGetAccess(&flags, &nowhere, p), hipErrorInvalidValue);
  EXPECT_ERROR(hipFree(p), hipErrorInvalidValue);

  HIP_CHECK(hipMemRelease(h));
  HIP_CHECK(hipMemUnmap(p, g));
  HIP_CHECK(hipMemAddressFree(p, g));
  return bad;
}

// The same address range remapped to another allocation shows the new allocation's bytes.
int remap(size_t g) {
  int bad = 0;
  const size_t n = g / sizeof(int);
  void* p = nullptr;
  HIP_CHECK(hipMemAddressReserve(&p, g, 0, nullptr, 0));
  std::vector<int> out(n);
  for (int round = 0; round < 3; ++round) {
    hipMemGenericAllocationHandle_t h;
    hipMemAllocationProp prop = device_prop(0);
    HIP_CHECK(hipMemCreate(&h, g, &prop, 0));
    HIP_CHECK(hipMemMap(p, g, 0, h, 0));
    give_access(p, g, 0);
    // A new allocation is zeroed; then filled.
    HIP_CHECK(hipMemcpy(out.data(), p, g, hipMemcpyDeviceToHost));
    bad += count_mismatches("new allocation", out, std::vector<int>(n, 0));
    HIP_CHECK(hipMemsetD32(p, round + 1, n));
    HIP_CHECK(hipMemcpy(out.data(), p, g, hipMemcpyDeviceToHost));
    bad += count_mismatches("filled", out, std::vector<int>(n, round + 1));
    HIP_CHECK(hipMemUnmap(p, g));
    HIP_CHECK(hipMemRelease(h));
  }
  HIP_CHECK(hipMemAddressFree(p, g));
  return bad;
}

// Exported as a file descriptor to a child process, which maps it and adds 1 to every int.
int shared_with_a_child(size_t g, const char* self) {
  int bad = 0;
  const size_t bytes = 2 * g, n = bytes / sizeof(int);
  hipMemGenericAllocationHandle_t h;
  hipMemAllocationProp prop = device_prop(0, true);
  HIP_CHECK(hipMemCreate(&h, bytes, &prop, 0));
  int fd = -1;
  HIP_CHECK(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
  EXPECT(fd >= 0);
  EXPECT_ERROR(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypeWin32, 0),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 1),
               hipErrorInvalidValue);

  void* p = nullptr;
  HIP_CHECK(hipMemAddressReserve(&p, bytes, 0, nullptr, 0));
  HIP_CHECK(hipMemMap(p, bytes, 0, h, 0));
  give_access(p, bytes, 0);
  std::vector<int> in = iota_from(-77, n), out(n), want(n);
  HIP_CHECK(hipMemcpy(p, in.data(), bytes, hipMemcpyHostToDevice));

  pid_t child = fork();
  if (child == 0) {
    // The descriptor outlives exec (a driver may make it close-on-exec).
    fcntl(fd, F_SETFD, 0);
    std::string fd_text = std::to_string(fd), bytes_text = std::to_string(bytes);
    execl("/proc/self/exe", self, "child", fd_text.c_str(), bytes_text.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  EXPECT(child > 0 && waitpid(child, &status, 0) == child);
  EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  HIP_CHECK(hipMemcpy(out.data(), p, bytes, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n; ++i) want[i] = in[i] + 1;
  bad += count_mismatches("changed by the child", out, want);

  // Imported here too: a second handle to the same memory.
  hipMemGenericAllocationHandle_t imported;
  HIP_CHECK(hipMemImportFromShareableHandle(&imported, reinterpret_cast<void*>(intptr_t(fd)),
                                            hipMemHandleTypePosixFileDescriptor));
  EXPECT(imported != h);
  void* q = nullptr;
  HIP_CHECK(hipMemAddressReserve(&q, bytes, 0, nullptr, 0));
  HIP_CHECK(hipMemMap(q, bytes, 0, imported, 0));
  give_access(q, bytes, 0);
  HIP_CHECK(hipMemcpy(out.data(), q, bytes, hipMemcpyDeviceToHost));
  bad += count_mismatches("imported here", out, want);
  EXPECT_ERROR(hipMemImportFromShareableHandle(&imported, nullptr,
                                               hipMemHandleTypePosixFileDescriptor),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipMemImportFromShareableHandle(&imported, reinterpret_cast<void*>(intptr_t(fd)),
                                               hipMemHandleTypeWin32),
               hipErrorNotSupported);
  close(fd);

  HIP_CHECK(hipMemUnmap(q, bytes));
  HIP_CHECK(hipMemAddressFree(q, bytes));
  HIP_CHECK(hipMemRelease(imported));
  HIP_CHECK(hipMemUnmap(p, bytes));
  HIP_CHECK(hipMemAddressFree(p, bytes));
  HIP_CHECK(hipMemRelease(h));
  return bad;
}

int child_main(int fd, size_t bytes) {
  const size_t n = bytes / sizeof(int);
  hipMemGenericAllocationHandle_t h;
  HIP_CHECK(hipMemImportFromShareableHandle(&h, reinterpret_cast<void*>(intptr_t(fd)),
                                            hipMemHandleTypePosixFileDescriptor));
  void* p = nullptr;
  HIP_CHECK(hipMemAddressReserve(&p, bytes, 0, nullptr, 0));
  HIP_CHECK(hipMemMap(p, bytes, 0, h, 0));
  give_access(p, bytes, 0);
  int* tmp = nullptr;
  HIP_CHECK(hipMalloc(&tmp, bytes));
  add<<<blocks(n), 256>>>(static_cast<int*>(p), tmp, 1, static_cast<int>(n));
  HIP_CHECK(hipMemcpy(p, tmp, bytes, hipMemcpyDeviceToDevice));
  HIP_CHECK(hipFree(tmp));
  HIP_CHECK(hipMemUnmap(p, bytes));
  HIP_CHECK(hipMemAddressFree(p, bytes));
  HIP_CHECK(hipMemRelease(h));
  return 0;
}

// Arguments HIP refuses.
int misuse(size_t g) {
  int bad = 0;
  hipMemAllocationProp prop = device_prop(0);
  hipMemGenericAllocationHandle_t h;
  size_t got = 0;
  EXPECT_ERROR(hipMemGetAllocationGranularity(nullptr, &prop, hipMemAllocationGranularityMinimum),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipMemGetAllocationGranularity(&got, &prop,
                                              static_cast<hipMemAllocationGranularity_flags>(7)),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipMemCreate(nullptr, g, &prop, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemCreate(&h, g, nullptr, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemCreate(&h, 0, &prop, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemCreate(&h, g - 1, &prop, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemCreate(&h, g, &prop, 1), hipErrorInvalidValue);
  hipMemAllocationProp wrong = prop;
  wrong.type = hipMemAllocationTypeInvalid;
  EXPECT_ERROR(hipMemCreate(&h, g, &wrong, 0), hipErrorInvalidValue);
  wrong = prop;
  wrong.location.type = hipMemLocationTypeInvalid;
  EXPECT_ERROR(hipMemCreate(&h, g, &wrong, 0), hipErrorInvalidValue);
  wrong = prop;
  wrong.location.id = -1;
  EXPECT_ERROR(hipMemCreate(&h, g, &wrong, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemRelease(nullptr), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemGetAllocationPropertiesFromHandle(&prop, nullptr), hipErrorInvalidValue);

  void* p = nullptr;
  EXPECT_ERROR(hipMemAddressReserve(nullptr, g, 0, nullptr, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemAddressReserve(&p, 0, 0, nullptr, 0), hipErrorMemoryAllocation);
  EXPECT_ERROR(hipMemAddressReserve(&p, g - 1, 0, nullptr, 0), hipErrorMemoryAllocation);
  EXPECT_ERROR(hipMemAddressReserve(&p, g, 3 * g, nullptr, 0), hipErrorMemoryAllocation);
  EXPECT_ERROR(hipMemAddressReserve(&p, g, 0, nullptr, 1), hipErrorInvalidValue);

  // An alignment larger than the granularity is honoured; an address hint is only a hint (the
  // CUDA driver may place the range elsewhere), the range is reserved either way.
  HIP_CHECK(hipMemAddressReserve(&p, g, 64 * g, nullptr, 0));
  EXPECT(reinterpret_cast<uintptr_t>(p) % (64 * g) == 0);
  HIP_CHECK(hipMemAddressFree(p, g));
  void* again = nullptr;
  HIP_CHECK(hipMemAddressReserve(&again, g, 0, p, 0));
  EXPECT(again != nullptr && reinterpret_cast<uintptr_t>(again) % g == 0);
  p = again;
  EXPECT_ERROR(hipMemAddressFree(p, 2 * g), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemAddressFree(static_cast<char*>(p) + g, g), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemAddressFree(nullptr, g), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemAddressFree(p, 0), hipErrorInvalidValue);

  HIP_CHECK(hipMemCreate(&h, g, &prop, 0));
  EXPECT_ERROR(hipMemMap(nullptr, g, 0, h, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemMap(p, 0, 0, h, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemMap(p, g, 0, nullptr, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemMap(p, g, 0, h, 1), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemMap(p, 2 * g, 0, h, 0), hipErrorInvalidValue);
  // Not reserved: a host variable's address, memory from hipMalloc.
  int local = 0;
  EXPECT_ERROR(hipMemMap(&local, g, 0, h, 0), hipErrorInvalidValue);
  void* plain = nullptr;
  HIP_CHECK(hipMalloc(&plain, g));
  EXPECT_ERROR(hipMemMap(plain, g, 0, h, 0), hipErrorInvalidValue);
  HIP_CHECK(hipFree(plain));
  HIP_CHECK(hipMemMap(p, g, 0, h, 0));
  // Over a mapped range; unmapping or giving access to a range not mapped.
  EXPECT_ERROR(hipMemMap(p, g, 0, h, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemUnmap(nullptr, g), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemUnmap(p, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemUnmap(p, g / 2), hipErrorInvalidValue);
  hipMemAccessDesc access{};
  access.location.type = hipMemLocationTypeDevice;
  access.location.id = 0;
  access.flags = hipMemAccessFlagsProtReadWrite;
  EXPECT_ERROR(hipMemSetAccess(p, 2 * g, &access, 1), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemSetAccess(p, g, &access, 0), hipErrorInvalidValue);
  access.flags = static_cast<hipMemAccessFlags>(2);
  EXPECT_ERROR(hipMemSetAccess(p, g, &access, 1), hipErrorInvalidValue);
  access.flags = hipMemAccessFlagsProtReadWrite;
  access.location.id = 1 << 20;
  EXPECT_ERROR(hipMemSetAccess(p, g, &access, 1), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemRetainAllocationHandle(nullptr, p), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemRetainAllocationHandle(&h, nullptr), hipErrorInvalidValue);
  hipArrayMapInfo info{};
  EXPECT_ERROR(hipMemMapArrayAsync(nullptr, 1, nullptr), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemMapArrayAsync(&info, 1, nullptr), hipErrorNotSupported);

  HIP_CHECK(hipMemUnmap(p, g));
  HIP_CHECK(hipMemRelease(h));
  EXPECT_ERROR(hipMemMap(p, g, 0, h, 0), hipErrorInvalidValue);
  HIP_CHECK(hipMemAddressFree(p, g));
  EXPECT_ERROR(hipMemAddressFree(p, g), hipErrorInvalidValue);
  return bad;
}

// A physical allocation is device memory in use whether mapped or not: hipMemGetInfo's free
// memory drops by its size while it lives (a 64 MiB one: far above what the runtime itself may
// allocate meanwhile) and comes back once it is released.
int counted_as_used(size_t g) {
  int bad = 0;
  const size_t bytes = (64u << 20) / g * g + g;
  size_t free_before = 0, free_during = 0, free_after = 0, total = 0;
  HIP_CHECK(hipMemGetInfo(&free_before, &total));
  hipMemGenericAllocationHandle_t h;
  hipMemAllocationProp prop = device_prop(0);
  HIP_CHECK(hipMemCreate(&h, bytes, &prop, 0));
  HIP_CHECK(hipMemGetInfo(&free_during, &total));
  HIP_CHECK(hipMemRelease(h));
  HIP_CHECK(hipMemGetInfo(&free_after, &total));
  EXPECT(free_during + bytes <= free_before);
  EXPECT(free_after >= free_during + bytes / 2);
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "child") == 0) {
    return child_main(std::atoi(argv[2]), std::strtoull(argv[3], nullptr, 10));
  }
  int supported = -1;
  HIP_CHECK(hipDeviceGetAttribute(&supported, hipDeviceAttributeVirtualMemoryManagementSupported,
                                  0));
  hipMemAllocationProp prop = device_prop(0);
  size_t minimum = 0, recommended = 0;
  if (!supported) {
    // Then every call says so.
    EXPECT_ERROR(
        hipMemGetAllocationGranularity(&minimum, &prop, hipMemAllocationGranularityMinimum),
        hipErrorNotSupported);
    std::printf("virtual memory management not supported by device 0\n");
    return report("virtual_memory", 0);
  }
  HIP_CHECK(hipMemGetAllocationGranularity(&minimum, &prop, hipMemAllocationGranularityMinimum));
  HIP_CHECK(
      hipMemGetAllocationGranularity(&recommended, &prop, hipMemAllocationGranularityRecommended));
  int bad = 0;
  EXPECT(minimum > 0 && recommended >= minimum && recommended % minimum == 0);
  // A buffer of 40 KiB rounded up to the granularity, as programs size them.
  const size_t chunk = (40 * 1024 + minimum - 1) / minimum * minimum;
  bad += chunks_as_one_buffer(chunk);
  bad += one_allocation_two_addresses(chunk);
  bad += one_allocation_at_two_addresses(chunk);
  bad += access_rules(chunk);
  bad += remap(chunk);
  bad += shared_with_a_child(chunk, argv[0]);
  bad += counted_as_used(minimum);
  bad += misuse(minimum);
  return report("virtual_memory", bad);
}
