// Structured bindings in device code: arrays, classes with public data members (a bit-field
// among them), tuple-like classes (a member `get`, a thrust-style pair whose `get` is found by
// argument-dependent lookup, `get` returning values, std::pair and std::tuple), each by value,
// by reference and by const reference; in range-based for loops over arrays and over a range of
// pairs; in a function template; and bindings captured by lambdas, by copy and by reference.
// A decomposition by value copies the object once (its copy constructor run) and destroys the
// copy at the end of its scope. The host build of the same code is the reference.
#include "test_common.h"
#include "include/binding_shapes.h"

#include <tuple>
#include <utility>

constexpr int kOut = 20;

// A range of pairs, walked with `for (auto& [k, v] : range)`.
template <typename K, typename V, int N>
struct PairRange {
  shapes::Pair<K, V> items[N];
  __host__ __device__ shapes::Pair<K, V>* begin() { return items; }
  __host__ __device__ shapes::Pair<K, V>* end() { return items + N; }
};

template <typename T>
__host__ __device__ T weighted_sum(const T (&values)[4]) {
  T total = 0;
  for (int i = 0; i < 4; ++i) {
    const auto& [first, second, third, fourth] = values;
    total += values[i] * (first + second * 2 + third * 3 + fourth * 4 + i);
  }
  return total;
}

template <typename Pairish>
__host__ __device__ int pair_score(Pairish p) {
  auto& [k, v] = p;
  k += 3;
  return static_cast<int>(k * 10 + v);
}

__host__ __device__ void bindings(int v, int* out) {
  // Arrays: by value (a copy), by reference (the array itself), by const reference.
  int row[3] = {v, v * 2, v - 7};
  auto [r0, r1, r2] = row;
  r0 += 100;
  auto& [m0, m1, m2] = row;
  m1 += 5;
  const auto& [c0, c1, c2] = row;
  out[0] = r0 + r1 * 3 + r2 * 5 + row[0] + c1 * 7 + m2;
  (void)m0;
  (void)c0;
  (void)c2;

  // A class's data members; writes through a reference binding reach the object.
  Sample s{v, v * 0.5f, static_cast<short>(v % 11)};
  auto [id, weight, tag] = s;
  auto& [rid, rweight, rtag] = s;
  rid *= 3;
  rweight += 1.25f;
  rtag = static_cast<short>(rtag - 2);
  out[1] = id + static_cast<int>(weight * 4) + tag;
  out[2] = s.id + static_cast<int>(s.weight * 4) + s.tag;

  // Bit-fields: read and written through their bindings.
  Packed p{static_cast<unsigned>(v & 31), v - 500, v * 9};
  auto& [low, high, whole] = p;
  low = (low + 7) & 31;
  high += 3;
  whole -= 1;
  auto [low2, high2, whole2] = p;
  out[3] = static_cast<int>(p.low) * 1000 + p.high + p.whole;
  out[4] = static_cast<int>(low2) + high2 * 3 + whole2;

  // Tuple-like through a member get: the bindings name what get returns.
  Triple t{v, v + 1, v + 2};
  auto& [ta, tb, tc] = t;
  tb = ta * tc;
  const auto& [ka, kb, kc] = t;
  auto [va, vb, vc] = t;
  vc += 1000;
  out[5] = t.b + kb + vc + va * 2 + ka + kc;
  (void)vb;

  // A thrust-style pair, get found by argument-dependent lookup.
  shapes::Pair<int, float> pr{v, 1.5f};
  auto& [key, value] = pr;
  key += 4;
  value *= 2;
  out[6] = pr.first * 10 + static_cast<int>(pr.second);
  out[7] = pair_score(pr) + pair_score(shapes::Pair<short, int>{static_cast<short>(v), 9});

  // get returning values: each binding holds its own.
  shapes::Rect rect{v & 15, 3};
  auto [area, perimeter] = rect;
  const auto& [area2, perimeter2] = rect;
  rect.width = 1;
  out[8] = area * 100 + perimeter + area2 + perimeter2;

  // std::pair and std::tuple.
  std::pair<int, long> sp{v, 5L};
  auto& [sp_first, sp_second] = sp;
  sp_second += sp_first;
  std::tuple<int, float, char> tup{v * 2, 0.25f, 'a'};
  auto [tu_i, tu_f, tu_c] = tup;
  auto& [tr_i, tr_f, tr_c] = tup;
  tr_i -= 1;
  out[9] = static_cast<int>(sp.second) + tu_i + static_cast<int>(tu_f * 8) + tu_c +
           std::get<0>(tup) * 3 + static_cast<int>(tr_f * 4) + tr_c;

  // Range-based for: by value (copies), by reference (writes reach the array), const reference.
  Sample samples[4] = {{v, 1.0f, 1}, {v + 1, 2.0f, 2}, {v + 2, 3.0f, 3}, {v + 3, 4.0f, 4}};
  int total = 0;
  for (auto [sid, sweight, stag] : samples) {
    sid += 1000;  // a copy
    total += sid + static_cast<int>(sweight) * stag;
  }
  for (auto& [sid, sweight, stag] : samples) {
    sid *= 2;
    stag = static_cast<short>(stag + sid % 5);
  }
  for (const auto& [sid, sweight, stag] : samples) total += sid * 3 + stag;
  out[10] = total;
  PairRange<int, int, 3> range{{{v, 1}, {v + 1, 2}, {v + 2, 3}}};
  int keyed = 0;
  for (auto& [k, val] : range) {
    val *= k;
    keyed += val;
  }
  for (const auto& [k, val] : range) keyed += k - val;
  out[11] = keyed;

  // A function template.
  int weights[4] = {v, 2, 3, v % 5};
  out[12] = weighted_sum(weights);

  // Bindings captured by lambdas: by copy (a bit-field's value among them), by reference, and
  // all of them by `[=]` and `[&]`. Clang accepts captured bindings in C++17 as an extension.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc++20-extensions"
  auto [cx, cy, cz] = row;
  auto by_copy = [cx, cy, low2] { return cx * 100 + cy + static_cast<int>(low2); };
  auto by_ref = [&cz] { cz += 11; return cz; };
  out[13] = by_copy();
  out[14] = by_ref() + cz;
  auto all_copies = [=] { return id + cx + ta + key; };
  auto all_refs = [&] { rid += 2; key -= 1; return rid + key; };
  out[15] = all_copies() + all_refs() + all_copies();
  auto counting = [cx]() mutable { cx += 5; return cx; };
  counting();
  out[16] = counting() * 10 + cx;
#pragma clang diagnostic pop

  // A decomposition by value of a class whose copy constructor and destructor run code.
  int log[2] = {0, 0};
  {
    Tracked tracked(v, 4, Counter{log});
    {
      auto [tv, tw, tcounter] = tracked;
      out[17] = tv * 10 + tw;
      (void)tcounter;
      auto& [rv, rw, rcounter] = tracked;
      rv += 2;
      (void)rw;
      (void)rcounter;
    }
    out[18] = log[0] * 1000 + log[1];
  }
  out[19] = log[0] * 1000 + log[1];
}

__global__ void bindings_kernel(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) bindings(in[i], out + i * kOut);
}

int main() {
  constexpr int n = 200;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 - 40;
  std::vector<int> want(n * kOut, -3), got(n * kOut, -7);
  for (int i = 0; i < n; ++i) bindings(in[i], want.data() + i * kOut);
  int* d_in = to_device(in);
  int* d_out = to_device(std::vector<int>(n * kOut, -3));
  bindings_kernel<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(got.data(), d_out, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  int failures = count_mismatches("structured bindings", got, want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("structured_bindings", failures);
}
