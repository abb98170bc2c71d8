// String literals kept byte for byte in device code: bytes above 0x7f (escaped or raw Latin-1 in
// the source), NULs inside a literal, octal escapes and joined pieces, read from a device
// function, a local array initialized by a literal, and printed with printf. Every byte is
// compared with the host's copy of the same literals.
#include "test_common.h"
#include "include/byte_strings.h"

constexpr int kWidth = 64;

__global__ void copy_byte_strings(unsigned char* out, int* sizes) {
  int which = threadIdx.x;
  if (which >= kByteStrings) return;
  ByteString s = byte_string(which);
  sizes[which] = s.size;
  for (int i = 0; i < s.size && i < kWidth; ++i) out[which * kWidth + i] = s.bytes[i];
}

__global__ void local_array(unsigned char* out) {
  char local[] = "\xff\0\x80\377x";
  for (int i = 0; i < static_cast<int>(sizeof(local)); ++i) out[i] = local[i];
  if (threadIdx.x == 0) printf("printf bytes: [%s] [\xe9t\xe9\xff]\n", "caf\xe9 \351");
}

int main() {
  unsigned char* d_out;
  int* d_sizes;
  HIP_CHECK(hipMalloc(&d_out, kByteStrings * kWidth));
  HIP_CHECK(hipMemset(d_out, 0xAA, kByteStrings * kWidth));
  HIP_CHECK(hipMalloc(&d_sizes, kByteStrings * sizeof(int)));
  copy_byte_strings<<<1, 32>>>(d_out, d_sizes);
  HIP_CHECK(hipGetLastError());
  std::vector<unsigned char> got = from_device(d_out, kByteStrings * kWidth);
  std::vector<int> sizes = from_device(d_sizes, kByteStrings);

  std::vector<unsigned char> want(kByteStrings * kWidth, 0xAA);
  std::vector<int> want_sizes(kByteStrings);
  for (int w = 0; w < kByteStrings; ++w) {
    ByteString s = byte_string(w);
    want_sizes[w] = s.size;
    for (int i = 0; i < s.size && i < kWidth; ++i) want[w * kWidth + i] = s.bytes[i];
  }
  int bad = count_mismatches("sizes", sizes, want_sizes);
  bad += count_mismatches("bytes", got, want);

  const char host_local[] = "\xff\0\x80\377x";
  std::vector<unsigned char> want_local(host_local, host_local + sizeof(host_local));
  local_array<<<1, 1>>>(d_out);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  bad += count_mismatches("local array", from_device(d_out, sizeof(host_local)), want_local);

  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_sizes));
  std::printf(bad == 0 ? "string_literal_bytes PASSED\n" : "string_literal_bytes FAILED\n");
  return bad == 0 ? 0 : 1;
}
