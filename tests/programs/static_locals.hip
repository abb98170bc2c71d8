// Mutable `static` locals in device code, as real kernels keep state: each is one device
// variable shared by every thread and launch, starting from its constant initializer (a counter
// in a kernel, a ticket counter in a device function two kernels call, one table per template
// instance, an array with an initializer), and hipDeviceReset puts them back to it.
#include "test_common.h"

__global__ void count_down(int* out) {
  static int counter = 10;
  *out = counter--;
}

// Every thread of every launch takes a distinct ticket.
__device__ unsigned int take_ticket() {
  static unsigned int next = 100;
  return atomicAdd(&next, 1u);
}

__global__ void tickets(unsigned int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = take_ticket();
}

__global__ void more_tickets(unsigned int* out) { *out = take_ticket(); }

template <typename T>
__device__ T scaled_entry(int i) {
  static T table[4] = {T(1), T(2), T(3), T(4)};
  table[i % 4] += T(1);  // each instance keeps its own table
  return table[i % 4] * T(sizeof(T));
}

template <typename T>
__global__ void table_kernel(T* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = scaled_entry<T>(i);
}

int main() {
  int bad = 0;
  int* d_int = nullptr;
  HIP_CHECK(hipMalloc(&d_int, sizeof(int)));
  for (int want = 10; want >= 7; --want) {
    count_down<<<1, 1>>>(d_int);
    HIP_CHECK(hipGetLastError());
    int got = from_device(d_int, 1)[0];
    if (got != want) {
      std::printf("count_down: got %d, want %d\n", got, want);
      ++bad;
    }
  }

  const int n = 200;
  unsigned int* d_tickets = nullptr;
  HIP_CHECK(hipMalloc(&d_tickets, (n + 1) * sizeof(unsigned int)));
  tickets<<<(n + 63) / 64, 64>>>(d_tickets, n);
  more_tickets<<<1, 1>>>(d_tickets + n);
  HIP_CHECK(hipGetLastError());
  std::vector<unsigned int> got = from_device(d_tickets, n + 1);
  std::vector<int> seen(n, 0);
  for (int i = 0; i < n; ++i) {
    if (got[i] < 100 || got[i] >= 100 + n || seen[got[i] - 100]++) {
      std::printf("tickets: bad ticket %u at %d\n", got[i], i);
      ++bad;
    }
  }
  if (got[n] != 100 + n) {
    std::printf("more_tickets: got %u, want %d\n", got[n], 100 + n);
    ++bad;
  }

  const int m = 10;
  float* d_float = nullptr;
  double* d_double = nullptr;
  HIP_CHECK(hipMalloc(&d_float, m * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_double, m * sizeof(double)));
  table_kernel<float><<<1, 1>>>(d_float, m);
  table_kernel<double><<<1, 1>>>(d_double, m);
  table_kernel<float><<<1, 1>>>(d_float, m);
  HIP_CHECK(hipGetLastError());
  std::vector<float> fgot = from_device(d_float, m);
  std::vector<double> dgot = from_device(d_double, m);
  float ftable[4] = {1, 2, 3, 4};
  double dtable[4] = {1, 2, 3, 4};
  std::vector<float> fwant(m);
  std::vector<double> dwant(m);
  for (int i = 0; i < m; ++i) {  // the first float launch
    ftable[i % 4] += 1;
  }
  for (int i = 0; i < m; ++i) {
    dtable[i % 4] += 1;
    dwant[i] = dtable[i % 4] * sizeof(double);
    ftable[i % 4] += 1;
    fwant[i] = ftable[i % 4] * sizeof(float);
  }
  for (int i = 0; i < m; ++i) {
    if (fgot[i] != fwant[i] || dgot[i] != dwant[i]) {
      std::printf("tables: at %d got %g %g, want %g %g\n", i, fgot[i], dgot[i], fwant[i],
                  dwant[i]);
      ++bad;
    }
  }

  // hipDeviceReset frees everything and puts device variables back to their initializers.
  HIP_CHECK(hipDeviceReset());
  HIP_CHECK(hipMalloc(&d_int, sizeof(int)));
  count_down<<<1, 1>>>(d_int);
  HIP_CHECK(hipGetLastError());
  int again = from_device(d_int, 1)[0];
  if (again != 10) {
    std::printf("count_down after hipDeviceReset: got %d, want 10\n", again);
    ++bad;
  }
  HIP_CHECK(hipFree(d_int));
  if (bad) {
    std::printf("FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASSED\n");
  return 0;
}
