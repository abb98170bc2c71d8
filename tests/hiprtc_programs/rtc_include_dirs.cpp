// A kernel whose header comes from an -I folder on disk, compiled again after the header
// changes: the compile (and the compile cache) sees the new header. Every result is compared
// with a host reference.
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "rtc_common.h"

static const char* kSource = R"(
#include <weights.h>

extern "C" __global__ void weigh(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * WEIGHT + BIAS;
}
)";

// Compiles the kernel against `folder` and runs it: its mismatches against i * weight + 2.
static int compile_and_run(const std::filesystem::path& folder, int weight) {
  std::string include = "-I" + folder.string();
  hiprtcProgram prog;
  HIPRTC_CHECK(hiprtcCreateProgram(&prog, kSource, "weigh.cu", 0, nullptr, nullptr));
  compile(prog, {include.c_str(), "-DBIAS=2"});
  std::vector<char> code = code_of(prog);
  HIPRTC_CHECK(hiprtcDestroyProgram(&prog));
  hipModule_t module;
  HIP_CHECK(hipModuleLoadData(&module, code.data()));
  hipFunction_t weigh = nullptr;
  HIP_CHECK(hipModuleGetFunction(&weigh, module, "weigh"));
  const int n = 1024;
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = i * weight + 2;
  int* d_out = to_device(std::vector<int>(n, 0));
  int count = n;
  void* args[] = {&d_out, &count};
  HIP_CHECK(hipModuleLaunchKernel(weigh, n / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  int bad = count_mismatches("weigh", from_device(d_out, n), want);
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipModuleUnload(module));
  return bad;
}

int main() {
  std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("rtc_include_dirs_" + std::to_string(getpid()));
  std::filesystem::create_directories(folder);
  int mismatches = 0;
  std::ofstream(folder / "weights.h") << "#define WEIGHT 3\n";
  mismatches += compile_and_run(folder, 3);
  mismatches += compile_and_run(folder, 3);  // the same compile again
  std::ofstream(folder / "weights.h") << "#define WEIGHT 11 /* changed */\n";
  mismatches += compile_and_run(folder, 11);
  std::filesystem::remove_all(folder);
  return report("rtc_include_dirs", mismatches);
}
