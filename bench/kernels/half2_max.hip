// Element-wise max of pairs of halves, lane by lane, chosen by the sign of their difference: the
// difference by __hsub2, then each lane's sign bit spread over its 16 bits (one all-ones word per
// lane, the two merged by __byte_perm) selects b's bits where a - b < 0 and a's elsewhere. The
// bits are read and written through unsigned int, as such code does.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

__global__ void half2_max(const __half2* a, const __half2* b, __half2* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half2 d = __hsub2(a[i], b[i]);
    unsigned int bits_a = reinterpret_cast<const unsigned int*>(a)[i];
    unsigned int bits_b = reinterpret_cast<const unsigned int*>(b)[i];
    unsigned int bits_d = *reinterpret_cast<const unsigned int*>(&d);
    // All ones where the lane is negative: the low lane's sign moved to bit 31 first.
    unsigned int low = (unsigned int)((int)(bits_d << 16) >> 31);
    unsigned int high = (unsigned int)((int)bits_d >> 31);
    // Bytes 0-1 of low, then bytes 0-1 of high (selector bytes 4 and 5).
    unsigned int m = __byte_perm(low, high, 0x5410);
    reinterpret_cast<unsigned int*>(c)[i] = (bits_a & ~m) | (bits_b & m);
  }
}
