// goto with switch statements, as state machines and decoders write them: a case jumping
// ahead to a shared tail further down the same switch (past other cases), a goto from
// before the switch into one of its cases (the condition and the case dispatch skipped),
// into a block under a case, from an `if` nested in one case to a label under another,
// back from after the switch into it (a retry loop), a switch inside a loop that gotos enter
// and leave, a case looping on its own label, back into a block of an earlier case, into a
// switch inside a loop, into a switch with an init-statement, and a goto out of the switch.
// The functions are __host__ __device__: the host runs the same code as the reference, and
// every element is compared.
#include "test_common.h"

constexpr int kOut = 10;

// Cases sharing a tail further down the switch: the goto skips the cases between.
__host__ __device__ int shared_tail(int v) {
  int a = 0;
  switch (v % 6) {
    case 0:
      a += 1;
      goto tail;
    case 1:
      a += 10;
      if (v > 40) goto tail;
      a += 5;
    case 2:
      a += 100;
      break;
    case 3:
    tail:
      a += 1000 + v;
      break;
    default:
      a -= 7;
  }
  return a;
}

// A resumed operation: a goto from before the switch lands under a case, skipping the
// dispatch on a state the caller did not compute.
__host__ __device__ int resume(int v) {
  int acc = v;
  int state = v % 4;
  if (v % 5 == 0) goto resume_point;
  state = state * 3 + 1;
  switch (state) {
    case 1:
      acc += 2;
    case 4:
    resume_point:
      acc *= 3;
      break;
    case 7: {
      acc -= 4;
      break;
    }
    default:
      acc += 11;
  }
  return acc * 10 + state;
}

// Into a block under a case, from before the switch and from another case.
__host__ __device__ int into_block(int v) {
  int r = 0;
  if (v % 9 == 4) goto deep;
  switch (v % 3) {
    case 0:
      r = 5;
      if (v % 2) goto deep;
      break;
    case 1: {
      int w;
      w = v * 2;
      r += 7 + w;
    deep:
      r += 100;
      break;
    }
    case 2:
      r = -v;
  }
  return r;
}

// Back into the switch from after it: a retry that re-enters one case.
__host__ __device__ int retry(int v) {
  int a = v % 13;
  int tries = 0;
  switch (v % 4) {
    case 0:
      a += 1;
      break;
    case 1:
    again:
      a = a * 2 + 1;
      if (a > 60) break;
      a += 3;
      break;
    default:
      a -= 2;
  }
  if (++tries < 3 && v % 2 == 1) goto again;
  return a * 10 + tries;
}

// A decoder loop: the switch in a loop, gotos leaving the loop from a case and entering
// the next round's case directly.
__host__ __device__ int decode(int v) {
  int out = 0;
  int op = v % 5;
  for (int step = 0; step < 6; ++step) {
    switch (op) {
      case 0:
        out += 1;
        op = 3;
        break;
      case 1:
        out *= 2;
        if (out > 200) goto done;
      case 2:
      shift:
        out += step * 3;
        op = (op + v) % 5;
        break;
      case 3:
        out -= 1;
        if (out % 2 == 0) goto shift;
        op = 1;
        break;
      default:
        out += 17;
        op = 2;
    }
  }
done:
  return out * 8 + op;
}

// Out of the switch and past the statements after it.
__host__ __device__ int leave(int v) {
  int s = 1;
  switch (v & 3) {
    case 0:
      s = 2;
      goto out;
    case 1:
      s = 3;
    case 2:
      s *= 5;
      break;
  }
  s += 100;
out:
  return s;
}

// A case that loops on its own label, and one jumped back to from a nested block.
__host__ __device__ int spin(int v) {
  int x = v % 11;
  int rounds = 0;
  switch (v % 3) {
    case 0:
    top:
      if (x < 20) {
        x += 4;
        ++rounds;
        goto top;
      }
      break;
    case 1: {
      x *= 2;
    inner:
      x += 5;
    }
      ++rounds;
      [[fallthrough]];
    case 2:
      if (x % 3 != 0 && rounds < 4) {
        x += 1;
        goto inner;
      }
      x -= rounds;
  }
  return x * 100 + rounds;
}

// Into a switch inside a loop, from before the loop: the loop's first test and the switch's
// dispatch skipped in the first round only.
__host__ __device__ int into_loop_switch(int v) {
  int total = 0;
  int i = v % 4;
  if (v % 6 == 1) goto mid;
  for (i = 0; i < 5; ++i) {
    switch ((i + v) % 4) {
      case 0:
        total += 2;
        break;
      case 1:
      mid:
        total += i * 7 + 1;
      case 2:
        total *= 2;
        break;
      default:
        total -= 3;
    }
  }
  return total * 10 + i;
}

// A switch with an init-statement: a goto into it skips the init-statement too.
__host__ __device__ int with_init(int v) {
  int calls = 0;
  int r = v;
  if (v % 4 == 3) goto landed;
  switch (calls += 5; v % 3) {
    case 0:
      r += 1;
      break;
    case 1:
    landed:
      r = r * 3 + calls;
      break;
    default:
      r -= calls;
  }
  return r * 10 + calls;
}

__host__ __device__ void compute(int v, int* out) {
  out[0] = shared_tail(v);
  out[1] = resume(v);
  out[2] = into_block(v);
  out[3] = retry(v);
  out[4] = decode(v);
  out[5] = leave(v);
  out[6] = shared_tail(v + 1) + resume(v + 2) + into_block(v + 3);
  out[7] = spin(v);
  out[8] = into_loop_switch(v);
  out[9] = with_init(v);
}

__global__ void goto_switch_kernel(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) compute(in[i], out + i * kOut);
}

int main() {
  constexpr int n = 300;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 53) % 211 + (i % 3);
  std::vector<int> want(n * kOut), got(n * kOut, -1);
  for (int i = 0; i < n; ++i) compute(in[i], want.data() + i * kOut);
  int* d_in = to_device(in);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, got.size() * sizeof(int)));
  hipLaunchKernelGGL(goto_switch_kernel, dim3((n + 63) / 64), dim3(64), 0, 0, d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(got.data(), d_out, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  int failures = count_mismatches("goto and switch", got, want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("goto_and_switch", failures);
}
