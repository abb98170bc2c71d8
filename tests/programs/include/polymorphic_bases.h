// Classes with several polymorphic bases for the multiple_polymorphic_bases test: each base
// subobject has a virtual table pointer of its own, at its own offset.
#pragma once

#include <hip/hip_runtime.h>

struct Named {
  int tag;
  __host__ __device__ explicit Named(int t = 0) : tag(t) {}
  __host__ __device__ virtual int id() const { return tag; }
  __host__ __device__ virtual int weight() const { return 1; }
  __host__ __device__ virtual ~Named() {}
};

struct Shape {
  float unit;
  __host__ __device__ explicit Shape(float u = 1.0f) : unit(u) {}
  __host__ __device__ virtual float area() const = 0;
  __host__ __device__ virtual float scaled(float k) const { return k * area() * unit; }
  __host__ __device__ virtual ~Shape() {}
};

// Named first: the Shape part is not at the object's start.
struct Circle : Named, Shape {
  float r;
  __host__ __device__ Circle(int t, float radius) : Named(t), Shape(0.5f), r(radius) {}
  __host__ __device__ float area() const override { return 3.0f * r * r; }
  __host__ __device__ int id() const override { return 1000 + tag; }
};

// Shape first: the Named part is not at the object's start.
struct Rect : Shape, Named {
  float w, h;
  __host__ __device__ Rect(int t, float w_, float h_) : Shape(2.0f), Named(t), w(w_), h(h_) {}
  __host__ __device__ float area() const override { return w * h; }
  __host__ __device__ int weight() const override { return 2 + tag % 3; }
};

// A class derived from one with two polymorphic bases, overriding functions of both.
struct Square : Rect {
  __host__ __device__ Square(int t, float side) : Rect(t, side, side) {}
  __host__ __device__ float area() const override { return w * w + 1.0f; }
  __host__ __device__ int id() const override { return -tag; }
  __host__ __device__ float scaled(float k) const override { return k + area(); }
};
