// The atomic functions HIP spells beyond the basic set, on global and shared memory: the
// unsigned long overloads, atomicCAS on float and double (compared by their bits), ROCm's
// unsafeAtomicAdd/safeAtomicAdd/unsafeAtomicMax/... and atomicAddNoRet, and the _system and
// _block scopes. Every result is checked against the host's sequential equivalent.
#include "test_common.h"

#include <cstdint>

constexpr int kBlocks = 16, kThreads = 128;

struct Totals {
  unsigned long add, max, min, exch_seen, bits_or, bits_and, cas;
  float fadd, fmax, fmin, noret;
  double dadd, dmax, dmin;
  float fcas;
  double dcas;
};

__global__ void spellings(const float* values, Totals* t) {
  __shared__ unsigned long shared_add;
  __shared__ float shared_fadd;
  __shared__ double shared_dmax;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) {
    shared_add = 0;
    shared_fadd = 0.0f;
    shared_dmax = -1e300;
  }
  __syncthreads();
  unsigned long u = static_cast<unsigned long>(i) * 2654435761ul % 100003ul;
  float v = values[i];
  atomicAdd(&t->add, u);
  atomicMax_system(&t->max, u);
  atomicMin(&t->min, u);
  atomicOr(&t->bits_or, 1ul << (i % 61));
  atomicAnd_block(&shared_add, ~0ul);  // leaves it unchanged
  atomicAdd_block(&shared_add, 1ul);
  unsigned long previous = atomicExch(&t->exch_seen, static_cast<unsigned long>(i));
  (void)previous;
  // Compare-and-swap loops: integer, float and double.
  unsigned long old = t->cas, assumed;
  do {
    assumed = old;
    old = atomicCAS(&t->cas, assumed, assumed + 3ul);
  } while (old != assumed);
  float fold = t->fcas, fassumed;
  do {
    fassumed = fold;
    fold = atomicCAS(&t->fcas, fassumed, fassumed + 0.5f);
  } while (__float_as_uint(fold) != __float_as_uint(fassumed));
  double dold = t->dcas, dassumed;
  do {
    dassumed = dold;
    dold = atomicCAS_system(&t->dcas, dassumed, dassumed + 0.25);
  } while (__double_as_longlong(dold) != __double_as_longlong(dassumed));
  // ROCm's float atomics.
  unsafeAtomicAdd(&t->fadd, 1.0f);
  safeAtomicAdd(&t->dadd, 2.0);
  unsafeAtomicMax(&t->fmax, v);
  safeAtomicMax(&t->dmax, static_cast<double>(v));
  safeAtomicMin(&t->fmin, v);
  unsafeAtomicMin(&t->dmin, static_cast<double>(v));
  atomicAddNoRet(&t->noret, 0.5f);
  unsafeAtomicAdd(&shared_fadd, 1.0f);
  safeAtomicMax(&shared_dmax, static_cast<double>(v));
  __syncthreads();
  if (threadIdx.x == 0) {
    // Each block adds its shared results once.
    atomicAdd(&t->add, shared_add);
    atomicAdd(&t->fadd, shared_fadd);
    atomicMax(&t->dmax, shared_dmax);
  }
}

int main() {
  const int n = kBlocks * kThreads;
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i) values[i] = static_cast<float>((i * 37) % 1001) * 0.5f - 250.0f;
  float* dv = to_device(values);
  Totals init{};
  init.min = ~0ul;
  init.bits_and = ~0ul;
  init.fmax = -1e30f;
  init.fmin = 1e30f;
  init.dmax = -1e300;
  init.dmin = 1e300;
  Totals* dt;
  HIP_CHECK(hipMalloc(&dt, sizeof(Totals)));
  HIP_CHECK(hipMemcpy(dt, &init, sizeof init, hipMemcpyHostToDevice));
  spellings<<<kBlocks, kThreads>>>(dv, dt);
  HIP_CHECK(hipGetLastError());
  Totals got;
  HIP_CHECK(hipMemcpy(&got, dt, sizeof got, hipMemcpyDeviceToHost));

  Totals want = init;
  float vmax = -1e30f, vmin = 1e30f;
  for (int i = 0; i < n; ++i) {
    unsigned long u = static_cast<unsigned long>(i) * 2654435761ul % 100003ul;
    want.add += u;
    want.max = u > want.max ? u : want.max;
    want.min = u < want.min ? u : want.min;
    want.bits_or |= 1ul << (i % 61);
    vmax = values[i] > vmax ? values[i] : vmax;
    vmin = values[i] < vmin ? values[i] : vmin;
  }
  want.add += static_cast<unsigned long>(n);  // the blocks' shared counts
  want.cas = 3ul * n;
  want.fcas = 0.5f * n;
  want.dcas = 0.25 * n;
  want.fadd = 2.0f * n;  // one per thread on global memory, and the blocks' shared sums
  want.dadd = 2.0 * n;
  want.fmax = vmax;
  want.dmax = vmax;
  want.fmin = vmin;
  want.dmin = vmin;
  want.noret = 0.5f * n;

  int bad = 0;
  auto check = [&](const char* what, bool ok) {
    if (!ok) {
      std::printf("%s wrong\n", what);
      ++bad;
    }
  };
  check("unsigned long atomicAdd (global and shared)", got.add == want.add);
  check("unsigned long atomicMax_system", got.max == want.max);
  check("unsigned long atomicMin", got.min == want.min);
  check("unsigned long atomicOr", got.bits_or == want.bits_or);
  check("unsigned long atomicExch", got.exch_seen < static_cast<unsigned long>(n));
  check("unsigned long atomicCAS", got.cas == want.cas);
  check("float atomicCAS", got.fcas == want.fcas);
  check("double atomicCAS_system", got.dcas == want.dcas);
  check("unsafeAtomicAdd (float, global and shared)", got.fadd == want.fadd);
  check("safeAtomicAdd (double)", got.dadd == want.dadd);
  check("unsafeAtomicMax (float)", got.fmax == want.fmax);
  check("safeAtomicMax (double, global and shared)", got.dmax == want.dmax);
  check("safeAtomicMin (float)", got.fmin == want.fmin);
  check("unsafeAtomicMin (double)", got.dmin == want.dmin);
  check("atomicAddNoRet", got.noret == want.noret);
  HIP_CHECK(hipFree(dv));
  HIP_CHECK(hipFree(dt));
  return report("atomic_spellings", bad);
}
