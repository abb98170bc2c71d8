// Device variables initialized with other variables' addresses, as lookup-table code writes
// them: a cursor into a table, an array of row pointers (one null), structs holding begin/end
// pointers (one past the end included), `__constant__` string names, a pointer to a pointer, a
// pointer to a member of an array element, a base-class pointer to a derived object (adjusted
// to the base subobject), a `const` pointer into a `__constant__` table in a namespace, and a
// table of device functions. Kernels read and write through them; the host checks the values
// read, the table written through them, and that each pointer holds the device address that
// hipGetSymbolAddress gives for its target.
#include "test_common.h"

#include <cstdint>
#include <cstring>

namespace {
constexpr int kTable = 64;
constexpr int kRows = 4;
constexpr int kRowLength = 16;
}  // namespace

__device__ int table[kTable] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
__device__ int* cursor = &table[8];
__device__ int* rows[kRows] = {table, table + kRowLength, &table[2 * kRowLength], nullptr};
__device__ int** current = &cursor;

struct Span {
  const int* begin;
  int count;
  const int* end;
};
__device__ Span spans[2] = {{table, 4, table + 4}, {&table[kTable - 4], 4, table + kTable}};

__constant__ const char* names[] = {"red", "green", "blue", "indigo"};

struct Particle {
  float position[3];
  float mass;
  int id;
};
__device__ Particle particles[4] = {{{0, 0, 0}, 1.5f, 10}, {{1, 2, 3}, 2.5f, 11},
                                    {{4, 5, 6}, 3.5f, 12}, {{7, 8, 9}, 4.5f, 13}};
__device__ float* heaviest_mass = &particles[3].mass;
__device__ const Particle* second = particles + 1;

struct Header {
  long long tag;
};
struct Counter {
  int value;
};
struct TaggedCounter : Header, Counter {
  int extra;
};
__device__ TaggedCounter tagged = {{77}, {5}, 9};
__device__ Counter* counter = &tagged;

namespace lut {
__constant__ float weights[4] = {0.5f, 1.5f, 2.5f, 3.5f};
__device__ const float* const active = weights + 2;
}  // namespace lut

__device__ int twice(int x) { return 2 * x; }
__device__ int square(int x) { return x * x; }
__device__ int (*operations[])(int) = {twice, square};

// out[0..]: values read through the pointers; names into text.
__global__ void read_through(int* out, char* text) {
  int k = 0;
  out[k++] = *cursor;
  out[k++] = cursor[3];
  for (int r = 0; r < kRows; ++r) out[k++] = rows[r] ? rows[r][r + 1] : -1;
  out[k++] = **current;
  for (const Span& s : spans) {
    int sum = 0;
    for (const int* p = s.begin; p != s.end; ++p) sum += *p;
    out[k++] = sum;
    out[k++] = static_cast<int>(s.end - s.begin) == s.count;
  }
  out[k++] = static_cast<int>(*heaviest_mass * 10);
  out[k++] = second->id;
  out[k++] = counter->value;
  out[k++] = static_cast<int>(*lut::active * 10);
  out[k++] = operations[0](21) + operations[1](5);
  int t = 0;
  for (const char* name : names) {
    for (const char* c = name; *c; ++c) text[t++] = *c;
    text[t++] = ' ';
  }
  text[t] = '\0';
}

// The pointers' values themselves, for comparison with the symbols' addresses.
__global__ void addresses(unsigned long long* out) {
  out[0] = reinterpret_cast<std::uintptr_t>(cursor);
  out[1] = reinterpret_cast<std::uintptr_t>(rows[2]);
  out[2] = reinterpret_cast<std::uintptr_t>(current);
  out[3] = reinterpret_cast<std::uintptr_t>(spans[1].end);
  out[4] = reinterpret_cast<std::uintptr_t>(heaviest_mass);
  out[5] = reinterpret_cast<std::uintptr_t>(counter);
  out[6] = reinterpret_cast<std::uintptr_t>(lut::active);
}

// Writes through the pointers: the table changes where they point.
__global__ void write_through(int n) {
  int i = threadIdx.x;
  if (i < n) {
    rows[i % 3][i / 3] += 100 * (i + 1);
  }
  if (i == 0) {
    cursor[1] = -1;
    *heaviest_mass += 1.0f;
    counter->value *= 3;
  }
}

template <typename T>
std::uintptr_t symbol_address(const T& symbol) {
  void* p = nullptr;
  HIP_CHECK(hipGetSymbolAddress(&p, HIP_SYMBOL(symbol)));
  return reinterpret_cast<std::uintptr_t>(p);
}

int main() {
  int bad = 0;
  std::vector<int> host_table(kTable, 0);
  const int first[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
  std::memcpy(host_table.data(), first, sizeof first);

  constexpr int kOut = 18;
  int* d_out = nullptr;
  char* d_text = nullptr;
  HIP_CHECK(hipMalloc(&d_out, kOut * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_text, 64));
  HIP_CHECK(hipMemset(d_out, 0, kOut * sizeof(int)));
  read_through<<<1, 1>>>(d_out, d_text);
  HIP_CHECK(hipGetLastError());

  std::vector<int> want;
  want.push_back(host_table[8]);
  want.push_back(host_table[11]);
  for (int r = 0; r < kRows; ++r) {
    want.push_back(r < 3 ? host_table[r * kRowLength + r + 1] : -1);
  }
  want.push_back(host_table[8]);
  int sum0 = 0, sum1 = 0;
  for (int i = 0; i < 4; ++i) {
    sum0 += host_table[i];
    sum1 += host_table[kTable - 4 + i];
  }
  want.insert(want.end(), {sum0, 1, sum1, 1});
  want.push_back(45);      // particles[3].mass * 10
  want.push_back(11);      // particles[1].id
  want.push_back(5);       // tagged's Counter part
  want.push_back(25);      // lut::weights[2] * 10
  want.push_back(42 + 25);  // twice(21) + square(5)
  bad += count_mismatches("read through pointers", from_device(d_out, want.size()), want);

  std::vector<char> text = from_device(d_text, 64);
  const char* want_text = "red green blue indigo ";
  if (std::strcmp(text.data(), want_text) != 0) {
    std::printf("names: got \"%s\", want \"%s\"\n", text.data(), want_text);
    ++bad;
  }

  unsigned long long* d_addresses = nullptr;
  HIP_CHECK(hipMalloc(&d_addresses, 7 * sizeof(unsigned long long)));
  addresses<<<1, 1>>>(d_addresses);
  HIP_CHECK(hipGetLastError());
  const std::uintptr_t t = symbol_address(table);
  const std::uintptr_t p = symbol_address(particles);
  const std::vector<unsigned long long> want_addresses = {
      t + 8 * sizeof(int),
      t + 2 * kRowLength * sizeof(int),
      symbol_address(cursor),
      t + kTable * sizeof(int),
      p + 3 * sizeof(Particle) + offsetof(Particle, mass),
      symbol_address(tagged) + sizeof(Header),
      symbol_address(lut::weights) + 2 * sizeof(float),
  };
  bad += count_mismatches("pointer values", from_device(d_addresses, 7), want_addresses);

  // The host reads a pointer variable by symbol: the device address it was initialized with.
  int* got_cursor = nullptr;
  HIP_CHECK(hipMemcpyFromSymbol(&got_cursor, HIP_SYMBOL(cursor), sizeof got_cursor));
  bad += count_mismatches("cursor by symbol",
                          std::vector<std::uintptr_t>{reinterpret_cast<std::uintptr_t>(got_cursor)},
                          std::vector<std::uintptr_t>{t + 8 * sizeof(int)});

  constexpr int kWriters = 9;
  write_through<<<1, 32>>>(kWriters);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < kWriters; ++i) host_table[(i % 3) * kRowLength + i / 3] += 100 * (i + 1);
  host_table[9] = -1;
  std::vector<int> got_table(kTable);
  HIP_CHECK(hipMemcpyFromSymbol(got_table.data(), HIP_SYMBOL(table), kTable * sizeof(int)));
  bad += count_mismatches("table written through pointers", got_table, host_table);
  Particle got_particles[4];
  HIP_CHECK(hipMemcpyFromSymbol(got_particles, HIP_SYMBOL(particles), sizeof got_particles));
  TaggedCounter got_tagged;
  HIP_CHECK(hipMemcpyFromSymbol(&got_tagged, HIP_SYMBOL(tagged), sizeof got_tagged));
  bad += count_mismatches(
      "members written through pointers",
      std::vector<int>{static_cast<int>(got_particles[3].mass * 10), got_tagged.value,
                       static_cast<int>(got_tagged.tag), got_tagged.extra},
      std::vector<int>{55, 15, 77, 9});

  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_text));
  HIP_CHECK(hipFree(d_addresses));
  return report("device_pointer_initializers", bad);
}
