// Calls the shapes' virtual functions and deletes them through Shape pointers, knowing none of
// their classes; converts a Framed to its virtual base, knowing not the object's class.
#include "shapes.h"

__global__ void measure(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Shape* shape = make_shape(i % 3, 1.0f + (i % 7));
  Framed* framed = make_framed(i % 2, i % 5);
  // To the virtual base of an object whose class only shapes.hip knows.
  Stamp* stamp = framed;
  out[i] = shape->area() + shape->scaled(2.0f) + stamp->stamp;
  delete shape;
  delete framed;
}
