// The bytes of computed floats and doubles stored one by one: records serialized with memcpy
// at odd offsets, products packed into 5-byte entries, a union's byte view (in registers and
// in shared memory), a byte-wise hash. Every byte and hash is compared with
// the host's run of the same code.
#include "test_common.h"

#include "include/byte_streams.h"

__global__ void serialize(unsigned char* stream, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) write_record(stream + i * kRecordBytes, i, scale);
}

__global__ void hash_all(const float* in, uint32_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = hash_of(in[i]);
}

// Products' bytes into a packed stream of 5-byte entries (a launch of exactly n threads).
__global__ void pack_products(const float* in, unsigned char* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float product = in[i] * in[i + 1];
  memcpy(out + 5 * i + 1, &product, sizeof product);
}

// A union's byte view of a scaled value.
__global__ void scaled_bytes(const float* in, unsigned char* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  FloatBytes u;
  u.value = in[i] * 0.5f;
  for (int k = 0; k < 4; ++k) out[4 * i + k] = u.bytes[k];
}

// The float's bytes, one per thread, through a union in shared memory.
__global__ void spread_bytes(const float* in, unsigned char* out, int n) {
  __shared__ FloatBytes staged[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) staged[threadIdx.x].value = in[i] * 0.75f;
  __syncthreads();
  if (i < n)
    for (int k = 0; k < 4; ++k) out[i * 4 + k] = staged[threadIdx.x].bytes[k];
}

int main() {
  const int n = 1000;
  const float scale = 1.37f;
  int failures = 0;

  unsigned char* stream = nullptr;
  HIP_CHECK(hipMalloc(&stream, n * kRecordBytes));
  serialize<<<(n + 63) / 64, 64>>>(stream, n, scale);
  HIP_CHECK(hipGetLastError());
  std::vector<unsigned char> got = from_device(stream, n * kRecordBytes);
  std::vector<unsigned char> want(n * kRecordBytes);
  for (int i = 0; i < n; ++i) write_record(want.data() + i * kRecordBytes, i, scale);
  failures += count_mismatches("serialize", got, want);
  HIP_CHECK(hipFree(stream));

  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = 0.37f * i - 91.5f;
  float* d_in = to_device(in);
  uint32_t* d_hash = nullptr;
  HIP_CHECK(hipMalloc(&d_hash, n * sizeof(uint32_t)));
  hash_all<<<(n + 63) / 64, 64>>>(d_in, d_hash, n);
  HIP_CHECK(hipGetLastError());
  std::vector<uint32_t> hashes(n);
  for (int i = 0; i < n; ++i) hashes[i] = hash_of(in[i]);
  failures += count_mismatches("hash", from_device(d_hash, n), hashes);
  HIP_CHECK(hipFree(d_hash));

  // n = 1000 is not a multiple of 64: these two run on the first 960 values.
  const int exact = n / 64 * 64;
  unsigned char* d_packed = nullptr;
  HIP_CHECK(hipMalloc(&d_packed, exact * 5));
  pack_products<<<exact / 64, 64>>>(d_in, d_packed);
  HIP_CHECK(hipGetLastError());
  std::vector<unsigned char> packed(exact * 5, 0);
  for (int i = 0; i < exact; ++i) {
    float product = in[i] * in[i + 1];
    memcpy(packed.data() + 5 * i + 1, &product, sizeof product);
  }
  std::vector<unsigned char> packed_got = from_device(d_packed, exact * 5);
  for (int i = 0; i < exact; ++i) packed_got[5 * i] = 0;  // the gaps are not written
  failures += count_mismatches("pack_products", packed_got, packed);
  HIP_CHECK(hipFree(d_packed));

  unsigned char* d_scaled = nullptr;
  HIP_CHECK(hipMalloc(&d_scaled, exact * 4));
  scaled_bytes<<<exact / 64, 64>>>(d_in, d_scaled);
  HIP_CHECK(hipGetLastError());
  std::vector<unsigned char> scaled(exact * 4);
  for (int i = 0; i < exact; ++i) {
    FloatBytes u;
    u.value = in[i] * 0.5f;
    for (int k = 0; k < 4; ++k) scaled[4 * i + k] = u.bytes[k];
  }
  failures += count_mismatches("scaled_bytes", from_device(d_scaled, exact * 4), scaled);
  HIP_CHECK(hipFree(d_scaled));

  unsigned char* d_bytes = nullptr;
  HIP_CHECK(hipMalloc(&d_bytes, n * 4));
  spread_bytes<<<(n + 63) / 64, 64>>>(d_in, d_bytes, n);
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<unsigned char> bytes(n * 4);
  for (int i = 0; i < n; ++i) {
    FloatBytes u;
    u.value = in[i] * 0.75f;
    for (int k = 0; k < 4; ++k) bytes[i * 4 + k] = u.bytes[k];
  }
  failures += count_mismatches("spread", from_device(d_bytes, n * 4), bytes);
  HIP_CHECK(hipFree(d_bytes));
  HIP_CHECK(hipFree(d_in));

  return report("float_bytes", failures);
}
