// Times runtime compilation in one process through a library loaded with dlopen: hipmlir's
// libhiprtc.so (hiprtc*) or NVIDIA's libnvrtc.so (nvrtc*), whose calls have the same shapes.
// Plain C++ with no HIP or CUDA header, so that it builds and runs on a machine with either.
//
//   rtc_compile LIBRARY hiprtc|nvrtc RUNS FILE... [-- OPTION...]
//
// Each FILE is a kernel source. Its #include of hip/hip_runtime.h is dropped (a runtime compile
// sees the platform's declarations without it); hip/hip_fp16.h stays for hiprtc, which has it,
// and is cuda_fp16.h for NVRTC. Prints tab-separated lines, times in seconds:
//   first   FILE  T     the process's first compile (the first file)
//   compile FILE  T     median of RUNS compiles of the file made distinct (a comment naming
//                       this process added), so that no cache answers them
//   cached  FILE  T     median of RUNS compiles of the same text again (hiprtc's disk cache)
//   code    FILE  BYTES the size of the code (hiprtc's code object, NVRTC's PTX)
//   failed  FILE  TEXT  the file did not compile: the log's first error line (the whole log on
//                       stderr); the other files are still timed
// Exit status 2 when the library or a symbol cannot be loaded.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

typedef int (*CreateFn)(void**, const char*, const char*, int, const char* const*,
                        const char* const*);
typedef int (*CompileFn)(void*, int, const char* const*);
typedef int (*DestroyFn)(void**);
typedef int (*SizeFn)(void*, size_t*);
typedef int (*GetFn)(void*, char*);

struct Api {
  CreateFn create;
  CompileFn compile;
  DestroyFn destroy;
  SizeFn code_size;
  GetFn code;
  SizeFn log_size;
  GetFn log;
};

void* symbol(void* library, const std::string& name) {
  void* s = dlsym(library, name.c_str());
  if (!s) {
    std::fprintf(stderr, "rtc_compile: no symbol %s: %s\n", name.c_str(), dlerror());
    std::exit(2);
  }
  return s;
}

std::string read_source(const std::string& path, bool nvrtc) {
  std::ifstream file(path);
  if (!file) {
    std::fprintf(stderr, "rtc_compile: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::stringstream out;
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind("#include", 0) != 0)
      out << line << '\n';
    else if (line.find("hip/hip_fp16.h") != std::string::npos)
      out << (nvrtc ? "#include <cuda_fp16.h>" : line) << '\n';
  }
  return out.str();
}

// A compile that failed: the log's first line naming an error (else its first line).
struct Failed {
  std::string line;
};

// One compile: its wall time, and the code's size; throws Failed.
double compile_once(const Api& api, const std::string& source, const std::string& name,
                    const std::vector<const char*>& options, size_t* code_bytes) {
  auto start = std::chrono::steady_clock::now();
  void* prog = nullptr;
  if (api.create(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr) != 0) {
    std::fprintf(stderr, "rtc_compile: cannot create a program for %s\n", name.c_str());
    std::exit(1);
  }
  int result = api.compile(prog, static_cast<int>(options.size()), options.data());
  size_t size = 0;
  if (result == 0 && api.code_size(prog, &size) == 0) {
    std::vector<char> code(size);
    api.code(prog, code.data());
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (result != 0 || size == 0) {
    size_t log_size = 0;
    api.log_size(prog, &log_size);
    std::string log(log_size, '\0');
    if (log_size) api.log(prog, &log[0]);
    std::fprintf(stderr, "rtc_compile: %s does not compile (%d):\n%s\n", name.c_str(), result,
                 log.c_str());
    api.destroy(&prog);
    std::istringstream lines(log);
    std::string line, first;
    while (std::getline(lines, line)) {
      if (first.empty()) first = line;
      if (line.find("error") != std::string::npos) throw Failed{line};
    }
    throw Failed{first.empty() ? "compile failed with an empty log" : first};
  }
  api.destroy(&prog);
  *code_bytes = size;
  return seconds;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: rtc_compile LIBRARY hiprtc|nvrtc RUNS FILE... [-- OPTION...]\n");
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    std::fprintf(stderr, "rtc_compile: cannot load %s: %s\n", argv[1], dlerror());
    return 2;
  }
  const std::string prefix = argv[2];
  const bool nvrtc = prefix == "nvrtc";
  Api api;
  api.create = reinterpret_cast<CreateFn>(symbol(library, prefix + "CreateProgram"));
  api.compile = reinterpret_cast<CompileFn>(symbol(library, prefix + "CompileProgram"));
  api.destroy = reinterpret_cast<DestroyFn>(symbol(library, prefix + "DestroyProgram"));
  api.code_size = reinterpret_cast<SizeFn>(symbol(library, prefix + (nvrtc ? "GetPTXSize" : "GetCodeSize")));
  api.code = reinterpret_cast<GetFn>(symbol(library, prefix + (nvrtc ? "GetPTX" : "GetCode")));
  api.log_size = reinterpret_cast<SizeFn>(symbol(library, prefix + "GetProgramLogSize"));
  api.log = reinterpret_cast<GetFn>(symbol(library, prefix + "GetProgramLog"));
  const int runs = std::max(1, std::atoi(argv[3]));
  std::vector<std::string> files;
  std::vector<const char*> options;
  int i = 4;
  for (; i < argc && std::string(argv[i]) != "--"; ++i) files.push_back(argv[i]);
  for (++i; i < argc; ++i) options.push_back(argv[i]);

  for (size_t f = 0; f < files.size(); ++f) {
    const std::string& file = files[f];
    std::string name = file.substr(file.find_last_of('/') + 1);
    std::string source = read_source(file, nvrtc);
    size_t bytes = 0;
    const std::string process = std::to_string(getpid());
    try {
      if (f == 0) {
        double first =
            compile_once(api, source + "// first in " + process + "\n", name, options, &bytes);
        std::printf("first\t%s\t%.6f\n", name.c_str(), first);
      }
      std::vector<double> distinct, again;
      for (int r = 0; r < runs; ++r) {
        std::string variant =
            source + "// variant " + std::to_string(r) + " in " + process + "\n";
        distinct.push_back(compile_once(api, variant, name, options, &bytes));
      }
      for (int r = 0; r < runs; ++r) again.push_back(compile_once(api, source, name, options, &bytes));
      std::printf("compile\t%s\t%.6f\n", name.c_str(), median(distinct));
      std::printf("cached\t%s\t%.6f\n", name.c_str(), median(again));
      std::printf("code\t%s\t%zu\n", name.c_str(), bytes);
    } catch (const Failed& failed) {
      std::printf("failed\t%s\t%s\n", name.c_str(), failed.line.c_str());
    }
  }
  return 0;
}
