// Class hierarchies with virtual bases whose constructors and destructors make virtual calls
// through the virtual base, shared by device code and the host reference. While a class is
// built or destroyed as a base subobject, C++ says its calls reach its own overriders (not
// the virtual base's, nor the complete class's): each constructor and destructor records what
// it sees into a Trace.
#pragma once

#include <hip/hip_runtime.h>

constexpr int kTrace = 160;

// What the constructors and destructors saw, in order.
struct Trace {
  int seen[kTrace];
  int n = 0;
  __host__ __device__ void add(int x) {
    if (n < kTrace) seen[n++] = x;
  }
};

// ---- The virtual base: its virtual functions are overridden along each path below.
struct Shape {
  Trace* trace;
  int base;
  __host__ __device__ Shape(Trace* t, int b) : trace(t), base(b) { trace->add(10 + kind()); }
  __host__ __device__ virtual ~Shape() { trace->add(90 + kind()); }
  __host__ __device__ virtual int kind() const { return 1; }
  __host__ __device__ virtual int area() const { return base; }
  __host__ __device__ virtual int sides() const { return 0; }
};

// A helper taking the virtual base by reference: the calls go through the object's ids.
__host__ __device__ inline int describe(const Shape& s) {
  return s.kind() * 100000 + s.area() * 10 + s.sides();
}

// ---- A diamond: Wide and Tall share Shape; Box is both.
struct Wide : virtual Shape {
  int w;
  __host__ __device__ Wide(Trace* t, int v) : Shape(t, v), w(v + 1) {
    Shape* s = this;
    trace->add(s->kind());
    trace->add(describe(*this));
    trace->add(kind() * 10 + area() % 10);
  }
  __host__ __device__ ~Wide() override { trace->add(describe(*this) + 50000); }
  __host__ __device__ int kind() const override { return 2; }
  __host__ __device__ int area() const override { return base * w; }
};

struct Tall : virtual Shape {
  int h;
  __host__ __device__ Tall(Trace* t, int v) : Shape(t, v * 2), h(v + 2) {
    const Shape& s = *this;
    trace->add(s.kind() * 10 + s.sides());
    trace->add(describe(s));
  }
  __host__ __device__ ~Tall() override {
    Shape* s = this;
    trace->add(s->kind() * 1000 + s->sides() * 100 + h);
  }
  __host__ __device__ int kind() const override { return 3; }
  __host__ __device__ int sides() const override { return 4 + h % 3; }
};

struct Box : Wide, Tall {
  __host__ __device__ Box(Trace* t, int v) : Shape(t, v + 5), Wide(t, v), Tall(t, v + 1) {
    trace->add(describe(*this));
  }
  __host__ __device__ ~Box() override { trace->add(describe(*this) + 70000); }
  __host__ __device__ int kind() const override { return 4; }
};

// ---- A chain of three levels over the virtual base: Low, Mid : Low, High : Mid.
struct Low : virtual Shape {
  int lo;
  __host__ __device__ Low(Trace* t, int v) : Shape(t, v), lo(v % 7) { trace->add(describe(*this)); }
  __host__ __device__ ~Low() override { trace->add(describe(*this) + 30000); }
  __host__ __device__ int kind() const override { return 5; }
};

struct Mid : Low {
  __host__ __device__ Mid(Trace* t, int v) : Shape(t, v + 1), Low(t, v) {
    Shape& s = *this;
    trace->add(describe(s) + lo);
  }
  __host__ __device__ ~Mid() override { trace->add(describe(*this) + 31000); }
  __host__ __device__ int area() const override { return base + lo * 3; }
};

struct High : Mid {
  __host__ __device__ High(Trace* t, int v) : Shape(t, v + 2), Mid(t, v) { trace->add(describe(*this)); }
  __host__ __device__ ~High() override { trace->add(describe(*this) + 32000); }
  __host__ __device__ int kind() const override { return 7; }
  __host__ __device__ int sides() const override { return 3; }
};

// ---- A virtual base of a virtual base: Stack holds Layer virtually, Layer holds Shape.
struct Layer : virtual Shape {
  int depth;
  __host__ __device__ Layer(Trace* t, int v) : Shape(t, v), depth(v % 5) { trace->add(describe(*this)); }
  __host__ __device__ ~Layer() override { trace->add(describe(*this) + 20000); }
  __host__ __device__ int kind() const override { return 8; }
  __host__ __device__ int sides() const override { return depth; }
};

struct Stack : virtual Layer {
  __host__ __device__ Stack(Trace* t, int v) : Shape(t, v), Layer(t, v + 1) {
    Shape* s = this;
    Layer* l = this;
    trace->add(describe(*s) + l->depth);
  }
  __host__ __device__ ~Stack() override { trace->add(describe(*this) + 21000); }
  __host__ __device__ int area() const override { return base + depth * 11; }
};

// Stack and Wide both override area and kind comes from Layer and Wide: Pile overrides both.
struct Pile : Stack, Wide {
  __host__ __device__ Pile(Trace* t, int v) : Shape(t, v + 3), Layer(t, v), Stack(t, v), Wide(t, v) {
    trace->add(describe(*this));
  }
  __host__ __device__ ~Pile() override { trace->add(describe(*this) + 22000); }
  __host__ __device__ int kind() const override { return 9; }
  __host__ __device__ int area() const override { return Stack::area() + w; }
};

// ---- A virtual base with nothing but its table pointer (the ABI makes it a primary base,
// sharing the pointer of the class holding it).
struct Tag {
  __host__ __device__ virtual int tag() const { return 1; }
};

__host__ __device__ inline int read_tag(const Tag& t) { return t.tag(); }

struct TagA : virtual Tag {
  int a;
  __host__ __device__ TagA(Trace* t, int v) : a(v) { t->add(read_tag(*this) * 100 + a % 100); }
  __host__ __device__ int tag() const override { return 2; }
};

struct TagB : virtual Tag {
  int b;
  __host__ __device__ TagB(Trace* t, int v) : b(v) { t->add(read_tag(*this) * 100 + b % 100); }
  __host__ __device__ int tag() const override { return 3; }
};

struct TagAB : TagA, TagB {
  __host__ __device__ TagAB(Trace* t, int v) : TagA(t, v), TagB(t, v + 1) {
    t->add(read_tag(*this) * 100 + read_tag(static_cast<TagB&>(*this)));
  }
  __host__ __device__ int tag() const override { return 4; }
};

// ---- A virtual base with two polymorphic bases of its own (the second at an offset): calls
// through either reach the class being built.
struct Named {
  __host__ __device__ virtual int name() const { return 1; }
};

struct Sized {
  int units = 3;
  __host__ __device__ virtual int size() const { return units; }
};

__host__ __device__ inline int measure(const Sized& s) { return s.size(); }

struct Item : Named, Sized {
  __host__ __device__ int name() const override { return 2; }
};

struct Crate : virtual Item {
  int slots;
  __host__ __device__ Crate(Trace* t, int v) : slots(v % 8) {
    const Named& n = *this;
    t->add(n.name() * 1000 + measure(*this));
  }
  __host__ __device__ int size() const override { return units * slots + 1; }
};

struct Shelf : Crate {
  __host__ __device__ Shelf(Trace* t, int v) : Crate(t, v) {
    const Named& n = *this;
    t->add(n.name() * 1000 + measure(*this));
  }
  __host__ __device__ int name() const override { return 4; }
};
