// goto in device code, as C-style kernels use it: leaving nested loops when a search succeeds,
// a shared error exit (`goto fail`), jumps out of a switch and out of a while loop, two labels
// ahead of one statement list (each goto resuming at its own), a label on an empty statement at
// the end, an object whose destructor runs when a goto leaves its scope, and gotos jumping back
// (a retry loop, an iteration written with a label), and a declaration a goto jumps over. Every element is
// compared with a host reference computed by the same code.
#include "test_common.h"

// Counts destructions: a goto out of a block destroys what the block built.
struct Guard {
  int* count;
  __host__ __device__ explicit Guard(int* c) : count(c) {}
  __host__ __device__ ~Guard() { ++*count; }
};

__host__ __device__ int search(const int* grid, int w, int h, int key) {
  int at = -1;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      if (grid[y * w + x] == key) {
        at = y * w + x;
        goto found;
      }
    }
  }
  return -1;
found:
  return at * 2 + 1;
}

__host__ __device__ int parse(int code, int* destroyed) {
  int value = 0;
  int steps = 0;
  {
    Guard g(destroyed);
    if (code < 0) goto fail;
    switch (code % 4) {
      case 0:
        value = 10;
        break;
      case 1:
        if (code > 40) goto big;
        value = 20;
        break;
      default:
        goto fail;
    }
  }
  while (steps < 100) {
    ++steps;
    value += steps;
    if (value > 30 + code % 7) goto done;
  }
  value = -7;
  goto done;
big:
  value = 1000 + code;
  goto done;
fail:
  value = -1;
done:;
  return value * 100 + steps;
}

// The Collatz steps of n, written with a backward goto; a retry whose condition is in a block.
__host__ __device__ int steps_to_one(int n, int* retries) {
  int steps = 0;
again:
  if (n == 1) goto out;
  n = (n % 2) ? 3 * n + 1 : n / 2;
  ++steps;
  goto again;
out:
retry:
  ++*retries;
  {
    int mixed = (steps * 31 + *retries * 17) % 11;
    if (mixed > 2 && *retries < 20) goto retry;
  }
  return steps;
}

// A declaration without an initializer that a goto jumps over, used after the label.
__host__ __device__ int bypass(int t) {
  if (t % 4 == 0) goto tail;
  int partial;
  partial = t * 3;
tail:
  return t % 4 == 0 ? t : partial + t;
}

__global__ void run(const int* grid, int w, int h, int* out, int* destroyed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int retries = 0;
  out[i] = search(grid, w, h, i % 70) + 10000 * parse(i - 5, &destroyed[i]) +
           1000000 * steps_to_one(i + 1, &retries) + 100 * retries + bypass(i);
}

int main() {
  const int w = 8, h = 6, n = 256;
  std::vector<int> grid(w * h);
  for (int k = 0; k < w * h; ++k) grid[k] = (k * 7 + 3) % 61;
  int* d_grid = to_device(grid);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(int)));
  std::vector<int> zeros(n, 0);
  int* d_destroyed = to_device(zeros);
  run<<<(n + 63) / 64, 64>>>(d_grid, w, h, d_out, d_destroyed, n);
  HIP_CHECK(hipGetLastError());

  std::vector<int> want(n), want_destroyed(n, 0);
  for (int i = 0; i < n; ++i) {
    int retries = 0;
    want[i] = search(grid.data(), w, h, i % 70) + 10000 * parse(i - 5, &want_destroyed[i]) +
              1000000 * steps_to_one(i + 1, &retries) + 100 * retries + bypass(i);
  }
  int failures = 0;
  failures += report("goto", count_mismatches("values", from_device(d_out, n), want));
  failures += report("objects destroyed by goto",
                     count_mismatches("destroyed", from_device(d_destroyed, n), want_destroyed));
  HIP_CHECK(hipFree(d_grid));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_destroyed));
  return failures;
}
