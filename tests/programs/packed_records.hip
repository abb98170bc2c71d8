// Packed records (__attribute__((packed)), #pragma pack) in device memory, reached through
// pointers: members at clang's offsets, read and written at odd addresses, an ordinary struct
// and a bit-field inside a packed one, a pack(2) record inside a packed one and through its
// own pointer, member functions, whole-record copies, records staged through shared memory
// and passed to kernels by value. Every byte of every record is compared with the host's run
// of the same code.
#include "test_common.h"

#include "include/packed_layouts.h"

#include <cstring>

static_assert(sizeof(Particle) == 27, "packed");
static_assert(sizeof(Header) == 16, "pack(2)");
static_assert(sizeof(Tagged) == 29, "packed with a pack(2) member");

#define LAUNCH(kernel, blocks, threads, ...) kernel<<<(blocks), (threads)>>>(__VA_ARGS__)

// Each block stages its records in shared memory, advances its neighbour's, writes them back.
__global__ void advance_in_shared(Particle* records, int n) {
  __shared__ Particle tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tile[threadIdx.x] = records[i];
  __syncthreads();
  int mine = (threadIdx.x + 1) % blockDim.x;
  if (blockIdx.x * blockDim.x + mine < n) advance(&tile[mine], 2);
  __syncthreads();
  if (i < n) records[i] = tile[threadIdx.x];
}

// A record by value: each copy stamped with its index.
__global__ void stamp(Header* out, Header base, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = base;
  out[i].length += static_cast<uint32_t>(i);
  out[i].stamp ^= base.stamp >> (i % 7);
}

template <typename Record>
static int compare_bytes(const char* what, const std::vector<Record>& got,
                         const std::vector<Record>& want) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(Record)) != 0) {
      if (bad < 5) std::printf("%s: record %zu differs\n", what, i);
      ++bad;
    }
  }
  return bad;
}

template <typename Record>
static int run_advance(const char* what, std::vector<Record> records, int step) {
  const int n = static_cast<int>(records.size());
  Record* device = to_device(records);
  LAUNCH(advance_all<Record>, (n + 63) / 64, 64, device, n, step);
  HIP_CHECK(hipGetLastError());
  std::vector<Record> got = from_device(device, records.size());
  HIP_CHECK(hipFree(device));
  for (int i = 0; i < n; ++i) advance(&records[i], step + i % 5);
  return compare_bytes(what, got, records);
}

int main() {
  const int n = 200;
  std::vector<Particle> particles(n);
  std::vector<Header> headers(n);
  std::vector<Tagged> tagged(n);
  for (int i = 0; i < n; ++i) {
    particles[i] = Particle{static_cast<char>('a' + i % 26), 1000 + i, 0.25 * i,
                            static_cast<short>(i * 3 - 100),
                            {1.0f * i, -2.0f * i, 0.5f + i}};
    headers[i] = Header{static_cast<unsigned char>(i), static_cast<uint32_t>(7 * i),
                        static_cast<int64_t>(i) * 123456789012LL, static_cast<uint16_t>(i * 11)};
    tagged[i].tag = static_cast<unsigned char>(i * 5);
    tagged[i].at = Vec2{0.5f * i, 2.0f - i};
    tagged[i].reserved = 0;
    tagged[i].header = headers[n - 1 - i];
    tagged[i].lane = static_cast<uint8_t>(i % 8);
    tagged[i].live = i % 3 == 0;
    tagged[i].code = static_cast<uint16_t>(60000 + i);
  }

  int failures = 0;
  failures += run_advance("particles", particles, 3);
  failures += run_advance("headers", headers, 1);
  failures += run_advance("tagged", tagged, 4);

  // Through shared memory.
  Particle* device = to_device(particles);
  LAUNCH(advance_in_shared, (n + 63) / 64, 64, device, n);
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<Particle> got = from_device(device, n);
  HIP_CHECK(hipFree(device));
  std::vector<Particle> want = particles;
  for (int b = 0; b * 64 < n; ++b) {
    int threads = 64;
    for (int t = 0; t < threads; ++t) {
      int mine = (t + 1) % threads;
      if (b * 64 + mine < n) advance(&want[b * 64 + mine], 2);
    }
  }
  failures += compare_bytes("shared", got, want);

  // By value.
  Header base{9, 40000u, -77777777777LL, 513};
  Header* stamped = nullptr;
  HIP_CHECK(hipMalloc(&stamped, n * sizeof(Header)));
  LAUNCH(stamp, (n + 63) / 64, 64, stamped, base, n);
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<Header> stamped_got = from_device(stamped, n);
  HIP_CHECK(hipFree(stamped));
  std::vector<Header> stamped_want(n, base);
  for (int i = 0; i < n; ++i) {
    stamped_want[i].length += static_cast<uint32_t>(i);
    stamped_want[i].stamp ^= base.stamp >> (i % 7);
  }
  failures += compare_bytes("by value", stamped_got, stamped_want);

  return report("packed_records", failures);
}
