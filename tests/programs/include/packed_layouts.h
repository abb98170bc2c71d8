// Records laid out below their members' alignment, as file formats, network headers and GPU
// particle codes declare them, with the updates both the host and the device run on them.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>

// A particle record as written to disk: no padding anywhere.
struct __attribute__((packed)) Particle {
  char kind;
  int id;
  double mass;
  short flags;
  float pos[3];

  __host__ __device__ double momentum() const { return mass * (pos[0] + pos[1] + pos[2]); }
};

// A message header under #pragma pack(2): members two-byte aligned at most.
#pragma pack(push, 2)
struct Header {
  unsigned char version;
  uint32_t length;
  int64_t stamp;
  uint16_t checksum;
};
#pragma pack(pop)

// An ordinary struct inside a packed one, at an odd offset.
struct Vec2 {
  float x, y;
};
struct __attribute__((packed)) Tagged {
  unsigned char tag;
  Vec2 at;  // at offset 1
  unsigned char reserved;
  Header header;  // a pack(2) record inside a packed one, at offset 10
  uint8_t lane : 3;
  uint8_t live : 1;
  uint16_t code;
};

// Members of a packed record, changed through a pointer, by member functions and whole-record
// copies.
template <typename Record>
__host__ __device__ void advance(Record* r, int step);

template <>
__host__ __device__ inline void advance(Particle* p, int step) {
  p->id += step;
  ++p->flags;
  for (int k = 0; k < 3; ++k) p->pos[k] *= 0.5f + static_cast<float>(k);
  p->mass = p->momentum() + p->id;
  p->kind = static_cast<char>(p->kind ^ 0x5a);
}

template <>
__host__ __device__ inline void advance(Header* h, int step) {
  Header copy = *h;  // the whole record at once
  copy.length += static_cast<uint32_t>(step) * 3u;
  copy.stamp -= static_cast<int64_t>(copy.length) << 33;
  copy.checksum = static_cast<uint16_t>(copy.checksum * 7 + copy.version);
  *h = copy;
}

template <>
__host__ __device__ inline void advance(Tagged* t, int step) {
  t->at.x += t->at.y * static_cast<float>(step);
  t->at.y -= 1.5f;
  Header header = t->header;
  advance(&header, step + 1);
  t->header = header;
  t->lane = static_cast<uint8_t>(t->lane + step);
  t->live = !t->live;
  t->code = static_cast<uint16_t>(t->code + t->tag + t->lane);
}

template <typename Record>
__global__ void advance_all(Record* records, int n, int step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) advance(&records[i], step + i % 5);
}
