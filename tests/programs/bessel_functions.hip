// HIP's Bessel functions in device code: j0, j1, jn, y0, y1, yn (double and float) and
// cyl_bessel_i0, cyl_bessel_i1 (double and float), against the host's C library (glibc's j0 ...)
// and, for the modified ones, a long double power series. Within a few ulps of the reference, or
// within an absolute bound near the functions' zeros, as CUDA and HIP document their accuracy.
#include "test_common.h"

#include <cmath>

constexpr int kOutputs = 16;

__global__ void bessel(const double* x, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  float f = static_cast<float>(v);
  double* o = out + kOutputs * i;
  o[0] = j0(v);
  o[1] = j1(v);
  o[2] = jn(5, v);
  o[3] = y0(v);
  o[4] = y1(v);
  o[5] = yn(3, v);
  o[6] = cyl_bessel_i0(v);
  o[7] = cyl_bessel_i1(v);
  o[8] = j0f(f);
  o[9] = j1f(f);
  o[10] = jnf(7, f);
  o[11] = y0f(f);
  o[12] = y1f(f);
  o[13] = ynf(2, f);
  o[14] = cyl_bessel_i0f(f);
  o[15] = cyl_bessel_i1f(f);
}

// I_nu(x) by its power series in long double (positive terms: accurate everywhere it converges).
static long double bessel_i(int nu, long double x) {
  long double q = x * x / 4, term = nu == 0 ? 1.0L : x / 2, sum = term;
  for (int k = 1; k < 2000; ++k) {
    term *= q / (static_cast<long double>(k) * (k + nu));
    sum += term;
    if (term < sum * 1e-21L) break;
  }
  return sum;
}

// Within `ulps` units in the last place of T, or within `absolute` (near zeros).
template <class T>
static bool close(double have, double want, double ulps, double absolute) {
  if (std::isnan(want)) return std::isnan(have);
  if (std::isinf(want)) return have == want;
  double ulp = std::ldexp(1.0, std::ilogb(std::fmax(std::fabs(want),
                                                    static_cast<double>(std::numeric_limits<T>::min()))) -
                                   (std::numeric_limits<T>::digits - 1));
  double err = std::fabs(have - want);
  return err <= ulps * ulp || err <= absolute;
}

int main() {
  std::vector<double> x;
  for (int i = 0; i < 1200; ++i) x.push_back(i * 0.0625);               // 0 .. 75 in steps
  for (int i = 1; i < 200; ++i) x.push_back(std::ldexp(1.0, -i / 4));  // tiny values
  for (int i = 0; i < 300; ++i) x.push_back(100.0 + i * 13.7);          // large arguments
  for (int i = 1; i < 100; ++i) x.push_back(-i * 0.37);                  // negative arguments
  x.push_back(700.0);
  x.push_back(713.5);
  x.push_back(720.0);  // I0 overflows here
  const int n = static_cast<int>(x.size());
  double* dx = to_device(x);
  double* dout;
  HIP_CHECK(hipMalloc(&dout, sizeof(double) * kOutputs * n));
  bessel<<<(n + 127) / 128, 128>>>(dx, dout, n);
  HIP_CHECK(hipGetLastError());
  std::vector<double> got = from_device(dout, static_cast<size_t>(kOutputs) * n);

  int bad = 0;
  for (int i = 0; i < n; ++i) {
    double v = x[i];
    float f = static_cast<float>(v);
    const double* o = &got[static_cast<size_t>(kOutputs) * i];
    bool positive = v >= 0.0;  // Y is -inf at 0 and NaN below
    struct Case {
      const char* name;
      double have, want;
      bool is_float;
      double ulps, absolute;
    } cases[kOutputs] = {
        {"j0", o[0], j0(v), false, 6, 1e-15},
        {"j1", o[1], j1(v), false, 6, 1e-15},
        {"jn(5)", o[2], jn(5, v), false, 6, 1e-15},
        {"y0", o[3], positive ? y0(v) : NAN, false, 6, 1e-15},
        {"y1", o[4], positive ? y1(v) : NAN, false, 6, 1e-15},
        {"yn(3)", o[5], positive ? yn(3, v) : NAN, false, 6, 1e-15},
        {"cyl_bessel_i0", o[6], static_cast<double>(bessel_i(0, std::fabs(v))), false, 6, 0},
        {"cyl_bessel_i1", o[7],
         static_cast<double>(v < 0 ? -bessel_i(1, -v) : bessel_i(1, v)), false, 6, 0},
        {"j0f", o[8], j0f(f), true, 2, 1e-7},
        {"j1f", o[9], j1f(f), true, 2, 1e-7},
        {"jnf(7)", o[10], jn(7, static_cast<double>(f)), true, 2, 1e-7},
        {"y0f", o[11], f >= 0 ? y0(static_cast<double>(f)) : NAN, true, 2, 1e-7},
        {"y1f", o[12], f >= 0 ? y1(static_cast<double>(f)) : NAN, true, 2, 1e-7},
        {"ynf(2)", o[13], f >= 0 ? yn(2, static_cast<double>(f)) : NAN, true, 2, 1e-7},
        {"cyl_bessel_i0f", o[14], static_cast<double>(static_cast<float>(bessel_i(0, std::fabs(f)))),
         true, 1, 0},
        {"cyl_bessel_i1f", o[15],
         static_cast<double>(static_cast<float>(f < 0 ? -bessel_i(1, -f) : bessel_i(1, f))), true, 1,
         0}};
    for (const Case& c : cases) {
      // The Y functions are -inf at 0 and the float references overflow like the device's.
      bool ok = c.is_float ? close<float>(c.have, c.want, c.ulps, c.absolute)
                           : close<double>(c.have, c.want, c.ulps, c.absolute);
      if (!ok) {
        if (bad < 10) std::printf("%s(%.17g): got %.17g, want %.17g\n", c.name, v, c.have, c.want);
        ++bad;
      }
    }
  }
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dout));
  return report("bessel_functions", bad);
}
