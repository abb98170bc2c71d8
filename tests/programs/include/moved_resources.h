// Classes with virtual bases whose virtual base and members record how they were built: copied,
// moved (the source left empty), or built from a value. Shared by device code and the host
// reference: moving such an object (`T m = std::move(t)`) runs the virtual base's move
// constructor through the virtual base's offset in the source, which the complete class says.
#pragma once

#include <hip/hip_runtime.h>

#include <utility>

// A resource handle: a move takes the value and leaves the source empty (-1); a copy adds 100.
struct Handle {
  int value;
  int moves = 0;
  __host__ __device__ explicit Handle(int v) : value(v) {}
  __host__ __device__ Handle(const Handle& o) : value(o.value + 100), moves(o.moves) {}
  __host__ __device__ Handle(Handle&& o) noexcept : value(o.value), moves(o.moves + 1) { o.value = -1; }
  __host__ __device__ int state() const { return value * 16 + moves; }
};

// The virtual base, with a virtual function and a member with its own move.
struct Resource {
  Handle handle;
  int id;
  __host__ __device__ Resource(int v, int i) : handle(v), id(i) {}
  __host__ __device__ Resource(const Resource& o) : handle(o.handle), id(o.id + 1000) {}
  __host__ __device__ Resource(Resource&& o) noexcept : handle(std::move(o.handle)), id(o.id) { o.id = -2; }
  __host__ __device__ virtual ~Resource() {}
  __host__ __device__ virtual int weight() const { return handle.state() + id; }
};

// Two sides sharing the Resource; their own copy and move constructors are the compiler's.
struct Reader : virtual Resource {
  int reads;
  __host__ __device__ Reader(int v, int r) : Resource(v, v * 3), reads(r) {}
  __host__ __device__ int weight() const override { return Resource::weight() * 2 + reads; }
};

struct Writer : virtual Resource {
  Handle log;
  __host__ __device__ Writer(int v, int w) : Resource(v, v * 5), log(w) {}
};

struct Channel : Reader, Writer {
  int buffered;
  __host__ __device__ Channel(int v, int b) : Resource(v + 7, v), Reader(v, b), Writer(v, b * 2), buffered(b) {}
  __host__ __device__ int weight() const override { return Reader::weight() + log.state() + buffered; }
};

// What a Channel holds, read through each of its bases.
__host__ __device__ inline int contents(const Channel& c) {
  const Resource& r = c;
  return r.weight() * 7 + c.handle.state() + c.log.state() * 3 + c.id * 11 + c.reads;
}
