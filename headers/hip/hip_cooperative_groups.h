// HIP's cooperative groups (namespace cooperative_groups), on hipmlir's 32-wide subgroups.
//
// The groups and what each one is here:
//   thread_block          this_thread_block(): the threads of the block; sync() is __syncthreads.
//   thread_block_tile<N>  tiled_partition<N>(parent), N a power of two up to warpSize (32): N
//                         consecutive threads of the block (by linear thread rank, which is also
//                         the lane order), with shuffles, votes and a subgroup-scope sync().
//   thread_group          any group, its kind held at run time: a thread_block, a tile, a
//                         coalesced_group or a grid_group converts to it (a function taking a
//                         thread_group accepts each of them), and tiled_partition(parent, n)
//                         returns one.
//   coalesced_group       coalesced_threads(): the lanes of the warp that are active where it is
//                         called (__activemask), ranked by lane; shuffles and votes among them.
//   grid_group            this_grid(). A grid-wide barrier needs a cooperative launch (every block
//                         resident at once), which OpenCL cannot promise: hipmlir supports it
//                         only for single-block grids, where the grid is the block. There
//                         is_valid() is true and sync() is __syncthreads(). In a larger grid
//                         is_valid() is false and sync() makes no barrier; the failure shows at
//                         the launch: hipLaunchCooperativeKernel launches single-block grids and
//                         returns hipErrorNotSupported for larger ones. (A device-side message
//                         waits for printf in device functions, which the frontend does not
//                         compile yet.)
//   multi_grid_group      this_multi_grid(): the grids of a multi-device cooperative launch.
//                         hipmlir runs a kernel on one device, so it is this grid alone (one grid,
//                         rank 0), valid and synchronized as grid_group is.
//
// Differences from ROCm's header, forced by what hipmlir's device frontend compiles (no virtual
// functions, no by-value derived-to-base conversions): the group types are not derived from
// thread_group but convert to it by constructor, so a thread_block passes as a `thread_group` or
// `const thread_group&` argument but does not bind to a `thread_group&`; a tile size that is no power of two up to 32 is not reported (ROCm
// asserts) but gives a coalesced group with no members (tiled_partition of a coalesced_group).
#ifndef HIPMLIR_HIP_COOPERATIVE_GROUPS_H
#define HIPMLIR_HIP_COOPERATIVE_GROUPS_H

#include "hip_runtime.h"

#if defined(__cplusplus)

namespace cooperative_groups {

// The operations the groups are built on. Host compiles see declarations only: device function
// bodies never run on the host, and the work-item builtins they use exist only on the device.
namespace __hipmlir_cg {
#if defined(__HIP_DEVICE_COMPILE__)
__device__ inline unsigned int block_thread_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ inline unsigned int block_size() { return blockDim.x * blockDim.y * blockDim.z; }
__device__ inline unsigned int grid_block_rank() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
__device__ inline unsigned int grid_blocks() { return gridDim.x * gridDim.y * gridDim.z; }
__device__ inline dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
__device__ inline dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
__device__ inline dim3 block_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
__device__ inline dim3 grid_dim() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
__device__ inline unsigned int lane() { return __lane_id(); }
__device__ inline unsigned int warp_size() { return (unsigned int)warpSize; }
__device__ inline unsigned long long active_lanes() { return __activemask(); }
__device__ inline unsigned long long ballot(int predicate) { return __ballot(predicate); }
__device__ inline unsigned int popcount(unsigned long long x) { return (unsigned int)__popcll(x); }
__device__ inline void block_sync() { __syncthreads(); }
// A tile's or coalesced group's sync(). __syncwarp is a memory fence only; where OpenCL runs a
// subgroup's work-items one after another (Intel's CPU runtime does in a work-group that is no
// multiple of 32 threads and has barriers) that orders nothing between them, so a vote, which
// waits for every active lane, sits between two fences.
__device__ inline void warp_sync() {
  __syncwarp();
  if (__activemask() != 0ull) __syncwarp();
}
template <class T>
__device__ inline T shfl(T var, int src_lane, int width) {
  return __shfl(var, src_lane, width);
}
template <class T>
__device__ inline T shfl_down(T var, unsigned int delta, int width) {
  return __shfl_down(var, delta, width);
}
template <class T>
__device__ inline T shfl_up(T var, unsigned int delta, int width) {
  return __shfl_up(var, delta, width);
}
template <class T>
__device__ inline T shfl_xor(T var, int lane_mask, int width) {
  return __shfl_xor(var, lane_mask, width);
}
#else
unsigned int block_thread_rank();
unsigned int block_size();
unsigned int grid_block_rank();
unsigned int grid_blocks();
dim3 block_index();
dim3 thread_index();
dim3 block_dim();
dim3 grid_dim();
unsigned int lane();
unsigned int warp_size();
unsigned long long active_lanes();
unsigned long long ballot(int predicate);
unsigned int popcount(unsigned long long x);
void block_sync();
void warp_sync();
template <class T>
T shfl(T var, int src_lane, int width);
template <class T>
T shfl_down(T var, unsigned int delta, int width);
template <class T>
T shfl_up(T var, unsigned int delta, int width);
template <class T>
T shfl_xor(T var, int lane_mask, int width);
#endif

// The lane of the member of rank `rank` in `mask` (the lanes of the set bits, lowest first);
// `fallback` when the mask has no such member.
__device__ inline unsigned int nth_lane(unsigned long long mask, unsigned int rank,
                                        unsigned int fallback) {
  unsigned int found = fallback;
  unsigned int seen = 0;
  for (unsigned int l = 0; l < 64; ++l) {
    if ((mask >> l) & 1ull) {
      if (seen == rank) found = l;
      ++seen;
    }
  }
  return found;
}
// The bits of `bits` at the members' lanes, packed from bit 0 in rank order.
__device__ inline unsigned long long pack_bits(unsigned long long mask, unsigned long long bits) {
  unsigned long long out = 0;
  unsigned int rank = 0;
  for (unsigned int l = 0; l < 64; ++l) {
    if ((mask >> l) & 1ull) {
      if ((bits >> l) & 1ull) out |= 1ull << rank;
      ++rank;
    }
  }
  return out;
}
// The mask of the `size` lanes starting at the lane of the given tile.
__device__ inline unsigned long long tile_mask(unsigned int size, unsigned int tile_start) {
  unsigned long long ones = size >= 64u ? ~0ull : (1ull << size) - 1ull;
  return ones << tile_start;
}
__device__ inline bool valid_tile_size(unsigned int n) {
  return n != 0u && (n & (n - 1u)) == 0u && n <= warp_size();
}
}  // namespace __hipmlir_cg

namespace internal {
// The kinds of group a thread_group holds (ROCm's names).
typedef enum {
  cg_multi_grid = 0,
  cg_grid,
  cg_workgroup,
  cg_tiled_group,
  cg_coalesced_group
} group_type;
}  // namespace internal

class thread_group;
class thread_block;
class grid_group;
class multi_grid_group;
class coalesced_group;
template <unsigned int Size, class ParentT>
class thread_block_tile;

// ---- grid_group ----
class grid_group {
  unsigned int _size;

 public:
  __device__ explicit grid_group(unsigned int size) : _size(size) {}
  // Threads in the grid, and this thread's rank among them (blocks in linear order).
  __device__ unsigned int size() const { return _size; }
  __device__ unsigned long long num_threads() const { return _size; }
  __device__ unsigned int thread_rank() const {
    return __hipmlir_cg::grid_block_rank() * __hipmlir_cg::block_size() +
           __hipmlir_cg::block_thread_rank();
  }
  __device__ unsigned int cg_type() const { return internal::cg_grid; }
  __device__ unsigned int num_blocks() const { return __hipmlir_cg::grid_blocks(); }
  __device__ unsigned int block_rank() const { return __hipmlir_cg::grid_block_rank(); }
  __device__ dim3 block_index() const { return __hipmlir_cg::block_index(); }
  __device__ dim3 dim_blocks() const { return __hipmlir_cg::grid_dim(); }
  __device__ dim3 group_dim() const { return __hipmlir_cg::block_dim(); }
  // Whether sync() is a grid-wide barrier: only in a single-block grid (see the top).
  __device__ bool is_valid() const { return __hipmlir_cg::grid_blocks() == 1u; }
  __device__ void sync() const {
    // Larger grids: no barrier (see the top; their cooperative launch already failed).
    if (__hipmlir_cg::grid_blocks() == 1u) __hipmlir_cg::block_sync();
  }
};

__device__ inline grid_group this_grid() {
  return grid_group(__hipmlir_cg::grid_blocks() * __hipmlir_cg::block_size());
}

// ---- multi_grid_group ----
class multi_grid_group {
  unsigned int _size;

 public:
  __device__ explicit multi_grid_group(unsigned int size) : _size(size) {}
  // The grids (devices) of the launch and this grid's rank among them: one grid here.
  __device__ unsigned int num_grids() const { return 1u; }
  __device__ unsigned int grid_rank() const { return 0u; }
  // Threads in all the grids, and this thread's rank among them.
  __device__ unsigned int size() const { return _size; }
  __device__ unsigned long long num_threads() const { return _size; }
  __device__ unsigned int thread_rank() const { return grid_group(_size).thread_rank(); }
  __device__ unsigned int cg_type() const { return internal::cg_multi_grid; }
  __device__ bool is_valid() const { return grid_group(_size).is_valid(); }
  __device__ void sync() const { grid_group(_size).sync(); }
};

__device__ inline multi_grid_group this_multi_grid() {
  return multi_grid_group(__hipmlir_cg::grid_blocks() * __hipmlir_cg::block_size());
}

// ---- thread_block ----
class thread_block {
  unsigned int _size;

 public:
  __device__ explicit thread_block(unsigned int size) : _size(size) {}
  __device__ unsigned int size() const { return _size; }
  __device__ unsigned int num_threads() const { return _size; }
  __device__ unsigned int thread_rank() const { return __hipmlir_cg::block_thread_rank(); }
  __device__ unsigned int cg_type() const { return internal::cg_workgroup; }
  __device__ bool is_valid() const { return true; }
  __device__ void sync() const { __hipmlir_cg::block_sync(); }
  // The block's index in the grid, this thread's index in the block, and the block's extents.
  __device__ dim3 group_index() const { return __hipmlir_cg::block_index(); }
  __device__ dim3 thread_index() const { return __hipmlir_cg::thread_index(); }
  __device__ dim3 group_dim() const { return __hipmlir_cg::block_dim(); }
  __device__ dim3 dim_threads() const { return __hipmlir_cg::block_dim(); }
};

__device__ inline thread_block this_thread_block() {
  return thread_block(__hipmlir_cg::block_size());
}

// ---- coalesced_group ----
class coalesced_group {
  unsigned long long _mask;  // the member lanes
  unsigned int _size;
  unsigned int _meta_rank;
  unsigned int _meta_size;

 public:
  __device__ explicit coalesced_group(unsigned long long member_mask, unsigned int meta_rank = 0,
                                      unsigned int meta_size = 1)
      : _mask(member_mask),
        _size(__hipmlir_cg::popcount(member_mask)),
        _meta_rank(meta_rank),
        _meta_size(meta_size) {}
  __device__ unsigned int size() const { return _size; }
  __device__ unsigned int num_threads() const { return _size; }
  // The number of members in lanes below this one.
  __device__ unsigned int thread_rank() const {
    unsigned int l = __hipmlir_cg::lane();
    unsigned long long below = l == 0u ? 0ull : _mask & (~0ull >> (64u - l));
    return __hipmlir_cg::popcount(below);
  }
  __device__ unsigned int cg_type() const { return internal::cg_coalesced_group; }
  __device__ bool is_valid() const { return _size != 0u; }
  __device__ void sync() const { __hipmlir_cg::warp_sync(); }
  __device__ unsigned int meta_group_rank() const { return _meta_rank; }
  __device__ unsigned int meta_group_size() const { return _meta_size; }
  __device__ unsigned long long member_mask() const { return _mask; }

  // The value of `var` at the member of rank src_rank (taken modulo size()).
  template <class T>
  __device__ T shfl(T var, int src_rank) const {
    unsigned int rank = (unsigned int)(src_rank % (int)_size);
    unsigned int from = __hipmlir_cg::nth_lane(_mask, rank, __hipmlir_cg::lane());
    return __hipmlir_cg::shfl(var, (int)from, (int)__hipmlir_cg::warp_size());
  }
  // From the member `delta` ranks above (below); a member with none keeps its own value.
  template <class T>
  __device__ T shfl_down(T var, unsigned int delta) const {
    unsigned int target = thread_rank() + delta;
    unsigned int from = target < _size ? __hipmlir_cg::nth_lane(_mask, target, 0u)
                                       : __hipmlir_cg::lane();
    return __hipmlir_cg::shfl(var, (int)from, (int)__hipmlir_cg::warp_size());
  }
  template <class T>
  __device__ T shfl_up(T var, unsigned int delta) const {
    unsigned int rank = thread_rank();
    unsigned int from = rank >= delta ? __hipmlir_cg::nth_lane(_mask, rank - delta, 0u)
                                      : __hipmlir_cg::lane();
    return __hipmlir_cg::shfl(var, (int)from, (int)__hipmlir_cg::warp_size());
  }
  // Bit r is the predicate of the member of rank r.
  __device__ unsigned long long ballot(int predicate) const {
    return __hipmlir_cg::pack_bits(_mask, __hipmlir_cg::ballot(predicate));
  }
  __device__ int any(int predicate) const {
    return (__hipmlir_cg::ballot(predicate) & _mask) != 0ull;
  }
  __device__ int all(int predicate) const {
    return (__hipmlir_cg::ballot(predicate) & _mask) == _mask;
  }
};

// The lanes of this warp active here.
__device__ inline coalesced_group coalesced_threads() {
  return coalesced_group(__hipmlir_cg::active_lanes());
}

// ---- thread_block_tile<Size> ----
// Size consecutive threads of the block, Size a power of two no larger than the warp. (ROCm's
// second parameter names the parent group; every parent gives the same tile here, and tiles of
// one size convert to each other.)
template <unsigned int Size, class ParentT = void>
class thread_block_tile {
  // ROCm allows up to its 64-wide wavefronts; programs instantiate tiles of both warp sizes and
  // pick one by the device's warpSize at run time. A tile wider than hipmlir's 32-wide warp is
  // refused where it is made (tiled_partition prints an error).
  static_assert(Size != 0u && (Size & (Size - 1u)) == 0u && Size <= 64u,
                "thread_block_tile: the size must be a power of two no larger than 64");
  unsigned int _meta_rank;
  unsigned int _meta_size;

 public:
  __device__ thread_block_tile(unsigned int meta_rank, unsigned int meta_size)
      : _meta_rank(meta_rank), _meta_size(meta_size) {}
  template <class OtherParentT>
  __device__ thread_block_tile(const thread_block_tile<Size, OtherParentT>& other)
      : _meta_rank(other.meta_group_rank()), _meta_size(other.meta_group_size()) {}

  __device__ unsigned int size() const { return Size; }
  __device__ unsigned int num_threads() const { return Size; }
  __device__ unsigned int thread_rank() const {
    return __hipmlir_cg::block_thread_rank() & (Size - 1u);
  }
  __device__ unsigned int cg_type() const { return internal::cg_tiled_group; }
  __device__ bool is_valid() const { return true; }
  __device__ void sync() const { __hipmlir_cg::warp_sync(); }
  // This tile's index among the tiles of its parent, and their number.
  __device__ unsigned int meta_group_rank() const { return _meta_rank; }
  __device__ unsigned int meta_group_size() const { return _meta_size; }

  template <class T>
  __device__ T shfl(T var, int src_rank) const {
    return __hipmlir_cg::shfl(var, src_rank, (int)Size);
  }
  template <class T>
  __device__ T shfl_down(T var, unsigned int delta) const {
    return __hipmlir_cg::shfl_down(var, delta, (int)Size);
  }
  template <class T>
  __device__ T shfl_up(T var, unsigned int delta) const {
    return __hipmlir_cg::shfl_up(var, delta, (int)Size);
  }
  template <class T>
  __device__ T shfl_xor(T var, unsigned int lane_mask) const {
    return __hipmlir_cg::shfl_xor(var, (int)lane_mask, (int)Size);
  }
  // Bit r is the predicate of the tile's thread of rank r.
  __device__ unsigned long long ballot(int predicate) const {
    unsigned int start = __hipmlir_cg::lane() & ~(Size - 1u);
    return (__hipmlir_cg::ballot(predicate) & __hipmlir_cg::tile_mask(Size, start)) >> start;
  }
  __device__ int any(int predicate) const { return ballot(predicate) != 0ull; }
  // True when no thread of the tile has a false predicate.
  __device__ int all(int predicate) const { return ballot(!predicate) == 0ull; }
};

// ---- thread_group: any of the groups above, its kind chosen at run time ----
class thread_group {
  unsigned int _type;        // an internal::group_type
  unsigned int _size;        // number of threads
  unsigned long long _mask;  // coalesced groups: the member lanes
  unsigned int _tile;        // tiled groups: the tile size
  unsigned int _meta_rank;
  unsigned int _meta_size;

 public:
  __device__ thread_group(unsigned int type, unsigned int size, unsigned long long mask,
                          unsigned int tile, unsigned int meta_rank, unsigned int meta_size)
      : _type(type),
        _size(size),
        _mask(mask),
        _tile(tile),
        _meta_rank(meta_rank),
        _meta_size(meta_size) {}
  __device__ thread_group(const thread_block& g)
      : _type(internal::cg_workgroup), _size(g.size()), _mask(0), _tile(0), _meta_rank(0),
        _meta_size(1) {}
  __device__ thread_group(const grid_group& g)
      : _type(internal::cg_grid), _size(g.size()), _mask(0), _tile(0), _meta_rank(0),
        _meta_size(1) {}
  __device__ thread_group(const multi_grid_group& g)
      : _type(internal::cg_multi_grid), _size(g.size()), _mask(0), _tile(0), _meta_rank(0),
        _meta_size(1) {}
  __device__ thread_group(const coalesced_group& g)
      : _type(internal::cg_coalesced_group),
        _size(g.size()),
        _mask(g.member_mask()),
        _tile(0),
        _meta_rank(g.meta_group_rank()),
        _meta_size(g.meta_group_size()) {}
  template <unsigned int Size, class ParentT>
  __device__ thread_group(const thread_block_tile<Size, ParentT>& g)
      : _type(internal::cg_tiled_group),
        _size(Size),
        _mask(0),
        _tile(Size),
        _meta_rank(g.meta_group_rank()),
        _meta_size(g.meta_group_size()) {}

  __device__ unsigned int size() const { return _size; }
  __device__ unsigned int num_threads() const { return _size; }
  __device__ unsigned int cg_type() const { return _type; }
  __device__ unsigned int thread_rank() const {
    if (_type == internal::cg_workgroup) return __hipmlir_cg::block_thread_rank();
    if (_type == internal::cg_tiled_group) {
      return __hipmlir_cg::block_thread_rank() & (_tile - 1u);
    }
    if (_type == internal::cg_coalesced_group) return coalesced_group(_mask).thread_rank();
    return grid_group(_size).thread_rank();
  }
  __device__ bool is_valid() const {
    if (_type == internal::cg_grid || _type == internal::cg_multi_grid) {
      return grid_group(_size).is_valid();
    }
    return _size != 0u;
  }
  __device__ void sync() const {
    if (_type == internal::cg_workgroup) {
      __hipmlir_cg::block_sync();
    } else if (_type == internal::cg_grid || _type == internal::cg_multi_grid) {
      grid_group(_size).sync();
    } else {
      __hipmlir_cg::warp_sync();
    }
  }
  // Tiled and coalesced groups: the group's index among its parent's partitions, and their number.
  __device__ unsigned int meta_group_rank() const { return _meta_rank; }
  __device__ unsigned int meta_group_size() const { return _meta_size; }
  // hipmlir's own: a coalesced group's member lanes.
  __device__ unsigned long long __hipmlir_member_mask() const { return _mask; }
};

// The calling thread alone.
__device__ inline thread_group this_thread() {
  return thread_group(internal::cg_coalesced_group, 1u, 1ull << __hipmlir_cg::lane(), 0u, 0u, 1u);
}

// ---- tiled_partition(parent, n): tiles of n threads (n a power of two up to 32) ----
// A tile of a block or tile holds the threads of consecutive ranks; the last tile of a block
// whose size is no multiple of n is smaller.
__device__ inline thread_group __hipmlir_cg_tile_of(unsigned int parent_size,
                                                    unsigned int parent_rank,
                                                    unsigned int tile_size) {
  unsigned int tiles = (parent_size + tile_size - 1u) / tile_size;
  unsigned int meta_rank = parent_rank / tile_size;
  unsigned int first = meta_rank * tile_size;
  unsigned int size = parent_size - first < tile_size ? parent_size - first : tile_size;
  return thread_group(internal::cg_tiled_group, size, 0ull, tile_size, meta_rank, tiles);
}

// A coalesced group's tiles hold the members of consecutive ranks.
__device__ inline coalesced_group tiled_partition(const coalesced_group& parent,
                                                  unsigned int tile_size) {
  // (One return: the frontend returns a class value early only where it can make a default.)
  const bool valid = __hipmlir_cg::valid_tile_size(tile_size);
  unsigned int meta_rank = parent.thread_rank() / tile_size;
  unsigned int first = meta_rank * tile_size;
  unsigned long long mask = 0;
  unsigned long long members = parent.member_mask();
  unsigned int rank = 0;
  for (unsigned int l = 0; l < 64u; ++l) {
    if ((members >> l) & 1ull) {
      if (rank >= first && rank < first + tile_size) mask |= 1ull << l;
      ++rank;
    }
  }
  return coalesced_group(valid ? mask : 0ull, meta_rank,
                         (parent.size() + tile_size - 1u) / tile_size);
}

__device__ inline thread_group tiled_partition(const thread_block& parent,
                                               unsigned int tile_size) {
  return __hipmlir_cg_tile_of(parent.size(), parent.thread_rank(), tile_size);
}

__device__ inline thread_group tiled_partition(const thread_group& parent,
                                               unsigned int tile_size) {
  thread_group tile = __hipmlir_cg_tile_of(parent.size(), parent.thread_rank(), tile_size);
  if (parent.cg_type() == internal::cg_coalesced_group) {
    coalesced_group members(parent.__hipmlir_member_mask(), parent.meta_group_rank(),
                            parent.meta_group_size());
    tile = tiled_partition(members, tile_size);
  }
  return tile;
}

// ---- tiled_partition<N>(parent): a thread_block_tile<N> ----
template <unsigned int Size, class ParentT>
__device__ inline thread_block_tile<Size, ParentT> tiled_partition(const ParentT& parent) {
  // (thread_block_tile checks the size at compile time, the warp's width here.)
  if (Size > __hipmlir_cg::warp_size() && parent.thread_rank() == 0u) {
    printf("error: cooperative_groups::tiled_partition<%u>: wider than the device's warp (%u "
           "threads); the tile's operations give wrong results\n",
           Size, __hipmlir_cg::warp_size());
  }
  return thread_block_tile<Size, ParentT>(parent.thread_rank() / Size,
                                          (parent.size() + Size - 1u) / Size);
}

// Splits a coalesced group or tile by a predicate: the members that share this thread's value.
__device__ inline coalesced_group binary_partition(const coalesced_group& group, bool predicate) {
  unsigned long long votes = __hipmlir_cg::ballot(predicate) & group.member_mask();
  return coalesced_group(predicate ? votes : group.member_mask() & ~votes);
}
template <unsigned int Size, class ParentT>
__device__ inline coalesced_group binary_partition(const thread_block_tile<Size, ParentT>& tile,
                                                   bool predicate) {
  unsigned int start = __hipmlir_cg::lane() & ~(Size - 1u);
  unsigned long long members = __hipmlir_cg::tile_mask(Size, start);
  unsigned long long votes = __hipmlir_cg::ballot(predicate) & members;
  return coalesced_group(predicate ? votes : members & ~votes);
}

// ---- the free functions over any group ----
template <class GroupT>
__device__ inline unsigned int group_size(const GroupT& g) {
  return g.size();
}
template <class GroupT>
__device__ inline unsigned int thread_rank(const GroupT& g) {
  return g.thread_rank();
}
template <class GroupT>
__device__ inline bool is_valid(const GroupT& g) {
  return g.is_valid();
}
template <class GroupT>
__device__ inline void sync(const GroupT& g) {
  g.sync();
}

// ---- collectives: reduce, inclusive_scan, exclusive_scan (ROCm declares them in
// hip/cooperative_groups/hip_reduce.h and hip_scan.h, which include this header; they are
// visible here too) over a thread_block_tile or a coalesced_group, with the operation a functor
// below or any callable (a device lambda). Every member of the group must take part. ----
template <class T>
struct plus {
  __host__ __device__ T operator()(const T& a, const T& b) const { return a + b; }
};
template <class T>
struct less {  // the smaller value (a min-reduction)
  __host__ __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <class T>
struct greater {  // the larger value (a max-reduction)
  __host__ __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  __host__ __device__ T operator()(const T& a, const T& b) const { return a & b; }
};
template <class T>
struct bit_or {
  __host__ __device__ T operator()(const T& a, const T& b) const { return a | b; }
};
template <class T>
struct bit_xor {
  __host__ __device__ T operator()(const T& a, const T& b) const { return a ^ b; }
};

// A tile: a butterfly, every lane ends with the whole tile's value.
template <unsigned int Size, class ParentT, class T, class Op>
__device__ T reduce(const thread_block_tile<Size, ParentT>& g, T val, Op op) {
  for (unsigned int d = Size / 2u; d > 0u; d /= 2u) {
    T other = g.shfl_xor(val, d);
    val = op(val, other);
  }
  return val;
}
// A coalesced group of any size: a tree toward rank 0, then rank 0's value to every member.
template <class T, class Op>
__device__ T reduce(const coalesced_group& g, T val, Op op) {
  unsigned int rank = g.thread_rank();
  for (unsigned int d = 1u; d < g.size(); d *= 2u) {
    T other = g.shfl_down(val, d);
    if (rank % (2u * d) == 0u && rank + d < g.size()) val = op(val, other);
  }
  return g.shfl(val, 0);
}
template <unsigned int Size, class ParentT, class T>
__device__ T reduce(const thread_block_tile<Size, ParentT>& g, T val) {
  return reduce(g, val, plus<T>());
}
template <class T>
__device__ T reduce(const coalesced_group& g, T val) {
  return reduce(g, val, plus<T>());
}

// Each member gets op over the values of the ranks up to its own (Hillis and Steele).
template <class GroupT, class T, class Op>
__device__ T inclusive_scan(const GroupT& g, T val, Op op) {
  unsigned int rank = g.thread_rank();
  for (unsigned int d = 1u; d < g.size(); d *= 2u) {
    T before = g.shfl_up(val, d);
    if (rank >= d) val = op(before, val);
  }
  return val;
}
template <class GroupT, class T>
__device__ T inclusive_scan(const GroupT& g, T val) {
  return inclusive_scan(g, val, plus<T>());
}
// Each member gets op over the values of the ranks below its own; rank 0 gets T{} (CUDA's
// value; ROCm documents the first lane's value as platform-dependent).
template <class GroupT, class T, class Op>
__device__ T exclusive_scan(const GroupT& g, T val, Op op) {
  T inclusive = inclusive_scan(g, val, op);
  T before = g.shfl_up(inclusive, 1u);
  return g.thread_rank() == 0u ? T{} : before;
}
template <class GroupT, class T>
__device__ T exclusive_scan(const GroupT& g, T val) {
  return exclusive_scan(g, val, plus<T>());
}

}  // namespace cooperative_groups

#endif  // __cplusplus
#endif  // HIPMLIR_HIP_COOPERATIVE_GROUPS_H
