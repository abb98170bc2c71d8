// goto jumping into loops and back into earlier statements, as C-style code writes retries and
// shared tails: into a while loop's body (its first test skipped), into a for loop's (its
// init-statement and first test skipped, `continue` going to the increment), into a do loop's;
// back into a block (past a declaration without an initializer), into an `if`'s branch from
// after the `if`, two blocks deep, from inside a later loop (leaving it), into a block that a
// forward goto also enters, and back into a loop. The functions are __host__ __device__: the
// host runs the same code as the reference, and every element is compared.
#include "test_common.h"

// A retry: the block's tail runs again until the value settles.
__host__ __device__ int retry_block(int v) {
  int acc = 0, tries = 0;
  {
    int w;
    acc += v % 11;
  again:
    w = acc * 3 + tries;
    acc = w % 1000;
  }
  if (acc % 4 != 0 && ++tries < 6) goto again;
  return acc * 10 + tries;
}

// Into the `then` branch from after the `if`, whichever branch ran first; and two blocks deep.
__host__ __device__ int into_branch(int v) {
  int r = v, rounds = 0;
  if (v % 2) {
    r += 7;
  twice:
    r *= 2;
  } else {
    r -= 3;
    {
      r += 1;
      {
      deep:
        r += rounds;
      }
    }
  }
  ++rounds;
  if (r < 200 && rounds < 5) goto twice;
  if (r % 3 == 0 && rounds < 8) goto deep;
  return r * 16 + rounds;
}

// From inside a later loop: the goto leaves the loop and runs the block again.
__host__ __device__ int from_loop(int v) {
  int acc = v, passes = 0;
  {
  step:
    acc += 5;
    ++passes;
  }
  for (int j = 0; j < 4; ++j) {
    if (acc % 7 == j && passes < 10) goto step;
    acc += j;
  }
  return acc * 100 + passes;
}

// A forward goto enters the block ahead; a later goto goes back into it.
__host__ __device__ int both_ways(int v) {
  int s = 1, n = 0;
  if (v % 5 == 0) goto inside;
  s += v;
  {
    s *= 3;
  inside:
    s += 2;
    ++n;
  }
  if (s % 2 == 1 && n < 4) goto inside;
  return s * 8 + n;
}

// Into a while loop's body: the first test is skipped.
__host__ __device__ int into_while(int v) {
  int i = v % 5, acc = 1;
  if (v % 3 == 0) goto middle;
  while (i < 8) {
    acc += i;
  middle:
    acc *= 2;
    ++i;
    if (acc > 500) break;
  }
  return acc * 10 + i;
}

// Into a for loop's body: the init-statement and the first test are skipped.
__host__ __device__ int into_for(int v) {
  int i = v % 4, s = 0;
  if (v & 1) goto body;
  for (i = 0; i < 6; ++i) {
    s += 3;
  body:
    s += i;
    if (s % 5 == 4) continue;
    s ^= 1;
  }
  return s * 16 + i;
}

// Into a do loop's body, past a loop nested in it.
__host__ __device__ int into_do(int v) {
  int n = v % 7, s = 1;
  if (n > 3) goto in;
  do {
    s *= 2;
    for (int j = 0; j < n; ++j) s += j;
  in:
    s += n;
    --n;
  } while (n > 0);
  return s * 8 + n;
}

// Back into a loop that has finished: its body runs from the label, then its test.
__host__ __device__ int back_into_loop(int v) {
  int k = 0, s = v % 9, rounds = 0;
  while (k < 3) {
    ++k;
  again:
    s += k;
  }
  if (s % 4 != 0 && ++rounds < 5) goto again;
  return s * 100 + k * 10 + rounds;
}

constexpr int kResults = 8;

__host__ __device__ void all_gotos(int v, int* out) {
  out[0] = retry_block(v);
  out[1] = into_branch(v);
  out[2] = from_loop(v);
  out[3] = both_ways(v);
  out[4] = into_while(v);
  out[5] = into_for(v);
  out[6] = into_do(v);
  out[7] = back_into_loop(v);
}

__global__ void gotos(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  all_gotos(in[i], out + kResults * i);
}

int main() {
  constexpr int n = 300;
  std::vector<int> in(n), want(kResults * n), got(kResults * n);
  for (int i = 0; i < n; ++i) in[i] = (i * 29) % 250 + (i % 3) - 1;
  for (int i = 0; i < n; ++i) all_gotos(in[i], want.data() + kResults * i);
  int* d_in = to_device(in);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, got.size() * sizeof(int)));
  hipLaunchKernelGGL(gotos, dim3((n + 127) / 128), dim3(128), 0, 0, d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(got.data(), d_out, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  int failures = count_mismatches("goto into loops and back", got, want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("goto_into_loops_and_back", failures);
}
