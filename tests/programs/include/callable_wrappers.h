// Templates taking callables for the lambda_references test: wrappers that keep a callable in a
// member (one struct, an array's element type, a pair), helpers that return lambdas capturing
// the callables they are given by reference ("compose", "bind"), and ones that store or copy
// what they are given.
#pragma once

#include <hip/hip_runtime.h>

// A callable kept in a member and called later.
template <typename F>
struct Stored {
  F f;
  __host__ __device__ int run(int x) const { return f(x); }
};

// A callable with a factor: the element type of a table of functors.
template <typename F>
struct Scaled {
  F f;
  int factor;
  __host__ __device__ int operator()(int x) const { return f(x) * factor; }
};

template <typename F, typename G>
struct Pair {
  F first;
  G second;
  __host__ __device__ int operator()(int x) const { return second(first(x)); }
};

// Builds the wrapper from a copy of the callable.
template <typename F>
__host__ __device__ Stored<F> store(F f) {
  return Stored<F>{f};
}

// Builds the wrapper from a reference to the callable (the wrapper holds a copy).
template <typename F>
__host__ __device__ Stored<F> store_ref(const F& f) {
  return Stored<F>{f};
}

// f after g, both referred to: the result must not outlive them.
template <typename F, typename G>
__host__ __device__ auto compose(F& f, G& g) {
  return [&f, &g](int x) { return f(g(x)); };
}

// f with its first argument bound, f referred to.
template <typename F>
__host__ __device__ auto bind_first(F& f, int first) {
  return [&f, first](int x) { return f(first, x); };
}

// A wrapper pairing two callables, each a copy.
template <typename F, typename G>
__host__ __device__ Pair<F, G> pair_of(F f, G g) {
  return Pair<F, G>{f, g};
}

// Calls a callable n times, summing.
template <typename F>
__host__ __device__ int sum_calls(const F& f, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += f(i);
  return s;
}
