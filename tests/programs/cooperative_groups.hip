// Cooperative groups (hip/hip_cooperative_groups.h) as real kernels use them: a block reduction
// through a thread_group in shared memory (the block, dynamic tiles of 8 and a partial tile),
// tiled_partition<32> and <16> with shuffle reductions, all-reductions, scans, broadcasts and
// votes, coalesced_threads() in divergent branches (warp-aggregated atomics that compact an
// array, and shuffles and votes among the active lanes), and grid_group in a cooperative
// single-block launch with grid.sync().
#include "test_common.h"

#include <hip/hip_cooperative_groups.h>

#include <algorithm>

namespace cg = cooperative_groups;

// ---- block and dynamic tiles: a reduction through shared memory over any group ----

// Sum of `val` over the group, valid at rank 0; `scratch` holds one slot per member. Works for any
// group size (a partial last tile, a block of 48).
template <typename T>
__device__ T reduce_sum(cg::thread_group g, T* scratch, T val) {
  const unsigned int rank = g.thread_rank();
  for (unsigned int active = g.size(); active > 1;) {
    const unsigned int half = (active + 1) / 2;
    scratch[rank] = val;
    g.sync();
    if (rank + half < active) val += scratch[rank + half];
    g.sync();
    active = half;
  }
  return val;
}

constexpr int kBlockFields = 10;

// in: one value per thread (in linear thread order within each block).
// per_thread: kBlockFields values per thread. block_sums: one per block.
template <typename T>
__global__ void block_groups(const T* in, int* per_thread, T* block_sums, T* tile8_sums,
                             T* tile32_sums) {
  __shared__ T scratch[256];
  cg::thread_block block = cg::this_thread_block();
  const unsigned int rank = block.thread_rank();
  const unsigned int block_id = block.group_index().x + block.group_index().y * gridDim.x;
  const unsigned int global = block_id * block.size() + rank;
  const T v = in[global];

  int* o = per_thread + kBlockFields * global;
  o[0] = static_cast<int>(rank);
  o[1] = static_cast<int>(block.size());
  o[2] = static_cast<int>(block.thread_index().x * 100 + block.thread_index().y);
  o[3] = static_cast<int>(block.group_dim().x * 100 + block.group_dim().y);

  T total = reduce_sum(block, scratch, v);
  if (rank == 0) block_sums[block_id] = total;
  cg::sync(block);

  // Tiles of 8 as a thread_group, each with its own stretch of the scratch array.
  cg::thread_group tile8 = cg::tiled_partition(block, 8);
  o[4] = static_cast<int>(tile8.thread_rank());
  o[5] = static_cast<int>(tile8.size());
  o[6] = static_cast<int>(tile8.meta_group_rank() * 100 + tile8.meta_group_size());
  T part = reduce_sum(tile8, scratch + (rank - tile8.thread_rank()), v);
  if (tile8.thread_rank() == 0) tile8_sums[block_id * tile8.meta_group_size() + rank / 8] = part;
  block.sync();

  // Tiles of 32 (the last one partial when the block is no multiple of 32).
  cg::thread_group tile32 = cg::tiled_partition(block, 32);
  o[7] = static_cast<int>(cg::thread_rank(tile32));
  o[8] = static_cast<int>(cg::group_size(tile32));
  o[9] = static_cast<int>(tile32.meta_group_rank() * 100 + tile32.meta_group_size());
  T part32 = reduce_sum(tile32, scratch + (rank - tile32.thread_rank()), v);
  if (tile32.thread_rank() == 0) {
    tile32_sums[block_id * tile32.meta_group_size() + rank / 32] = part32;
  }
}

// ---- thread_block_tile<N>: shuffles and votes ----

template <unsigned int N, typename T>
__device__ T tile_reduce(const cg::thread_block_tile<N>& tile, T v) {
  for (unsigned int offset = N / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
  return v;
}

template <unsigned int N, typename T>
__device__ T tile_all_reduce(const cg::thread_block_tile<N>& tile, T v) {
  for (unsigned int mask = N / 2; mask > 0; mask /= 2) v += tile.shfl_xor(v, mask);
  return v;
}

template <unsigned int N, typename T>
__device__ T tile_inclusive_scan(const cg::thread_block_tile<N>& tile, T v) {
  for (unsigned int delta = 1; delta < N; delta *= 2) {
    T up = tile.shfl_up(v, delta);
    if (tile.thread_rank() >= delta) v += up;
  }
  return v;
}

constexpr int kTileFields = 10;

template <unsigned int N, typename T>
__global__ void tile_ops(const T* in, T* values, int* info) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
  const unsigned int global = blockIdx.x * block.size() + block.thread_rank();
  const T v = in[global];

  T* w = values + 5 * global;
  T sum = tile_reduce(tile, v);
  w[0] = tile.shfl(sum, 0);  // the sum, broadcast from rank 0
  w[1] = tile_all_reduce(tile, v);
  w[2] = tile_inclusive_scan(tile, v);
  w[3] = tile.shfl(v, static_cast<int>(N - 1 - tile.thread_rank()));  // reversed
  w[4] = tile.shfl(v, 3);

  int* o = info + kTileFields * global;
  o[0] = static_cast<int>(tile.thread_rank());
  o[1] = static_cast<int>(tile.size() * 1000 + tile.num_threads());
  o[2] = static_cast<int>(tile.meta_group_rank());
  o[3] = static_cast<int>(tile.meta_group_size());
  const bool odd = (static_cast<long long>(v) & 1) != 0;
  o[4] = static_cast<int>(static_cast<unsigned int>(tile.ballot(odd)));
  o[5] = tile.any(static_cast<long long>(v) % 7 == 0);
  o[6] = tile.all(static_cast<long long>(v) % 7 != 3);
  // Through a thread_group: the same rank and size, and sync().
  cg::thread_group g = tile;
  g.sync();
  o[7] = static_cast<int>(g.thread_rank() * 1000 + g.size());
  // A tile of the tile: tiles of 4 within it.
  cg::thread_block_tile<4> quad = cg::tiled_partition<4>(tile);
  o[8] = static_cast<int>(quad.thread_rank() * 100 + quad.meta_group_rank() * 10 +
                          quad.meta_group_size());
  o[9] = static_cast<int>(tile_all_reduce(quad, static_cast<int>(v)));
}

// ---- coalesced_threads() in divergent code ----

// Appends the selected values to `out`, one atomicAdd per warp and branch (the classic
// warp-aggregated increment). Records each selected thread's rank, group size and slot.
__global__ void compact(const int* in, int* out, int* counter, int* info, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int v = in[i];
  int* o = info + 4 * i;
  o[0] = -1;
  o[1] = -1;
  o[2] = -1;
  o[3] = -1;
  if (v % 3 == 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0) base = atomicAdd(counter, static_cast<int>(active.size()));
    base = active.shfl(base, 0);
    const int slot = base + static_cast<int>(active.thread_rank());
    out[slot] = v;
    o[0] = static_cast<int>(active.thread_rank());
    o[1] = static_cast<int>(active.size());
    o[2] = slot;
    o[3] = base;
  }
}

constexpr int kCoalescedFields = 9;

// Shuffles and votes among the active lanes of a branch.
template <typename T>
__global__ void coalesced_ops(const T* in, T* values, int* info) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const T v = in[i];
  T* w = values + 3 * i;
  int* o = info + kCoalescedFields * i;
  w[0] = w[1] = w[2] = static_cast<T>(-1);
  for (int k = 0; k < kCoalescedFields; ++k) o[k] = -1;
  if ((static_cast<long long>(v) & 3) != 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    w[0] = g.shfl_down(v, 2);
    w[1] = g.shfl_up(v, 1);
    w[2] = g.shfl(v, static_cast<int>(g.size()) - 1);  // the last member's value
    o[0] = static_cast<int>(g.thread_rank());
    o[1] = static_cast<int>(g.size());
    o[2] = static_cast<int>(static_cast<unsigned int>(g.ballot(static_cast<long long>(v) > 40)));
    o[3] = g.any(static_cast<long long>(v) == 57);
    o[4] = g.all(static_cast<long long>(v) >= 0);
    // Tiles of 4 of the coalesced group: four consecutive members each.
    cg::coalesced_group quad = cg::tiled_partition(g, 4);
    o[5] = static_cast<int>(quad.thread_rank());
    o[6] = static_cast<int>(quad.size() * 100 + quad.meta_group_rank());
    cg::thread_group as_group = g;
    o[7] = static_cast<int>(as_group.thread_rank() * 100 + as_group.size());
    // Split by a predicate: the members sharing this thread's value of it.
    cg::coalesced_group half = cg::binary_partition(g, (static_cast<long long>(v) & 4) != 0);
    o[8] = static_cast<int>(half.thread_rank() * 100 + half.size());
  }
}

// ---- grid_group ----

// A cooperative launch of one block: grid.sync() is a barrier over the whole grid.
__global__ void grid_rotate(const int* in, int* scratch, int* out, int* info, int n) {
  cg::grid_group grid = cg::this_grid();
  const unsigned int i = grid.thread_rank();
  if (i < static_cast<unsigned int>(n)) scratch[i] = in[i] * 2;
  grid.sync();
  if (i < static_cast<unsigned int>(n)) out[i] = scratch[(i + 1) % n] + 1;
  info[3 * i] = grid.is_valid();
  info[3 * i + 1] = static_cast<int>(grid.size());
  info[3 * i + 2] = static_cast<int>(grid.num_blocks() * 1000 + grid.block_rank());
}

// Several blocks: no cooperative launch, so the group is not valid; ranks still hold.
__global__ void grid_info(int* info) {
  cg::grid_group grid = cg::this_grid();
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  info[3 * i] = grid.is_valid();
  info[3 * i + 1] = static_cast<int>(grid.thread_rank());
  info[3 * i + 2] = static_cast<int>(grid.num_blocks() * 1000 + grid.block_rank());
}

// ---- host references ----

template <typename T>
int check_block_groups(const char* what, int bx, int by, int gx, int gy) {
  const int block = bx * by, blocks = gx * gy, n = block * blocks;
  const int tiles8 = (block + 7) / 8, tiles32 = (block + 31) / 32;
  std::vector<T> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<T>((i * 29 + 7) % 61 - 20);
  T* d_in = to_device(in);
  int* d_info = nullptr;
  T *d_block = nullptr, *d_tile8 = nullptr, *d_tile32 = nullptr;
  HIP_CHECK(hipMalloc(&d_info, n * kBlockFields * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_block, blocks * sizeof(T)));
  HIP_CHECK(hipMalloc(&d_tile8, blocks * tiles8 * sizeof(T)));
  HIP_CHECK(hipMalloc(&d_tile32, blocks * tiles32 * sizeof(T)));
  block_groups<T><<<dim3(gx, gy), dim3(bx, by)>>>(d_in, d_info, d_block, d_tile8, d_tile32);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());

  std::vector<int> want_info(n * kBlockFields);
  std::vector<T> want_block(blocks, T(0)), want_tile8(blocks * tiles8, T(0)),
      want_tile32(blocks * tiles32, T(0));
  for (int b = 0; b < blocks; ++b) {
    for (int r = 0; r < block; ++r) {
      const int g = b * block + r;
      int* o = &want_info[kBlockFields * g];
      o[0] = r;
      o[1] = block;
      o[2] = (r % bx) * 100 + r / bx;
      o[3] = bx * 100 + by;
      o[4] = r % 8;
      o[5] = std::min(8, block - r / 8 * 8);
      o[6] = (r / 8) * 100 + tiles8;
      o[7] = r % 32;
      o[8] = std::min(32, block - r / 32 * 32);
      o[9] = (r / 32) * 100 + tiles32;
      want_block[b] += in[g];
      want_tile8[b * tiles8 + r / 8] += in[g];
      want_tile32[b * tiles32 + r / 32] += in[g];
    }
  }
  std::string name(what);
  int bad = count_mismatches((name + " info").c_str(), from_device(d_info, want_info.size()),
                             want_info);
  bad += count_mismatches((name + " block sums").c_str(), from_device(d_block, blocks),
                          want_block);
  bad += count_mismatches((name + " tile8 sums").c_str(),
                          from_device(d_tile8, want_tile8.size()), want_tile8);
  bad += count_mismatches((name + " tile32 sums").c_str(),
                          from_device(d_tile32, want_tile32.size()), want_tile32);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_info));
  HIP_CHECK(hipFree(d_block));
  HIP_CHECK(hipFree(d_tile8));
  HIP_CHECK(hipFree(d_tile32));
  return bad;
}

template <unsigned int N, typename T>
int check_tile_ops(const char* what) {
  const int block = 128, blocks = 3, n = block * blocks;
  std::vector<T> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<T>((i * 37 + 11) % 97);
  T* d_in = to_device(in);
  T* d_values = nullptr;
  int* d_info = nullptr;
  HIP_CHECK(hipMalloc(&d_values, 5 * n * sizeof(T)));
  HIP_CHECK(hipMalloc(&d_info, kTileFields * n * sizeof(int)));
  tile_ops<N, T><<<blocks, block>>>(d_in, d_values, d_info);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());

  std::vector<T> want_values(5 * n);
  std::vector<int> want_info(kTileFields * n);
  for (int g = 0; g < n; ++g) {
    const int r = (g % block) % N, start = g - r;
    auto at = [&](int k) { return in[start + k]; };
    T sum = T(0), scan = T(0);
    unsigned int ballot = 0;
    bool any7 = false, all_not3 = true;
    for (unsigned int k = 0; k < N; ++k) {
      sum += at(k);
      if (static_cast<int>(k) <= r) scan += at(k);
      const long long x = static_cast<long long>(at(k));
      if (x & 1) ballot |= 1u << k;
      any7 |= x % 7 == 0;
      all_not3 &= x % 7 != 3;
    }
    T* w = &want_values[5 * g];
    w[0] = sum;
    w[1] = sum;
    w[2] = scan;
    w[3] = at(N - 1 - r);
    w[4] = at(3 % N);
    int* o = &want_info[kTileFields * g];
    o[0] = r;
    o[1] = N * 1000 + N;
    o[2] = (g % block) / N;
    o[3] = block / N;
    o[4] = static_cast<int>(ballot);
    o[5] = any7;
    o[6] = all_not3;
    o[7] = r * 1000 + N;
    const int q = r % 4, qstart = g - q;
    o[8] = q * 100 + (r / 4) * 10 + N / 4;
    int qsum = 0;
    for (int k = 0; k < 4; ++k) qsum += static_cast<int>(in[qstart + k]);
    o[9] = qsum;
  }
  std::string name(what);
  int bad = count_mismatches((name + " values").c_str(), from_device(d_values, 5 * n),
                             want_values);
  bad += count_mismatches((name + " info").c_str(), from_device(d_info, kTileFields * n),
                          want_info);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_values));
  HIP_CHECK(hipFree(d_info));
  return bad;
}

int check_compact() {
  const int n = 1000, block = 64, warp = 32;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 53 + 17) % 211;
  int* d_in = to_device(in);
  int *d_out = nullptr, *d_counter = nullptr, *d_info = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_counter, sizeof(int)));
  HIP_CHECK(hipMalloc(&d_info, 4 * n * sizeof(int)));
  HIP_CHECK(hipMemset(d_counter, 0, sizeof(int)));
  compact<<<(n + block - 1) / block, block>>>(d_in, d_out, d_counter, d_info, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<int> counter = from_device(d_counter, 1);
  std::vector<int> info = from_device(d_info, 4 * n);

  // Ranks and sizes per warp; the slots hold each warp's selected values in lane order from a
  // base that one atomicAdd reserved, so the bases differ by warp and the slots cover
  // [0, count) exactly once.
  std::vector<int> selected;
  std::vector<int> want_info(4 * n, -1);
  int bad = 0;
  for (int w = 0; w * warp < n; ++w) {
    const int first = w * warp, last = std::min(n, first + warp);
    int size = 0;
    for (int i = first; i < last; ++i) size += in[i] % 3 == 0;
    int rank = 0;
    const int base = info[4 * first + 3] >= 0 ? info[4 * first + 3] : -1;
    for (int i = first; i < last; ++i) {
      if (in[i] % 3 != 0) continue;
      selected.push_back(in[i]);
      // This warp's base: the one its first selected thread saw.
      const int warp_base = rank == 0 ? info[4 * i + 3] : want_info[4 * (i - 1) + 3];
      (void)base;
      int* o = &want_info[4 * i];
      o[0] = rank;
      o[1] = size;
      o[2] = warp_base + rank;
      o[3] = warp_base;
      ++rank;
      // Carry the base forward through unselected threads.
      for (int j = i + 1; j < last && in[j] % 3 != 0; ++j) want_info[4 * j + 3] = warp_base;
    }
    // Unselected threads keep -1 everywhere.
    for (int i = first; i < last; ++i) {
      if (in[i] % 3 != 0) want_info[4 * i + 3] = -1;
    }
  }
  // Unselected threads after a selected one were given the base above only as a carry; the
  // loop just reset them. Now the slots: every one of [0, count) exactly once.
  std::vector<int> owner(selected.size(), 0);
  for (int i = 0; i < n; ++i) {
    const int slot = want_info[4 * i + 2];
    if (slot >= 0 && slot < static_cast<int>(owner.size())) ++owner[slot];
  }
  std::vector<int> ones(selected.size(), 1);
  bad += count_mismatches("compact slots used once", owner, ones);
  bad += count_mismatches("compact counter", counter, std::vector<int>{static_cast<int>(selected.size())});
  bad += count_mismatches("compact info", info, want_info);
  // Each selected value sits in its slot.
  std::vector<int> out = from_device(d_out, selected.size());
  std::vector<int> want_out(selected.size(), -1);
  for (int i = 0; i < n; ++i) {
    const int slot = want_info[4 * i + 2];
    if (slot >= 0 && slot < static_cast<int>(want_out.size())) want_out[slot] = in[i];
  }
  bad += count_mismatches("compact output", out, want_out);
  // And the output is the selected values, in some order.
  std::vector<int> sorted_out = out, sorted_want = selected;
  std::sort(sorted_out.begin(), sorted_out.end());
  std::sort(sorted_want.begin(), sorted_want.end());
  bad += count_mismatches("compact values", sorted_out, sorted_want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_counter));
  HIP_CHECK(hipFree(d_info));
  return bad;
}

template <typename T>
int check_coalesced_ops(const char* what) {
  const int block = 64, blocks = 4, n = block * blocks, warp = 32;
  std::vector<T> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<T>((i * 41 + 5) % 89);
  T* d_in = to_device(in);
  T* d_values = nullptr;
  int* d_info = nullptr;
  HIP_CHECK(hipMalloc(&d_values, 3 * n * sizeof(T)));
  HIP_CHECK(hipMalloc(&d_info, kCoalescedFields * n * sizeof(int)));
  coalesced_ops<T><<<blocks, block>>>(d_in, d_values, d_info);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());

  std::vector<T> want_values(3 * n, static_cast<T>(-1));
  std::vector<int> want_info(kCoalescedFields * n, -1);
  auto member = [&](int i) { return (static_cast<long long>(in[i]) & 3) != 1; };
  for (int w = 0; w < n / warp; ++w) {
    std::vector<int> members;  // global indices, in lane order
    for (int l = 0; l < warp; ++l) {
      if (member(w * warp + l)) members.push_back(w * warp + l);
    }
    const int size = static_cast<int>(members.size());
    unsigned int ballot = 0;
    bool any57 = false, all_nonneg = true;
    for (int r = 0; r < size; ++r) {
      const long long x = static_cast<long long>(in[members[r]]);
      if (x > 40) ballot |= 1u << r;
      any57 |= x == 57;
      all_nonneg &= x >= 0;
    }
    for (int r = 0; r < size; ++r) {
      const int i = members[r];
      T* wv = &want_values[3 * i];
      wv[0] = r + 2 < size ? in[members[r + 2]] : in[i];
      wv[1] = r >= 1 ? in[members[r - 1]] : in[i];
      wv[2] = in[members[size - 1]];
      int* o = &want_info[kCoalescedFields * i];
      o[0] = r;
      o[1] = size;
      o[2] = static_cast<int>(ballot);
      o[3] = any57;
      o[4] = all_nonneg;
      o[5] = r % 4;
      o[6] = std::min(4, size - r / 4 * 4) * 100 + r / 4;
      o[7] = r * 100 + size;
      const bool side = (static_cast<long long>(in[i]) & 4) != 0;
      int half_rank = 0, half_size = 0;
      for (int k = 0; k < size; ++k) {
        if (((static_cast<long long>(in[members[k]]) & 4) != 0) == side) {
          if (k < r) ++half_rank;
          ++half_size;
        }
      }
      o[8] = half_rank * 100 + half_size;
    }
  }
  std::string name(what);
  int bad = count_mismatches((name + " values").c_str(), from_device(d_values, 3 * n),
                             want_values);
  bad += count_mismatches((name + " info").c_str(), from_device(d_info, kCoalescedFields * n),
                          want_info);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_values));
  HIP_CHECK(hipFree(d_info));
  return bad;
}

int check_grid() {
  int bad = 0;
  // One block, launched cooperatively.
  const int n = 200, threads = 256;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = i * 7 - 300;
  int* d_in = to_device(in);
  int *d_scratch = nullptr, *d_out = nullptr, *d_info = nullptr;
  HIP_CHECK(hipMalloc(&d_scratch, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_info, 3 * threads * sizeof(int)));
  int count = n;
  void* args[] = {&d_in, &d_scratch, &d_out, &d_info, &count};
  HIP_CHECK(hipLaunchCooperativeKernel(grid_rotate, dim3(1), dim3(threads), args, 0, 0));
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<int> want_out(n), want_info(3 * threads);
  for (int i = 0; i < n; ++i) want_out[i] = in[(i + 1) % n] * 2 + 1;
  for (int i = 0; i < threads; ++i) {
    want_info[3 * i] = 1;
    want_info[3 * i + 1] = threads;
    want_info[3 * i + 2] = 1000;
  }
  bad += count_mismatches("grid_rotate output", from_device(d_out, n), want_out);
  bad += count_mismatches("grid_rotate info", from_device(d_info, 3 * threads), want_info);

  // Several blocks, an ordinary launch.
  const int blocks = 4, block = 64;
  int* d_grid = nullptr;
  HIP_CHECK(hipMalloc(&d_grid, 3 * blocks * block * sizeof(int)));
  grid_info<<<blocks, block>>>(d_grid);
  HIP_CHECK(hipGetLastError());
  std::vector<int> want_grid(3 * blocks * block);
  for (int i = 0; i < blocks * block; ++i) {
    want_grid[3 * i] = 0;
    want_grid[3 * i + 1] = i;
    want_grid[3 * i + 2] = blocks * 1000 + i / block;
  }
  bad += count_mismatches("grid_info", from_device(d_grid, 3 * blocks * block), want_grid);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_scratch));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_info));
  HIP_CHECK(hipFree(d_grid));
  return bad;
}

int main() {
  int bad = 0;
  bad += check_block_groups<int>("block 16x8 int", 16, 8, 3, 2);
  bad += check_block_groups<float>("block 12x4 float", 12, 4, 2, 2);  // 48 threads: partial tiles
  bad += check_tile_ops<32, int>("tile<32> int");
  bad += check_tile_ops<16, float>("tile<16> float");
  bad += check_tile_ops<16, unsigned int>("tile<16> unsigned");
  bad += check_compact();
  bad += check_coalesced_ops<int>("coalesced int");
  bad += check_coalesced_ops<double>("coalesced double");
  bad += check_grid();
  return report("cooperative_groups", bad);
}
