// Shared by the hiprtc test programs: error checks, compiling with the log shown on failure,
// and loading a compiled program's code object.
#pragma once

#include <hip/hip_runtime.h>
#include <hip/hiprtc.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../programs/test_common.h"

#define HIPRTC_CHECK(call)                                                                    \
  do {                                                                                        \
    hiprtcResult rtc_err_ = (call);                                                           \
    if (rtc_err_ != HIPRTC_SUCCESS) {                                                         \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,               \
                   hiprtcGetErrorString(rtc_err_));                                           \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

// Expects `call` to answer `code` (a misuse test).
#define EXPECT_RTC(call, code)                                                                \
  do {                                                                                        \
    hiprtcResult rtc_got_ = (call);                                                           \
    if (rtc_got_ != (code)) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s answered %s, expected %s\n", __FILE__, __LINE__, #call, \
                   hiprtcGetErrorString(rtc_got_), hiprtcGetErrorString(code));               \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

// The program's log.
inline std::string program_log(hiprtcProgram prog) {
  size_t size = 0;
  HIPRTC_CHECK(hiprtcGetProgramLogSize(prog, &size));
  std::string log(size, '\0');
  HIPRTC_CHECK(hiprtcGetProgramLog(prog, &log[0]));
  if (size == 0 || log[size - 1] != '\0') {
    std::fprintf(stderr, "the log is not NUL-terminated\n");
    std::exit(1);
  }
  log.resize(size - 1);
  return log;
}

// Compiles `prog`; on failure prints the log and exits.
inline void compile(hiprtcProgram prog, const std::vector<const char*>& options) {
  hiprtcResult result =
      hiprtcCompileProgram(prog, static_cast<int>(options.size()), options.data());
  if (result != HIPRTC_SUCCESS) {
    std::fprintf(stderr, "compile failed: %s\n%s\n", hiprtcGetErrorString(result),
                 program_log(prog).c_str());
    std::exit(1);
  }
}

// The program's code object, as hiprtcGetCode gives it.
inline std::vector<char> code_of(hiprtcProgram prog) {
  size_t size = 0;
  HIPRTC_CHECK(hiprtcGetCodeSize(prog, &size));
  std::vector<char> code(size);
  HIPRTC_CHECK(hiprtcGetCode(prog, code.data()));
  return code;
}

// The kernel `expression` names in a compiled program, from its loaded module.
inline hipFunction_t kernel_of(hipModule_t module, hiprtcProgram prog, const char* expression) {
  const char* lowered = nullptr;
  HIPRTC_CHECK(hiprtcGetLoweredName(prog, expression, &lowered));
  hipFunction_t f = nullptr;
  HIP_CHECK(hipModuleGetFunction(&f, module, lowered));
  return f;
}

// Compares every element within a relative tolerance; prints the first few mismatches.
inline int count_float_mismatches(const char* what, const std::vector<float>& got,
                                  const std::vector<float>& want, float tolerance) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    float scale = std::fabs(want[i]) > 1.0f ? std::fabs(want[i]) : 1.0f;
    if (!(std::fabs(got[i] - want[i]) <= tolerance * scale)) {
      if (bad < 5) std::printf("%s: mismatch at %zu: got %g, want %g\n", what, i, got[i], want[i]);
      ++bad;
    }
  }
  return bad;
}
