// Host-only C++: no device code, compiled by $CXX as is.
#include <vector>

std::vector<float> ramp(int n, float step) {
  std::vector<float> out(n);
  for (int i = 0; i < n; ++i) out[i] = static_cast<float>(i % 97) * step;
  return out;
}
