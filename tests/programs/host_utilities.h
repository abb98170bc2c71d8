// Host-only helpers, included first by user_header_preamble.hip as real programs begin with a
// utility header of their own ("example_utils.hpp"): no device code, so the precompiled
// preambles of both compiles may hold it. The driver test edits kScale in a copy to check that a
// changed header is seen.
#pragma once

#include <cstddef>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace host_utilities {

constexpr float kScale = 3.0f;

// n floats in [-1, 1) from a fixed seed.
inline std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(n);
  for (float& v : values) v = dist(gen);
  return values;
}

inline std::string describe(const char* what, std::size_t n) {
  return std::string(what) + " of " + std::to_string(n) + " floats";
}

}  // namespace host_utilities
