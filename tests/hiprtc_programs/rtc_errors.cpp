// hiprtc's answers to bad input: null arguments, handles never made or destroyed before, calls
// in the wrong order, a syntax error, many errors (every one in the log, or as many as the program
// allows), an unknown option, name expressions that name no kernel, and misuse of the link API. Each is an error code (with the log saying why where there is
// one), never a crash; after all of them a program still compiles and its kernel runs.
#include <cstring>

#include "rtc_common.h"

static const char* kGood = R"(
template <typename T>
__global__ void twice(T* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * 2 + 1;
}
)";

static const char* kBroken = "__global__ void broken(int* p) {\n  p[0] = 1\n}\n";

static void expect_log(hiprtcProgram prog, const char* needle) {
  std::string log = program_log(prog);
  if (log.find(needle) == std::string::npos) {
    std::printf("the log does not say '%s':\n%s\n", needle, log.c_str());
    std::exit(1);
  }
  // Diagnostics name the program's files by their names, not where hiprtc wrote them (its
  // folders are named hiprtc-*; a bare "/tmp/" would also match an install or checkout there).
  if (log.find("hiprtc-") != std::string::npos) {
    std::printf("the log names a temporary file:\n%s\n", log.c_str());
    std::exit(1);
  }
}

// A failing compile of `source` with `options` and `expressions`: `code` and a log with `needle`.
static void expect_failure(const char* source, std::vector<const char*> options,
                           std::vector<const char*> expressions, hiprtcResult code,
                           const char* needle) {
  hiprtcProgram prog;
  HIPRTC_CHECK(hiprtcCreateProgram(&prog, source, "prog.cu", 0, nullptr, nullptr));
  for (const char* e : expressions) HIPRTC_CHECK(hiprtcAddNameExpression(prog, e));
  EXPECT_RTC(hiprtcCompileProgram(prog, static_cast<int>(options.size()), options.data()), code);
  expect_log(prog, needle);
  size_t size = 0;
  EXPECT_RTC(hiprtcGetCodeSize(prog, &size), HIPRTC_ERROR_INVALID_PROGRAM);
  HIPRTC_CHECK(hiprtcDestroyProgram(&prog));
}

int main() {
  // The version and the names of results.
  int major = -1, minor = -1;
  HIPRTC_CHECK(hiprtcVersion(&major, &minor));
  if (major != HIP_VERSION_MAJOR || minor != HIP_VERSION_MINOR) {
    std::printf("hiprtcVersion answered %d.%d\n", major, minor);
    return 1;
  }
  EXPECT_RTC(hiprtcVersion(nullptr, &minor), HIPRTC_ERROR_INVALID_INPUT);
  if (std::strcmp(hiprtcGetErrorString(HIPRTC_ERROR_COMPILATION), "HIPRTC_ERROR_COMPILATION") ||
      std::strcmp(hiprtcGetErrorString(HIPRTC_ERROR_LINKING), "HIPRTC_ERROR_LINKING") ||
      hiprtcGetErrorString(static_cast<hiprtcResult>(12345)) == nullptr) {
    std::printf("hiprtcGetErrorString answered wrong\n");
    return 1;
  }

  // Null and bad arguments at creation.
  hiprtcProgram prog = nullptr;
  const char* header[] = {"#define H 1\n"};
  const char* no_header[] = {nullptr};
  const char* name[] = {"h.h"};
  const char* outside[] = {"../h.h"};
  EXPECT_RTC(hiprtcCreateProgram(nullptr, kGood, "a.cu", 0, nullptr, nullptr),
             HIPRTC_ERROR_INVALID_PROGRAM);
  EXPECT_RTC(hiprtcCreateProgram(&prog, nullptr, "a.cu", 0, nullptr, nullptr),
             HIPRTC_ERROR_INVALID_INPUT);
  EXPECT_RTC(hiprtcCreateProgram(&prog, kGood, "a.cu", -1, nullptr, nullptr),
             HIPRTC_ERROR_INVALID_INPUT);
  EXPECT_RTC(hiprtcCreateProgram(&prog, kGood, "a.cu", 1, nullptr, name),
             HIPRTC_ERROR_INVALID_INPUT);
  EXPECT_RTC(hiprtcCreateProgram(&prog, kGood, "a.cu", 1, no_header, name),
             HIPRTC_ERROR_INVALID_INPUT);
  EXPECT_RTC(hiprtcCreateProgram(&prog, kGood, "a.cu", 1, header, outside),
             HIPRTC_ERROR_INVALID_INPUT);

  // Handles never made: each call says so.
  size_t size = 0;
  hiprtcProgram bogus = reinterpret_cast<hiprtcProgram>(0x1234);
  EXPECT_RTC(hiprtcCompileProgram(bogus, 0, nullptr), HIPRTC_ERROR_INVALID_PROGRAM);
  EXPECT_RTC(hiprtcGetCodeSize(bogus, &size), HIPRTC_ERROR_INVALID_PROGRAM);
  EXPECT_RTC(hiprtcGetProgramLogSize(nullptr, &size), HIPRTC_ERROR_INVALID_PROGRAM);
  EXPECT_RTC(hiprtcAddNameExpression(bogus, "k"), HIPRTC_ERROR_INVALID_PROGRAM);

  // Calls in the wrong order, and null outputs.
  HIPRTC_CHECK(hiprtcCreateProgram(&prog, kGood, "good.cu", 0, nullptr, nullptr));
  const char* lowered = nullptr;
  EXPECT_RTC(hiprtcGetCodeSize(prog, &size), HIPRTC_ERROR_INVALID_PROGRAM);
  EXPECT_RTC(hiprtcGetLoweredName(prog, "twice<int>", &lowered),
             HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION);
  if (!program_log(prog).empty()) {
    std::printf("a program not compiled has a log\n");
    return 1;
  }
  EXPECT_RTC(hiprtcAddNameExpression(prog, nullptr), HIPRTC_ERROR_INVALID_INPUT);
  HIPRTC_CHECK(hiprtcAddNameExpression(prog, "twice<int>"));
  EXPECT_RTC(hiprtcCompileProgram(prog, 1, nullptr), HIPRTC_ERROR_INVALID_INPUT);
  EXPECT_RTC(hiprtcCompileProgram(prog, -1, nullptr), HIPRTC_ERROR_INVALID_INPUT);
  compile(prog, {});
  EXPECT_RTC(hiprtcGetCodeSize(prog, nullptr), HIPRTC_ERROR_INVALID_INPUT);
  EXPECT_RTC(hiprtcGetCode(prog, nullptr), HIPRTC_ERROR_INVALID_INPUT);
  EXPECT_RTC(hiprtcGetProgramLog(prog, nullptr), HIPRTC_ERROR_INVALID_INPUT);
  EXPECT_RTC(hiprtcAddNameExpression(prog, "twice<float>"),
             HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION);
  EXPECT_RTC(hiprtcGetLoweredName(prog, "twice<float>", &lowered),
             HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID);
  EXPECT_RTC(hiprtcGetLoweredName(prog, "twice<int>", nullptr), HIPRTC_ERROR_INVALID_INPUT);
  // Relocatable device code comes of -fgpu-rdc only.
  EXPECT_RTC(hiprtcGetBitcodeSize(prog, &size), HIPRTC_ERROR_INVALID_PROGRAM);
  EXPECT_RTC(hiprtcGetBitcodeSize(prog, nullptr), HIPRTC_ERROR_INVALID_INPUT);

  // The program still works: its kernel doubles and adds one to every element.
  const int n = 777;
  std::vector<char> code = code_of(prog);
  hipModule_t module;
  HIP_CHECK(hipModuleLoadData(&module, code.data()));
  hipFunction_t twice = kernel_of(module, prog, "twice<int>");
  std::vector<int> data(n), want(n);
  for (int i = 0; i < n; ++i) {
    data[i] = i - 300;
    want[i] = data[i] * 2 + 1;
  }
  int* d_data = to_device(data);
  int count = n;
  void* args[] = {&d_data, &count};
  HIP_CHECK(hipModuleLaunchKernel(twice, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args,
                                  nullptr));
  int mismatches = count_mismatches("twice<int>", from_device(d_data, n), want);
  HIP_CHECK(hipFree(d_data));
  HIP_CHECK(hipModuleUnload(module));

  // Destroyed twice: through the handle (null after the first) and through a copy of it.
  hiprtcProgram copy = prog;
  HIPRTC_CHECK(hiprtcDestroyProgram(&prog));
  if (prog != nullptr) {
    std::printf("hiprtcDestroyProgram left the handle set\n");
    return 1;
  }
  EXPECT_RTC(hiprtcDestroyProgram(&prog), HIPRTC_ERROR_INVALID_PROGRAM);
  EXPECT_RTC(hiprtcDestroyProgram(&copy), HIPRTC_ERROR_INVALID_PROGRAM);
  EXPECT_RTC(hiprtcGetCodeSize(copy, &size), HIPRTC_ERROR_INVALID_PROGRAM);
  EXPECT_RTC(hiprtcDestroyProgram(nullptr), HIPRTC_ERROR_INVALID_INPUT);

  // Failing compiles: the code and a clang-style log.
  expect_failure(kBroken, {}, {}, HIPRTC_ERROR_COMPILATION, "prog.cu:2:11: error: expected ';'");
  expect_failure(kGood, {"--no-such-option"}, {}, HIPRTC_ERROR_INVALID_OPTION,
                 "unknown option '--no-such-option'");
  expect_failure(kGood, {"-I"}, {}, HIPRTC_ERROR_INVALID_OPTION, "needs a value");
  {
    // A -f flag clang does not know: clang's error alone, not the errors of a parse with the
    // command line it could read.
    hiprtcProgram prog;
    HIPRTC_CHECK(hiprtcCreateProgram(&prog, kGood, "prog.cu", 0, nullptr, nullptr));
    const char* unknown[] = {"-fno-such-clang-flag"};
    if (hiprtcCompileProgram(prog, 1, unknown) == HIPRTC_SUCCESS) {
      std::printf("an unknown -f flag compiled\n");
      return 1;
    }
    expect_log(prog, "unknown argument: '-fno-such-clang-flag'");
    std::string log = program_log(prog);
    size_t errors = 0;
    for (size_t at = log.find("error:"); at != std::string::npos; at = log.find("error:", at + 1))
      ++errors;
    if (errors != 1) {
      std::printf("an unknown -f flag logged %zu errors:\n%s\n", errors, log.c_str());
      return 1;
    }
    HIPRTC_CHECK(hiprtcDestroyProgram(&prog));
  }
  // Every error is in the log (as NVRTC reports them), unless the program limits them.
  std::string many = "__global__ void many(int* p) {\n";
  for (int i = 0; i < 30; ++i) {
    many += "  p[" + std::to_string(i) + "] = undeclared" + std::to_string(i) + ";\n";
  }
  many += "}\n";
  for (int limit : {0, 5}) {
    std::string option = "-ferror-limit=" + std::to_string(limit);
    std::vector<const char*> options;
    if (limit) options.push_back(option.c_str());
    hiprtcProgram errors;
    HIPRTC_CHECK(hiprtcCreateProgram(&errors, many.c_str(), "many.cu", 0, nullptr, nullptr));
    EXPECT_RTC(hiprtcCompileProgram(errors, static_cast<int>(options.size()), options.data()),
               HIPRTC_ERROR_COMPILATION);
    std::string log = program_log(errors);
    int count = 0;
    for (size_t at = log.find("error: use of undeclared"); at != std::string::npos;
         at = log.find("error: use of undeclared", at + 1)) {
      ++count;
    }
    if (count != (limit ? limit : 30)) {
      std::printf("%d undeclared names reported with '%s':\n%s\n", count, option.c_str(),
                  log.c_str());
      return 1;
    }
    HIPRTC_CHECK(hiprtcDestroyProgram(&errors));
  }
  expect_failure(kGood, {}, {"no_such_kernel<int>"}, HIPRTC_ERROR_COMPILATION,
                 "<name expression 1>:1:1: error: use of undeclared identifier 'no_such_kernel'");
  expect_failure(kGood, {}, {"twice<int>", "1 + 1"}, HIPRTC_ERROR_COMPILATION,
                 "<name expression 2>: error: '1 + 1' names no __global__ function");
  expect_failure(kGood, {"-DT=", "-fno-such-clang-flag"}, {}, HIPRTC_ERROR_COMPILATION,
                 "-fno-such-clang-flag");
  // Nesting far deeper than real code: compiled on the compile thread's stack.
  std::string deep = "__global__ void deep(int* p) { p[0] = ";
  for (int i = 0; i < 3000; ++i) deep += "(1 + ";
  deep += "0";
  for (int i = 0; i < 3000; ++i) deep += ")";
  deep += "; }\n";
  HIPRTC_CHECK(hiprtcCreateProgram(&prog, deep.c_str(), "deep.cu", 0, nullptr, nullptr));
  hiprtcResult deep_result = hiprtcCompileProgram(prog, 0, nullptr);
  if (deep_result != HIPRTC_SUCCESS && deep_result != HIPRTC_ERROR_COMPILATION) {
    std::printf("a deeply nested source answered %s\n", hiprtcGetErrorString(deep_result));
    return 1;
  }
  HIPRTC_CHECK(hiprtcDestroyProgram(&prog));

  // The link API.
  hiprtcLinkState link;
  void* image = nullptr;
  EXPECT_RTC(hiprtcLinkCreate(0, nullptr, nullptr, nullptr), HIPRTC_ERROR_INVALID_INPUT);
  hiprtcJIT_option option = HIPRTC_JIT_ERROR_LOG_BUFFER;
  EXPECT_RTC(hiprtcLinkCreate(1, &option, nullptr, &link), HIPRTC_ERROR_INVALID_INPUT);
  char error_log[512] = {0};
  hiprtcJIT_option options[] = {HIPRTC_JIT_ERROR_LOG_BUFFER,
                                HIPRTC_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log, reinterpret_cast<void*>(sizeof(error_log))};
  HIPRTC_CHECK(hiprtcLinkCreate(2, options, values, &link));
  EXPECT_RTC(hiprtcLinkAddData(link, HIPRTC_JIT_INPUT_LLVM_BITCODE, nullptr, 0, "x", 0, nullptr,
                               nullptr),
             HIPRTC_ERROR_INVALID_INPUT);
  EXPECT_RTC(hiprtcLinkAddData(link, HIPRTC_JIT_INPUT_CUBIN, &link, 1, "x", 0, nullptr, nullptr),
             HIPRTC_ERROR_INVALID_INPUT);
  char garbage[64];
  std::memset(garbage, 0x5a, sizeof(garbage));
  EXPECT_RTC(hiprtcLinkAddData(link, HIPRTC_JIT_INPUT_LLVM_BITCODE, garbage, sizeof(garbage),
                               "garbage", 0, nullptr, nullptr),
             HIPRTC_ERROR_PROGRAM_CREATION_FAILURE);
  if (std::strstr(error_log, "'garbage' is not relocatable device code") == nullptr) {
    std::printf("the link's error log says: %s\n", error_log);
    return 1;
  }
  EXPECT_RTC(hiprtcLinkAddFile(link, HIPRTC_JIT_INPUT_LLVM_BITCODE, "/nonexistent/x.bc", 0,
                               nullptr, nullptr),
             HIPRTC_ERROR_PROGRAM_CREATION_FAILURE);
  EXPECT_RTC(hiprtcLinkAddFile(link, HIPRTC_JIT_INPUT_PTX, "/nonexistent/x.ptx", 0, nullptr,
                               nullptr),
             HIPRTC_ERROR_INVALID_INPUT);
  EXPECT_RTC(hiprtcLinkComplete(link, nullptr, nullptr), HIPRTC_ERROR_INVALID_INPUT);
  EXPECT_RTC(hiprtcLinkComplete(link, &image, &size), HIPRTC_ERROR_LINKING);
  HIPRTC_CHECK(hiprtcLinkDestroy(link));
  EXPECT_RTC(hiprtcLinkDestroy(link), HIPRTC_ERROR_INVALID_INPUT);
  EXPECT_RTC(hiprtcLinkComplete(link, &image, &size), HIPRTC_ERROR_INVALID_INPUT);
  // A program's handle is no link state, nor the other way round.
  HIPRTC_CHECK(hiprtcCreateProgram(&prog, kGood, "good.cu", 0, nullptr, nullptr));
  EXPECT_RTC(hiprtcLinkDestroy(reinterpret_cast<hiprtcLinkState>(prog)),
             HIPRTC_ERROR_INVALID_INPUT);
  HIPRTC_CHECK(hiprtcDestroyProgram(&prog));

  return report("rtc_errors", mismatches);
}
