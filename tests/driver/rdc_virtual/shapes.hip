// The shape classes: defined and constructed here only.
#include <cstdio>
#include <cstdlib>

#include "shapes.h"

__device__ int destroyed = 0;

struct Square : Shape {
  float side;
  __device__ explicit Square(float s) : side(s) {}
  __device__ float area() const override { return side * side; }
  __device__ ~Square() override { atomicAdd(&destroyed, 1); }
};

struct Circle : Shape {
  float radius;
  __device__ explicit Circle(float r) : radius(r) {}
  __device__ float area() const override { return 3.0f * radius * radius; }
  __device__ ~Circle() override { atomicAdd(&destroyed, 1); }
};

struct Labelled {
  int label[3];
  __device__ virtual int code() const { return label[0]; }
  __device__ virtual ~Labelled() {}
};

// Shape is its second base: a Shape* to it points inside the object.
struct Badge : Labelled, Shape {
  float size;
  __device__ explicit Badge(float s) : size(s) { label[0] = 10; }
  __device__ float area() const override { return code() + size; }
  __device__ float scaled(float k) const override { return 4.0f * area(); }
  __device__ ~Badge() override { atomicAdd(&destroyed, 1); }
};

__device__ Shape* make_shape(int kind, float size) {
  switch (kind) {
    case 0: return new Square(size);
    case 1: return new Circle(size);
    default: return new Badge(size);
  }
}

struct Margin {
  int margin[3];
};

// Framed is its second base: the Stamp it shares is where Poster's layout puts it.
struct Poster : Margin, Framed {
  int extra;
  __device__ explicit Poster(int v) : Stamp(v + 50), Framed(v), extra(v) { margin[0] = v; }
};

__device__ Framed* make_framed(int kind, int value) {
  if (kind) return new Poster(value);
  return new Framed(value);
}
