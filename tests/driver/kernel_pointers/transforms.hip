#include "launching.h"
#include "transforms.h"

__global__ void negate(float* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = -v[i];
}

__global__ void square(float* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * v[i];
}

__global__ void add_one(float* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 1.0f;
}

const Transform transforms[] = {{"negate", negate}, {"square", &square}, {"add_one", add_one}};
const int transform_count = sizeof(transforms) / sizeof(transforms[0]);

void launch_elsewhere(void (*kernel)(float*, int), float* v, int n) {
  launch_over(kernel, n, v, n);
}
