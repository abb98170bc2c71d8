// Stream-ordered allocation and memory pools, as HIP programs use them: hipMallocAsync and
// hipFreeAsync around kernels on streams, memory freed in stream order reused by later
// allocations (on the same stream, after the free completed, and through the dependency the
// runtime inserts), the reuse rules switched off, pools created and made current, their
// statistics, release threshold and trimming, access, destruction with allocations still out,
// and misuse. Device results are compared with host references on every element.
#include "test_common.h"

#include <cstdint>

__global__ void iota(int* p, int base, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}

__global__ void twice(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

constexpr int N = 1 << 16;
constexpr size_t BYTES = N * sizeof(int);

static std::vector<int> expected(int base, int factor) {
  std::vector<int> want(N);
  for (int i = 0; i < N; ++i) want[i] = factor * (base + i);
  return want;
}

static uint64_t attribute(hipMemPool_t pool, hipMemPoolAttr attr) {
  uint64_t v = 0;
  HIP_CHECK(hipMemPoolGetAttribute(pool, attr, &v));
  return v;
}

// Allocations in stream order, reused after frees.
static int reuse(hipStream_t s1, hipStream_t s2) {
  int bad = 0;
  std::vector<int> out(N);
  int *a, *b;
  HIP_CHECK(hipMallocAsync(&a, BYTES, s1));
  HIP_CHECK(hipMallocAsync(&b, BYTES, s1));
  iota<<<N / 256, 256, 0, s1>>>(a, 5, N);
  twice<<<N / 256, 256, 0, s1>>>(a, b, N);
  HIP_CHECK(hipFreeAsync(a, s1));
  // The same stream reuses the freed block at once: stream order keeps its users apart.
  int* c;
  HIP_CHECK(hipMallocAsync(&c, BYTES, s1));
  EXPECT(c == a);
  iota<<<N / 256, 256, 0, s1>>>(c, 100, N);
  HIP_CHECK(hipMemcpyAsync(out.data(), b, BYTES, hipMemcpyDeviceToHost, s1));
  HIP_CHECK(hipStreamSynchronize(s1));
  bad += count_mismatches("b = 2 * a", out, expected(5, 2));
  HIP_CHECK(hipMemcpy(out.data(), c, BYTES, hipMemcpyDeviceToHost));
  bad += count_mismatches("reused block", out, expected(100, 1));

  // Another stream, not ordered after the free: the runtime makes it wait for the free (the
  // data written before the free is never clobbered early).
  iota<<<N / 256, 256, 0, s1>>>(c, 7, N);
  twice<<<N / 256, 256, 0, s1>>>(c, b, N);
  HIP_CHECK(hipFreeAsync(c, s1));
  int* d;
  HIP_CHECK(hipMallocAsync(&d, BYTES, s2));
  EXPECT(d == c);
  iota<<<N / 256, 256, 0, s2>>>(d, -3, N);
  HIP_CHECK(hipStreamSynchronize(s2));
  HIP_CHECK(hipStreamSynchronize(s1));
  HIP_CHECK(hipMemcpy(out.data(), b, BYTES, hipMemcpyDeviceToHost));
  bad += count_mismatches("written before the free", out, expected(7, 2));
  HIP_CHECK(hipMemcpy(out.data(), d, BYTES, hipMemcpyDeviceToHost));
  bad += count_mismatches("written after the reuse", out, expected(-3, 1));

  // With the internal dependency and opportunistic reuse off, an unordered stream gets new
  // memory; once the free completed, opportunistic reuse takes it again.
  hipMemPool_t pool;
  HIP_CHECK(hipDeviceGetMemPool(&pool, 0));
  int off = 0, on = 1;
  HIP_CHECK(hipMemPoolSetAttribute(pool, hipMemPoolReuseAllowInternalDependencies, &off));
  HIP_CHECK(hipMemPoolSetAttribute(pool, hipMemPoolReuseAllowOpportunistic, &off));
  int flag = 1;
  HIP_CHECK(hipMemPoolGetAttribute(pool, hipMemPoolReuseAllowInternalDependencies, &flag));
  EXPECT(flag == 0);
  HIP_CHECK(hipFreeAsync(d, s2));
  int* e;
  HIP_CHECK(hipMallocAsync(&e, BYTES, s1));
  EXPECT(e != d);
  HIP_CHECK(hipStreamSynchronize(s2));
  HIP_CHECK(hipMemPoolSetAttribute(pool, hipMemPoolReuseAllowOpportunistic, &on));
  int* f;
  HIP_CHECK(hipMallocAsync(&f, BYTES, s1));
  EXPECT(f == d);
  HIP_CHECK(hipMemPoolSetAttribute(pool, hipMemPoolReuseAllowInternalDependencies, &on));
  HIP_CHECK(hipFreeAsync(e, s1));
  HIP_CHECK(hipFreeAsync(f, s1));
  HIP_CHECK(hipFreeAsync(b, s1));
  HIP_CHECK(hipStreamSynchronize(s1));
  if (bad) std::printf("reuse: %d mismatches\n", bad);
  return bad;
}

// A created pool: statistics, threshold, trimming, access, current pool, destruction.
static int pools(hipStream_t stream) {
  int bad = 0;
  int supported = 0;
  HIP_CHECK(hipDeviceGetAttribute(&supported, hipDeviceAttributeMemoryPoolsSupported, 0));
  EXPECT(supported == 1);
  hipMemPoolProps props{};
  props.allocType = hipMemAllocationTypePinned;
  props.location.type = hipMemLocationTypeDevice;
  props.location.id = 0;
  hipMemPool_t pool;
  HIP_CHECK(hipMemPoolCreate(&pool, &props));
  EXPECT(attribute(pool, hipMemPoolAttrReleaseThreshold) == 0);
  int flag = 0;
  HIP_CHECK(hipMemPoolGetAttribute(pool, hipMemPoolReuseFollowEventDependencies, &flag));
  EXPECT(flag == 1);

  // Big enough to be a block of its own in any pool (the CUDA driver's reserve in chunks).
  const size_t BIG = 64ull << 20;
  int *big, *small;
  HIP_CHECK(hipMallocFromPoolAsync(reinterpret_cast<void**>(&big), BIG, pool, stream));
  HIP_CHECK(hipMallocFromPoolAsync(reinterpret_cast<void**>(&small), 1000, pool, stream));
  EXPECT(attribute(pool, hipMemPoolAttrUsedMemCurrent) == BIG + 1000);
  EXPECT(attribute(pool, hipMemPoolAttrReservedMemCurrent) >= BIG + 1000);
  iota<<<N / 256, 256, 0, stream>>>(big, 11, N);
  std::vector<int> out(N);
  HIP_CHECK(hipMemcpyAsync(out.data(), big, BYTES, hipMemcpyDeviceToHost, stream));
  HIP_CHECK(hipFreeAsync(big, stream));
  EXPECT(attribute(pool, hipMemPoolAttrUsedMemCurrent) == 1000);
  // Synchronizing gives back what is above the release threshold (0): the freed big block.
  uint64_t reserved_before = attribute(pool, hipMemPoolAttrReservedMemCurrent);
  HIP_CHECK(hipStreamSynchronize(stream));
  bad += count_mismatches("pool allocation", out, expected(11, 1));
  uint64_t reserved_after = attribute(pool, hipMemPoolAttrReservedMemCurrent);
  EXPECT(reserved_after < reserved_before && reserved_after >= 1000);
  EXPECT(attribute(pool, hipMemPoolAttrUsedMemHigh) == BIG + 1000);
  EXPECT(attribute(pool, hipMemPoolAttrReservedMemHigh) >= reserved_before);

  // A threshold keeps freed memory through synchronizations; trimming gives it back.
  uint64_t threshold = 256ull << 20;
  HIP_CHECK(hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &threshold));
  EXPECT(attribute(pool, hipMemPoolAttrReleaseThreshold) == threshold);
  HIP_CHECK(hipMallocFromPoolAsync(reinterpret_cast<void**>(&big), BIG, pool, stream));
  HIP_CHECK(hipFreeAsync(big, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  uint64_t kept = attribute(pool, hipMemPoolAttrReservedMemCurrent);
  EXPECT(kept >= BIG + 1000);
  HIP_CHECK(hipMemPoolTrimTo(pool, 1000));
  EXPECT(attribute(pool, hipMemPoolAttrReservedMemCurrent) < kept);
  EXPECT(attribute(pool, hipMemPoolAttrReservedMemCurrent) >= 1000);
  // High marks reset to the current values.
  uint64_t zero = 0;
  HIP_CHECK(hipMemPoolSetAttribute(pool, hipMemPoolAttrUsedMemHigh, &zero));
  EXPECT(attribute(pool, hipMemPoolAttrUsedMemHigh) == 1000);

  // Access: the pool's own device has read-write access.
  hipMemLocation here{hipMemLocationTypeDevice, 0};
  hipMemAccessFlags access = hipMemAccessFlagsProtNone;
  HIP_CHECK(hipMemPoolGetAccess(&access, pool, &here));
  EXPECT(access == hipMemAccessFlagsProtReadWrite);
  hipMemAccessDesc desc{here, hipMemAccessFlagsProtReadWrite};
  HIP_CHECK(hipMemPoolSetAccess(pool, &desc, 1));
  desc.flags = hipMemAccessFlagsProtNone;
  EXPECT_ERROR(hipMemPoolSetAccess(pool, &desc, 1), hipErrorInvalidDevice);

  // The created pool as the device's current one: hipMallocAsync takes from it.
  hipMemPool_t default_pool, current;
  HIP_CHECK(hipDeviceGetDefaultMemPool(&default_pool, 0));
  HIP_CHECK(hipDeviceGetMemPool(&current, 0));
  EXPECT(current == default_pool && default_pool != pool);
  HIP_CHECK(hipDeviceSetMemPool(0, pool));
  HIP_CHECK(hipDeviceGetMemPool(&current, 0));
  EXPECT(current == pool);
  int* from_current;
  HIP_CHECK(hipMallocAsync(&from_current, 4096, stream));
  EXPECT(attribute(pool, hipMemPoolAttrUsedMemCurrent) == 1000 + 4096);
  iota<<<16, 256, 0, stream>>>(from_current, 0, 1024);
  HIP_CHECK(hipStreamSynchronize(stream));
  std::vector<int> small_out(1024), small_want(1024);
  HIP_CHECK(hipMemcpy(small_out.data(), from_current, 4096, hipMemcpyDeviceToHost));
  for (int i = 0; i < 1024; ++i) small_want[i] = i;
  bad += count_mismatches("current pool", small_out, small_want);
  // hipFree waits for the device and frees a pool allocation too.
  HIP_CHECK(hipFree(from_current));
  EXPECT(attribute(pool, hipMemPoolAttrUsedMemCurrent) == 1000);

  // Destroyed with an allocation still out: the device returns to its default pool, and the
  // allocation stays usable until it is freed.
  HIP_CHECK(hipMemPoolDestroy(pool));
  HIP_CHECK(hipDeviceGetMemPool(&current, 0));
  EXPECT(current == default_pool);
  EXPECT_ERROR(hipMemPoolGetAttribute(pool, hipMemPoolAttrUsedMemCurrent, &threshold),
               hipErrorInvalidValue);
  HIP_CHECK(hipMemsetAsync(small, 9, 1000, stream));
  HIP_CHECK(hipFreeAsync(small, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  EXPECT_ERROR(hipMemPoolDestroy(default_pool), hipErrorInvalidValue);

  // Sharing with other processes needs a backend that can: where the device reports no
  // shareable handle types, an exportable pool is refused with hipErrorNotSupported.
  int handle_types = 0;
  HIP_CHECK(hipDeviceGetAttribute(&handle_types, hipDeviceAttributeMemoryPoolSupportedHandleTypes,
            0));
  if (handle_types == 0) {
    props.handleTypes = hipMemHandleTypePosixFileDescriptor;
    EXPECT_ERROR(hipMemPoolCreate(&pool, &props), hipErrorNotSupported);
    int fd = -1;
    EXPECT_ERROR(hipMemPoolExportToShareableHandle(&fd, default_pool,
                                                   hipMemHandleTypePosixFileDescriptor, 0),
                 hipErrorNotSupported);
  }
  if (bad) std::printf("pools: %d mismatches\n", bad);
  return bad;
}

static int misuse(hipStream_t stream) {
  int bad = 0;
  int* p = nullptr;
  EXPECT_ERROR(hipMallocAsync(nullptr, 64, stream), hipErrorInvalidValue);
  // A handle naming no live stream: hipErrorInvalidHandle, as HIP answers for stream-ordered
  // allocation (other stream calls say hipErrorContextIsDestroyed).
  EXPECT_ERROR(hipMallocAsync(reinterpret_cast<void**>(&p), 64, reinterpret_cast<hipStream_t>(-1)),
               hipErrorInvalidHandle);
  HIP_CHECK(hipMallocAsync(reinterpret_cast<void**>(&p), 64, stream));
  EXPECT_ERROR(hipFreeAsync(p, reinterpret_cast<hipStream_t>(-1)), hipErrorInvalidHandle);
  HIP_CHECK(hipFreeAsync(p, stream));
  p = nullptr;
  EXPECT_ERROR(hipMallocAsync(reinterpret_cast<void**>(&p), SIZE_MAX / 2, stream),
               hipErrorOutOfMemory);
  EXPECT_ERROR(hipFreeAsync(nullptr, stream), hipErrorInvalidValue);
  int local = 0;
  EXPECT_ERROR(hipFreeAsync(&local, stream), hipErrorInvalidValue);
  HIP_CHECK(hipMallocAsync(reinterpret_cast<void**>(&p), 64, stream));
  HIP_CHECK(hipFreeAsync(p, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  EXPECT_ERROR(hipFreeAsync(p, stream), hipErrorInvalidValue);
  hipMemPoolProps props{};
  props.allocType = hipMemAllocationTypePinned;
  props.location.type = hipMemLocationTypeDevice;
  props.location.id = 0;
  hipMemPool_t pool;
  EXPECT_ERROR(hipMemPoolCreate(nullptr, &props), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemPoolCreate(&pool, nullptr), hipErrorInvalidValue);
  props.allocType = hipMemAllocationTypeInvalid;
  EXPECT_ERROR(hipMemPoolCreate(&pool, &props), hipErrorInvalidValue);
  props.allocType = hipMemAllocationTypePinned;
  props.location.id = 99;
  EXPECT_ERROR(hipMemPoolCreate(&pool, &props), hipErrorInvalidValue);
  props.location.id = 0;
  HIP_CHECK(hipMemPoolCreate(&pool, &props));
  uint64_t one = 1;
  EXPECT_ERROR(hipMemPoolSetAttribute(pool, hipMemPoolAttrReservedMemHigh, &one),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipMemPoolSetAttribute(pool, hipMemPoolAttrUsedMemCurrent, &one),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipMemPoolSetAttribute(pool, static_cast<hipMemPoolAttr>(9), &one),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipMemPoolGetAttribute(pool, hipMemPoolAttrUsedMemHigh, nullptr),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipMemPoolSetAttribute(nullptr, hipMemPoolAttrReleaseThreshold, &one),
               hipErrorInvalidValue);
  int count = 0;
  HIP_CHECK(hipGetDeviceCount(&count));
  hipMemAccessDesc desc{{hipMemLocationTypeDevice, 0}, hipMemAccessFlagsProtReadWrite};
  EXPECT_ERROR(hipMemPoolSetAccess(pool, &desc, count + 1), hipErrorInvalidDevice);
  desc.location.id = count;
  EXPECT_ERROR(hipMemPoolSetAccess(pool, &desc, 1), hipErrorInvalidDevice);
  desc.location.type = hipMemLocationTypeInvalid;
  EXPECT_ERROR(hipMemPoolSetAccess(pool, &desc, 1), hipErrorInvalidValue);
  hipMemAccessFlags flags;
  hipMemLocation where{hipMemLocationTypeDevice, count};
  EXPECT_ERROR(hipMemPoolGetAccess(&flags, pool, &where), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemPoolTrimTo(nullptr, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipDeviceGetDefaultMemPool(&pool, count), hipErrorInvalidDevice);
  EXPECT_ERROR(hipDeviceSetMemPool(count, pool), hipErrorInvalidValue);
  EXPECT_ERROR(hipDeviceSetMemPool(0, nullptr), hipErrorInvalidValue);
  EXPECT_ERROR(hipDeviceGetMemPool(nullptr, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMallocFromPoolAsync(reinterpret_cast<void**>(&p), 64, nullptr, stream),
               hipErrorInvalidValue);
  HIP_CHECK(hipMemPoolDestroy(pool));
  EXPECT_ERROR(hipMemPoolDestroy(pool), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemPoolDestroy(nullptr), hipErrorInvalidValue);
  return bad;
}

int main() {
  hipStream_t s1, s2;
  HIP_CHECK(hipStreamCreate(&s1));
  HIP_CHECK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
  int bad = reuse(s1, s2);
  bad += pools(s1);
  bad += misuse(s1);
  HIP_CHECK(hipStreamDestroy(s1));
  HIP_CHECK(hipStreamDestroy(s2));
  return report("mempool", bad);
}
