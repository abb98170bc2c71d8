// goto jumping into blocks, as C-style code writes shared tails: into the body of an `if`
// whose condition is false, into its `else`, two blocks deep, into a block after leaving a
// loop, onto a label that is an `if`'s own statement, and past a declaration whose variable
// the code after the label assigns and uses. The functions are __host__ __device__: the host
// runs the same code as the reference, and every element is compared.
#include "test_common.h"

// The shared tail of a classifier: a fast path jumps into the slow path's block.
__host__ __device__ int classify(int v) {
  int score = 0;
  if (v % 7 == 0) goto tail;
  score += 3;
  if (v > 100) {
    score *= 2;
  tail:
    score += v % 5;
  }
  return score;
}

// Into the `else` of an `if`, and two blocks deep.
__host__ __device__ int branches(int v) {
  int r = v;
  if (v % 3 == 1) goto other;
  if (v % 3 == 2) goto deep;
  if (v > 50) {
    r += 10;
  } else {
    r -= 10;
  other:
    r *= 3;
  }
  {
    r += 1;
    {
      r ^= 0x55;
    deep:
      r += 7;
    }
    r -= 2;
  }
  return r;
}

// Out of a search loop and into the block that reports what it found.
__host__ __device__ int search(const int* data, int n, int key) {
  int at = -1;
  for (int i = 0; i < n; ++i) {
    if (data[i] == key) {
      at = i;
      goto report;
    }
  }
  if (n > 1000) {
    at = -2;
  report:
    at = at * 4 + 1;
  }
  return at;
}

// A label that is an `if`'s own statement; a declaration the jump passes, whose variable is
// assigned after the label.
__host__ __device__ int labeled_branch(int v) {
  int r = 0;
  if (v & 1) goto set;
  r = 5;
  if (v > 40)
  set:
    r += v;
  {
    int t;
    r += 2;
    if (v & 2) goto inside;
    t = 100;
    r += t;
  inside:
    t = v % 9;
    r += t;
  }
  return r;
}

__global__ void run(const int* in, const int* data, int n, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[4 * i] = classify(in[i]);
    out[4 * i + 1] = branches(in[i]);
    out[4 * i + 2] = search(data, 64, in[i] % 80);
    out[4 * i + 3] = labeled_branch(in[i]);
  }
}

int main() {
  constexpr int kN = 600;
  std::vector<int> in(kN), data(64);
  for (int i = 0; i < kN; ++i) in[i] = (i * 37 + 11) % 257;
  for (int i = 0; i < 64; ++i) data[i] = (i * 13) % 71;
  std::vector<int> want(4 * kN);
  for (int i = 0; i < kN; ++i) {
    want[4 * i] = classify(in[i]);
    want[4 * i + 1] = branches(in[i]);
    want[4 * i + 2] = search(data.data(), 64, in[i] % 80);
    want[4 * i + 3] = labeled_branch(in[i]);
  }
  int* d_in = to_device(in);
  int* d_data = to_device(data);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, want.size() * sizeof(int)));
  run<<<(kN + 127) / 128, 128>>>(d_in, d_data, kN, d_out);
  HIP_CHECK(hipGetLastError());
  int bad = count_mismatches("goto into blocks", from_device(d_out, want.size()), want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_data));
  HIP_CHECK(hipFree(d_out));
  return report("goto_into_blocks", bad);
}
