// Plain host C++: compiled as HIP (as hipcc compiles every C++ source), it has no device image.
#include <vector>

int odd_numbers(const std::vector<int>& values) {
  int odd = 0;
  for (int v : values) odd += v & 1;
  return odd;
}
