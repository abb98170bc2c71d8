// goto forms that cross an `if`'s branches or pass an init-statement: back into the `if`
// holding the goto (from its `else`, from a loop inside it, through an `if` without braces),
// ahead from one branch into the other, into an `if` whose init-statement is an expression or
// declares variables without initializers (which C++ lets a jump pass), into a `switch` whose
// init-statement declares one, into a `for` whose init-statement declares its counter without
// an initializer, and into a loop body that is an `if` without braces. The functions are
// __host__ __device__: the host runs the same code as the reference, and every element is
// compared.
#include "test_common.h"

// Back from the `else` into the `then` of the `if` holding the goto: a retry.
__host__ __device__ int retry(int v) {
  int r = v % 11;
  int rounds = 0;
  if (v & 1) {
  again:
    r = r * 3 + 1;
    ++rounds;
  } else {
    r += 5;
    if (r < 9) goto again;
    r -= 2;
  }
  return r * 16 + rounds;
}

// Ahead from the `then` into the `else`, and back again from a loop inside the `else`.
__host__ __device__ int crossing(int v) {
  int r = 0;
  if (v % 3 == 0) {
    r = v;
    if (v % 2 == 0) goto other;
    r += 100;
  top:
    r += 7;
  } else {
    r = -v;
  other:
    for (int i = 0; i < 4; ++i) {
      r += i;
      if (r % 5 == 0 && r < 400) goto top;
    }
    r *= 2;
  }
  return r;
}

// Branches without braces: `if (c) L: s; else goto L;`, and an `if` as a loop's body, left
// and entered at its label each round.
__host__ __device__ int unbraced(int v) {
  int r = v;
  int n = 0;
  if (v > 120)
  set:
    r += 40;
  else if ((r += 3) < 60)
    goto set;
  while (n < v % 6)
    if (n++ & 1)
    odd:
      r ^= n;
    else if (r & 4)
      goto odd;
    else
      r += 9;
  return r * 8 + n;
}

// Into an `if` whose init-statement is an expression (skipped) or declares a variable
// without an initializer (declared, not set): the label assigns it before its use.
__host__ __device__ int init_statements(int v) {
  int r = v;
  int count = 0;
  if (v % 4 == 1) goto expr;
  if (v % 4 == 2) goto decl;
  if (count += 10; v > 90) {
    r -= 3;
  expr:
    r += count;
  }
  if (int t, u; r % 2 == 0) {
    r += 1;
  decl:
    t = v % 13;
    u = t * 2;
    r += t + u;
  } else {
    r -= 4;
  }
  return r * 4 + count;
}

// Into a `switch` whose init-statement declares variables without initializers, and into a
// `for` whose counter is declared without one: the label sets them.
__host__ __device__ int switch_and_for(int v) {
  int r = 1;
  if (v % 5 == 3) goto inside;
  switch (int k, m; v % 4) {
    case 0:
      r += 2;
      break;
    case 1:
      k = 4;
    inside:
      k = v % 7;
      m = k + 1;
      r += k * m;
      [[fallthrough]];
    case 2:
      r += 3;
      break;
    default:
      r -= 1;
  }
  if (v % 3 == 1) goto body;
  for (int i; r < 50;) {
    r += 2;
  body:
    i = v % 4;
    r += i + 5;
  }
  return r;
}

__global__ void run(const int* in, int n, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[5 * i] = retry(in[i]);
    out[5 * i + 1] = crossing(in[i]);
    out[5 * i + 2] = unbraced(in[i]);
    out[5 * i + 3] = init_statements(in[i]);
    out[5 * i + 4] = switch_and_for(in[i]);
  }
}

int main() {
  constexpr int kN = 700;
  std::vector<int> in(kN);
  for (int i = 0; i < kN; ++i) in[i] = (i * 53 + 7) % 211;
  std::vector<int> want(5 * kN);
  for (int i = 0; i < kN; ++i) {
    want[5 * i] = retry(in[i]);
    want[5 * i + 1] = crossing(in[i]);
    want[5 * i + 2] = unbraced(in[i]);
    want[5 * i + 3] = init_statements(in[i]);
    want[5 * i + 4] = switch_and_for(in[i]);
  }
  int* d_in = to_device(in);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, want.size() * sizeof(int)));
  run<<<(kN + 127) / 128, 128>>>(d_in, kN, d_out);
  HIP_CHECK(hipGetLastError());
  int bad = count_mismatches("goto across branches", from_device(d_out, want.size()), want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("goto_across_branches", bad);
}
