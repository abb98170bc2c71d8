// hip_complex.h's C++ operators, as programs use them: `a * b`, `a / b`, `y *= x`, `-z`,
// `z == w` and `z * 2.0` on hipFloatComplex and hipDoubleComplex mean complex arithmetic (the
// types are float2 and double2), in kernels templated over the precision and on the host.
#include "test_common.h"

#include <hip/hip_complex.h>

#include <complex>

template <typename C>
struct Results {
  C prod, quot, sum, diff, neg, acc, scaled;
  int equal, differ;
};

template <typename C, typename R>
__global__ void complex_ops(Results<C>* out, const C* a, const C* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  C x = a[i];
  C y = b[i];
  Results<C> r;
  r.prod = x * y;
  r.quot = x / y;
  r.sum = x + y;
  r.diff = x - y;
  r.neg = -x;
  C acc = y;
  acc *= x;
  acc += y;
  acc -= x;
  acc /= y;
  r.acc = acc;
  r.scaled = x * static_cast<R>(i % 5 - 2);
  r.equal = x == a[(i / 2) * 2];
  r.differ = x != y;
  out[i] = r;
}

template <typename R>
bool close(R got, R want, double tolerance) {
  return std::fabs(static_cast<double>(got) - static_cast<double>(want)) <=
         tolerance * std::fmax(1.0, std::fabs(static_cast<double>(want)));
}

template <typename C, typename R>
bool same(const C& got, std::complex<R> want, double tolerance) {
  return close<R>(got.x, want.real(), tolerance) && close<R>(got.y, want.imag(), tolerance);
}

template <typename C, typename R>
int run(const char* name, C (*make)(R, R), double tolerance) {
  const int n = 300;
  std::vector<C> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = make(static_cast<R>((i / 2) * 0.25 - 20), static_cast<R>(3 - (i / 2) % 7));
    b[i] = make(static_cast<R>(1 + i % 9), static_cast<R>((i % 4) - 1.5));
  }
  C* da = to_device(a);
  C* db = to_device(b);
  Results<C>* dout = nullptr;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(Results<C>)));
  complex_ops<C, R><<<(n + 63) / 64, 64>>>(dout, da, db, n);
  HIP_CHECK(hipGetLastError());
  std::vector<Results<C>> got = from_device(dout, n);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    std::complex<R> x(a[i].x, a[i].y), y(b[i].x, b[i].y);
    const Results<C>& r = got[i];
    bool ok = same(r.prod, x * y, tolerance) && same(r.quot, x / y, tolerance) &&
              same(r.sum, x + y, tolerance) && same(r.diff, x - y, tolerance) &&
              same(r.neg, -x, tolerance) && same(r.acc, (y * x + y - x) / y, tolerance) &&
              same(r.scaled, x * static_cast<R>(i % 5 - 2), tolerance) &&
              r.equal == 1 && r.differ == (x != y);
    // The host sees the same operators.
    ok = ok && same(a[i] * b[i], x * y, tolerance) && same(a[i] / b[i], x / y, tolerance);
    if (!ok) {
      if (bad < 5) std::printf("%s: mismatch at %d\n", name, i);
      ++bad;
    }
  }
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dout));
  return bad;
}

int main() {
  int bad = run<hipFloatComplex, float>("float", make_hipFloatComplex, 1e-5) +
            run<hipDoubleComplex, double>("double", make_hipDoubleComplex, 1e-13);
  hipDoubleComplex y = make_hipDoubleComplex(4.0, 2.0);
  y *= make_hipDoubleComplex(2.0, 3.0);
  if (hipCreal(y) != 2.0 || hipCimag(y) != 16.0) ++bad;
  if (bad) {
    std::printf("FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASSED\n");
  return 0;
}
