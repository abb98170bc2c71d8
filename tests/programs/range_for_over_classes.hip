// Range-based for in device code over classes, as C++ defines it: std::array (nested too), a
// container class template with an iterator class, ranges found by free begin()/end()
// (argument-dependent lookup), a temporary range that lives until the loop ends, an iterator
// whose destructor counts, writes through references, break and continue. Every element is
// compared with a host reference computed by the same code.
#include "test_common.h"

#include <array>

// A fixed-capacity vector, as device code writes one, with its own iterator class.
template <typename T, int Capacity>
class SmallVec {
 public:
  class iterator {
   public:
    __host__ __device__ explicit iterator(T* at) : at_(at) {}
    __host__ __device__ T& operator*() const { return *at_; }
    __host__ __device__ iterator& operator++() {
      ++at_;
      return *this;
    }
    __host__ __device__ bool operator!=(const iterator& other) const { return at_ != other.at_; }

   private:
    T* at_;
  };

  __host__ __device__ void push(T v) {
    if (size_ < Capacity) items_[size_++] = v;
  }
  __host__ __device__ iterator begin() { return iterator(items_); }
  __host__ __device__ iterator end() { return iterator(items_ + size_); }

 private:
  T items_[Capacity] = {};
  int size_ = 0;
};

// The cells of a w x h tile, visited by free begin()/end() found by argument-dependent lookup.
namespace tiles {
struct Tile {
  int w, h;
};
struct Cell {
  int x, y;
};
struct Cursor {
  Tile tile;
  int k;
  int* steps;  // counts the cursors destroyed
  __host__ __device__ Cell operator*() const { return {k % tile.w, k / tile.w}; }
  __host__ __device__ Cursor& operator++() {
    ++k;
    return *this;
  }
  __host__ __device__ ~Cursor() { ++*steps; }
};
__host__ __device__ inline bool operator!=(const Cursor& a, const Cursor& b) { return a.k != b.k; }
struct Walk {
  Tile tile;
  int* steps;
};
__host__ __device__ inline Cursor begin(const Walk& w) { return {w.tile, 0, w.steps}; }
__host__ __device__ inline Cursor end(const Walk& w) { return {w.tile, w.tile.w * w.tile.h, w.steps}; }
}  // namespace tiles

__host__ __device__ long visit(int i, const int* data, int* destroyed) {
  long acc = 0;
  std::array<int, 5> a = {1, 2, 3, 4, i};
  for (int& v : a) v *= 2;  // written through the reference
  for (int v : a) acc += v;

  const std::array<std::array<int, 3>, 2> m = {{{1, 2, 3}, {i, i + 1, i + 2}}};
  for (const auto& row : m) {
    for (int v : row) acc += 10 * v;
  }

  SmallVec<int, 8> picked;
  for (int k = 0; k < 8; ++k) picked.push(data[(i + k) % 16]);
  for (int v : picked) {
    if (v % 3 == 0) continue;
    if (v > 40 + i % 7) break;
    acc += 100 * v;
  }

  // The range is a temporary: it lives until the loop ends.
  for (tiles::Cell c : tiles::Walk{{i % 4 + 1, 3}, destroyed}) acc += 1000 * (c.x + 2 * c.y);
  return acc;
}

__global__ void run(const int* data, long* out, int* destroyed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = visit(i, data, &destroyed[i]);
}

int main() {
  const int n = 200;
  std::vector<int> data(16);
  for (int k = 0; k < 16; ++k) data[k] = (k * 13 + 5) % 50;
  int* d_data = to_device(data);
  long* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(long)));
  std::vector<int> zeros(n, 0);
  int* d_destroyed = to_device(zeros);
  run<<<(n + 63) / 64, 64>>>(d_data, d_out, d_destroyed, n);
  HIP_CHECK(hipGetLastError());

  std::vector<long> want(n);
  std::vector<int> want_destroyed(n, 0);
  for (int i = 0; i < n; ++i) want[i] = visit(i, data.data(), &want_destroyed[i]);
  int failures = 0;
  failures += report("range-based for over classes",
                     count_mismatches("values", from_device(d_out, n), want));
  failures += report("iterators destroyed",
                     count_mismatches("destroyed", from_device(d_destroyed, n), want_destroyed));
  HIP_CHECK(hipFree(d_data));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_destroyed));
  return failures;
}
