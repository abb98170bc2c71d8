// Runs hipmlir's PTX on an NVIDIA GPU through the CUDA driver API alone (no hipmlir runtime):
//
//   nvcc -O2 -o ptx_selftest ptx_selftest.cpp -lcuda
//   ./ptx_selftest kernels.ptx            # the kernels of scripts/gpu/kernels.hip, each checked
//                                         # element by element against a host reference
//   ./ptx_selftest --load a.ptx b.ptx ... # JIT-loads each module and finds each of its .entry
//
// Prints one line per check and "N passed, M failed" at the end; exits non-zero on a failure.
#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static int passed = 0, failed = 0;

#define CU(call)                                                                      \
  do {                                                                                \
    CUresult r_ = (call);                                                             \
    if (r_ != CUDA_SUCCESS) {                                                         \
      const char* s_ = nullptr;                                                       \
      cuGetErrorString(r_, &s_);                                                      \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, s_); \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

static void check(const char* what, bool ok, const std::string& detail = "") {
  std::printf("%s: %s%s%s\n", ok ? "PASS" : "FAIL", what, detail.empty() ? "" : ": ",
              detail.c_str());
  (ok ? passed : failed)++;
}

static std::string read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(2);
  }
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Loads PTX with the JIT's error log shown on failure.
static bool load(const std::string& ptx, CUmodule* module, std::string* log_out) {
  static char log[1 << 16];
  log[0] = 0;
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log, (void*)(size_t)sizeof(log)};
  CUresult r = cuModuleLoadDataEx(module, ptx.c_str(), 2, options, values);
  *log_out = log;
  return r == CUDA_SUCCESS;
}

template <class T>
struct Buffer {
  CUdeviceptr ptr = 0;
  size_t n;
  explicit Buffer(size_t n_, const T* init = nullptr) : n(n_) {
    CU(cuMemAlloc(&ptr, n * sizeof(T)));
    if (init) {
      CU(cuMemcpyHtoD(ptr, init, n * sizeof(T)));
    } else {
      CU(cuMemsetD8(ptr, 0, n * sizeof(T)));
    }
  }
  std::vector<T> get() const {
    std::vector<T> out(n);
    CU(cuMemcpyDtoH(out.data(), ptr, n * sizeof(T)));
    return out;
  }
  ~Buffer() { cuMemFree(ptr); }
};

static void launch(CUmodule m, const char* name, unsigned gx, unsigned gy, unsigned bx,
                   unsigned by, unsigned shared, std::vector<void*> args) {
  CUfunction f;
  CU(cuModuleGetFunction(&f, m, name));
  CU(cuLaunchKernel(f, gx, gy, 1, bx, by, 1, shared, nullptr, args.data(), nullptr));
  CU(cuCtxSynchronize());
}

static bool close(double a, double b, double rel) {
  return std::fabs(a - b) <= rel * std::fmax(1.0, std::fabs(b));
}

struct Affine {
  float scale;
  double shift;
  int flags;
};

static void selftest(CUmodule m) {
  {  // index2d
    int w = 100, h = 37;
    Buffer<int> out(w * h);
    launch(m, "index2d", (w + 15) / 16, (h + 7) / 8, 16, 8, 0, {&out.ptr, &w, &h});
    auto v = out.get();
    int bad = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) bad += v[y * w + x] != y * 1000 + x;
    check("2-D indexing", bad == 0, std::to_string(bad) + " wrong of " + std::to_string(w * h));
  }
  {  // affine: struct by value
    int n = 1000;
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i) in[i] = i * 0.25f;
    Buffer<float> din(n, in.data());
    Buffer<double> out(n);
    Affine a{1.5f, -3.25, 1};
    launch(m, "affine", (n + 127) / 128, 1, 128, 1, 0, {&din.ptr, &out.ptr, &a, &n});
    auto v = out.get();
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += v[i] != in[i] * a.scale + a.shift + 1.0;
    check("struct by value, float and double", bad == 0, std::to_string(bad) + " wrong");
  }
  {  // static shared memory
    int blocks = 64, n = blocks * 256;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = i * 7 + 3;
    Buffer<int> din(n, in.data()), out(n);
    launch(m, "reverse_block", blocks, 1, 256, 1, 0, {&din.ptr, &out.ptr});
    auto v = out.get();
    int bad = 0;
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < 256; ++t) bad += v[b * 256 + t] != in[b * 256 + 255 - t];
    check("static shared memory and barriers", bad == 0, std::to_string(bad) + " wrong");
  }
  {  // dynamic shared memory
    int blocks = 80, threads = 512, n = blocks * threads;
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i) in[i] = (float)(i % 13);
    Buffer<float> din(n, in.data()), out(blocks);
    launch(m, "block_sum", blocks, 1, threads, 1, threads * sizeof(float), {&din.ptr, &out.ptr});
    auto v = out.get();
    int bad = 0;
    for (int b = 0; b < blocks; ++b) {
      double s = 0;
      for (int t = 0; t < threads; ++t) s += in[b * threads + t];
      bad += v[b] != (float)s;
    }
    check("dynamic shared memory reduction", bad == 0, std::to_string(bad) + " wrong");
  }
  {  // atomics
    int n = 100000;
    std::vector<int> in(n);
    long long sum = 0;
    unsigned mx = 0;
    for (int i = 0; i < n; ++i) {
      in[i] = (i * 37) % 1001;
      sum += in[i];
      mx = std::max(mx, (unsigned)in[i]);
    }
    Buffer<int> din(n, in.data()), dsum(1), dcas(1);
    Buffer<unsigned> dmax(1);
    Buffer<float> dfsum(1);
    launch(m, "atomics", (n + 255) / 256, 1, 256, 1, 0,
           {&din.ptr, &dsum.ptr, &dmax.ptr, &dfsum.ptr, &dcas.ptr, &n});
    check("atomicAdd int", dsum.get()[0] == (int)sum);
    check("atomicMax unsigned", dmax.get()[0] == mx);
    check("atomicAdd float", dfsum.get()[0] == n * 0.5f);
    check("atomicCAS loop", dcas.get()[0] == n);
  }
  {  // math via libdevice
    int n = 4096;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[i] = 0.001f + i * 0.0023f;
    Buffer<float> dx(n, x.data()), out(n);
    Buffer<double> dout(n);
    launch(m, "math", (n + 255) / 256, 1, 256, 1, 0, {&dx.ptr, &out.ptr, &dout.ptr, &n});
    auto v = out.get();
    auto d = dout.get();
    int bad = 0, dbad = 0;
    for (int i = 0; i < n; ++i) {
      float f = x[i];
      double ref = std::sin(f) + std::exp(f * 0.1f) + std::pow(f, 1.5f) + std::sqrt(f) +
                   std::fmod(f, 0.7f) + std::tanh(f);
      bad += !close(v[i], ref, 1e-5);
      double dref = std::cos((double)f) + std::log1p((double)f) + std::erf((double)f);
      dbad += !close(d[i], dref, 1e-13);
    }
    check("float math (libdevice)", bad == 0, std::to_string(bad) + " beyond 1e-5");
    check("double math (libdevice)", dbad == 0, std::to_string(dbad) + " beyond 1e-13");
  }
  {  // warp operations
    int blocks = 16, threads = 256, n = blocks * threads, warps = n / 32;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 11) % 17;
    Buffer<int> din(n, in.data()), sums(warps), anys(warps);
    Buffer<unsigned long long> ballots(warps);
    launch(m, "warp", blocks, 1, threads, 1, 0, {&din.ptr, &sums.ptr, &ballots.ptr, &anys.ptr});
    auto s = sums.get();
    auto b = ballots.get();
    auto a = anys.get();
    int bad = 0;
    for (int w = 0; w < warps; ++w) {
      int sum = 0, any = 0;
      unsigned long long ballot = 0;
      for (int l = 0; l < 32; ++l) {
        int v = in[w * 32 + l];
        sum += v;
        if (v % 3 == 0) ballot |= 1ull << l;
        any |= v == 7;
      }
      bad += s[w] != sum || b[w] != ballot || a[w] != any;
    }
    check("warp shuffle, ballot, any (warpSize 32)", bad == 0,
          std::to_string(bad) + " warps wrong");
  }
  {  // block votes
    int blocks = 20, threads = 192, n = blocks * threads;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 29) % 101 - (i == 1000 ? 200 : 0);
    Buffer<int> din(n, in.data()), counts(blocks), alls(blocks);
    launch(m, "block_votes", blocks, 1, threads, 1, 0, {&din.ptr, &counts.ptr, &alls.ptr});
    auto c = counts.get();
    auto a = alls.get();
    int bad = 0;
    for (int b = 0; b < blocks; ++b) {
      int count = 0, all = 1;
      for (int t = 0; t < threads; ++t) {
        count += in[b * threads + t] > 50;
        all &= in[b * threads + t] >= 0;
      }
      bad += c[b] != count || a[b] != all;
    }
    check("__syncthreads_count/_and", bad == 0, std::to_string(bad) + " blocks wrong");
  }
  {  // __syncwarp
    int blocks = 32, n = blocks * 256;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = i * 3 + 1;
    Buffer<int> din(n, in.data()), out(n);
    launch(m, "warp_exchange", blocks, 1, 256, 1, 0, {&din.ptr, &out.ptr});
    auto v = out.get();
    int bad = 0;
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < 256; ++t)
        bad += v[b * 256 + t] != in[b * 256 + (t ^ 1)] + in[b * 256 + (t & ~31)];
    check("__syncwarp exchange through shared memory", bad == 0, std::to_string(bad) + " wrong");
  }
  {  // printf
    int tag = 42;
    std::fflush(stdout);
    launch(m, "hello", 2, 1, 32, 1, 0, {&tag});
    check("printf (vprintf) ran", true, "its line is above");
  }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s kernels.ptx | --load a.ptx ...\n", argv[0]);
    return 2;
  }
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  char name[256];
  CU(cuDeviceGetName(name, sizeof(name), dev));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  std::printf("device: %s\n", name);
  if (std::strcmp(argv[1], "--load") == 0) {
    for (int i = 2; i < argc; ++i) {
      std::string ptx = read_file(argv[i]);
      CUmodule m;
      std::string log;
      if (!load(ptx, &m, &log)) {
        check(argv[i], false, "JIT: " + log);
        continue;
      }
      int entries = 0, missing = 0;
      std::string pending;
      for (size_t at = ptx.find(".entry "); at != std::string::npos;
           at = ptx.find(".entry ", at + 1)) {
        size_t start = at + 7, end = ptx.find_first_of("( \n", start);
        std::string entry = ptx.substr(start, end - start);
        CUfunction f;
        entries++;
        if (cuModuleGetFunction(&f, m, entry.c_str()) != CUDA_SUCCESS) {
          missing++;
          pending += entry + " ";
        }
      }
      check(argv[i], missing == 0 && entries > 0,
            std::to_string(entries) + " entries" + (missing ? ", missing: " + pending : ""));
      cuModuleUnload(m);
    }
  } else {
    std::string ptx = read_file(argv[1]);
    CUmodule m;
    std::string log;
    if (!load(ptx, &m, &log)) {
      std::fprintf(stderr, "JIT failed: %s\n", log.c_str());
      return 1;
    }
    selftest(m);
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
