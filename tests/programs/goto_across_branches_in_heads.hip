// A goto from one branch of an `if` into the other where that `if` is the body of a statement
// whose head declares a variable (`for (int i = 0; ...) if (c) L: ...; else goto L;`): the
// body is a statement list of its own, so the jump runs that `if` again, entered at the label,
// and the head's variable keeps its value (the loop's head does not run again). Counters,
// condition variables, range-for elements, nested loops, an `if` with an init-statement, jumps
// back and ahead, a labeled `if`. The functions are __host__ __device__: the
// host runs the same code as the reference, and every element is compared.
#include "test_common.h"

constexpr int kOut = 6;

// The README's form: back from the `else` into the `then`.
__host__ __device__ int counted(int v) {
  int r = v;
  for (int i = 0; i < 6; ++i)
    if ((v + i) % 3 == 0)
    again:
      r = r * 3 + i;
    else if (r % 2 == 0) {
      r += 7;
      goto again;
    } else
      r -= i;
  return r;
}

// Ahead from the `then` into the `else`, through a loop whose condition declares a variable.
__host__ __device__ int conditioned(int v) {
  int r = 0;
  int n = v % 9 + 2;
  while (int left = n--)
    if (left & 1) {
      r += left;
      if (r % 4 == 1) goto ahead;
      r *= 2;
    } else {
    ahead:
      r += left * 10;
    }
  return r;
}

// A range-for whose element is declared in the head, and a labeled `if` as its body.
__host__ __device__ int ranged(int v) {
  int values[5] = {v, v + 1, v * 2, v % 7, 3};
  int r = 1;
  for (int x : values)
  named:
    if (x % 2)
    odd:
      r = r * 5 + x;
    else {
      x += 1;  // the element keeps this across the jump
      goto odd;
    }
  return r;
}

// Nested loops with counters: the inner `if` crosses, both counters keep their values.
__host__ __device__ int nested(int v) {
  int r = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = i; j < 5; ++j)
      if ((i + j + v) % 4 == 0)
      hit:
        r += i * 10 + j;
      else if (j == i + 1) {
        r -= 3;
        goto hit;
      } else
        r += 1;
  return r;
}

// An `if` with an init-statement whose branch is the crossing `if`.
__host__ __device__ int initialized(int v) {
  int r = v;
  if (int k = v % 5; k != 2)
    if (k > 2)
    big:
      r += k * 100;
    else {
      ++k;
      goto big;
    }
  else
    r = -r;
  return r;
}

// The counter's declaration has no initializer to run again, and a jump past what the body
// declares after the label is none.
__host__ __device__ int twice(int v) {
  int r = 0;
  for (int i = 0, j = v % 4; i < 3; ++i, j += 2)
    if (j % 2) {
    odd:
      r = r * 4 + j + i;
    } else {
      j += 1;
      goto odd;
    }
  return r;
}

__host__ __device__ void compute(int v, int* out) {
  out[0] = counted(v);
  out[1] = conditioned(v);
  out[2] = ranged(v);
  out[3] = nested(v);
  out[4] = initialized(v);
  out[5] = twice(v);
}

__global__ void run(const int* in, int n, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) compute(in[i], out + kOut * i);
}

int main() {
  constexpr int kN = 500;
  std::vector<int> in(kN);
  for (int i = 0; i < kN; ++i) in[i] = (i * 53 + 7) % 211;
  std::vector<int> want(kOut * kN);
  for (int i = 0; i < kN; ++i) compute(in[i], want.data() + kOut * i);
  int* d_in = to_device(in);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, want.size() * sizeof(int)));
  run<<<(kN + 127) / 128, 128>>>(d_in, kN, d_out);
  HIP_CHECK(hipGetLastError());
  int bad = count_mismatches("goto across branches in heads", from_device(d_out, want.size()), want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("goto_across_branches_in_heads", bad);
}
