// `__managed__` variables: one object that the host and the device share at one address. Kernels
// update them; the host reads them after synchronizing, writes them before launches, passes
// managed arrays to kernels as pointers and to the memory API (hipMemset, hipMemcpy,
// hipPointerGetAttributes), with scalars, arrays, a struct, a variable in a namespace, one
// declared `extern` before its definition, and both spellings (`__managed__`,
// `__device__ __managed__`).
#include "test_common.h"

#include <cstring>

namespace {
constexpr int kN = 1500;
}

extern __managed__ int declared_first;

__managed__ int hits = 0;
__device__ __managed__ double scale = 1.5;
__managed__ float samples[kN];
__managed__ int declared_first = 40;

struct Stats {
  long long total;
  float peak;
  int count;
};
__managed__ Stats stats = {100, -1.0f, 0};

namespace histogram {
__managed__ unsigned int bins[8] = {1, 1, 1, 1, 1, 1, 1, 1};
}

__global__ void count_hits() { atomicAdd(&hits, 1); }

__global__ void fill(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) samples[i] = static_cast<float>(samples[i] * scale + i);
}

// A managed array reached through a pointer argument, beside the variables themselves.
__global__ void summarize(const float* values, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&stats.total, static_cast<long long>(values[i]));
    atomicAdd(&histogram::bins[i % 8], 1u);
    if (i == 0) {
      stats.count = n;
      stats.peak = values[n - 1];
      declared_first += 2;
    }
  }
}

int main() {
  int bad = 0;
  // Initial values, as the declarations give them, on the host before any launch.
  bad += count_mismatches("initial hits", std::vector<int>{hits}, std::vector<int>{0});
  bad += count_mismatches("initial declared_first", std::vector<int>{declared_first},
                          std::vector<int>{40});
  bad += count_mismatches("initial bins", std::vector<unsigned>(histogram::bins, histogram::bins + 8),
                          std::vector<unsigned>(8, 1));
  if (scale != 1.5 || stats.total != 100 || stats.peak != -1.0f) {
    std::printf("initial values differ\n");
    ++bad;
  }

  // The device increments what the host reads after synchronizing.
  count_hits<<<4, 64>>>();
  HIP_CHECK(hipDeviceSynchronize());
  bad += count_mismatches("hits", std::vector<int>{hits}, std::vector<int>{256});
  // The host writes, then the device reads and adds.
  hits = 1000;
  count_hits<<<1, 10>>>();
  HIP_CHECK(hipDeviceSynchronize());
  bad += count_mismatches("hits after host write", std::vector<int>{hits},
                          std::vector<int>{1010});

  // A managed array written by the host, scaled by the device with a host-set factor.
  for (int i = 0; i < kN; ++i) samples[i] = 0.25f * (i % 40);
  scale = 3.0;
  fill<<<(kN + 255) / 256, 256>>>(kN);
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<float> want(kN);
  for (int i = 0; i < kN; ++i) want[i] = static_cast<float>(0.25f * (i % 40) * 3.0 + i);
  bad += count_mismatches("samples", std::vector<float>(samples, samples + kN), want);

  // The array is managed memory: the memory API takes it at the host's address.
  hipPointerAttribute_t attributes;
  HIP_CHECK(hipPointerGetAttributes(&attributes, samples));
  bad += count_mismatches("memory type", std::vector<int>{attributes.type},
                          std::vector<int>{hipMemoryTypeManaged});
  std::vector<float> copied(kN);
  HIP_CHECK(hipMemcpy(copied.data(), samples, sizeof samples, hipMemcpyDefault));
  bad += count_mismatches("samples copied", copied, want);

  summarize<<<(kN + 127) / 128, 128>>>(samples, kN);
  HIP_CHECK(hipDeviceSynchronize());
  long long total = 100;
  std::vector<unsigned> bins(8, 1);
  for (int i = 0; i < kN; ++i) {
    total += static_cast<long long>(want[i]);
    ++bins[i % 8];
  }
  bad += count_mismatches("stats.total", std::vector<long long>{stats.total},
                          std::vector<long long>{total});
  bad += count_mismatches("stats.count", std::vector<int>{stats.count}, std::vector<int>{kN});
  bad += count_mismatches("stats.peak", std::vector<float>{stats.peak},
                          std::vector<float>{want[kN - 1]});
  bad += count_mismatches("bins", std::vector<unsigned>(histogram::bins, histogram::bins + 8),
                          bins);
  bad += count_mismatches("declared_first", std::vector<int>{declared_first},
                          std::vector<int>{42});

  // Cleared through the memory API, seen by the device.
  HIP_CHECK(hipMemset(histogram::bins, 0, sizeof histogram::bins));
  summarize<<<1, 8>>>(samples, 8);
  HIP_CHECK(hipDeviceSynchronize());
  bad += count_mismatches("bins after hipMemset",
                          std::vector<unsigned>(histogram::bins, histogram::bins + 8),
                          std::vector<unsigned>(8, 1));
  return report("managed_variables", bad);
}
