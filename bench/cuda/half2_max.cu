// CUDA twin of bench/kernels/half2_max.hip, built by nvcc: the lane-wise max of pairs of halves,
// chosen by the sign of __hsub2's difference, spread to lane masks with __byte_perm.
#include <cuda_fp16.h>

__global__ void half2_max(const __half2* a, const __half2* b, __half2* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half2 d = __hsub2(a[i], b[i]);
    unsigned int bits_a = reinterpret_cast<const unsigned int*>(a)[i];
    unsigned int bits_b = reinterpret_cast<const unsigned int*>(b)[i];
    unsigned int bits_d = *reinterpret_cast<const unsigned int*>(&d);
    unsigned int low = (unsigned int)((int)(bits_d << 16) >> 31);
    unsigned int high = (unsigned int)((int)bits_d >> 31);
    unsigned int m = __byte_perm(low, high, 0x5410);
    reinterpret_cast<unsigned int*>(c)[i] = (bits_a & ~m) | (bits_b & m);
  }
}
