// Holders of callables for the stored_lambdas test: a lambda kept in a struct member, built by a
// device function template, and a pipeline of two stored callables.
#pragma once

#include <hip/hip_runtime.h>

template <typename F>
struct Holder {
  F f;
  int k;
  __host__ __device__ int apply(int x) const { return f(x) + k; }
};

template <typename F>
__device__ Holder<F> hold(F f, int k) {
  return Holder<F>{f, k};
}

template <typename First, typename Second>
struct Pipeline {
  First first;
  Second second;
  __device__ int operator()(int x) const { return second(first(x)); }
};

template <typename First, typename Second>
__device__ Pipeline<First, Second> then(First a, Second b) {
  return {a, b};
}

template <typename F>
__device__ int call_with(F f, int x) {
  return f(x);
}
