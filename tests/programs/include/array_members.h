// Classes with virtual functions or virtual bases holding arrays, shared by device code and the
// host reference. Their compiler-written copy and move constructors copy each array element by
// element (clang writes an array-init loop for them): a scalar copied, an element of a class
// with constructors of its own built by them, an element with virtual functions built as such.
#pragma once

#include <hip/hip_runtime.h>

#include <utility>

// An element that records how it was built: a copy adds 10, a move adds 1 and empties the source.
struct Mark {
  int v;
  __host__ __device__ explicit Mark(int x = 0) : v(x) {}
  __host__ __device__ Mark(const Mark& o) : v(o.v + 10) {}
  __host__ __device__ Mark(Mark&& o) noexcept : v(o.v + 1) { o.v = -3; }
  __host__ __device__ Mark& operator=(const Mark&) = default;
};

// An element with virtual functions: a copy keeps its overrider.
struct Piece {
  int size;
  __host__ __device__ explicit Piece(int s = 1) : size(s) {}
  __host__ __device__ virtual ~Piece() {}
  __host__ __device__ virtual int score() const { return size; }
};

// A class with virtual functions holding arrays of each kind.
struct Polygon {
  int corners[4];
  float grid[2][3];
  Mark marks[3];
  Mark table[2][2];
  Piece pieces[2];
  __host__ __device__ explicit Polygon(int v) : corners{v, v + 1, v * 2, -v}, pieces{Piece(v % 7), Piece(3)} {
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 3; ++c) grid[r][c] = 0.5f * v + r * 3 + c;
    for (int k = 0; k < 3; ++k) marks[k] = Mark(v * 3 + k);
    for (int k = 0; k < 4; ++k) table[k / 2][k % 2] = Mark(v - k);
  }
  __host__ __device__ virtual ~Polygon() {}
  __host__ __device__ virtual int area() const {
    int sum = 0;
    for (int k = 0; k < 4; ++k) sum = sum * 3 + corners[k];
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 3; ++c) sum = sum * 5 + static_cast<int>(grid[r][c] * 2);
    for (int k = 0; k < 3; ++k) sum = sum * 7 + marks[k].v;
    for (int k = 0; k < 4; ++k) sum = sum * 11 + table[k / 2][k % 2].v;
    return sum + pieces[0].score() * 13 + pieces[1].score();
  }
};

// A derived class whose own array is copied after its base's.
struct Star : Polygon {
  short points[5];
  __host__ __device__ explicit Star(int v) : Polygon(v + 2), points{1, 2, 3, 4, static_cast<short>(v)} {}
  __host__ __device__ int area() const override {
    int sum = Polygon::area();
    for (int k = 0; k < 5; ++k) sum = sum * 3 + points[k];
    return sum;
  }
};

// A virtual base holding an array, and a class built on it holding arrays of its own.
struct Palette {
  Mark colors[2];
  __host__ __device__ explicit Palette(int v) : colors{Mark(v), Mark(v + 5)} {}
  __host__ __device__ virtual int hue() const { return colors[0].v * 100 + colors[1].v; }
};

struct Canvas : virtual Palette {
  int pixels[3];
  Mark layers[2];
  __host__ __device__ explicit Canvas(int v) : Palette(v * 2), pixels{v, v + 1, v + 2}, layers{Mark(v), Mark(-v)} {}
  __host__ __device__ int hue() const override {
    return Palette::hue() * 7 + pixels[0] + pixels[1] * 3 + pixels[2] * 5 + layers[0].v * 11 + layers[1].v;
  }
};
