// RAII helpers used in device code: each records into a per-thread event log when it is built
// and when it is destroyed, so the order of constructors and destructors is visible.
#pragma once

#include <hip/hip_runtime.h>

// One thread's log: a slice of a buffer, filled in order.
struct EventLog {
  static constexpr int kCapacity = 160;
  int* events;
  int count;

  __host__ __device__ void record(int event) {
    if (count < kCapacity) events[count] = event;
    ++count;
  }
};

// Records +id when built and -id when destroyed; a copy gets id + 100.
class ScopeGuard {
 public:
  __host__ __device__ ScopeGuard(EventLog& log, int id) : log_(log), id_(id) { log_.record(id_); }
  __host__ __device__ ScopeGuard(const ScopeGuard& other) : log_(other.log_), id_(other.id_ + 100) {
    log_.record(id_);
  }
  __host__ __device__ ~ScopeGuard() { log_.record(-id_); }
  __host__ __device__ int id() const { return id_; }
  __host__ __device__ void retag(int id) { id_ = id; }

 private:
  EventLog& log_;
  int id_;
};

// A vector of fixed capacity that reports its tag and final size when destroyed.
template <typename T, int N>
class FixedVector {
 public:
  __host__ __device__ FixedVector(EventLog& log, int tag) : log_(&log), tag_(tag) {}
  __host__ __device__ ~FixedVector() { log_->record(1000 * tag_ + size_); }
  __host__ __device__ bool push_back(T value) {
    if (size_ == N) return false;
    data_[size_++] = value;
    return true;
  }
  __host__ __device__ int size() const { return size_; }
  __host__ __device__ T operator[](int i) const { return data_[i]; }
  __host__ __device__ T sum() const {
    T total = T();
    for (int i = 0; i < size_; ++i) total += data_[i];
    return total;
  }

 private:
  EventLog* log_;
  int tag_;
  int size_ = 0;
  T data_[N];
};

// A base and members with destructors: the destructor body runs first, then the members in
// reverse order, then the base.
struct Tracked {
  __host__ __device__ Tracked(EventLog& log, int id) : log(log), id(id) { log.record(id); }
  __host__ __device__ ~Tracked() { log.record(-id); }
  EventLog& log;
  int id;
};

struct Composite : Tracked {
  __host__ __device__ Composite(EventLog& log, int base)
      : Tracked(log, base), second(log, base + 2) {
    log.record(base + 9);
  }
  __host__ __device__ ~Composite() { log.record(-(id + 9)); }
  ScopeGuard first{log, id + 1};
  ScopeGuard second;
  FixedVector<int, 2> values{log, id / 10};
};

// A class whose destructor is implicit: its members are destroyed all the same.
struct Holder {
  ScopeGuard inner;
  Tracked outer;
};

// Built by its default constructor wherever a constructor does not name it.
struct Counter {
  __host__ __device__ Counter() : value(7) {}
  __host__ __device__ explicit Counter(int v) : value(v) {}
  int value;
};

// A base and members the constructor does not name: the base and `counter` are default
// constructed, `scale` and `last` take their default member initializers, in declaration order.
struct Defaults : Counter {
  __host__ __device__ explicit Defaults(EventLog& log) : log_(log), guard(log, 240) {}
  Counter counter;
  EventLog& log_;
  int scale = 3;
  ScopeGuard guard;
  Counter last{log_.count};
};
