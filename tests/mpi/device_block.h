// One block of the grid on one device: its two arrays (halo included, see problem.h), a stream
// of its own, and the sweeps and column packing the Jacobi programs run on it. Every call makes
// the block's device current first, so blocks of several devices mix freely in one thread.
#pragma once

#include <vector>

#include <hip/hip_runtime.h>

#include "problem.h"

template <typename real>
class DeviceBlock {
 public:
  // Allocates the block on `device` and uploads its starting values (the grid's edge points
  // inside it and its halo, zero elsewhere) into both arrays.
  DeviceBlock(int device, const Block& block, int nx, int ny);
  ~DeviceBlock();
  DeviceBlock(const DeviceBlock&) = delete;
  DeviceBlock& operator=(const DeviceBlock&) = delete;

  int device() const { return device_; }
  hipStream_t stream() const { return stream_; }
  const Block& block() const { return block_; }
  int pitch() const { return block_.w + 2; }

  // Queues one sweep on the block's stream; its result is then the current array.
  void sweep();
  // Row r (0 and h + 1 are the halo rows) of the current array, from column 1: w values.
  real* row(int r) const { return current_ + static_cast<size_t>(r) * pitch() + 1; }
  // Column `col` (0 and w + 1 are the halo columns), rows 1..h, to or from h contiguous values
  // in device memory of the block's device, queued on its stream.
  void pack_column(int col, real* out) const;
  void unpack_column(int col, const real* in) const;
  // The sum of the squared changes of the last sweep (waits for the stream).
  double change_sum();
  // The current array, halo included (waits for the stream).
  std::vector<real> download() const;

 private:
  int device_;
  Block block_;
  int nx_, ny_;
  dim3 grid_;
  hipStream_t stream_ = nullptr;
  real* current_ = nullptr;
  real* next_ = nullptr;
  real* block_sums_ = nullptr;
  std::vector<real> host_sums_;
};
