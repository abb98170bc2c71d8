// Value-initialization of classes in device code: `T()`, `T{}`, `new T()`, `: member()` and
// `T x{}` zero the object when its default constructor is not user-provided, before that
// constructor runs (default member initializers still apply). Each kernel first fills the stack
// with noise so that an object left unzeroed shows; every element checked on the host.
#include "test_common.h"

struct Pair {
  int a, b;
};
struct WithDefault {
  int x;
  float scale = 2.5f;  // a default member initializer: kept, the rest zeroed
  double y;
};
struct Holder {
  Pair p;
  WithDefault w;
  __device__ Holder() : p(), w() {}  // value-initialized members
};
struct UserCtor {
  int v;
  __device__ UserCtor() : v(7) {}  // user-provided: not zeroed first, sets v itself
};

template <typename T>
__device__ T value_of() {
  return T();
}

// Fills this thread's stack with noise, so that memory reused below is not zero by chance.
__device__ __noinline__ int noise(int seed) {
  volatile int junk[64];
  for (int i = 0; i < 64; ++i) junk[i] = seed * 31 + i;
  return junk[seed & 63];
}

__global__ void check(int* out, int seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int sum = noise(seed + i) & 0;
  Pair p = value_of<Pair>();
  uchar4 c = value_of<uchar4>();
  float4 f = value_of<float4>();
  WithDefault w{};
  Holder h;
  UserCtor u = value_of<UserCtor>();
  Pair* heap = new Pair();
  sum += p.a + p.b + c.x + c.y + c.z + c.w + (int)(f.x + f.y + f.z + f.w);
  sum += w.x + (int)w.y + h.p.a + h.p.b + h.w.x + (int)h.w.y + heap->a + heap->b;
  out[4 * i + 0] = sum;                              // 0
  out[4 * i + 1] = (int)(w.scale * 2 + h.w.scale * 2);  // 10
  out[4 * i + 2] = u.v;                              // 7
  out[4 * i + 3] = Pair{}.a + Pair().b + int();      // 0
  delete heap;
}

int main() {
  const int n = 256;
  int* d = nullptr;
  HIP_CHECK(hipMalloc(&d, 4 * n * sizeof(int)));
  HIP_CHECK(hipMemset(d, 0x5a, 4 * n * sizeof(int)));
  check<<<n / 64, 64>>>(d, 12345);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got = from_device(d, 4 * n), want(4 * n);
  for (int i = 0; i < n; ++i) {
    want[4 * i + 0] = 0;
    want[4 * i + 1] = 10;
    want[4 * i + 2] = 7;
    want[4 * i + 3] = 0;
  }
  HIP_CHECK(hipFree(d));
  return report("value_initialization", count_mismatches("value_initialization", got, want));
}
