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

// A class with a virtual base, built in shapes.hip (alone, or as a side of a class only that
// source defines, which puts the virtual base elsewhere) and converted to its virtual base in
// scene.hip: the conversion reads the object's class, which only shapes.hip's lookup knows.
struct Stamp {
  int stamp;
  __device__ explicit Stamp(int s) : stamp(s) {}
};

struct Framed : virtual Stamp {
  int frame;
  __device__ explicit Framed(int f) : Stamp(f * 2), frame(f) {}
  __device__ virtual ~Framed() {}
};

// A Framed (kind 0) or a class with a Framed side (kind 1) on the device heap.
__device__ Framed* make_framed(int kind, int value);

// How many shapes device code destroyed (defined in shapes.hip).
extern __device__ int destroyed;

// A new shape on the device heap: a square, a circle, or a badge (a class with two polymorphic
// bases, whose Shape part is not at its start).
__device__ Shape* make_shape(int kind, float size);

__global__ void measure(float* out, int n);

// What measure writes for element i, computed on the host.
inline float expected_measure(int i) {
  float size = 1.0f + (i % 7);
  float stamp = (i % 2) ? (i % 5) + 50.0f : (i % 5) * 2.0f;
  switch (i % 3) {
    case 0: return size * size + 2.0f * size * size + stamp;
    case 1: return 3.0f * size * size + 2.0f * 3.0f * size * size + stamp;
    default: return 10.0f + size + 4.0f * (10.0f + size) + stamp;
  }
}
