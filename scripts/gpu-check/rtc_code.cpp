// rtc_code SOURCE OUT [OPTION...]: compiles SOURCE with hiprtc and writes its code object to OUT
// (gpu-check carries it to the GPU machine, where hiprtc cannot run: hipModuleLoad there).
#include <hip/hiprtc.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: rtc_code SOURCE OUT [OPTION...]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::fprintf(stderr, "rtc_code: cannot read %s\n", argv[1]);
    return 1;
  }
  const std::string source = text.str();
  hiprtcProgram program;
  if (hiprtcCreateProgram(&program, source.c_str(), argv[1], 0, nullptr, nullptr) != HIPRTC_SUCCESS) {
    std::fprintf(stderr, "rtc_code: hiprtcCreateProgram failed\n");
    return 1;
  }
  std::vector<const char*> options(argv + 3, argv + argc);
  hiprtcResult compiled = hiprtcCompileProgram(program, static_cast<int>(options.size()), options.data());
  size_t log_size = 0;
  hiprtcGetProgramLogSize(program, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 1) hiprtcGetProgramLog(program, &log[0]);
  if (compiled != HIPRTC_SUCCESS) {
    std::fprintf(stderr, "rtc_code: %s: %s\n%s", argv[1], hiprtcGetErrorString(compiled), log.c_str());
    return 1;
  }
  size_t size = 0;
  hiprtcGetCodeSize(program, &size);
  std::vector<char> code(size);
  hiprtcGetCode(program, code.data());
  hiprtcDestroyProgram(&program);
  std::ofstream out(argv[2], std::ios::binary);
  out.write(code.data(), static_cast<std::streamsize>(code.size()));
  return out ? 0 : 1;
}
