// The CUDA twin of tests/mpi/jacobi_mpi.cpp (hipmlir's MPI Jacobi test program), for timing the
// two side by side on NVIDIA GPUs: the same problem (tests/mpi/problem.{h,cpp}, shared), the same
// kernels, launch shapes, halo exchange and checks, in plain CUDA + MPI. Built by run.sh:
//   nvcc -O3 -std=c++17 -arch=sm_90 -ccbin mpicxx jacobi_cuda.cu problem.cpp -o jacobi_cuda
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "problem.h"

#define CUDA_CHECK(call)                                                                 \
  do {                                                                                   \
    cudaError_t err_ = (call);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,          \
                   cudaGetErrorString(err_));                                            \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
    }                                                                                    \
  } while (0)

#define MPI_CHECK(call)                                                                  \
  do {                                                                                   \
    int err_ = (call);                                                                   \
    if (err_ != MPI_SUCCESS) {                                                           \
      std::fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #call, err_);  \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
    }                                                                                    \
  } while (0)

namespace {

constexpr int sweep_x = 32;
constexpr int sweep_y = 8;
constexpr int column_threads = 128;

template <typename real>
__global__ void sweep(const real* __restrict__ a, real* __restrict__ a_new, int pitch, int w,
                      int h, int x0, int y0, int nx, int ny, real* __restrict__ block_sums) {
  __shared__ real partial[sweep_x * sweep_y];
  const int li = blockIdx.x * sweep_x + threadIdx.x;
  const int lj = blockIdx.y * sweep_y + threadIdx.y;
  const int t = threadIdx.y * sweep_x + threadIdx.x;
  real change = 0;
  if (li < w && lj < h) {
    const int i = x0 + li, j = y0 + lj;
    if (i > 0 && j > 0 && i < nx - 1 && j < ny - 1) {
      const size_t at = static_cast<size_t>(lj + 1) * pitch + (li + 1);
      const real v = real(0.25) * (a[at - 1] + a[at + 1] + a[at - pitch] + a[at + pitch]);
      const real d = v - a[at];
      change = d * d;
      a_new[at] = v;
    }
  }
  partial[t] = change;
  __syncthreads();
  for (int half = sweep_x * sweep_y / 2; half > 0; half /= 2) {
    if (t < half) partial[t] += partial[t + half];
    __syncthreads();
  }
  if (t == 0) block_sums[blockIdx.y * gridDim.x + blockIdx.x] = partial[0];
}

template <typename real>
__global__ void pack_column(const real* __restrict__ a, int pitch, int h, int col,
                            real* __restrict__ out) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < h) out[j] = a[static_cast<size_t>(j + 1) * pitch + col];
}

template <typename real>
__global__ void unpack_column(real* __restrict__ a, int pitch, int h, int col,
                              const real* __restrict__ in) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < h) a[static_cast<size_t>(j + 1) * pitch + col] = in[j];
}

template <typename real>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }
template <>
MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }

bool mpi_takes_device_memory() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

template <typename real>
struct Face {
  int neighbour = MPI_PROC_NULL;
  bool column = false;
  int count = 0;
  int own = 0;
  int halo = 0;
  real* device_send = nullptr;
  real* device_recv = nullptr;
  real* host_send = nullptr;
  real* host_recv = nullptr;
};

enum Side { west, east, south, north, sides };

template <typename real>
class Solver {
 public:
  Solver(MPI_Comm comm, const Options& o, int px, int py, bool gpu_aware)
      : options_(o), px_(px), py_(py), gpu_aware_(gpu_aware) {
    int dims[2] = {px, py}, periods[2] = {0, 0};
    MPI_CHECK(MPI_Cart_create(comm, 2, dims, periods, 0, &cart_));
    MPI_CHECK(MPI_Comm_rank(cart_, &rank_));
    int coords[2];
    MPI_CHECK(MPI_Cart_coords(cart_, rank_, 2, coords));
    block_ = block_of(o.nx, o.ny, px, py, coords[0], coords[1]);
    const Block& b = block_;
    grid_ = dim3((b.w + sweep_x - 1) / sweep_x, (b.h + sweep_y - 1) / sweep_y);
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    const std::vector<real> start = initial_block<real>(b, o.nx, o.ny);
    const size_t bytes = start.size() * sizeof(real);
    CUDA_CHECK(cudaMalloc(&current_, bytes));
    CUDA_CHECK(cudaMalloc(&next_, bytes));
    CUDA_CHECK(cudaMemcpy(current_, start.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(next_, start.data(), bytes, cudaMemcpyHostToDevice));
    host_sums_.resize(static_cast<size_t>(grid_.x) * grid_.y);
    CUDA_CHECK(cudaMalloc(&block_sums_, host_sums_.size() * sizeof(real)));

    MPI_CHECK(MPI_Cart_shift(cart_, 0, 1, &faces_[west].neighbour, &faces_[east].neighbour));
    MPI_CHECK(MPI_Cart_shift(cart_, 1, 1, &faces_[south].neighbour, &faces_[north].neighbour));
    faces_[west].column = faces_[east].column = true;
    faces_[west].own = 1, faces_[west].halo = 0;
    faces_[east].own = b.w, faces_[east].halo = b.w + 1;
    faces_[south].own = 1, faces_[south].halo = 0;
    faces_[north].own = b.h, faces_[north].halo = b.h + 1;
    for (Face<real>& f : faces_) {
      if (f.neighbour == MPI_PROC_NULL) continue;
      f.count = f.column ? b.h : b.w;
      const size_t face_bytes = f.count * sizeof(real);
      if (f.column) {
        CUDA_CHECK(cudaMalloc(&f.device_send, face_bytes));
        CUDA_CHECK(cudaMalloc(&f.device_recv, face_bytes));
      }
      if (!gpu_aware_) {
        CUDA_CHECK(cudaMallocHost(&f.host_send, face_bytes));
        CUDA_CHECK(cudaMallocHost(&f.host_recv, face_bytes));
      }
    }
  }

  ~Solver() {
    cudaStreamSynchronize(stream_);
    for (Face<real>& f : faces_) {
      cudaFree(f.device_send);
      cudaFree(f.device_recv);
      cudaFreeHost(f.host_send);
      cudaFreeHost(f.host_recv);
    }
    cudaFree(current_);
    cudaFree(next_);
    cudaFree(block_sums_);
    cudaStreamDestroy(stream_);
    MPI_Comm_free(&cart_);
  }

  double run() {
    MPI_CHECK(MPI_Barrier(cart_));
    const double start = MPI_Wtime();
    double norm = 0;
    for (int it = 1; it <= options_.iterations; ++it) {
      sweep_once();
      exchange();
      if (it % options_.norm_every == 0 || it == options_.iterations) {
        double local = change_sum(), total = 0;
        MPI_CHECK(MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, cart_));
        norm = std::sqrt(total);
      }
    }
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    MPI_CHECK(MPI_Barrier(cart_));
    seconds_ = MPI_Wtime() - start;
    return norm;
  }

  double seconds() const { return seconds_; }

  std::vector<real> gather() {
    const Block& b = block_;
    std::vector<real> haloed(static_cast<size_t>(pitch()) * (b.h + 2));
    CUDA_CHECK(cudaMemcpy(haloed.data(), current_, haloed.size() * sizeof(real),
                          cudaMemcpyDeviceToHost));
    std::vector<real> own(static_cast<size_t>(b.w) * b.h);
    place_block(Block{0, 0, b.w, b.h}, haloed.data(), b.w, own.data());
    if (rank_ != 0) {
      MPI_CHECK(MPI_Send(own.data(), static_cast<int>(own.size()), mpi_type<real>(), 0, 99,
                         cart_));
      return {};
    }
    std::vector<real> grid(static_cast<size_t>(options_.nx) * options_.ny);
    int size = 0;
    MPI_CHECK(MPI_Comm_size(cart_, &size));
    for (int r = 0; r < size; ++r) {
      int coords[2];
      MPI_CHECK(MPI_Cart_coords(cart_, r, 2, coords));
      const Block theirs = block_of(options_.nx, options_.ny, px_, py_, coords[0], coords[1]);
      std::vector<real> points(static_cast<size_t>(theirs.w) * theirs.h);
      if (r == 0)
        points = own;
      else
        MPI_CHECK(MPI_Recv(points.data(), static_cast<int>(points.size()), mpi_type<real>(), r,
                           99, cart_, MPI_STATUS_IGNORE));
      for (int j = 0; j < theirs.h; ++j)
        std::memcpy(&grid[static_cast<size_t>(theirs.y0 + j) * options_.nx + theirs.x0],
                    &points[static_cast<size_t>(j) * theirs.w], theirs.w * sizeof(real));
    }
    return grid;
  }

 private:
  int pitch() const { return block_.w + 2; }
  real* row(int r) const { return current_ + static_cast<size_t>(r) * pitch() + 1; }

  void sweep_once() {
    sweep<real><<<grid_, dim3(sweep_x, sweep_y), 0, stream_>>>(
        current_, next_, pitch(), block_.w, block_.h, block_.x0, block_.y0, options_.nx,
        options_.ny, block_sums_);
    CUDA_CHECK(cudaGetLastError());
    std::swap(current_, next_);
  }

  double change_sum() {
    CUDA_CHECK(cudaMemcpyAsync(host_sums_.data(), block_sums_, host_sums_.size() * sizeof(real),
                               cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    double sum = 0;
    for (real s : host_sums_) sum += s;
    return sum;
  }

  real* device_side(const Face<real>& f, bool send) const {
    if (f.column) return send ? f.device_send : f.device_recv;
    return row(send ? f.own : f.halo);
  }

  void exchange() {
    const int blocks = (block_.h + column_threads - 1) / column_threads;
    for (const Face<real>& f : faces_) {
      if (f.neighbour == MPI_PROC_NULL) continue;
      if (f.column)
        pack_column<real><<<blocks, column_threads, 0, stream_>>>(current_, pitch(), block_.h,
                                                                   f.own, f.device_send);
      if (!gpu_aware_)
        CUDA_CHECK(cudaMemcpyAsync(f.host_send, device_side(f, true), f.count * sizeof(real),
                                   cudaMemcpyDeviceToHost, stream_));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    const Side to[sides] = {west, east, south, north};
    const Side from[sides] = {east, west, north, south};
    for (int k = 0; k < sides; ++k) {
      const Face<real>& out = faces_[to[k]];
      const Face<real>& in = faces_[from[k]];
      real* send = gpu_aware_ ? device_side(out, true) : out.host_send;
      real* recv = gpu_aware_ ? device_side(in, false) : in.host_recv;
      MPI_CHECK(MPI_Sendrecv(send, out.count, mpi_type<real>(), out.neighbour, k, recv, in.count,
                             mpi_type<real>(), in.neighbour, k, cart_, MPI_STATUS_IGNORE));
    }
    for (const Face<real>& f : faces_) {
      if (f.neighbour == MPI_PROC_NULL) continue;
      if (!gpu_aware_)
        CUDA_CHECK(cudaMemcpyAsync(device_side(f, false), f.host_recv, f.count * sizeof(real),
                                   cudaMemcpyHostToDevice, stream_));
      if (f.column)
        unpack_column<real><<<blocks, column_threads, 0, stream_>>>(current_, pitch(), block_.h,
                                                                     f.halo, f.device_recv);
    }
    CUDA_CHECK(cudaGetLastError());
  }

  Options options_;
  int px_, py_;
  bool gpu_aware_;
  MPI_Comm cart_ = MPI_COMM_NULL;
  int rank_ = 0;
  Block block_{};
  dim3 grid_;
  cudaStream_t stream_ = nullptr;
  real* current_ = nullptr;
  real* next_ = nullptr;
  real* block_sums_ = nullptr;
  std::vector<real> host_sums_;
  Face<real> faces_[sides];
  double seconds_ = 0;
};

template <typename real>
int solve(const Options& o, int px, int py, bool gpu_aware) {
  int rank = 0, size = 1;
  MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  std::vector<real> grid;
  double norm = 0;
  {
    Solver<real> solver(MPI_COMM_WORLD, o, px, py, gpu_aware);
    norm = solver.run();
    grid = solver.gather();
    if (rank == 0)
      std::printf("%d ranks: %d sweeps in %.6f s (%.3f us per sweep), residual %.9e\n", size,
                  o.iterations, solver.seconds(), 1e6 * solver.seconds() / o.iterations, norm);
  }
  long failures = 0;
  if (rank == 0 && o.check) {
    Solver<real> alone(MPI_COMM_SELF, o, 1, 1, gpu_aware);
    const double alone_norm = alone.run();
    const std::vector<real> want = alone.gather();
    std::printf("1 process: %d sweeps in %.6f s, residual %.9e\n", o.iterations, alone.seconds(),
                alone_norm);
    failures += compare(grid, want, o.nx, 0.0, "ranks against one process");
    const double norm_tolerance = sizeof(real) == 4 ? 1e-4 : 1e-10;
    if (!(std::fabs(norm - alone_norm) <= norm_tolerance * alone_norm)) {
      std::printf("residual %.9e, one process's %.9e\n", norm, alone_norm);
      ++failures;
    }
    if (static_cast<double>(o.nx) * o.ny * o.iterations <= 2e8) {
      double host_norm = 0;
      const std::vector<real> host = host_solve<real>(o, &host_norm);
      failures += compare(want, host, o.nx, sizeof(real) == 4 ? 1e-5 : 1e-12,
                          "one process against the host");
      if (!(std::fabs(alone_norm - host_norm) <= 1e-3 * host_norm)) {
        std::printf("residual %.9e, the host's %.9e\n", alone_norm, host_norm);
        ++failures;
      }
    } else {
      std::printf("(no host reference: the problem is too large to solve on the host)\n");
    }
  }
  MPI_CHECK(MPI_Bcast(&failures, 1, MPI_LONG, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    if (!o.check)
      std::printf("jacobi_cuda: not checked (--no-check)\n");
    else if (failures == 0)
      std::printf("jacobi_cuda PASSED: %d x %d points on %d ranks match one process\n", o.nx,
                  o.ny, size);
    else
      std::printf("jacobi_cuda FAILED\n");
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_CHECK(MPI_Init(&argc, &argv));
  int rank = 0, size = 1;
  MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  Options o;
  std::string error;
  if (!parse_options(argc, argv, o, error)) {
    if (rank == 0) std::fprintf(stderr, "jacobi_cuda: %s\n%s\n", error.c_str(), usage());
    MPI_Finalize();
    return 2;
  }
  int dims[2] = {o.px, o.py};
  if ((o.px && size % o.px) || (o.py && size % o.py) || (o.px && o.py && o.px * o.py != size)) {
    if (rank == 0)
      std::fprintf(stderr, "jacobi_cuda: %d x %d blocks do not fit %d ranks\n", o.px, o.py, size);
    MPI_Finalize();
    return 2;
  }
  MPI_CHECK(MPI_Dims_create(size, 2, dims));

  MPI_Comm node;
  MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int local_rank = 0;
  MPI_CHECK(MPI_Comm_rank(node, &local_rank));
  MPI_CHECK(MPI_Comm_free(&node));
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  const int device = local_rank % devices;
  CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  const bool gpu_aware = mpi_takes_device_memory();
  std::printf("rank %d: device %d of %d (%s, sm_%d%d)\n", rank, device, devices, prop.name,
              prop.major, prop.minor);
  std::fflush(stdout);
  MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0)
    std::printf("%d x %d points, %d x %d blocks, %s; halos %s\n", o.nx, o.ny, dims[0], dims[1],
                o.use_double ? "double" : "float",
                gpu_aware ? "sent from device memory (GPU-aware MPI)"
                          : "staged through pinned host memory (MPI does not take device memory)");
  const int status = o.use_double ? solve<double>(o, dims[0], dims[1], gpu_aware)
                                  : solve<float>(o, dims[0], dims[1], gpu_aware);
  MPI_CHECK(MPI_Finalize());
  return status;
}
