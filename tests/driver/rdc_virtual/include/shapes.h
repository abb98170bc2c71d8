// Polymorphic shapes whose classes one source defines and constructs (shapes.hip) and another
// calls and deletes through base pointers (scene.hip): the dispatch that -fgpu-rdc's device link
// puts together across sources.
#pragma once
#include <hip/hip_runtime.h>

#define HIP_CHECK(call)                                                              \
  do {                                                                               \
    hipError_t err_ = (call);                                                        \
    if (err_ != hipSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,      \
                   hipGetErrorString(err_));                                         \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual float scaled(float k) const { return k * area(); }
  __device__ virtual ~Shape() {}
};

// How many shapes device code destroyed (defined in shapes.hip).
extern __device__ int destroyed;

// A new shape on the device heap: a square, a circle, or a badge (a class with two polymorphic
// bases, whose Shape part is not at its start).
__device__ Shape* make_shape(int kind, float size);

__global__ void measure(float* out, int n);

// What measure writes for element i, computed on the host.
inline float expected_measure(int i) {
  float size = 1.0f + (i % 7);
  switch (i % 3) {
    case 0: return size * size + 2.0f * size * size;
    case 1: return 3.0f * size * size + 2.0f * 3.0f * size * size;
    default: return 10.0f + size + 4.0f * (10.0f + size);
  }
}
