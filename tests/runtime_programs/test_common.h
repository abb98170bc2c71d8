// The runtime test programs: the helpers of every test program, and misuse checks.
#pragma once

#include "../programs/test_common.h"

// Expects `call` to fail with `code` (a misuse test), and the last error to say so.
#define EXPECT_ERROR(call, code)                                                          \
  do {                                                                                    \
    hipError_t got_ = (call);                                                             \
    if (got_ != (code)) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__,    \
                   #call, hipGetErrorName(got_), hipGetErrorName(code));                  \
      std::exit(1);                                                                       \
    }                                                                                     \
    if (hipGetLastError() != (code) || hipGetLastError() != hipSuccess) {                 \
      std::fprintf(stderr, "%s:%d: last error not recorded for %s\n", __FILE__, __LINE__, \
                   #call);                                                                \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

// Counts a failed expectation in `bad` (a local of the caller) and says which one failed.
#define EXPECT(cond)                                                                      \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::printf("%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                     \
      ++bad;                                                                              \
    }                                                                                     \
  } while (0)
