// Virtual functions of classes with several polymorphic bases: calls through pointers and
// references to each base (the base's part at the object's start or elsewhere, `this` adjusted
// to the overrider's class), overriders in the class or inherited from a base, a pure virtual
// function, pointers to virtual members of the second base, objects made with `new` and deleted
// through a pointer to a base that is not at their start, and assignment keeping each part's
// class.
#include "test_common.h"
#include "include/polymorphic_bases.h"

// Rounds of new and delete per thread in heap_objects, in a heap of kHeapBytes: together more
// than the heap holds unless every object is freed whole.
constexpr int kRounds = 64;
constexpr size_t kHeapBytes = 1 << 20;

__device__ float through_shape(const Shape& s, float k) { return s.scaled(k) + s.area(); }
__device__ int through_named(const Named* n) { return n->id() * 10 + n->weight(); }

__global__ void stack_objects(const int* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  Circle c(v, 0.5f * (v % 7));
  Rect r(v + 1, 1.0f + v % 3, 2.0f);
  Square q(v + 2, 1.5f + v % 4);
  Shape* shapes[3] = {&c, &r, &q};
  Named* names[3] = {&c, &r, &q};
  float acc = 0.0f;
  for (int k = 0; k < 3; ++k) {
    acc = acc * 0.5f + through_shape(*shapes[(k + i) % 3], 0.25f * k);
    acc += static_cast<float>(through_named(names[(k + 2 * i) % 3]));
  }
  // A pointer to a virtual member of the second base.
  float (Shape::*area)() const = &Shape::area;
  acc += (shapes[i % 3]->*area)();
  // Calls on the objects themselves.
  acc += c.scaled(2.0f) + static_cast<float>(r.id() + q.weight());
  // Assignment copies the values and keeps each part's class.
  Rect other(7, 3.0f, 3.0f);
  other = q;
  Shape& as_shape = other;
  acc += as_shape.area() + static_cast<float>(static_cast<Named&>(other).id());
  out[i] = acc;
}

__global__ void heap_objects(const int* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  float result = 0.0f;
  // Many rounds in a small heap (see main): only memory freed whole, through whichever base,
  // is reused; a leak runs out of memory.
  for (int round = 0; round < kRounds; ++round) {
    Shape* s = nullptr;
    Named* m = nullptr;
    switch ((i + round) % 3) {
      case 0: {
        Circle* c = new Circle(v, 1.0f + v % 5);
        if (c == nullptr) break;
        s = c;
        m = c;
        break;
      }
      case 1: {
        Rect* r = new Rect(v, 2.0f, 1.0f + v % 2);
        if (r == nullptr) break;
        s = r;
        m = r;
        break;
      }
      default: {
        Square* q = new Square(v, 0.5f * (v % 6));
        if (q == nullptr) break;
        s = q;
        m = q;
        break;
      }
    }
    if (s == nullptr) {
      out[i] = -1.0e30f;  // the heap ran out
      return;
    }
    result += s->scaled(3.0f) + static_cast<float>(m->id() + m->weight());
    // Deleted through the base that is not at the start of a Circle (Shape) or of a Rect
    // (Named).
    if ((i + round) % 3 == 0) {
      delete s;
    } else {
      delete m;
    }
  }
  out[i] = result;
}

static float want_stack(int v, int i) {
  Circle c(v, 0.5f * (v % 7));
  Rect r(v + 1, 1.0f + v % 3, 2.0f);
  Square q(v + 2, 1.5f + v % 4);
  Shape* shapes[3] = {&c, &r, &q};
  Named* names[3] = {&c, &r, &q};
  float acc = 0.0f;
  for (int k = 0; k < 3; ++k) {
    const Shape& s = *shapes[(k + i) % 3];
    acc = acc * 0.5f + (s.scaled(0.25f * k) + s.area());
    const Named* n = names[(k + 2 * i) % 3];
    acc += static_cast<float>(n->id() * 10 + n->weight());
  }
  acc += shapes[i % 3]->area();
  acc += c.scaled(2.0f) + static_cast<float>(r.id() + q.weight());
  // `other = q` copies q's Rect part into a Rect: a Rect's functions.
  Rect other(7, 3.0f, 3.0f);
  other = q;
  acc += other.w * other.h + static_cast<float>(other.tag);
  return acc;
}

static float want_heap_round(int v, int i) {
  switch (i % 3) {
    case 0: {
      Circle c(v, 1.0f + v % 5);
      return c.scaled(3.0f) + static_cast<float>(c.id() + c.weight());
    }
    case 1: {
      Rect r(v, 2.0f, 1.0f + v % 2);
      return r.scaled(3.0f) + static_cast<float>(r.id() + r.weight());
    }
    default: {
      Square q(v, 0.5f * (v % 6));
      return q.scaled(3.0f) + static_cast<float>(q.id() + q.weight());
    }
  }
}

static float want_heap(int v, int i) {
  float result = 0.0f;
  for (int round = 0; round < kRounds; ++round) result += want_heap_round(v, i + round);
  return result;
}

static int close_enough(const char* what, const std::vector<float>& got,
                        const std::vector<float>& want) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    float tol = 1e-5f * (1.0f + std::fabs(want[i]));
    if (!(std::fabs(got[i] - want[i]) <= tol)) {
      if (bad < 5) std::printf("%s: mismatch at %zu: got %g, want %g\n", what, i, got[i], want[i]);
      ++bad;
    }
  }
  return bad;
}

int main() {
  const int n = 600;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 29) % 53;
  HIP_CHECK(hipDeviceSetLimit(hipLimitMallocHeapSize, kHeapBytes));
  int* din = to_device(in);
  float* dout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(float)));
  const int blocks = (n + 63) / 64;
  int failures = 0;
  std::vector<float> want(n);

  stack_objects<<<blocks, 64>>>(din, dout, n);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = want_stack(in[i], i);
  failures += report("virtual calls through each polymorphic base",
                     close_enough("stack", from_device(dout, n), want));

  heap_objects<<<blocks, 64>>>(din, dout, n);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = want_heap(in[i], i);
  failures += report("new, and delete through a base not at the object's start",
                     close_enough("heap", from_device(dout, n), want));

  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  return failures;
}
