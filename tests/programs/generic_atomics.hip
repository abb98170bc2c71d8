// Atomics through pointers whose address space only the run time knows: a global counter block
// reached through a struct in device memory, and a pointer that a run-time flag points at
// shared memory or at a thread's own array. Every atomic of the HIP headers (add, sub, and, or,
// xor, min, max, exchange, inc, dec, the memory-model load and store, float and double adds),
// 32 and 64 bit, each checked against a host reference.
#include "test_common.h"

#include <algorithm>

// Counter slots: 0 add, 1 sub, 2 and, 3 or, 4 xor, 5 min, 6 max, 7 exchange, 8 sum of the
// exchanged-out values, 9 store, 10 read by atomic loads (never written), 11 sum of those
// loads, 12 inc (unsigned int only), 13 dec (unsigned int only).
constexpr int kSlots = 14;
constexpr int kBlocks = 2;
constexpr int kThreads = 64;
constexpr unsigned kWrap = 9;

template <typename T>
struct Counters {
  T* slots;
};

template <typename T>
__host__ __device__ T initial(int slot) {
  switch (slot) {
    case 2: return static_cast<T>(-1);
    case 5: return static_cast<T>(1000);
    case 6: return static_cast<T>(-1) > 0 ? T(0) : static_cast<T>(-1000);
    case 10: return static_cast<T>(5);
    default: return static_cast<T>(0);
  }
}

template <typename T>
__host__ __device__ T spread(int i) {
  return static_cast<T>(50 - (i * 37) % 101);
}

// The wrapping increment and decrement exist for unsigned int only.
__device__ void wrapping_ops(unsigned* p, int) {
  atomicInc(&p[12], kWrap);
  atomicDec(&p[13], kWrap);
}
template <typename T>
__device__ void wrapping_ops(T*, int) {}

template <typename T>
__device__ void integer_ops(T* p, int i) {
  T v = static_cast<T>(i + 1);
  T bit = static_cast<T>(T(1) << (i % 16));
  atomicAdd(&p[0], v);
  atomicSub(&p[1], v);
  atomicAnd(&p[2], static_cast<T>(~bit));
  atomicOr(&p[3], bit);
  atomicXor(&p[4], bit);
  atomicMin(&p[5], spread<T>(i));
  atomicMax(&p[6], spread<T>(i));
  T old = atomicExch(&p[7], v);
  atomicAdd(&p[8], old);
  if (i % kThreads == 0) __atomic_store_n(&p[9], static_cast<T>(42), __ATOMIC_RELAXED);
  atomicAdd(&p[11], __atomic_load_n(&p[10], __ATOMIC_RELAXED));
  wrapping_ops(p, i);
}

template <typename T>
__device__ void float_ops(T* p, int i) {
  T v = static_cast<T>(i % 4) * static_cast<T>(0.5);
  atomicAdd(&p[0], v);
  atomicSub(&p[1], v);
  atomicMin(&p[5], static_cast<T>(spread<int>(i)));
  atomicMax(&p[6], static_cast<T>(spread<int>(i)));
  T old = atomicExch(&p[7], v + 1);
  atomicAdd(&p[8], old);
  atomicAdd(&p[11], __hip_atomic_load(&p[10], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT));
}

template <typename T>
__device__ void ops(T* p, int i) {
  integer_ops(p, i);
}
__device__ void ops(float* p, int i) { float_ops(p, i); }
__device__ void ops(double* p, int i) { float_ops(p, i); }

template <typename T>
__device__ T* choose(bool first, T* a, T* b) {
  return first ? a : b;
}

// Each thread works on the global counters, on its block's shared counters and on its own.
template <typename T>
__global__ void all_atomics(const Counters<T>* global, T* shared_out, T* private_out,
                            int use_memory) {
  __shared__ T cache[kSlots];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  ops(global->slots, i);

  if (threadIdx.x < kSlots) cache[threadIdx.x] = initial<T>(threadIdx.x);
  __syncthreads();
  ops(choose(use_memory != 0, cache, global->slots), i);
  __syncthreads();
  if (threadIdx.x < kSlots) shared_out[blockIdx.x * kSlots + threadIdx.x] = cache[threadIdx.x];

  T mine[kSlots];
  for (int s = 0; s < kSlots; ++s) mine[s] = initial<T>(s);
  T* own = choose(use_memory == 0, global->slots, mine);
  ops(own, i);
  for (int s = 0; s < kSlots; ++s) private_out[i * kSlots + s] = mine[s];
}

// One thread's `ops` on the host.
template <typename T>
void step(std::vector<T>& c, int i, bool wrapping) {
  T v = static_cast<T>(i + 1);
  T bit = static_cast<T>(T(1) << (i % 16));
  c[0] += v;
  c[1] -= v;
  c[2] &= static_cast<T>(~bit);
  c[3] |= bit;
  c[4] ^= bit;
  c[5] = std::min(c[5], spread<T>(i));
  c[6] = std::max(c[6], spread<T>(i));
  c[8] += v;
  if (i % kThreads == 0) c[9] = 42;
  c[11] += c[10];
  if (wrapping) {
    c[12] = c[12] >= kWrap ? 0 : c[12] + 1;
    c[13] = (c[13] == 0 || c[13] > kWrap) ? kWrap : c[13] - 1;
  }
}

template <typename T>
void float_step(std::vector<T>& c, int i) {
  T v = static_cast<T>(i % 4) * static_cast<T>(0.5);
  c[0] += v;
  c[1] -= v;
  c[5] = std::min(c[5], static_cast<T>(spread<int>(i)));
  c[6] = std::max(c[6], static_cast<T>(spread<int>(i)));
  c[8] += v + 1;
  c[11] += c[10];
}
void step(std::vector<float>& c, int i, bool) { float_step(c, i); }
void step(std::vector<double>& c, int i, bool) { float_step(c, i); }

// The counters after the threads `first`..`first + count - 1` ran `ops`, with the exchanged
// value and the sum of exchanged-out values summed up (their split depends on the order).
template <typename T>
std::vector<T> reference(int first, int count, bool wrapping) {
  std::vector<T> c(kSlots);
  for (int s = 0; s < kSlots; ++s) c[s] = initial<T>(s);
  for (int i = first; i < first + count; ++i) step(c, i, wrapping);
  // Exchange: the final value and the values exchanged out are the initial one and the values
  // exchanged in, in some order.
  c[8] += c[7];
  c[7] = 0;
  return c;
}

template <typename T>
std::vector<T> fold_exchange(std::vector<T> got) {
  for (size_t at = 0; at + kSlots <= got.size(); at += kSlots) {
    got[at + 8] += got[at + 7];
    got[at + 7] = 0;
  }
  return got;
}

template <typename T>
int check(const char* name, bool wrapping) {
  const int n = kBlocks * kThreads;
  std::vector<T> init(kSlots);
  for (int s = 0; s < kSlots; ++s) init[s] = initial<T>(s);
  T* slots = to_device(init);
  Counters<T>* counters = to_device(std::vector<Counters<T>>{Counters<T>{slots}});
  T* shared_out;
  T* private_out;
  HIP_CHECK(hipMalloc(&shared_out, kBlocks * kSlots * sizeof(T)));
  HIP_CHECK(hipMalloc(&private_out, n * kSlots * sizeof(T)));
  hipLaunchKernelGGL(all_atomics<T>, dim3(kBlocks), dim3(kThreads), 0, 0, counters, shared_out,
                     private_out, 1);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());

  std::vector<T> want_global = reference<T>(0, n, wrapping);
  std::vector<T> want_shared, want_private;
  for (int b = 0; b < kBlocks; ++b) {
    std::vector<T> r = reference<T>(b * kThreads, kThreads, wrapping);
    want_shared.insert(want_shared.end(), r.begin(), r.end());
  }
  for (int i = 0; i < n; ++i) {
    std::vector<T> r = reference<T>(i, 1, wrapping);
    want_private.insert(want_private.end(), r.begin(), r.end());
  }
  int bad = count_mismatches("global", fold_exchange(from_device(slots, kSlots)), want_global);
  bad += count_mismatches("shared", fold_exchange(from_device(shared_out, kBlocks * kSlots)),
                          want_shared);
  bad += count_mismatches("private", fold_exchange(from_device(private_out, n * kSlots)),
                          want_private);
  HIP_CHECK(hipFree(slots));
  HIP_CHECK(hipFree(counters));
  HIP_CHECK(hipFree(shared_out));
  HIP_CHECK(hipFree(private_out));
  return report(name, bad);
}

int main() {
  int failures = check<int>("int atomics", false);
  failures += check<unsigned>("unsigned atomics", true);
  failures += check<long long>("long long atomics", false);
  failures += check<unsigned long long>("unsigned long long atomics", false);
  failures += check<float>("float atomics", false);
  failures += check<double>("double atomics", false);
  if (failures) return 1;
  std::printf("generic_atomics PASSED\n");
  return 0;
}
