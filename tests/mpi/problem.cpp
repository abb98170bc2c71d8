#include "problem.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

bool parse_int(const char* text, int lowest, int* out) {
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < lowest || v > (1L << 30)) return false;
  *out = static_cast<int>(v);
  return true;
}

struct IntOption {
  const char* name;
  int Options::*field;
  int lowest;
};

const IntOption int_options[] = {
    {"--nx", &Options::nx, 3},
    {"--ny", &Options::ny, 3},
    {"--iterations", &Options::iterations, 1},
    {"--norm-every", &Options::norm_every, 1},
    {"--px", &Options::px, 1},
    {"--py", &Options::py, 1},
    {"--parts", &Options::parts, 1},
};

}  // namespace

const char* usage() {
  return "options: --nx N --ny N --iterations N --norm-every N --px N --py N --parts N "
         "--precision float|double --no-check";
}

bool parse_options(int argc, char** argv, Options& o, std::string& error) {
  for (int a = 1; a < argc; ++a) {
    const char* arg = argv[a];
    if (std::strcmp(arg, "--no-check") == 0) {
      o.check = false;
      continue;
    }
    if (a + 1 >= argc) {
      error = std::string("'") + arg + "' is not an option, or lacks its value";
      return false;
    }
    const char* value = argv[++a];
    if (std::strcmp(arg, "--precision") == 0) {
      if (std::strcmp(value, "float") != 0 && std::strcmp(value, "double") != 0) {
        error = std::string("--precision takes float or double, not '") + value + "'";
        return false;
      }
      o.use_double = std::strcmp(value, "double") == 0;
      continue;
    }
    const IntOption* found = nullptr;
    for (const IntOption& option : int_options)
      if (std::strcmp(arg, option.name) == 0) found = &option;
    if (!found) {
      error = std::string("unknown option '") + arg + "'";
      return false;
    }
    if (!parse_int(value, found->lowest, &(o.*found->field))) {
      error = std::string(arg) + " takes a whole number of at least " +
              std::to_string(found->lowest) + ", not '" + value + "'";
      return false;
    }
  }
  return true;
}

double edge_value(int i, int j, int nx, int ny) {
  // Different on each edge, so that a block placed or exchanged the wrong way round shows.
  const double pi = 3.14159265358979323846;
  if (i == 0) return std::sin(pi * j / (ny - 1));
  if (i == nx - 1) return 0.5 * std::sin(2.0 * pi * j / (ny - 1));
  if (j == 0) return static_cast<double>(i) / (nx - 1);
  return 1.0 - static_cast<double>(i) / (nx - 1);
}

Block block_of(int nx, int ny, int px, int py, int cx, int cy) {
  auto split = [](int n, int parts, int k, int* start, int* size) {
    int base = n / parts, extra = n % parts;
    *start = k * base + std::min(k, extra);
    *size = base + (k < extra ? 1 : 0);
  };
  Block b{};
  split(nx, px, cx, &b.x0, &b.w);
  split(ny, py, cy, &b.y0, &b.h);
  return b;
}

template <typename real>
std::vector<real> initial_block(const Block& b, int nx, int ny) {
  const int pitch = b.w + 2;
  std::vector<real> a(static_cast<std::size_t>(pitch) * (b.h + 2), real(0));
  for (int j = std::max(b.y0 - 1, 0); j < std::min(b.y0 + b.h + 1, ny); ++j)
    for (int i = std::max(b.x0 - 1, 0); i < std::min(b.x0 + b.w + 1, nx); ++i)
      if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1)
        a[static_cast<std::size_t>(j - b.y0 + 1) * pitch + (i - b.x0 + 1)] =
            static_cast<real>(edge_value(i, j, nx, ny));
  return a;
}

template <typename real>
void place_block(const Block& b, const real* block, int nx, real* grid) {
  const int pitch = b.w + 2;
  for (int j = 0; j < b.h; ++j)
    std::memcpy(grid + static_cast<std::size_t>(b.y0 + j) * nx + b.x0,
                block + static_cast<std::size_t>(j + 1) * pitch + 1, sizeof(real) * b.w);
}

template <typename real>
std::vector<real> host_solve(const Options& o, double* norm) {
  const Block whole{0, 0, o.nx, o.ny};
  std::vector<real> a = initial_block<real>(whole, o.nx, o.ny), next = a;
  const std::size_t pitch = o.nx + 2;
  double sum = 0;
  for (int it = 0; it < o.iterations; ++it) {
    sum = 0;
    for (int j = 1; j < o.ny - 1; ++j)
      for (int i = 1; i < o.nx - 1; ++i) {
        std::size_t at = (j + 1) * pitch + (i + 1);
        // The order the kernels add in, so that results agree to the last bit where the
        // compilers leave the sum alone.
        real v = real(0.25) * (a[at - 1] + a[at + 1] + a[at - pitch] + a[at + pitch]);
        double d = static_cast<double>(v) - a[at];
        sum += d * d;
        next[at] = v;
      }
    a.swap(next);
  }
  *norm = std::sqrt(sum);
  std::vector<real> grid(static_cast<std::size_t>(o.nx) * o.ny);
  place_block(whole, a.data(), o.nx, grid.data());
  return grid;
}

template <typename real>
std::size_t compare(const std::vector<real>& got, const std::vector<real>& want, int nx,
                    double tolerance, const char* what) {
  double scale = 0;
  for (real w : want) scale = std::max(scale, std::fabs(static_cast<double>(w)));
  std::size_t bad = 0;
  if (got.size() != want.size()) {
    std::printf("%s: %zu values, expected %zu\n", what, got.size(), want.size());
    return want.size() + 1;
  }
  for (std::size_t k = 0; k < want.size(); ++k) {
    double diff = std::fabs(static_cast<double>(got[k]) - static_cast<double>(want[k]));
    if (!(diff <= tolerance * scale)) {
      if (bad < 5)
        std::printf("%s: point (%zu, %zu) is %.9g, expected %.9g\n", what, k % nx, k / nx,
                    static_cast<double>(got[k]), static_cast<double>(want[k]));
      ++bad;
    }
  }
  if (bad) std::printf("%s: %zu of %zu points differ\n", what, bad, want.size());
  return bad;
}

#define INSTANTIATE(real)                                                                   \
  template std::vector<real> initial_block<real>(const Block&, int, int);                  \
  template std::vector<real> host_solve<real>(const Options&, double*);                    \
  template void place_block<real>(const Block&, const real*, int, real*);                  \
  template std::size_t compare<real>(const std::vector<real>&, const std::vector<real>&, int, \
                                     double, const char*);
INSTANTIATE(float)
INSTANTIATE(double)
