// The device's clocks: clock64(), clock() and wall_clock64() read in kernels. Each thread's cycle
// clock never goes back and advances across a busy loop; the wall clock, divided by
// hipDeviceAttributeWallClockRate, measures the host's own time between two launches; a kernel
// that waits a number of milliseconds by clock64() and hipDeviceAttributeClockRate (as programs
// delay on the device) takes about that long.
#include "test_common.h"

#include <chrono>
#include <thread>

constexpr int kReads = 4;

struct Stamps {
  long long cycles[kReads];
  clock_t clock_before, clock_after;
  unsigned long long wall_before, wall_after;
};

// A loop the compiler cannot remove: its result is stored.
__host__ __device__ float busy(float x, int iterations) {
  for (int i = 0; i < iterations; ++i) x = x * 0.999f + 1.0f;
  return x;
}

__global__ void timed(Stamps* stamps, float* out, int iterations) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Stamps s;
  s.clock_before = clock();
  s.wall_before = wall_clock64();
  float x = static_cast<float>(i);
  for (int r = 0; r < kReads; ++r) {
    s.cycles[r] = clock64();
    x = busy(x, iterations);
  }
  s.clock_after = clock();
  s.wall_after = wall_clock64();
  out[i] = x;
  stamps[i] = s;
}

// Spins until clock64() has advanced by `ticks`.
__global__ void delay(long long ticks, long long* spins) {
  long long start = clock64(), n = 0;
  while (clock64() - start < ticks) ++n;
  spins[0] = n;
}

__global__ void read_wall_clock(unsigned long long* when) {
  when[blockIdx.x * blockDim.x + threadIdx.x] = wall_clock64();
}

int main() {
  const int blocks = 4, threads = 64, n = blocks * threads, iterations = 20000;
  int failures = 0;

  Stamps* d_stamps = nullptr;
  float* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_stamps, n * sizeof(Stamps)));
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
  timed<<<blocks, threads>>>(d_stamps, d_out, iterations);
  HIP_CHECK(hipGetLastError());
  std::vector<Stamps> stamps = from_device(d_stamps, n);
  std::vector<float> out = from_device(d_out, n);

  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const Stamps& s = stamps[i];
    bool ok = s.clock_after > s.clock_before && s.wall_after >= s.wall_before;
    for (int r = 1; r < kReads; ++r) ok = ok && s.cycles[r] > s.cycles[r - 1];
    ok = ok && s.cycles[0] >= s.clock_before && s.clock_after >= s.cycles[kReads - 1];
    float want = busy(busy(busy(busy(static_cast<float>(i), iterations), iterations),
                           iterations),
                      iterations);
    ok = ok && std::fabs(out[i] - want) <= 1e-3f * std::fabs(want);
    if (!ok && bad++ < 5) {
      std::printf("thread %d: clock %lld..%lld, cycles %lld %lld %lld %lld, wall %llu..%llu\n", i,
                  static_cast<long long>(s.clock_before), static_cast<long long>(s.clock_after),
                  s.cycles[0], s.cycles[1], s.cycles[2], s.cycles[3], s.wall_before,
                  s.wall_after);
    }
  }
  failures += report("clock64 and clock advance in every thread", bad);

  int wall_khz = 0;
  HIP_CHECK(hipDeviceGetAttribute(&wall_khz, hipDeviceAttributeWallClockRate, 0));
  int cycle_khz = 0;
  HIP_CHECK(hipDeviceGetAttribute(&cycle_khz, hipDeviceAttributeClockInstructionRate, 0));
  failures += report("the clocks' rates are stated", wall_khz <= 0 || cycle_khz <= 0);

  // Two launches with a sleep between: the wall clock's ticks between them, at the stated rate,
  // lie between the host's time from the end of the first to the start of the second and its
  // time from the start of the first to the end of the second (5 % either way for the rate).
  unsigned long long* d_when = nullptr;
  HIP_CHECK(hipMalloc(&d_when, 2 * threads * sizeof(unsigned long long)));
  using host_clock = std::chrono::steady_clock;
  auto t0 = host_clock::now();
  read_wall_clock<<<1, threads>>>(d_when);
  HIP_CHECK(hipDeviceSynchronize());
  auto t1 = host_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto t2 = host_clock::now();
  read_wall_clock<<<1, threads>>>(d_when + threads);
  HIP_CHECK(hipDeviceSynchronize());
  auto t3 = host_clock::now();
  std::vector<unsigned long long> when = from_device(d_when, 2 * threads);
  double shortest = std::chrono::duration<double, std::milli>(t2 - t1).count() * 0.95;
  double longest = std::chrono::duration<double, std::milli>(t3 - t0).count() * 1.05;
  bad = 0;
  for (int a = 0; a < threads; ++a) {
    for (int b = threads; b < 2 * threads; b += 7) {
      double ms = static_cast<double>(when[b] - when[a]) / wall_khz;
      if ((when[b] < when[a] || ms < shortest || ms > longest) && bad++ < 5) {
        std::printf("wall clock: %.3f ms between launches, host says %.3f..%.3f ms\n", ms,
                    shortest, longest);
      }
    }
  }
  failures += report("wall_clock64 at hipDeviceAttributeWallClockRate", bad);

  // A delay of 40 ms by the cycle clock at clockRate (kHz: ticks per millisecond) lasts at least
  // nearly that long on the host's clock (a GPU below its top clock takes longer).
  int clock_khz = 0;
  HIP_CHECK(hipDeviceGetAttribute(&clock_khz, hipDeviceAttributeClockRate, 0));
  long long* d_spins = nullptr;
  HIP_CHECK(hipMalloc(&d_spins, sizeof(long long)));
  const double delay_ms = 40.0;
  auto d0 = host_clock::now();
  delay<<<1, 1>>>(static_cast<long long>(delay_ms * clock_khz), d_spins);
  HIP_CHECK(hipDeviceSynchronize());
  double took = std::chrono::duration<double, std::milli>(host_clock::now() - d0).count();
  bad = clock_khz <= 0 || took < delay_ms * 0.9 || took > delay_ms * 20;
  if (bad) std::printf("delay of %.1f ms at %d kHz took %.3f ms\n", delay_ms, clock_khz, took);
  failures += report("a delay by clock64 at hipDeviceAttributeClockRate", bad);

  HIP_CHECK(hipFree(d_spins));
  HIP_CHECK(hipFree(d_stamps));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_when));
  return failures;
}
