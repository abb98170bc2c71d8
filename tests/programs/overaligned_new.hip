// `new` and `delete` of over-aligned types in device code: objects and arrays of classes
// aligned beyond 16 bytes land on their alignment (checked on the device), are built and read
// back, and are freed whole (a small heap runs out otherwise).
#include "test_common.h"

struct alignas(64) Cell {
  float value;
  int index;
  __device__ Cell(float v, int i) : value(v), index(i) {}
  __device__ Cell() : value(0.0f), index(-1) {}
  __device__ ~Cell() { index = -2; }
};

struct alignas(128) Wide {
  double parts[3];
};

// Rounds of new and delete per thread, in a heap of kHeapBytes: together more than the heap
// holds unless every allocation is freed.
constexpr int kRounds = 48;
constexpr size_t kHeapBytes = 1 << 20;

__global__ void aligned_objects(const float* in, float* out, int* misaligned, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int round = 0; round < kRounds; ++round) {
    Cell* c = new Cell(in[i] * round, i);
    Cell* row = new Cell[3];
    Wide* w = new Wide{{in[i], 2.0 * round, -1.0}};
    if (c == nullptr || row == nullptr || w == nullptr) {
      out[i] = -1.0e30f;  // the heap ran out
      return;
    }
    if (reinterpret_cast<unsigned long long>(c) % alignof(Cell) != 0 ||
        reinterpret_cast<unsigned long long>(row) % alignof(Cell) != 0 ||
        reinterpret_cast<unsigned long long>(w) % alignof(Wide) != 0) {
      atomicAdd(misaligned, 1);
    }
    row[1] = Cell(1.5f, round);
    acc += c->value + static_cast<float>(c->index) + row[1].value + row[2].index +
           static_cast<float>(w->parts[0] + w->parts[1] + w->parts[2]);
    delete c;
    delete[] row;
    delete w;
  }
  out[i] = acc;
}

int main() {
  const int n = 256;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = 0.25f * (i % 13) - 1.0f;
  HIP_CHECK(hipDeviceSetLimit(hipLimitMallocHeapSize, kHeapBytes));
  float* din = to_device(in);
  float* dout;
  int* dmis;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dmis, sizeof(int)));
  HIP_CHECK(hipMemset(dmis, 0, sizeof(int)));
  aligned_objects<<<(n + 63) / 64, 64>>>(din, dout, dmis, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got = from_device(dout, n);
  int misaligned = from_device(dmis, 1)[0];
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    float want = 0.0f;
    for (int round = 0; round < kRounds; ++round) {
      want += in[i] * round + static_cast<float>(i) + 1.5f + (-1) +
              static_cast<float>(static_cast<double>(in[i]) + 2.0 * round - 1.0);
    }
    if (!(std::fabs(got[i] - want) <= 1e-4f * (1.0f + std::fabs(want)))) {
      if (bad < 5) std::printf("mismatch at %d: got %g, want %g\n", i, got[i], want);
      ++bad;
    }
  }
  if (misaligned) std::printf("%d objects were not on their alignment\n", misaligned);
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dmis));
  return report("new and delete of over-aligned types", bad + misaligned);
}
