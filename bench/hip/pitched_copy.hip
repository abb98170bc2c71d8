// Pitched 2-D copies against contiguous copies of the same bytes: a 4096 x 4096-byte rectangle
// between pitched device memory (rows 4352 bytes apart) and host rows (pinned and pageable),
// and between two pitched device allocations, each direction timed as hipMemcpy2D and as one
// hipMemcpy of the same 16 MiB. Usage: pitched_copy [ROUNDS]. Prints `check ok` once every
// byte of every direction's result matched, then `NAME GB/s` lines (bytes copied per second,
// the median round).
#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define HIP_CHECK(call)                                                                 \
  do {                                                                                  \
    hipError_t err_ = (call);                                                           \
    if (err_ != hipSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                \
                   hipGetErrorString(err_));                                            \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

namespace {

constexpr size_t kWidth = 4096, kHeight = 4096, kPitch = 4352, kBytes = kWidth * kHeight;

// The median seconds of `rounds` runs of `copy` (one warm-up first).
double median_seconds(int rounds, const std::function<void()>& copy) {
  copy();
  std::vector<double> t;
  for (int i = 0; i < rounds; ++i) {
    auto start = std::chrono::steady_clock::now();
    copy();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void report(const char* name, double seconds) {
  std::printf("%s %.3f\n", name, kBytes / seconds / 1e9);
}

int failures = 0;

// Every row of a rectangle `pitch` bytes a row against the bytes of `want` (contiguous rows).
void check(const char* what, const unsigned char* got, size_t pitch, const unsigned char* want) {
  for (size_t y = 0; y < kHeight; ++y) {
    if (std::memcmp(got + y * pitch, want + y * kWidth, kWidth) != 0) {
      std::fprintf(stderr, "%s: row %zu differs\n", what, y);
      ++failures;
      return;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 9;
  unsigned char *dev_a, *dev_b, *pinned;
  HIP_CHECK(hipMalloc(&dev_a, kPitch * kHeight));
  HIP_CHECK(hipMalloc(&dev_b, kPitch * kHeight));
  HIP_CHECK(hipHostMalloc(&pinned, kBytes));
  std::vector<unsigned char> pageable(kBytes), source(kBytes);
  for (size_t i = 0; i < kBytes; ++i) source[i] = static_cast<unsigned char>((i * 2654435761u) >> 11);

  // Correctness first, each direction once, every row compared.
  std::memcpy(pinned, source.data(), kBytes);
  HIP_CHECK(hipMemcpy2D(dev_a, kPitch, pinned, kWidth, kWidth, kHeight, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy2D(dev_b, kPitch, dev_a, kPitch, kWidth, kHeight, hipMemcpyDeviceToDevice));
  HIP_CHECK(hipMemcpy2D(pageable.data(), kWidth, dev_b, kPitch, kWidth, kHeight,
                        hipMemcpyDeviceToHost));
  check("pinned -> device -> device -> pageable", pageable.data(), kWidth, source.data());
  std::memset(pinned, 0, kBytes);
  HIP_CHECK(hipMemcpy2D(dev_a, kPitch, pageable.data(), kWidth, kWidth, kHeight,
                        hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy2D(pinned, kWidth, dev_a, kPitch, kWidth, kHeight, hipMemcpyDeviceToHost));
  check("pageable -> device -> pinned", pinned, kWidth, source.data());
  if (failures != 0) return 1;
  std::printf("check ok\n");

  struct Case {
    const char* pitched_name;
    const char* contiguous_name;
    void* dst;
    size_t dpitch;
    const void* src;
    size_t spitch;
    hipMemcpyKind kind;
  };
  const Case cases[] = {
      {"h2d_pinned_pitched", "h2d_pinned_contiguous", dev_a, kPitch, pinned, kWidth,
       hipMemcpyHostToDevice},
      {"d2h_pinned_pitched", "d2h_pinned_contiguous", pinned, kWidth, dev_a, kPitch,
       hipMemcpyDeviceToHost},
      {"d2d_pitched", "d2d_contiguous", dev_b, kPitch, dev_a, kPitch, hipMemcpyDeviceToDevice},
      {"h2d_pageable_pitched", "h2d_pageable_contiguous", dev_a, kPitch, pageable.data(), kWidth,
       hipMemcpyHostToDevice},
      {"d2h_pageable_pitched", "d2h_pageable_contiguous", pageable.data(), kWidth, dev_a, kPitch,
       hipMemcpyDeviceToHost},
  };
  for (const Case& c : cases) {
    report(c.pitched_name, median_seconds(rounds, [&] {
             HIP_CHECK(hipMemcpy2D(c.dst, c.dpitch, c.src, c.spitch, kWidth, kHeight, c.kind));
           }));
    report(c.contiguous_name, median_seconds(rounds, [&] {
             HIP_CHECK(hipMemcpy(c.dst, c.src, kBytes, c.kind));
           }));
  }
  HIP_CHECK(hipFree(dev_a));
  HIP_CHECK(hipFree(dev_b));
  HIP_CHECK(hipHostFree(pinned));
  return 0;
}
