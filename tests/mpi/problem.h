// The problem both Jacobi programs solve, in plain C++ (no HIP, no MPI: the CUDA twin in
// bench/mpi shares it): Laplace's equation on an nx × ny grid of points whose edge points hold
// fixed values and whose interior starts at zero, relaxed by Jacobi sweeps. Also the split of
// the grid into blocks, the host's reference solve and the element-by-element comparison.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

struct Options {
  int nx = 96;          // points across, the edges included
  int ny = 80;          // points down
  int iterations = 200; // Jacobi sweeps
  int norm_every = 50;  // the residual is reduced every this many sweeps (and after the last)
  int px = 0;           // blocks across and down (MPI: 0 lets MPI_Dims_create choose)
  int py = 0;
  int parts = 0;        // blocks of the one-process program (0: every device, at least two)
  bool use_double = false;
  bool check = true;    // compare with a one-block run (and the host, on small problems)
};

// Reads --nx N --ny N --iterations N --norm-every N --px N --py N --parts N
// --precision float|double --no-check. On a bad option, false with `error` saying why.
bool parse_options(int argc, char** argv, Options& options, std::string& error);
const char* usage();

// The fixed value of edge point (i, j).
double edge_value(int i, int j, int nx, int ny);

// A block of the grid: points [x0, x0 + w) × [y0, y0 + h).
struct Block {
  int x0, y0, w, h;
};

// Block (cx, cy) of the grid split into px × py blocks whose widths (and heights) differ by at
// most one point.
Block block_of(int nx, int ny, int px, int py, int cx, int cy);

// Sweeps that relax a block: the edge of the grid is fixed, every other point becomes the mean of
// its four neighbours. Blocks are stored with a halo of one point on every side, row by row, so
// a block's array is (w + 2) × (h + 2) values, point (i, j) of the grid at
// (j - y0 + 1) * (w + 2) + (i - x0 + 1).
template <typename real>
std::vector<real> initial_block(const Block& b, int nx, int ny);

// The whole grid solved on the host: nx * ny values, row by row; `norm` gets the residual (the
// root of the sum of squared changes) of the last sweep.
template <typename real>
std::vector<real> host_solve(const Options& o, double* norm);

// Copies block `b`'s points out of its haloed array into the whole grid `grid` (nx wide).
template <typename real>
void place_block(const Block& b, const real* block, int nx, real* grid);

// Compares every element; prints the first few that differ by more than `tolerance` (relative
// to the largest magnitude of `want`, 0 for equality) and the count. Returns that count.
template <typename real>
std::size_t compare(const std::vector<real>& got, const std::vector<real>& want, int nx,
                    double tolerance, const char* what);
