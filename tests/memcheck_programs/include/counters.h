// Polymorphic counters that point at each other, shared by device code and the host reference.
#pragma once

#include <hip/hip_runtime.h>

struct Counter {
  int value;
  Counter* next = nullptr;  // another counter of the same work-item
  __host__ __device__ explicit Counter(int v) : value(v) {}
  __host__ __device__ virtual ~Counter() {}
  __host__ __device__ virtual void bump(int by) { value += by; }
  __host__ __device__ virtual int weight() const { return 1; }
};

struct Doubler : Counter {
  __host__ __device__ explicit Doubler(int v) : Counter(v) {}
  __host__ __device__ void bump(int by) override { value += 2 * by; }
  __host__ __device__ int weight() const override { return 2; }
};

struct Toggler : Counter {
  __host__ __device__ explicit Toggler(int v) : Counter(v) {}
  __host__ __device__ void bump(int by) override {
    if (value & 1)
      value ^= by;
    else
      value += by + 3;
  }
  __host__ __device__ int weight() const override { return value % 4 + 1; }
};

struct Clamp : Counter {
  int limit;
  __host__ __device__ Clamp(int v, int l) : Counter(v), limit(l) {}
  __host__ __device__ void bump(int by) override { value = value + by > limit ? limit : value + by; }
  __host__ __device__ int weight() const override { return limit % 5; }
};

constexpr int kCounters = 4;

// One round per N: a counter chosen by the seed (a pointer read from memory) is bumped, or the
// one it points to, by conditions that differ between work-items.
template <int N>
__host__ __device__ void rounds(Counter** counters, unsigned seed) {
  Counter* c = counters[(seed + N) % kCounters];
  if ((seed + N) % 3 == 0)
    c->bump(N);
  else
    c->next->bump(c->weight());
  if (c->value > 400) c->next->value -= 100;
  rounds<N - 1>(counters, (seed * 5 + static_cast<unsigned>(c->value)) % 1009);
}

template <>
__host__ __device__ inline void rounds<0>(Counter**, unsigned) {}
