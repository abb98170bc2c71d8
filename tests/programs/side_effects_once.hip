// Operands with side effects are evaluated exactly once, whatever the assignment form: the target
// of a struct or vector assignment (`out[++n] = make_double3(...)`, as list-building kernels
// write it), compound assignments, increments, members of indexed elements, chained assignment.
#include "test_common.h"

struct Triple {
  double a, b, c;
};

__global__ void indices_after(double3* r, Triple* s, float4* f, int* v, int* counts) {
  int i = -1;
  r[++i] = make_double3(4, 5, 6);
  counts[0] = i;
  int j = -1;
  Triple t = {1, 2, 3};
  s[++j] = t;
  counts[1] = j;
  int m = 0;
  r[m++] = r[0];
  counts[2] = m;
  int n = 0;
  v[n++] += 5;
  counts[3] = n;
  int p = 0;
  v[p++]++;
  counts[4] = p;
  int q = 0;
  ++v[q++];
  counts[5] = q;
  int w = 0;
  f[w++] += make_float4(1, 1, 1, 1);
  counts[6] = w;
  int z = 0;
  f[z++].x = 2;
  counts[7] = z;
  int u = 0;
  v[u++] <<= 1;
  counts[8] = u;
  int y = 0;
  Triple t2 = s[y++] = t;
  counts[9] = y + static_cast<int>(t2.c);
}

// A list built with `results[++last] = value`, one list per thread.
__global__ void build_lists(const int* lengths, double3* lists, int* sizes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double3* mine = lists + 16 * i;
  int last = -1;
  for (int k = 0; k < lengths[i]; ++k) mine[++last] = make_double3(i, k, 0.5 * k);
  sizes[i] = last + 1;
}

int main() {
  double3* r;
  Triple* s;
  float4* f;
  int *v, *counts;
  HIP_CHECK(hipMalloc(&r, 2 * sizeof(double3)));
  HIP_CHECK(hipMalloc(&s, 2 * sizeof(Triple)));
  HIP_CHECK(hipMalloc(&f, 2 * sizeof(float4)));
  HIP_CHECK(hipMalloc(&v, 2 * sizeof(int)));
  HIP_CHECK(hipMalloc(&counts, 10 * sizeof(int)));
  HIP_CHECK(hipMemset(v, 0, 2 * sizeof(int)));
  hipLaunchKernelGGL(indices_after, dim3(1), dim3(1), 0, 0, r, s, f, v, counts);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got = from_device(counts, 10);
  std::vector<int> want = {0, 0, 1, 1, 1, 1, 1, 1, 1, 4};
  int failures = report("each operand once", count_mismatches("counts", got, want));

  const int n = 100;
  std::vector<int> lengths(n);
  for (int i = 0; i < n; ++i) lengths[i] = (i * 5) % 17;
  int* dlengths = to_device(lengths);
  double3* lists;
  int* sizes;
  HIP_CHECK(hipMalloc(&lists, 16 * n * sizeof(double3)));
  HIP_CHECK(hipMalloc(&sizes, n * sizeof(int)));
  hipLaunchKernelGGL(build_lists, dim3(2), dim3(64), 0, 0, dlengths, lists, sizes, n);
  std::vector<int> got_sizes = from_device(sizes, n);
  std::vector<double3> got_lists = from_device(lists, 16 * n);
  int bad = count_mismatches("sizes", got_sizes, lengths);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < lengths[i]; ++k) {
      const double3& e = got_lists[16 * i + k];
      if (e.x != i || e.y != k || e.z != 0.5 * k) ++bad;
    }
  }
  failures += report("lists built with [++last]", bad);
  HIP_CHECK(hipFree(r));
  HIP_CHECK(hipFree(s));
  HIP_CHECK(hipFree(f));
  HIP_CHECK(hipFree(v));
  HIP_CHECK(hipFree(counts));
  HIP_CHECK(hipFree(dlengths));
  HIP_CHECK(hipFree(lists));
  HIP_CHECK(hipFree(sizes));
  if (failures) return 1;
  std::printf("side_effects_once PASSED\n");
  return 0;
}
