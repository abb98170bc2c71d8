// Classes whose copies run code of their own, shared by device code and the host reference:
// each copy and destruction is counted in a Ledger, and the copy constructor overload resolution
// picks (from a non-const object, from a const one, a constructor template) leaves its mark in
// the value. Closures holding them copy them as C++'s closure copy constructor does.
#pragma once

#include <hip/hip_runtime.h>

struct Ledger {
  int copies = 0;
  int destroyed = 0;
  int sum = 0;  // of the values destroyed, in order of destruction
  __host__ __device__ void destroy(int v) {
    destroyed += 1;
    sum = sum * 3 + v;
  }
};

// Copied from a const object: +1; from a non-const one (the closer match): +1000.
struct Tally {
  int value;
  Ledger* ledger;
  __host__ __device__ Tally(int v, Ledger* l) : value(v), ledger(l) {}
  __host__ __device__ Tally(const Tally& o) : value(o.value + 1), ledger(o.ledger) { ledger->copies += 1; }
  __host__ __device__ Tally(Tally& o) : value(o.value + 1000), ledger(o.ledger) { ledger->copies += 10; }
  __host__ __device__ ~Tally() { ledger->destroy(value % 97); }
};

// Copied through a constructor template, which overload resolution prefers to the implicit
// copy constructor for a non-const source.
struct Scaled {
  int w;
  __host__ __device__ explicit Scaled(int x) : w(x) {}
  template <typename T>
  __host__ __device__ Scaled(T& other) : w(other.w * 3) {}
};

// An object captured whole by `[*this]`, changed after the capture.
struct Sampler {
  Tally tally;
  int rate;
  __host__ __device__ Sampler(int v, Ledger* l) : tally(v, l), rate(v % 9) {}
  __host__ __device__ int sample() const { return tally.value * 10 + rate; }
};
