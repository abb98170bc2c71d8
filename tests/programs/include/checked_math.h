// Device helpers that check their preconditions with assert, as library code does.
#pragma once

#include <hip/hip_runtime.h>

#include <cassert>

// The integer square root of a non-negative value.
__device__ inline int checked_isqrt(int v) {
  assert(v >= 0 && "isqrt of a negative value");
  int r = 0;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}

template <typename T>
__device__ T checked_at(const T* data, int i, int n) {
  assert(i >= 0 && i < n);
  return data[i];
}
