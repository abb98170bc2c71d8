// printf from kernels: the formats HIP programs use; the output appears by the next synchronize.
#include "../programs/test_common.h"

__global__ void print_values(int base, float scale, const long long* big) {
  int t = threadIdx.x;
  if (t < 2) {
    printf("thread %d: int %i unsigned %u hex %x char %c\n", t, base + t, 4000000000u, 255 + t,
           'A' + t);
    printf("thread %d: float %f %.3f %e %g width [%8.2f]\n", t, scale * t, scale, 12345.678f,
           0.5f, scale);
    printf("thread %d: long %ld long long %lld string %s\n", t, (long)big[t], big[t], "text");
  }
}

int main() {
  std::vector<long long> big = {1234567890123LL, -42LL};
  long long* d_big = to_device(big);
  hipLaunchKernelGGL(print_values, dim3(1), dim3(32), 0, 0, 7, 1.5f, d_big);
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipFree(d_big));
  std::printf("kernel_printf PASSED\n");
  return 0;
}
