// Types that structured bindings decompose, shared by device code and the host reference: a class
// with public data members (a bit-field among them), a tuple-like class with member `get`, a
// thrust-style pair with `get` found by argument-dependent lookup, one whose `get` computes its
// values (returned by value), and a class whose copies and destructions are counted.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>
#include <utility>

struct Sample {
  int id;
  float weight;
  short tag;
};

struct Packed {
  unsigned low : 5;
  int high : 11;
  int whole;
};

// Tuple-like through a member `get<I>()`, by reference to its parts.
struct Triple {
  int a, b, c;
  template <std::size_t I>
  __host__ __device__ int& get() {
    return I == 0 ? a : I == 1 ? b : c;
  }
  template <std::size_t I>
  __host__ __device__ const int& get() const {
    return I == 0 ? a : I == 1 ? b : c;
  }
};

namespace shapes {

// A pair as thrust and rocThrust write theirs: `get` a free function template beside it.
template <typename K, typename V>
struct Pair {
  K first;
  V second;
};

template <std::size_t I, typename K, typename V>
__host__ __device__ auto& get(Pair<K, V>& p) {
  if constexpr (I == 0) {
    return p.first;
  } else {
    return p.second;
  }
}

template <std::size_t I, typename K, typename V>
__host__ __device__ const auto& get(const Pair<K, V>& p) {
  if constexpr (I == 0) {
    return p.first;
  } else {
    return p.second;
  }
}

// Its parts computed on demand: `get` returns values, which the bindings' hidden references
// keep alive.
struct Rect {
  int width, height;
  template <std::size_t I>
  __host__ __device__ int get() const {
    return I == 0 ? width * height : 2 * (width + height);
  }
};

}  // namespace shapes

template <>
struct std::tuple_size<Triple> : std::integral_constant<std::size_t, 3> {};
template <std::size_t I>
struct std::tuple_element<I, Triple> {
  using type = int;
};
template <typename K, typename V>
struct std::tuple_size<shapes::Pair<K, V>> : std::integral_constant<std::size_t, 2> {};
template <typename K, typename V>
struct std::tuple_element<0, shapes::Pair<K, V>> {
  using type = K;
};
template <typename K, typename V>
struct std::tuple_element<1, shapes::Pair<K, V>> {
  using type = V;
};
template <>
struct std::tuple_size<shapes::Rect> : std::integral_constant<std::size_t, 2> {};
template <std::size_t I>
struct std::tuple_element<I, shapes::Rect> {
  using type = int;
};

// Copies and destructions counted: a decomposition by value copies the object once and
// destroys the copy at the end of its scope.
struct Counter {
  int* log;
};
struct Tracked {
  int value;
  int weight;
  Counter counter;
  __host__ __device__ Tracked(int v, int w, Counter c) : value(v), weight(w), counter(c) {}
  __host__ __device__ Tracked(const Tracked& o)
      : value(o.value + 1), weight(o.weight), counter(o.counter) {
    counter.log[0] += 1;
  }
  __host__ __device__ ~Tracked() { counter.log[1] = counter.log[1] * 7 + value % 13; }
};
