// Every way a launch is written that the host pass must find and keep: `::k<<<>>>`,
// `ns::k<T><<<>>>`, `(k)<<<>>>`, HIP_KERNEL_NAME, a deduced kernel template, static member
// kernels (of a class and of a class template) launched from inside and outside the class,
// launches in constructors and const member functions, in both branches of `if constexpr`, of a
// kernel given as a default argument, as a void function's return value; and launches written
// by macros: in a do-while macro, as a macro's argument, a macro writing the kernel and its
// configuration with the arguments after its use, one macro's launch inside another's, a
// deduced kernel template as a macro's argument, and a cast to void. (clang takes no launch
// inside a default argument itself: it reads one there as a launch from device code.)
#include "test_common.h"

#include <type_traits>

namespace ops {
template <typename T>
__global__ void add(T* p, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += v;
}
}  // namespace ops

__global__ void twice(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 2;
}

template <typename T>
__global__ void set_all(T* p, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

class Buffer {
 public:
  // A static member kernel.
  __global__ static void add_index(int* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += i;
  }

  // The constructor launches.
  Buffer(int n, int value) : n_(n) {
    HIP_CHECK(hipMalloc(&data_, n * sizeof(int)));
    set_all<<<(n + 63) / 64, 64>>>(data_, value, n);
  }
  ~Buffer() { (void)hipFree(data_); }

  // A const member function launches a static member kernel, unqualified.
  void index() const { add_index<<<(n_ + 63) / 64, 64>>>(data_, n_); }

  int* data() const { return data_; }
  int size() const { return n_; }

 private:
  int* data_ = nullptr;
  int n_;
};

template <typename T>
struct Scaler {
  __global__ static void scale(T* p, T by, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= by;
  }
};

// Both branches of `if constexpr` launch; each instance keeps one.
template <typename T>
void bump(T* p, int n) {
  if constexpr (std::is_integral<T>::value) {
    ops::add<T><<<(n + 127) / 128, 128>>>(p, T(1), n);
  } else {
    ops::add<<<(n + 127) / 128, 128>>>(p, T(0.5), n);
  }
}

// The kernel a default argument.
void apply(int* p, int n, void (*kernel)(int*, int) = Buffer::add_index) {
  kernel<<<(n + 31) / 32, 32>>>(p, n);
}

// A void function returning a launch.
void double_all(int* p, int n) { return ::twice<<<(n + 255) / 256, 256>>>(p, n); }

#define RUN_TWICE(p, n)                            \
  do {                                             \
    (twice)<<<((n) + 127) / 128, 128>>>((p), (n)); \
    HIP_CHECK(hipGetLastError());                  \
  } while (0)

// A launch as a macro's argument (parenthesized: its commas would split the arguments).
#define CHECKED(launch)             \
  do {                              \
    launch;                         \
    HIP_CHECK(hipGetLastError());   \
  } while (0)
// The kernel and its configuration; the arguments follow where it is used.
#define ON_GRID(kernel, n) kernel<<<((n) + 63) / 64, 64>>>
// One macro's launch inside another's, with a statement after it.
#define LAUNCH_CHECKED(kernel, n, ...)  \
  ON_GRID(kernel, n)(__VA_ARGS__);      \
  HIP_CHECK(hipGetLastError())
#define IGNORED(kernel, n, ...) (void)kernel<<<((n) + 127) / 128, 128>>>(__VA_ARGS__)

int main() {
  const int n = 600;
  int failures = 0;

  Buffer buffer(n, 5);
  buffer.index();
  Buffer::add_index<<<(n + 63) / 64, 64>>>(buffer.data(), n);
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = 5 + 2 * i;
  failures += report("constructor and static member kernels",
                     count_mismatches("buffer", from_device(buffer.data(), n), want));

  double_all(buffer.data(), n);
  RUN_TWICE(buffer.data(), n);
  (twice)<<<(n + 63) / 64, 64>>>(buffer.data(), n);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(ops::add<int>), dim3((n + 63) / 64), dim3(64), 0, 0,
                     buffer.data(), 1, n);
  // The whole configuration from one macro.
#define ONE_DIM_CONFIG(count) dim3(((count) + 63) / 64), dim3(64), 0, 0
  hipLaunchKernelGGL(HIP_KERNEL_NAME(ops::add<int>), ONE_DIM_CONFIG(n), buffer.data(), 2, n);
  for (int& w : want) w = w * 8 + 3;
  failures += report("qualified, parenthesized and macro launches",
                     count_mismatches("twice", from_device(buffer.data(), n), want));

  bump(buffer.data(), n);
  Scaler<int>::scale<<<(n + 63) / 64, 64>>>(buffer.data(), -3, n);
  for (int& w : want) w = (w + 1) * -3;
  failures += report("if constexpr and class template static member",
                     count_mismatches("bump<int>", from_device(buffer.data(), n), want));

  std::vector<double> d(n);
  for (int i = 0; i < n; ++i) d[i] = 0.25 * i;
  double* dd = to_device(d);
  bump(dd, n);
  Scaler<double>::scale<<<(n + 63) / 64, 64>>>(dd, 4.0, n);
  std::vector<double> dgot = from_device(dd, n);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += dgot[i] != (0.25 * i + 0.5) * 4.0;
  failures += report("if constexpr else branch", bad);

  apply(buffer.data(), n);
  apply(buffer.data(), n, twice);
  for (int i = 0; i < n; ++i) want[i] = (want[i] + i) * 2;
  failures += report("kernel as a default argument",
                     count_mismatches("apply", from_device(buffer.data(), n), want));

  // Macros: each adds one to every element.
  CHECKED((ops::add<int><<<(n + 255) / 256, 256>>>(buffer.data(), 1, n)));
  ON_GRID(ops::add<int>, n)(buffer.data(), 1, n);
  LAUNCH_CHECKED(ops::add<int>, n, buffer.data(), 1, n);
  IGNORED(ops::add, n, buffer.data(), 1, n);  // deduced from the arguments
  for (int& w : want) w += 4;
  failures += report("launches written by macros",
                     count_mismatches("macros", from_device(buffer.data(), n), want));

  HIP_CHECK(hipFree(dd));
  if (failures) return 1;
  std::printf("launch_forms PASSED\n");
  return 0;
}
