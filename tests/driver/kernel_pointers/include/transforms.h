// Kernels declared here and defined in transforms.hip, with a table of them built there and
// launched from main.hip.
#pragma once

#include <hip/hip_runtime.h>

__global__ void negate(float* v, int n);
__global__ void square(float* v, int n);
__global__ void add_one(float* v, int n);

struct Transform {
  const char* name;
  void (*kernel)(float*, int);
};

extern const Transform transforms[];
extern const int transform_count;

// Launches `kernel` (a pointer made in either source) from transforms.hip.
void launch_elsewhere(void (*kernel)(float*, int), float* v, int n);
