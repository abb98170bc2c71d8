#include "device_block.h"

#include "hip_check.h"
#include "jacobi_kernels.h"

namespace {
constexpr int column_threads = 128;
}

template <typename real>
DeviceBlock<real>::DeviceBlock(int device, const Block& block, int nx, int ny)
    : device_(device),
      block_(block),
      nx_(nx),
      ny_(ny),
      grid_((block.w + jacobi::sweep_x - 1) / jacobi::sweep_x,
            (block.h + jacobi::sweep_y - 1) / jacobi::sweep_y) {
  HIP_CHECK(hipSetDevice(device_));
  HIP_CHECK(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking));
  const std::vector<real> start = initial_block<real>(block_, nx_, ny_);
  const size_t bytes = start.size() * sizeof(real);
  HIP_CHECK(hipMalloc(&current_, bytes));
  HIP_CHECK(hipMalloc(&next_, bytes));
  HIP_CHECK(hipMemcpy(current_, start.data(), bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(next_, start.data(), bytes, hipMemcpyHostToDevice));
  host_sums_.resize(static_cast<size_t>(grid_.x) * grid_.y);
  HIP_CHECK(hipMalloc(&block_sums_, host_sums_.size() * sizeof(real)));
}

template <typename real>
DeviceBlock<real>::~DeviceBlock() {
  // Errors here are not checked: a destructor that ends the job would hide the first error.
  (void)hipSetDevice(device_);
  (void)hipStreamSynchronize(stream_);
  (void)hipFree(current_);
  (void)hipFree(next_);
  (void)hipFree(block_sums_);
  (void)hipStreamDestroy(stream_);
}

template <typename real>
void DeviceBlock<real>::sweep() {
  HIP_CHECK(hipSetDevice(device_));
  const dim3 threads(jacobi::sweep_x, jacobi::sweep_y);
  jacobi::sweep<real><<<grid_, threads, 0, stream_>>>(current_, next_, pitch(), block_.w,
                                                      block_.h, block_.x0, block_.y0, nx_,
                                                      ny_, block_sums_);
  HIP_CHECK(hipGetLastError());
  std::swap(current_, next_);
}

template <typename real>
void DeviceBlock<real>::pack_column(int col, real* out) const {
  HIP_CHECK(hipSetDevice(device_));
  const int blocks = (block_.h + column_threads - 1) / column_threads;
  hipLaunchKernelGGL(jacobi::pack_column<real>, dim3(blocks), dim3(column_threads), 0, stream_,
                     current_, pitch(), block_.h, col, out);
  HIP_CHECK(hipGetLastError());
}

template <typename real>
void DeviceBlock<real>::unpack_column(int col, const real* in) const {
  HIP_CHECK(hipSetDevice(device_));
  const int blocks = (block_.h + column_threads - 1) / column_threads;
  hipLaunchKernelGGL(jacobi::unpack_column<real>, dim3(blocks), dim3(column_threads), 0,
                     stream_, current_, pitch(), block_.h, col, in);
  HIP_CHECK(hipGetLastError());
}

template <typename real>
double DeviceBlock<real>::change_sum() {
  HIP_CHECK(hipSetDevice(device_));
  HIP_CHECK(hipMemcpyAsync(host_sums_.data(), block_sums_, host_sums_.size() * sizeof(real),
                           hipMemcpyDeviceToHost, stream_));
  HIP_CHECK(hipStreamSynchronize(stream_));
  double sum = 0;
  for (real s : host_sums_) sum += s;
  return sum;
}

template <typename real>
std::vector<real> DeviceBlock<real>::download() const {
  HIP_CHECK(hipSetDevice(device_));
  std::vector<real> out(static_cast<size_t>(pitch()) * (block_.h + 2));
  HIP_CHECK(hipMemcpyAsync(out.data(), current_, out.size() * sizeof(real),
                           hipMemcpyDeviceToHost, stream_));
  HIP_CHECK(hipStreamSynchronize(stream_));
  return out;
}

template class DeviceBlock<float>;
template class DeviceBlock<double>;
