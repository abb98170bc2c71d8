#include "reference.h"

std::vector<unsigned> histogram_reference(const std::vector<unsigned char>& data, int bins) {
  std::vector<unsigned> h(bins, 0);
  for (unsigned char v : data) h[v % bins]++;
  return h;
}
