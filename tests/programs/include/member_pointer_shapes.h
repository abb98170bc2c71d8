// Device classes whose member functions the member_function_pointers test reaches through
// pointers to members.
#pragma once

#include <hip/hip_runtime.h>

struct Counter {
  int start;
  __host__ __device__ int plus(int x) const { return start + x; }
  __host__ __device__ int times(int x) const { return start * x; }
  __host__ __device__ int minus(int x) const { return x - start; }
  __host__ __device__ void bump(int by) { start += by; }
};

// A second base before Counter: Counter's part of a Scaled is at a non-zero offset, so a pointer
// to Counter's member used on a Scaled adjusts `this`.
struct Tag {
  long long tag;
  int pad[3];
};

struct Scaled : Tag, Counter {
  int factor;
  __host__ __device__ int scaled(int x) const { return factor * plus(x); }
};

// Virtual functions reached through pointers to members call the dynamic class's overrider.
struct Shape {
  int size;
  __host__ __device__ virtual int area(int k) const { return size * k; }
  __host__ __device__ virtual int edges(int k) const { return k; }
  __host__ __device__ virtual ~Shape() {}
};

struct Square : Shape {
  __host__ __device__ int area(int k) const override { return size * size + k; }
  __host__ __device__ int edges(int k) const override { return 4 + k; }
};

struct Triangle : Shape {
  __host__ __device__ int area(int k) const override { return size * size / 2 - k; }
};
