// Where the memory checker's fast checks draw the line: for element types of 1, 4 and 12 bytes,
// subscripts with a constant offset (`(p + K)[i]`, `p[i + K]`), signed and unsigned 32-bit and
// 64-bit indices, arguments that point into the middle of their allocation, and allocations
// whose size is or is not a multiple of the element's, one thread reads the first and last
// element inside the allocation (which must pass and read the right value) and the first outside
// either end (which must be reported, failing the launch with hipErrorIllegalAddress; a reset
// then clears it). Where a fault ends the device for the process (an NVIDIA GPU), each case runs
// in a process of its own: this program, given the case's number.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define HIP_CHECK(call)                                                              \
  do {                                                                               \
    hipError_t e_ = (call);                                                          \
    if (e_ != hipSuccess) {                                                          \
      std::printf("%s failed: %s\n", #call, hipGetErrorName(e_));                    \
      return false;                                                                  \
    }                                                                                \
  } while (0)

struct Twelve {
  int a, b, c;
};

// The value a test byte pattern gives each element type (bytes 0, 1, 2, ... of the allocation).
template <typename T>
T at_bytes(const std::vector<unsigned char>& bytes, long long element) {
  T value;
  std::memcpy(&value, bytes.data() + element * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
bool same(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The offset is a constant added to the pointer, or to the index before it is widened.
template <typename T, int K, typename Index>
__global__ void read_after_pointer_offset(const T* p, Index i, T* out) {
  out[0] = (p + K)[i];
}

template <typename T, int K>
__global__ void read_after_index_offset(const T* p, int i, T* out) {
  out[0] = p[i + K];
}

#define LAUNCH_ONE(kernel, ...) hipLaunchKernelGGL(kernel, dim3(1), dim3(1), 0, 0, __VA_ARGS__)

int failures = 0;
int cases = 0;
int only = -1;          // the one case this run makes (-1: every case)
bool counting = false;  // only count the cases

static bool fault_ends_the_device() {
  hipDeviceProp_t props;
  return hipGetDeviceProperties(&props, 0) == hipSuccess &&
         std::strncmp(props.gcnArchName, "sm_", 3) == 0;
}

// Runs one read of element `element` (its subscript `i`) of an allocation of `bytes` bytes: it
// must pass and read the element when it lies inside, and be reported when it does not.
template <typename T, typename Launch>
bool one_read(const char* what, size_t bytes, long long element, long long i, Launch launch) {
  int number = cases++;
  if (counting || (only >= 0 && number != only)) return true;
  std::vector<unsigned char> pattern(bytes);
  for (size_t b = 0; b < bytes; ++b) pattern[b] = static_cast<unsigned char>(b * 7 + 1);
  T* d = nullptr;
  T* out = nullptr;
  HIP_CHECK(hipMalloc(&d, bytes));
  HIP_CHECK(hipMalloc(&out, sizeof(T)));
  HIP_CHECK(hipMemcpy(d, pattern.data(), bytes, hipMemcpyHostToDevice));
  launch(d, out);
  hipError_t synced = hipDeviceSynchronize();
  bool inside = element >= 0 && (element + 1) * (long long)sizeof(T) <= (long long)bytes;
  if (inside) {
    T got;
    if (synced != hipSuccess) {
      std::printf("FAIL %s, %zu bytes, index %lld: inside, but %s\n", what, bytes, i,
                  hipGetErrorName(synced));
      ++failures;
      HIP_CHECK(hipDeviceReset());
      return true;
    }
    HIP_CHECK(hipMemcpy(&got, out, sizeof(T), hipMemcpyDeviceToHost));
    if (!same(got, at_bytes<T>(pattern, element))) {
      std::printf("FAIL %s, %zu bytes, index %lld: read a wrong value\n", what, bytes, i);
      ++failures;
    }
    HIP_CHECK(hipFree(d));
    HIP_CHECK(hipFree(out));
    return true;
  }
  if (synced != hipErrorIllegalAddress) {
    std::printf("FAIL %s, %zu bytes, index %lld: outside, but %s\n", what, bytes, i,
                hipGetErrorName(synced));
    ++failures;
  }
  HIP_CHECK(hipDeviceReset());
  return true;
}

// The four reads around both ends for a subscript `(p + K)[i]` of an Index.
template <typename T, int K, typename Index>
bool pointer_offset(const char* what, size_t bytes) {
  long long count = bytes / sizeof(T);
  long long first = -K, last = count - 1 - K;
  // (An unsigned index below 0 is its largest value: far past the end.)
  bool is_signed = Index(-1) < Index(0);
  long long below = is_signed || first > 0 ? first - 1 : static_cast<long long>(Index(-1));
  long long lowest = is_signed ? first : (first > 0 ? first : 0);
  for (long long i : {below, lowest, last, last + 1}) {
    Index index = static_cast<Index>(i);
    bool ok = one_read<T>(what, bytes, K + i, i, [&](T* d, T* out) {
      LAUNCH_ONE((read_after_pointer_offset<T, K, Index>), d, index, out);
    });
    if (!ok) return false;
  }
  return true;
}

template <typename T, int K>
bool index_offset(const char* what, size_t bytes) {
  long long count = bytes / sizeof(T);
  long long first = -K, last = count - 1 - K;
  for (long long i : {first - 1, first, last, last + 1}) {
    int index = static_cast<int>(i);
    bool ok = one_read<T>(what, bytes, K + i, i, [&](T* d, T* out) {
      read_after_index_offset<T, K><<<1, 1>>>(d, index, out);
    });
    if (!ok) return false;
  }
  return true;
}

// The argument itself points into its allocation, `M` elements in (`f(p + M)`): the fast
// check takes the bytes from the pointer to the allocation's end (the extent the runtime
// passes), and a read below the pointer is looked up in the table.
template <typename T, int M>
bool argument_offset(const char* what, size_t bytes) {
  long long count = bytes / sizeof(T);
  for (long long i : {-M - 1LL, -1LL * M, count - 1 - M, count - M}) {
    int index = static_cast<int>(i);
    bool ok = one_read<T>(what, bytes, M + i, i, [&](T* d, T* out) {
      LAUNCH_ONE((read_after_pointer_offset<T, 0, int>), d + M, index, out);
    });
    if (!ok) return false;
  }
  return true;
}

template <typename T>
bool every_shape(const char* type) {
  char what[96];
  // Whole elements, and a size that ends inside an element (its last bytes missing).
  for (size_t bytes : {sizeof(T) * 40, sizeof(T) * 40 + sizeof(T) - 1}) {
    if (bytes % sizeof(T) == 0 || sizeof(T) > 1) {
      std::snprintf(what, sizeof what, "%s (p - 2)[int]", type);
      if (!pointer_offset<T, -2, int>(what, bytes)) return false;
      std::snprintf(what, sizeof what, "%s (p + 3)[int]", type);
      if (!pointer_offset<T, 3, int>(what, bytes)) return false;
      std::snprintf(what, sizeof what, "%s (p + 3)[unsigned]", type);
      if (!pointer_offset<T, 3, unsigned>(what, bytes)) return false;
      std::snprintf(what, sizeof what, "%s (p - 2)[unsigned]", type);
      if (!pointer_offset<T, -2, unsigned>(what, bytes)) return false;
      std::snprintf(what, sizeof what, "%s (p + 3)[long]", type);
      if (!pointer_offset<T, 3, long>(what, bytes)) return false;
      std::snprintf(what, sizeof what, "%s p[int + 5]", type);
      if (!index_offset<T, 5>(what, bytes)) return false;
      std::snprintf(what, sizeof what, "%s f(p + 7): p[int]", type);
      if (!argument_offset<T, 7>(what, bytes)) return false;
    }
  }
  return true;
}

bool every_case() {
  return every_shape<char>("char") && every_shape<int>("int") && every_shape<Twelve>("Twelve");
}

int main(int argc, char** argv) {
  if (argc > 1) {
    only = std::atoi(argv[1]);
    return every_case() && failures == 0 ? 0 : 1;
  }
  if (fault_ends_the_device()) {
    counting = true;
    every_case();
    counting = false;
    for (int number = 0; number < cases; ++number) {
      std::string command = std::string(argv[0]) + " " + std::to_string(number);
      if (std::system(command.c_str()) != 0) ++failures;
    }
  } else if (!every_case()) {
    return 1;
  }
  if (failures != 0) {
    std::printf("%d of %d cases wrong\n", failures, cases);
    return 1;
  }
  std::printf("PASSED: %d cases as expected\n", cases);
  return 0;
}
