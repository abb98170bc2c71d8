// A 2-D Jacobi solver in one process over every visible device. The grid's rows are split into
// parts, part k on device k % devices (at least two parts, so that one device splits its grid
// too). After each sweep a part pushes its edge rows into its neighbours' halo rows with
// hipMemcpyPeerAsync on its own stream and records an event; a part's next sweep waits for its
// neighbours' events (hipStreamWaitEvent across devices). Peer access is enabled between every
// pair of devices that can reach each other's memory; the copies are the same either way. The
// parts are gathered on device 0 with hipMemcpyPeer, and the result is checked against one part
// on device 0 on every point (and, on small problems, against the host).
//
//   ./jacobi_devices [--nx N --ny N --iterations N --parts N --precision double]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "device_block.h"
#include "hip_check.h"
#include "problem.h"

void abort_job(int code) { std::exit(code); }

namespace {

// Enables peer access between every pair of the first `used` devices that allows it.
void enable_peer_access(int used) {
  for (int a = 0; a < used; ++a)
    for (int b = 0; b < used; ++b) {
      if (a == b) continue;
      int can = 0;
      HIP_CHECK(hipDeviceCanAccessPeer(&can, a, b));
      std::printf("device %d %s device %d's memory\n", a, can ? "reaches" : "does not reach", b);
      if (!can) continue;
      HIP_CHECK(hipSetDevice(a));
      const hipError_t err = hipDeviceEnablePeerAccess(b, 0);
      if (err != hipSuccess && err != hipErrorPeerAccessAlreadyEnabled) HIP_CHECK(err);
    }
}

struct Run {
  double norm = 0;
  double seconds = 0;
};

// The grid solved in `parts` parts over `devices` devices; returns it (row by row).
template <typename real>
std::vector<real> solve_in_parts(const Options& o, int parts, int devices, Run* run) {
  std::vector<std::unique_ptr<DeviceBlock<real>>> blocks;
  std::vector<hipEvent_t> pushed(parts);
  for (int k = 0; k < parts; ++k) {
    blocks.push_back(std::make_unique<DeviceBlock<real>>(
        k % devices, block_of(o.nx, o.ny, 1, parts, 0, k), o.nx, o.ny));
    HIP_CHECK(hipSetDevice(k % devices));
    HIP_CHECK(hipEventCreateWithFlags(&pushed[k], hipEventDisableTiming));
  }
  const auto start = std::chrono::steady_clock::now();
  for (int it = 1; it <= o.iterations; ++it) {
    for (int k = 0; k < parts; ++k) {
      DeviceBlock<real>& b = *blocks[k];
      HIP_CHECK(hipSetDevice(b.device()));
      // The neighbours' rows of the last sweep are in this part's halo, and they are done
      // reading the array this sweep writes.
      if (it > 1) {
        if (k > 0) HIP_CHECK(hipStreamWaitEvent(b.stream(), pushed[k - 1], 0));
        if (k + 1 < parts) HIP_CHECK(hipStreamWaitEvent(b.stream(), pushed[k + 1], 0));
      }
      b.sweep();
    }
    for (int k = 0; k < parts; ++k) {
      DeviceBlock<real>& b = *blocks[k];
      const size_t bytes = b.block().w * sizeof(real);
      HIP_CHECK(hipSetDevice(b.device()));
      if (k > 0) {
        DeviceBlock<real>& up = *blocks[k - 1];
        HIP_CHECK(hipMemcpyPeerAsync(up.row(up.block().h + 1), up.device(), b.row(1), b.device(),
                                     bytes, b.stream()));
      }
      if (k + 1 < parts) {
        DeviceBlock<real>& down = *blocks[k + 1];
        HIP_CHECK(hipMemcpyPeerAsync(down.row(0), down.device(), b.row(b.block().h), b.device(),
                                     bytes, b.stream()));
      }
      HIP_CHECK(hipEventRecord(pushed[k], b.stream()));
    }
    if (it % o.norm_every == 0 || it == o.iterations) {
      double sum = 0;
      for (auto& b : blocks) sum += b->change_sum();
      run->norm = std::sqrt(sum);
    }
  }
  for (auto& b : blocks) {
    HIP_CHECK(hipSetDevice(b->device()));
    HIP_CHECK(hipStreamSynchronize(b->stream()));
  }
  run->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Every part's own rows (halo columns included: the grid's width is the part's) into one
  // array on device 0, peer to peer.
  const Block whole{0, 0, o.nx, o.ny};
  const size_t pitch = o.nx + 2;
  real* gathered = nullptr;
  HIP_CHECK(hipSetDevice(0));
  HIP_CHECK(hipMalloc(&gathered, pitch * (o.ny + 2) * sizeof(real)));
  for (auto& b : blocks) {
    const Block& part = b->block();
    HIP_CHECK(hipMemcpyPeer(gathered + (part.y0 + 1) * pitch, 0, b->row(1) - 1, b->device(),
                            part.h * pitch * sizeof(real)));
  }
  std::vector<real> haloed(pitch * (o.ny + 2)), grid(static_cast<size_t>(o.nx) * o.ny);
  HIP_CHECK(hipMemcpy(haloed.data(), gathered, haloed.size() * sizeof(real),
                      hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(gathered));
  place_block(whole, haloed.data(), o.nx, grid.data());
  for (int k = 0; k < parts; ++k) {
    HIP_CHECK(hipSetDevice(k % devices));
    HIP_CHECK(hipEventDestroy(pushed[k]));
  }
  return grid;
}

template <typename real>
int solve(const Options& o, int devices) {
  const int parts = o.parts ? o.parts : std::max(devices, 2);
  if (parts > o.ny) {
    std::fprintf(stderr, "jacobi_devices: %d rows cannot be split into %d parts\n", o.ny, parts);
    return 2;
  }
  const int used = std::min(parts, devices);
  enable_peer_access(used);
  Run many;
  const std::vector<real> grid = solve_in_parts<real>(o, parts, devices, &many);
  std::printf("%d parts on %d devices: %d sweeps in %.6f s (%.3f us per sweep), residual %.9e\n",
              parts, used, o.iterations, many.seconds, 1e6 * many.seconds / o.iterations,
              many.norm);
  if (!o.check) {
    std::printf("jacobi_devices: not checked (--no-check)\n");
    return 0;
  }
  long failures = 0;
  Run one;
  const std::vector<real> want = solve_in_parts<real>(o, 1, 1, &one);
  std::printf("1 part on device 0: %d sweeps in %.6f s, residual %.9e\n", o.iterations,
              one.seconds, one.norm);
  failures += compare(grid, want, o.nx, 0.0, "parts against one part");
  const double norm_tolerance = sizeof(real) == 4 ? 1e-4 : 1e-10;
  if (!(std::fabs(many.norm - one.norm) <= norm_tolerance * one.norm)) {
    std::printf("residual %.9e, one part's %.9e\n", many.norm, one.norm);
    ++failures;
  }
  if (static_cast<double>(o.nx) * o.ny * o.iterations <= 2e8) {
    double host_norm = 0;
    const std::vector<real> host = host_solve<real>(o, &host_norm);
    failures += compare(want, host, o.nx, sizeof(real) == 4 ? 1e-5 : 1e-12,
                        "one part against the host");
    if (!(std::fabs(one.norm - host_norm) <= 1e-3 * host_norm)) {
      std::printf("residual %.9e, the host's %.9e\n", one.norm, host_norm);
      ++failures;
    }
  }
  if (failures == 0)
    std::printf("jacobi_devices PASSED: %d x %d points in %d parts on %d devices match one part\n",
                o.nx, o.ny, parts, used);
  else
    std::printf("jacobi_devices FAILED\n");
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string error;
  if (!parse_options(argc, argv, o, error)) {
    std::fprintf(stderr, "jacobi_devices: %s\n%s\n", error.c_str(), usage());
    return 2;
  }
  int devices = 0;
  HIP_CHECK(hipGetDeviceCount(&devices));
  for (int d = 0; d < devices; ++d) {
    hipDeviceProp_t prop;
    HIP_CHECK(hipGetDeviceProperties(&prop, d));
    std::printf("device %d: %s (%s)\n", d, prop.name, prop.gcnArchName);
  }
  std::printf("%d x %d points, %s\n", o.nx, o.ny, o.use_double ? "double" : "float");
  return o.use_double ? solve<double>(o, devices) : solve<float>(o, devices);
}
