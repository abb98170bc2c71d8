// Bit-fields in device code, laid out as clang's record layout places them (the host compiler
// lays the same structs out, so every byte is compared): packed descriptors with unsigned,
// signed, bool, enum and 64-bit fields, unnamed and zero-width bit-fields, a register view (a
// union of a word and an anonymous struct of bit-fields), fields read and written with =, +=,
// ++, from constructors' initializer lists and braced lists, structs passed to kernels
// by value, arrays of them in global memory, and a __constant__ table initialized statically.
#include "test_common.h"

#include <cstdint>
#include <cstring>

enum class Kind : unsigned { Load = 1, Store = 2, Atomic = 5 };

// A memory-operation descriptor, as a compiler or simulator packs one.
struct Op {
  unsigned opcode : 6;
  int offset : 11;  // signed
  bool is_volatile : 1;
  Kind kind : 3;
  unsigned : 0;  // the next fields start a new unit
  uint64_t address : 48;
  unsigned char lane;
  unsigned short width : 10;
  unsigned : 2;
  unsigned flags : 4;

  __host__ __device__ constexpr Op() : opcode(0), offset(0), is_volatile(false), kind(Kind::Load), address(0), lane(0), width(32), flags(0) {}
  __host__ __device__ constexpr Op(unsigned op, int off, Kind k) : opcode(op), offset(off), is_volatile(false), kind(k), address(0), lane(0), width(32), flags(1) {}
};

// A hardware register seen whole or by fields.
union Status {
  uint32_t word;
  struct {
    uint32_t ready : 1;
    uint32_t error : 3;
    uint32_t count : 12;
    int32_t delta : 16;
  };
};

// An aggregate of bit-fields, for a statically initialized table.
struct Template {
  unsigned opcode : 6;
  int offset : 11;
  Kind kind : 3;
  unsigned : 3;
  unsigned flags : 4;
};

__constant__ Template kTemplates[3] = {{4, -5, Kind::Load, 1}, {9, 300, Kind::Store, 3}, {63, -1024, Kind::Atomic, 8}};

__host__ __device__ Op transform(Op op, int i, const Template* templates) {
  Template t = templates[i % 3];
  op.opcode = t.opcode + i;  // wraps in 6 bits
  op.offset += t.offset - i;
  op.is_volatile = (i % 3) == 0;
  op.kind = (i & 1) ? Kind::Store : t.kind;
  op.address = (uint64_t(i) * 0x9E3779B97F4A7C15ull) >> 10;
  op.address += 7;
  op.lane = static_cast<unsigned char>(i);
  op.width += i;
  op.flags = t.flags | (i & 6);
  ++op.flags;
  return op;
}

__host__ __device__ uint32_t tick(uint32_t word, int i) {
  Status s;
  s.word = word;
  s.ready = !s.ready;
  s.error = i;
  s.count += 3 * i;
  s.delta -= i;
  return s.word ^ (s.delta < 0 ? 0x80000000u : 0u);
}

__global__ void run(Op base, Op* ops, uint32_t* status, long* sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Op op = transform(i % 2 ? ops[i] : base, i, kTemplates);
  ops[i] = op;
  status[i] = tick(status[i], i);
  sums[i] = op.opcode + 100L * op.offset + 10000L * op.is_volatile +
            100000L * static_cast<long>(op.kind) + static_cast<long>(op.address % 1000003) +
            op.width + op.flags * 7L + op.lane;
}

int main() {
  const int n = 500;
  Op base(17, -200, Kind::Atomic);
  base.address = 0xABCDEF12345ull;
  std::vector<Op> ops(n);
  std::vector<uint32_t> status(n);
  for (int i = 0; i < n; ++i) {
    ops[i] = Op(i % 64, (i * 37) % 2000 - 1000, Kind::Load);
    ops[i].lane = static_cast<unsigned char>(255 - i % 256);
    status[i] = 0x12345678u * static_cast<uint32_t>(i + 1);
  }
  Op* d_ops = to_device(ops);
  uint32_t* d_status = to_device(status);
  long* d_sums = nullptr;
  HIP_CHECK(hipMalloc(&d_sums, n * sizeof(long)));
  run<<<(n + 127) / 128, 128>>>(base, d_ops, d_status, d_sums, n);
  HIP_CHECK(hipGetLastError());
  std::vector<Op> got_ops = from_device(d_ops, n);
  std::vector<uint32_t> got_status = from_device(d_status, n);
  std::vector<long> got_sums = from_device(d_sums, n);

  const Template templates[3] = {{4, -5, Kind::Load, 1}, {9, 300, Kind::Store, 3}, {63, -1024, Kind::Atomic, 8}};
  int bad_ops = 0;
  std::vector<uint32_t> want_status(n);
  std::vector<long> want_sums(n);
  for (int i = 0; i < n; ++i) {
    Op want = transform(i % 2 ? ops[i] : base, i, templates);
    // Every field, and the bytes they occupy (bit-field padding aside).
    Op got = got_ops[i];
    bool same = got.opcode == want.opcode && got.offset == want.offset &&
                got.is_volatile == want.is_volatile && got.kind == want.kind &&
                got.address == want.address && got.lane == want.lane && got.width == want.width &&
                got.flags == want.flags;
    if (!same && bad_ops++ < 5) {
      std::printf("op %d: opcode %u/%u offset %d/%d address %llx/%llx width %u/%u flags %u/%u\n", i,
                  got.opcode, want.opcode, got.offset, want.offset,
                  static_cast<unsigned long long>(got.address),
                  static_cast<unsigned long long>(want.address), got.width, want.width, got.flags,
                  want.flags);
    }
    want_status[i] = tick(status[i], i);
    want_sums[i] = want.opcode + 100L * want.offset + 10000L * want.is_volatile +
                   100000L * static_cast<long>(want.kind) +
                   static_cast<long>(want.address % 1000003) + want.width + want.flags * 7L +
                   want.lane;
  }
  int failures = 0;
  failures += report("bit-fields written by kernels", bad_ops);
  failures += report("a register view", count_mismatches("status", got_status, want_status));
  failures += report("bit-fields read", count_mismatches("sums", got_sums, want_sums));
  failures += report("the layout is clang's", sizeof(Op) != 24 || sizeof(Status) != 4);
  HIP_CHECK(hipFree(d_ops));
  HIP_CHECK(hipFree(d_status));
  HIP_CHECK(hipFree(d_sums));
  return failures;
}
