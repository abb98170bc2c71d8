// Dynamic memory in device code: malloc/free from many threads at once (many block sizes,
// memset and memcpy on the memory), memory reused after free (far more allocations than the heap
// holds), malloc returning NULL when the heap is exhausted, memory allocated by one kernel and
// freed by another, and new/delete of objects with constructors and destructors (single objects,
// arrays, braced lists, placement new), in templates; the heap counted as memory in use by
// hipMemGetInfo. Every result is compared with a host reference.
#include "test_common.h"

#include <cstring>

// Small enough that the churn below reuses it many times over, large enough that what the
// earlier kernels carve with every thread of a GPU live at once (blocks are never split or
// merged) leaves room for the exhaustion test at the end.
constexpr size_t kHeapBytes = 16 << 20;

__device__ int constructed = 0;
__device__ int destroyed = 0;

struct Particle {
  float x;
  float v;
  int id;
  __device__ Particle(int i, float x0) : x(x0), v(0.5f * i), id(i) { atomicAdd(&constructed, 1); }
  __device__ Particle() : x(1.0f), v(2.0f), id(-1) { atomicAdd(&constructed, 1); }
  __device__ ~Particle() { atomicAdd(&destroyed, 1); }
  __device__ float step(float dt) const { return x + v * dt; }
};

struct Plain {
  int a;
  short b;
};

// Element i of thread t's buffer.
__host__ __device__ inline int pattern(int t, int i) { return t * 1000 + i * 3; }

constexpr int kMaxElements = 1 + 12 * 37;

// Each thread allocates a buffer of its own size, fills it, copies it with memcpy into a second
// one cleared with memset, writes the copy out and frees both.
__global__ void fill_and_copy(int* out, int threads) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  int n = 1 + (t % 13) * 37;
  int* data = static_cast<int*>(malloc(n * sizeof(int)));
  int* copy = static_cast<int*>(malloc(n * sizeof(int)));
  if (data == nullptr || copy == nullptr) {
    out[t * kMaxElements] = -1;
    return;
  }
  for (int i = 0; i < n; ++i) data[i] = pattern(t, i);
  memset(copy, 0, n * sizeof(int));
  memcpy(copy, data, n * sizeof(int));
  for (int i = 0; i < n; ++i) out[t * kMaxElements + i] = copy[i];
  free(copy);
  free(data);
}

// Rounds of allocate, write, check, free: only reuse makes them fit the heap.
__global__ void churn(int* failures, int rounds, int bytes) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int bad = 0;
  for (int r = 0; r < rounds; ++r) {
    unsigned char* p = static_cast<unsigned char*>(malloc(bytes));
    if (p == nullptr) {
      ++bad;
      continue;
    }
    for (int i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(t + r + i);
    for (int i = 0; i < bytes; ++i) {
      if (p[i] != static_cast<unsigned char>(t + r + i)) ++bad;
    }
    free(p);
  }
  failures[t] = bad;
}

// One thread takes blocks until malloc returns NULL, frees them all, and takes them again.
__global__ void exhaust(int* counts, size_t bytes, int most) {
  void** taken = static_cast<void**>(malloc(most * sizeof(void*)));
  if (taken == nullptr) {
    counts[0] = -1;
    return;
  }
  for (int pass = 0; pass < 2; ++pass) {
    int n = 0;
    while (n < most) {
      void* p = malloc(bytes);
      if (p == nullptr) break;
      taken[n++] = p;
    }
    counts[pass] = n;
    for (int i = 0; i < n; ++i) free(taken[i]);
  }
  free(taken);
}

// Memory that outlives its kernel: allocated here, read and freed by `consume`.
__global__ void produce(int** slots, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int* p = new int[t + 1];
  for (int i = 0; i <= t; ++i) p[i] = t - i;
  slots[t] = p;
}

__global__ void consume(int** slots, int* totals, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int total = 0;
  for (int i = 0; i <= t; ++i) total += slots[t][i];
  totals[t] = total;
  delete[] slots[t];
}

template <typename T>
__device__ T* make_sequence(int n, T first, T step) {
  T* out = new T[n];
  for (int i = 0; i < n; ++i) out[i] = first + step * static_cast<T>(i);
  return out;
}

// Objects with constructors and destructors: single ones, arrays (whose delete[] destroys every
// element), braced lists, placement new into malloc'd memory.
__global__ void objects(float* out, int* ints, int threads) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  Particle* p = new Particle(t, 0.25f * t);
  float moved = p->step(2.0f);
  delete p;

  int count = 1 + t % 4;
  Particle* many = new Particle[count];
  float sum = 0.0f;
  for (int i = 0; i < count; ++i) sum += many[i].step(1.0f) + many[i].id;
  delete[] many;

  Plain* plain = new Plain{t, static_cast<short>(2 * t)};
  Plain* zeroed = new Plain();
  int* listed = new int[5]{t, t + 1};
  double* seq = make_sequence<double>(4, 0.5 * t, 0.25);

  void* raw = malloc(sizeof(Particle));
  Particle* placed = new (raw) Particle(2 * t, 1.0f);
  float placed_step = placed->step(4.0f);
  placed->~Particle();
  free(raw);

  out[t * 3 + 0] = moved;
  out[t * 3 + 1] = sum;
  out[t * 3 + 2] = placed_step + static_cast<float>(seq[3]);
  ints[t * 4 + 0] = plain->a + plain->b;
  ints[t * 4 + 1] = zeroed->a + zeroed->b;
  ints[t * 4 + 2] = listed[0] + listed[1] + listed[2] + listed[3] + listed[4];
  ints[t * 4 + 3] = (new int(7) != nullptr) ? 7 : 0;  // leaks one int: the heap allows it
  delete plain;
  delete zeroed;
  delete[] listed;
  delete[] seq;
}

int main() {
  int bad = 0;

  // The heap's size is set before the first kernel that allocates, and reads back.
  size_t limit = 0;
  HIP_CHECK(hipDeviceSetLimit(hipLimitMallocHeapSize, kHeapBytes));
  HIP_CHECK(hipDeviceGetLimit(&limit, hipLimitMallocHeapSize));
  bad += count_mismatches("heap limit", std::vector<long long>{static_cast<long long>(limit)},
                          std::vector<long long>{static_cast<long long>(kHeapBytes)});

  // Many threads at once.
  const int threads = 2048;
  std::vector<int> want_copies(threads * kMaxElements, 0);
  int* d_copies = to_device(want_copies);
  fill_and_copy<<<threads / 128, 128>>>(d_copies, threads);
  HIP_CHECK(hipGetLastError());
  for (int t = 0; t < threads; ++t) {
    int n = 1 + (t % 13) * 37;
    for (int i = 0; i < n; ++i) want_copies[t * kMaxElements + i] = pattern(t, i);
  }
  bad += count_mismatches("fill_and_copy", from_device(d_copies, want_copies.size()),
                          want_copies);

  // Now the heap is in use, its size is fixed.
  if (hipDeviceSetLimit(hipLimitMallocHeapSize, 2 * kHeapBytes) != hipErrorInvalidValue) {
    std::printf("resizing a heap in use was not refused\n");
    ++bad;
  }
  (void)hipGetLastError();  // the refusal above is the last error
  // The heap is device memory in use, as hipMemGetInfo says.
  size_t free_mem = 0, total_mem = 0;
  HIP_CHECK(hipMemGetInfo(&free_mem, &total_mem));
  if (total_mem - free_mem < kHeapBytes) {
    std::printf("hipMemGetInfo: %zu bytes in use, the heap alone is %zu\n", total_mem - free_mem,
                static_cast<size_t>(kHeapBytes));
    ++bad;
  }

  // 4096 threads x 64 rounds x 512-byte blocks is 128 MiB: 8 times the heap.
  const int churners = 4096;
  int* d_failures = nullptr;
  HIP_CHECK(hipMalloc(&d_failures, churners * sizeof(int)));
  churn<<<churners / 256, 256>>>(d_failures, 64, 300);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("churn", from_device(d_failures, churners),
                          std::vector<int>(churners, 0));

  // Across kernels.
  const int producers = 256;
  int** d_slots = nullptr;
  int* d_totals = nullptr;
  HIP_CHECK(hipMalloc(&d_slots, producers * sizeof(int*)));
  HIP_CHECK(hipMalloc(&d_totals, producers * sizeof(int)));
  produce<<<producers / 64, 64>>>(d_slots, producers);
  consume<<<producers / 64, 64>>>(d_slots, d_totals, producers);
  std::vector<int> want_totals(producers);
  for (int t = 0; t < producers; ++t) want_totals[t] = t * (t + 1) / 2;
  bad += count_mismatches("produce/consume", from_device(d_totals, producers), want_totals);

  // Objects.
  const int makers = 512;
  float* d_out = nullptr;
  int* d_ints = nullptr;
  HIP_CHECK(hipMalloc(&d_out, makers * 3 * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_ints, makers * 4 * sizeof(int)));
  objects<<<makers / 128, 128>>>(d_out, d_ints, makers);
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<float> got_out = from_device(d_out, makers * 3);
  std::vector<int> got_ints = from_device(d_ints, makers * 4);
  std::vector<int> want_ints(makers * 4);
  int want_objects = 0;
  int float_bad = 0;
  for (int t = 0; t < makers; ++t) {
    float moved = 0.25f * t + 0.5f * t * 2.0f;
    int count = 1 + t % 4;
    float sum = 0.0f;
    for (int i = 0; i < count; ++i) sum += (1.0f + 2.0f * 1.0f) + -1;
    float placed = 1.0f + 0.5f * (2 * t) * 4.0f + static_cast<float>(0.5 * t + 0.25 * 3);
    float want[3] = {moved, sum, placed};
    for (int k = 0; k < 3; ++k) {
      if (got_out[t * 3 + k] != want[k]) {
        if (float_bad++ < 5) {
          std::printf("objects: thread %d value %d: got %f, want %f\n", t, k,
                      got_out[t * 3 + k], want[k]);
        }
      }
    }
    want_ints[t * 4 + 0] = t + 2 * t;
    want_ints[t * 4 + 1] = 0;
    want_ints[t * 4 + 2] = t + (t + 1);
    want_ints[t * 4 + 3] = 7;
    want_objects += 1 + count + 1;
  }
  bad += float_bad;
  bad += count_mismatches("objects", got_ints, want_ints);
  int made = 0;
  int unmade = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&made, HIP_SYMBOL(constructed), sizeof(int)));
  HIP_CHECK(hipMemcpyFromSymbol(&unmade, HIP_SYMBOL(destroyed), sizeof(int)));
  bad += count_mismatches("constructed and destroyed", std::vector<int>{made, unmade},
                          std::vector<int>{want_objects, want_objects});

  // Exhaustion, last (blocks are kept whole: what it carves stays 64 KiB blocks): NULL, not a
  // crash; after free the same blocks come back.
  int* d_counts = nullptr;
  HIP_CHECK(hipMalloc(&d_counts, 2 * sizeof(int)));
  const int most = 1000;
  exhaust<<<1, 1>>>(d_counts, 64 << 10, most);
  std::vector<int> counts = from_device(d_counts, 2);
  if (counts[0] < 1 || counts[0] >= most || counts[1] < counts[0] ||
      counts[0] > static_cast<int>(kHeapBytes / (64 << 10))) {
    std::printf("exhaust: took %d then %d blocks of 64 KiB from a %zu-byte heap\n", counts[0],
                counts[1], kHeapBytes);
    ++bad;
  }

  HIP_CHECK(hipFree(d_copies));
  HIP_CHECK(hipFree(d_failures));
  HIP_CHECK(hipFree(d_counts));
  HIP_CHECK(hipFree(d_slots));
  HIP_CHECK(hipFree(d_totals));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_ints));
  return report("device_malloc", bad);
}
