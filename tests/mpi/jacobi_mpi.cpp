// A 2-D Jacobi solver over MPI, one rank per device: the grid is split into a px × py Cartesian
// grid of blocks, one per rank, on device (node-local rank % devices). After each sweep every
// rank swaps its block's edge rows and columns with its neighbours by MPI_Sendrecv, giving MPI
// the device buffers when the library takes device memory (GPU-aware MPI, asked at run time)
// and staging them through pinned host memory otherwise. The result is checked against a run
// of the same solver in one process (and, on small problems, against the host) on every point.
//
//   mpirun -np 2 ./jacobi_mpi [--nx N --ny N --iterations N --px N --py N --precision double]

// The C++ bindings of old MPIs are neither used nor wanted (Open MPI 5 no longer has them).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support / MPIX_Query_rocm_support
#endif

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "device_block.h"
#include "hip_check.h"
#include "problem.h"

void abort_job(int code) {
  int running = 0;
  MPI_Initialized(&running);
  if (running) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

namespace {

template <typename real>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }
template <>
MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }

// Whether the MPI library takes this device's memory in its calls. Asked at run time: a build of
// the program runs with whichever library the machine has. A library knows the memory of the
// devices it was built for: CUDA-aware ones NVIDIA GPUs' (hipmlir's CUDA backend names the
// architecture sm_XX), ROCm-aware ones AMD GPUs' (gfxNNN); none knows an OpenCL device's.
bool mpi_takes_device_memory(const hipDeviceProp_t& prop) {
  const std::string arch = prop.gcnArchName;
  bool aware = false;
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  if (arch.rfind("sm_", 0) == 0) aware = aware || MPIX_Query_cuda_support() == 1;
#endif
#if defined(MPIX_ROCM_AWARE_SUPPORT)
  if (arch.rfind("gfx", 0) == 0) aware = aware || MPIX_Query_rocm_support() == 1;
#endif
  return aware;
}

// A block's side towards one neighbour: the points it sends (its own edge row or column) and
// the halo row or column the neighbour's points arrive in.
template <typename real>
struct Face {
  int neighbour = MPI_PROC_NULL;
  bool column = false;
  int count = 0;     // values each way
  int own = 0;       // row or column index of the points sent
  int halo = 0;      // row or column index of the points received
  real* device_send = nullptr;  // columns: packed here on the device
  real* device_recv = nullptr;
  real* host_send = nullptr;    // staging (pinned), when MPI does not take device memory
  real* host_recv = nullptr;
};

enum Side { west, east, south, north, sides };

template <typename real>
class Solver {
 public:
  // The grid split over `comm`'s ranks as px × py blocks; this rank's block on `device`.
  Solver(MPI_Comm comm, const Options& o, int px, int py, int device, bool gpu_aware)
      : options_(o), px_(px), py_(py), gpu_aware_(gpu_aware) {
    int dims[2] = {px, py}, periods[2] = {0, 0};
    MPI_CHECK(MPI_Cart_create(comm, 2, dims, periods, 0, &cart_));
    MPI_CHECK(MPI_Comm_rank(cart_, &rank_));
    int coords[2];
    MPI_CHECK(MPI_Cart_coords(cart_, rank_, 2, coords));
    block_ = new DeviceBlock<real>(device, block_of(o.nx, o.ny, px, py, coords[0], coords[1]),
                                   o.nx, o.ny);
    const Block& b = block_->block();
    MPI_CHECK(MPI_Cart_shift(cart_, 0, 1, &faces_[west].neighbour, &faces_[east].neighbour));
    MPI_CHECK(MPI_Cart_shift(cart_, 1, 1, &faces_[south].neighbour, &faces_[north].neighbour));
    faces_[west].column = faces_[east].column = true;
    faces_[west].own = 1, faces_[west].halo = 0;
    faces_[east].own = b.w, faces_[east].halo = b.w + 1;
    faces_[south].own = 1, faces_[south].halo = 0;
    faces_[north].own = b.h, faces_[north].halo = b.h + 1;
    for (Face<real>& f : faces_) {
      // Nothing goes to or comes from beyond the grid's edge (MPI checks the buffer of a
      // count above zero even there).
      if (f.neighbour == MPI_PROC_NULL) continue;
      f.count = f.column ? b.h : b.w;
      const size_t bytes = f.count * sizeof(real);
      if (f.column) {
        HIP_CHECK(hipMalloc(&f.device_send, bytes));
        HIP_CHECK(hipMalloc(&f.device_recv, bytes));
      }
      if (!gpu_aware_) {
        HIP_CHECK(hipHostMalloc(&f.host_send, bytes, hipHostMallocDefault));
        HIP_CHECK(hipHostMalloc(&f.host_recv, bytes, hipHostMallocDefault));
      }
    }
  }

  ~Solver() {
    for (Face<real>& f : faces_) {
      (void)hipFree(f.device_send);
      (void)hipFree(f.device_recv);
      (void)hipHostFree(f.host_send);
      (void)hipHostFree(f.host_recv);
    }
    delete block_;
    MPI_Comm_free(&cart_);
  }

  // Every sweep and exchange; returns the residual of the last sweep. seconds() is their time.
  double run() {
    MPI_CHECK(MPI_Barrier(cart_));
    const double start = MPI_Wtime();
    double norm = 0;
    for (int it = 1; it <= options_.iterations; ++it) {
      block_->sweep();
      exchange();
      if (it % options_.norm_every == 0 || it == options_.iterations) {
        double local = block_->change_sum(), total = 0;
        MPI_CHECK(MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, cart_));
        norm = std::sqrt(total);
      }
    }
    HIP_CHECK(hipStreamSynchronize(block_->stream()));
    MPI_CHECK(MPI_Barrier(cart_));
    seconds_ = MPI_Wtime() - start;
    return norm;
  }

  double seconds() const { return seconds_; }

  // The whole grid on rank 0 of the communicator (row by row, nx × ny), empty elsewhere.
  std::vector<real> gather() {
    const Block& b = block_->block();
    std::vector<real> haloed = block_->download(), own(static_cast<size_t>(b.w) * b.h);
    place_block(Block{0, 0, b.w, b.h}, haloed.data(), b.w, own.data());
    if (rank_ != 0) {
      MPI_CHECK(MPI_Send(own.data(), static_cast<int>(own.size()), mpi_type<real>(), 0, tag_gather,
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
      if (r == 0) {
        points = own;
      } else {
        MPI_CHECK(MPI_Recv(points.data(), static_cast<int>(points.size()), mpi_type<real>(), r,
                           tag_gather, cart_, MPI_STATUS_IGNORE));
      }
      for (int j = 0; j < theirs.h; ++j)
        std::memcpy(&grid[static_cast<size_t>(theirs.y0 + j) * options_.nx + theirs.x0],
                    &points[static_cast<size_t>(j) * theirs.w], theirs.w * sizeof(real));
    }
    return grid;
  }

 private:
  static constexpr int tag_gather = 99;

  real* device_side(const Face<real>& f, bool send) const {
    if (f.column) return send ? f.device_send : f.device_recv;
    return block_->row(send ? f.own : f.halo);
  }

  // The halo exchange after a sweep: pack the columns, stage what MPI cannot read from the
  // device, swap with each neighbour, and put what arrived into the halo.
  void exchange() {
    const hipStream_t stream = block_->stream();
    for (const Face<real>& f : faces_) {
      if (f.neighbour == MPI_PROC_NULL) continue;
      if (f.column) block_->pack_column(f.own, f.device_send);
      if (!gpu_aware_)
        HIP_CHECK(hipMemcpyAsync(f.host_send, device_side(f, true), f.count * sizeof(real),
                                 hipMemcpyDeviceToHost, stream));
    }
    // MPI reads the buffers once the sweep, packing and staging copies are done.
    HIP_CHECK(hipStreamSynchronize(stream));
    // Each Sendrecv sends one way along an axis and receives from the other side.
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
        HIP_CHECK(hipMemcpyAsync(device_side(f, false), f.host_recv, f.count * sizeof(real),
                                 hipMemcpyHostToDevice, stream));
      if (f.column) block_->unpack_column(f.halo, f.device_recv);
    }
  }

  Options options_;
  int px_, py_;
  bool gpu_aware_;
  MPI_Comm cart_ = MPI_COMM_NULL;
  int rank_ = 0;
  DeviceBlock<real>* block_ = nullptr;
  Face<real> faces_[sides];
  double seconds_ = 0;
};

template <typename real>
int solve(const Options& o, int px, int py, int device, bool gpu_aware) {
  int rank = 0, size = 1;
  MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  std::vector<real> grid;
  double norm = 0;
  {
    Solver<real> solver(MPI_COMM_WORLD, o, px, py, device, gpu_aware);
    norm = solver.run();
    grid = solver.gather();
    if (rank == 0)
      std::printf("%d ranks: %d sweeps in %.6f s (%.3f us per sweep), residual %.9e\n", size,
                  o.iterations, solver.seconds(), 1e6 * solver.seconds() / o.iterations, norm);
  }
  long failures = 0;
  if (rank == 0 && o.check) {
    // The same solver alone in this process: the one-process run the result must equal, to the
    // last bit (each point adds the same neighbours in the same order on the same device code).
    Solver<real> alone(MPI_COMM_SELF, o, 1, 1, device, gpu_aware);
    const double alone_norm = alone.run();
    const std::vector<real> want = alone.gather();
    std::printf("1 process: %d sweeps in %.6f s, residual %.9e\n", o.iterations, alone.seconds(),
                alone_norm);
    failures += compare(grid, want, o.nx, 0.0, "ranks against one process");
    // The residual sums in another order over other blocks: equal within rounding.
    const double norm_tolerance = sizeof(real) == 4 ? 1e-4 : 1e-10;
    if (!(std::fabs(norm - alone_norm) <= norm_tolerance * alone_norm)) {
      std::printf("residual %.9e, one process's %.9e\n", norm, alone_norm);
      ++failures;
    }
    // And the one-process run against the host, where the host is quick enough.
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
      std::printf("jacobi_mpi: not checked (--no-check)\n");
    else if (failures == 0)
      std::printf("jacobi_mpi PASSED: %d x %d points on %d ranks match one process\n", o.nx, o.ny,
                  size);
    else
      std::printf("jacobi_mpi FAILED\n");
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
    if (rank == 0) std::fprintf(stderr, "jacobi_mpi: %s\n%s\n", error.c_str(), usage());
    MPI_Finalize();
    return 2;
  }
  int dims[2] = {o.px, o.py};
  // MPI_Dims_create fills the dimensions left at 0; ones that cannot fit are an error.
  if ((o.px && size % o.px) || (o.py && size % o.py) || (o.px && o.py && o.px * o.py != size)) {
    if (rank == 0)
      std::fprintf(stderr, "jacobi_mpi: %d x %d blocks do not fit %d ranks\n", o.px, o.py, size);
    MPI_Finalize();
    return 2;
  }
  MPI_CHECK(MPI_Dims_create(size, 2, dims));
  if (dims[0] > o.nx || dims[1] > o.ny) {
    if (rank == 0)
      std::fprintf(stderr, "jacobi_mpi: %d x %d points cannot be split into %d x %d blocks\n",
                   o.nx, o.ny, dims[0], dims[1]);
    MPI_Finalize();
    return 2;
  }

  // One device per rank: ranks of one node take its devices in turn.
  MPI_Comm node;
  MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int local_rank = 0;
  MPI_CHECK(MPI_Comm_rank(node, &local_rank));
  MPI_CHECK(MPI_Comm_free(&node));
  int devices = 0;
  HIP_CHECK(hipGetDeviceCount(&devices));
  const int device = local_rank % devices;
  HIP_CHECK(hipSetDevice(device));
  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDeviceProperties(&prop, device));
  const bool gpu_aware = mpi_takes_device_memory(prop);
  std::printf("rank %d: device %d of %d (%s, %s)\n", rank, device, devices, prop.name,
              prop.gcnArchName);
  std::fflush(stdout);
  MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0)
    std::printf("%d x %d points, %d x %d blocks, %s; halos %s\n", o.nx, o.ny, dims[0], dims[1],
                o.use_double ? "double" : "float",
                gpu_aware ? "sent from device memory (GPU-aware MPI)"
                          : "staged through pinned host memory (MPI does not take device memory)");

  const int status = o.use_double ? solve<double>(o, dims[0], dims[1], device, gpu_aware)
                                  : solve<float>(o, dims[0], dims[1], device, gpu_aware);
  MPI_CHECK(MPI_Finalize());
  return status;
}
