// Object lifetime in device code as C++ defines it: destructors of locals at every scope exit
// (end of block, return, break, continue, each loop iteration, objects of for/if headers),
// temporaries at the end of their full-expression (longer when bound to a reference), members and
// bases after a destructor's body, arrays last element first, by-value parameters destroyed by
// the caller after the call, and the return value computed before anything is destroyed.
#include "test_common.h"

#include "include/object_lifetime.h"

__host__ __device__ void nested_blocks(EventLog& log) {
  ScopeGuard a(log, 1);
  ScopeGuard b(log, 2);
  {
    ScopeGuard c(log, 3);
    log.record(4);
  }
  ScopeGuard d(log, 5);
}

// Returns the number of events recorded so far: computed before the guards are destroyed.
__host__ __device__ int early_returns(EventLog& log, int i) {
  ScopeGuard a(log, 10);
  if (i % 3 == 0) return log.count;
  ScopeGuard b(log, 11);
  {
    ScopeGuard c(log, 12);
    if (i % 3 == 1) return log.count * 2;
  }
  ScopeGuard d(log, 13);
  return log.count * 3;
}

__host__ __device__ void loops(EventLog& log, int i) {
  for (int k = 0; k < 5; ++k) {
    ScopeGuard g(log, 20 + k);
    if (k == i % 4) continue;
    if (k == 3) break;
    ScopeGuard h(log, 30 + k);
  }
  int n = 0;
  while (n < i % 3 + 1) {
    ScopeGuard w(log, 40 + n);
    ++n;
  }
  do {
    ScopeGuard once(log, 45);
    if (n > 100) break;
  } while (false);
  for (ScopeGuard header(log, 46); n < 4; ++n) {
    ScopeGuard body(log, 47);
  }
}

__host__ __device__ int conditions(EventLog& log, int i) {
  int result = 0;
  if (ScopeGuard g(log, 50); i % 2 == 0) {
    ScopeGuard then(log, 51);
    result = g.id();
  } else {
    ScopeGuard otherwise(log, 52);
    result = -g.id();
  }
  switch (i % 3) {
    case 0: {
      ScopeGuard zero(log, 53);
      result += 1;
      break;
    }
    case 1: {
      ScopeGuard one(log, 54);
      result += 2;
    }
      [[fallthrough]];
    default: {
      ScopeGuard other(log, 55);
      result += 3;
    }
  }
  return result;
}

__host__ __device__ ScopeGuard make_guard(EventLog& log, int id) {
  ScopeGuard g(log, id);
  g.retag(id + 1);
  return g;
}

__host__ __device__ int take(ScopeGuard guard, int extra) {
  guard.retag(guard.id() + extra);
  return guard.id();
}

__host__ __device__ void temporaries(EventLog& log, int i) {
  log.record(ScopeGuard(log, 60).id() * 2);
  log.record(make_guard(log, 62).id());
  {
    const ScopeGuard& extended = ScopeGuard(log, 64);
    log.record(extended.id() + 1);
  }
  int chosen = i % 2 ? ScopeGuard(log, 66).id() : 67;
  log.record(chosen);
  ScopeGuard kept = make_guard(log, 68);
  ScopeGuard original(log, 70);
  log.record(take(original, 5));
  log.record(take(ScopeGuard(log, 72), 3));
  make_guard(log, 74);
  log.record(original.id());
}

__host__ __device__ int members_and_arrays(EventLog& log, int i) {
  Composite c(log, 80 + 10 * (i % 2));
  ScopeGuard row[3] = {{log, 200}, {log, 201}, {log, 202}};
  Holder h{ScopeGuard(log, 210), Tracked(log, 211)};
  Defaults d(log);
  log.record(d.value + 10 * d.counter.value + 100 * d.scale + 1000 * d.last.value);
  Counter counters[3];
  log.record(counters[0].value + counters[1].value + counters[2].value);
  Composite* heap = new Composite(log, 120);
  delete heap;
  return row[i % 3].id() + h.inner.id();
}

template <typename T, int N>
__host__ __device__ T collect(EventLog& log, int i, int tag) {
  FixedVector<T, N> values(log, tag);
  for (int k = 0; k < 2 * N; ++k) {
    if (!values.push_back(static_cast<T>(k + i % 5))) return values.sum() * 2;
    if (k == i % 7) break;
  }
  return values.sum();
}

__host__ __device__ void run_all(EventLog& log, int i) {
  nested_blocks(log);
  log.record(early_returns(log, i));
  loops(log, i);
  log.record(conditions(log, i));
  temporaries(log, i);
  log.record(members_and_arrays(log, i));
  log.record(collect<int, 4>(log, i, 7));
  log.record(static_cast<int>(collect<float, 3>(log, i, 8)));
}

__global__ void lifetime_kernel(int* events, int* counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  EventLog log{events + i * EventLog::kCapacity, 0};
  {
    ScopeGuard kernel_scope(log, 300);
    run_all(log, i);
  }
  counts[i] = log.count;
}

int main() {
  const int n = 64;
  std::vector<int> want_events(n * EventLog::kCapacity, 0), want_counts(n);
  for (int i = 0; i < n; ++i) {
    EventLog log{want_events.data() + i * EventLog::kCapacity, 0};
    {
      ScopeGuard kernel_scope(log, 300);
      run_all(log, i);
    }
    want_counts[i] = log.count;
  }
  int* d_events = to_device(std::vector<int>(n * EventLog::kCapacity, 0));
  int* d_counts = nullptr;
  HIP_CHECK(hipMalloc(&d_counts, n * sizeof(int)));
  lifetime_kernel<<<(n + 31) / 32, 32>>>(d_events, d_counts, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<int> got_events = from_device(d_events, n * EventLog::kCapacity);
  std::vector<int> got_counts = from_device(d_counts, n);
  int bad = count_mismatches("event", got_events, want_events) +
            count_mismatches("count", got_counts, want_counts);
  for (int i = 0; i < n; ++i) {
    if (want_counts[i] > EventLog::kCapacity) {
      std::printf("thread %d records %d events, more than the log holds\n", i, want_counts[i]);
      ++bad;
    }
  }
  HIP_CHECK(hipFree(d_events));
  HIP_CHECK(hipFree(d_counts));
  if (bad) {
    std::printf("FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASSED: %d threads, %d events each at most\n", n, EventLog::kCapacity);
  return 0;
}
