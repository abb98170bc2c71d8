// Values written into and read out of byte streams on the device, as serializers, hashers and
// network codes do: memcpy at unaligned offsets, union views of a float's bytes, a byte-wise
// hash of floats and doubles.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstring>

// One record of the stream: a tag byte, then a float and a double at odd offsets.
constexpr int kRecordBytes = 1 + 4 + 8 + 2;

__host__ __device__ inline void write_record(unsigned char* out, int i, float scale) {
  unsigned char tag = static_cast<unsigned char>(i * 7);
  // Products and quotients only: a multiply-add may be fused on the device, not on the host.
  float value = scale * static_cast<float>(i);
  double wide = static_cast<double>(i) / 3.0 - scale;
  uint16_t check = static_cast<uint16_t>(i * 31 + 5);
  out[0] = tag;
  memcpy(out + 1, &value, sizeof value);
  memcpy(out + 5, &wide, sizeof wide);
  memcpy(out + 13, &check, sizeof check);
}

union FloatBytes {
  float value;
  unsigned char bytes[4];
};

// FNV-1a over the bytes of a computed float and double.
__host__ __device__ inline uint32_t hash_of(float x) {
  FloatBytes u;
  u.value = x * 1.5f;
  uint32_t h = 2166136261u;
  for (int k = 0; k < 4; ++k) h = (h ^ u.bytes[k]) * 16777619u;
  double d = static_cast<double>(x) / 3.0;
  unsigned char b[sizeof d];
  memcpy(b, &d, sizeof d);
  for (unsigned char c : b) h = (h ^ c) * 16777619u;
  return h;
}
