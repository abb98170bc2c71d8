// Class hierarchies with virtual bases, shared by device code and the host reference: a diamond
// without virtual functions (Counter shared by Left and Right), one with virtual functions
// (Node shared by Reader and Writer, with overriders in the virtual base, in one side and in
// the most derived class, and a virtual call while a side is built), and classes that put the same virtual base at different offsets.
#pragma once

#include <hip/hip_runtime.h>

// Destructors count into this (device code passes a per-thread counter).
struct Tally {
  int destroyed = 0;
};

// ---- A diamond without virtual functions.
struct Counter {
  int count;
  int step;
  __host__ __device__ explicit Counter(int c = 0) : count(c), step(1) {}
};

struct Left : virtual Counter {
  int left;
  // Builds its Counter only as a complete object; as a base it reads the shared one.
  __host__ __device__ explicit Left(int v) : Counter(v * 2), left(v + count) {}
  __host__ __device__ int bump() { return count += step + left; }
};

struct Right : virtual Counter {
  short right;
  __host__ __device__ explicit Right(int v) : Counter(v * 3), right(static_cast<short>(v - count)) {}
  __host__ __device__ int total() const { return count * 7 + right; }
};

struct Both : Left, Right {
  int own;
  __host__ __device__ explicit Both(int v) : Counter(v + 100), Left(v), Right(v + 1), own(v * 5) {}
};

// The same virtual base at other offsets: more in front of it.
struct Padded : virtual Counter {
  double pad[3];
  char tag;
  __host__ __device__ explicit Padded(int v) : Counter(v - 7), pad{1.0 * v, 2.0, 3.0}, tag('p') {}
};

// ---- Virtual functions with a virtual base.
struct Node {
  int id;
  Tally* tally;
  __host__ __device__ Node(int i, Tally* t) : id(i), tally(t) {}
  __host__ __device__ virtual ~Node() { tally->destroyed += 1; }
  __host__ __device__ virtual int weight() const { return id; }
  __host__ __device__ virtual int kind() const { return 1; }
};

struct Reader : virtual Node {
  int reads;
  // kind() while a Reader is built is Reader's, also when it is built as a Channel's base.
  __host__ __device__ Reader(int i, Tally* t) : Node(i, t), reads(i * 3 + kind() * 1000) {}
  __host__ __device__ ~Reader() override { tally->destroyed += 10; }
  __host__ __device__ int weight() const override { return id + reads; }
  __host__ __device__ int kind() const override { return 5; }
};

struct Writer : virtual Node {
  long writes;
  __host__ __device__ Writer(int i, Tally* t) : Node(i, t), writes(i * 5L) {}
  __host__ __device__ ~Writer() override { tally->destroyed += 100; }
  __host__ __device__ int kind() const override { return 2 + static_cast<int>(writes % 3); }
  __host__ __device__ virtual long written() const { return writes + id; }
};

struct Channel : Reader, Writer {
  int buffered;
  __host__ __device__ Channel(int i, Tally* t) : Node(i + 1000, t), Reader(i, t), Writer(i, t), buffered(i % 4) {}
  __host__ __device__ ~Channel() override { tally->destroyed += 1000; }
  __host__ __device__ int weight() const override { return Reader::weight() * 2 + buffered; }
  __host__ __device__ long written() const override { return Writer::written() + buffered; }
  __host__ __device__ int kind() const override { return Reader::kind() * 10 + Writer::kind(); }
};

// The Node through any of them: the virtual base found from the object.
__host__ __device__ inline int node_value(const Node& n) { return n.weight() * 10 + n.kind() + n.id; }
__host__ __device__ inline int counter_value(Counter& c) { return c.count * 3 + c.step; }
