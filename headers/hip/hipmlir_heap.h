// Dynamic memory in device code: malloc and free, and the global operator new and delete over
// them (with the placement forms), as HIP offers them. Plain C++ compiled like user code.
//
// The heap is one region of device memory shared by every kernel of the process. The runtime
// allocates it (hipLimitMallocHeapSize bytes, 64 MiB unless the program sets another size before
// its first kernel that allocates) and stores its address in __hipmlir_device_heap before the first
// launch of a module that defines that variable (runtime/src/heap.rs). Only code that calls malloc
// references it, so only modules that allocate have it.
//
// The region starts with the allocator's state (__hipmlir_heap_state: the runtime writes the
// region's size and zeroes the rest of the first 1024 bytes); blocks follow. A block is 2^k bytes
// (k >= 5): a 16-byte header (a mark and k) and then the memory malloc returns, 16-byte aligned.
// The free blocks of each size form a lock-free stack whose head packs the top block's offset with
// a count of changes, so that a compare-and-swap never succeeds on a head that changed and changed
// back (ABA). malloc takes a free block of its size, else carves a new one from the part of the
// region never used, else takes a free block of a larger size (kept whole: freed, it returns to
// its own size's stack); it returns NULL when nothing is left, as HIP's does. free puts the block
// back on its stack, where later allocations of that size find it.
#ifndef HIPMLIR_HEAP_H
#define HIPMLIR_HEAP_H

#include <stddef.h>

#if defined(__HIP_DEVICE_COMPILE__)
// The host's allocation functions first: the device ones below overload them.
#include <new>

extern "C" {
// The heap region's device address; 0 until the runtime stores it (malloc then returns NULL).
__device__ unsigned long long __hipmlir_device_heap;
}

// Bytes of the region before the first block (the runtime's DEVICE_HEAP_HEADER_BYTES).
#define HIPMLIR_HEAP_HEADER_BYTES 1024ull
// Offsets are kept in 16-byte units in 32 bits: a heap uses at most 64 GiB.
#define HIPMLIR_HEAP_MAX_BYTES (1ull << 36)
#define HIPMLIR_HEAP_CLASSES 37
#define HIPMLIR_HEAP_MIN_CLASS 5
#define HIPMLIR_HEAP_BLOCK_MARK 0x6d6c6968u

struct __hipmlir_heap_state {
  // The region's size in bytes (written by the runtime).
  unsigned long long size;
  // Bytes carved so far from the block area, which starts HIPMLIR_HEAP_HEADER_BYTES in.
  unsigned long long carved;
  // Per block size 2^k: (changes << 32) | (offset of the top free block / 16); 0: none free.
  unsigned long long free_top[HIPMLIR_HEAP_CLASSES];
};
static_assert(sizeof(__hipmlir_heap_state) <= HIPMLIR_HEAP_HEADER_BYTES,
              "the allocator's state must fit the header the runtime zeroes");

struct __hipmlir_heap_block {
  unsigned int mark;
  unsigned int size_class;
  // While the block is free: the offset / 16 of the next free block of its size (0: none).
  unsigned long long next;
};

// The heap region (global memory: its atomics are global-memory atomics), or NULL.
__device__ inline char* __hipmlir_heap_region() {
  unsigned long long region = __hipmlir_device_heap;
  return region == 0 ? nullptr : (char*)__hipmlir_global_address(region);
}

// Takes the top block off the free stack of size class k; NULL if it is empty.
__device__ inline __hipmlir_heap_block* __hipmlir_heap_pop(char* region, __hipmlir_heap_state* h,
                                                          unsigned int k) {
  unsigned long long* top = &h->free_top[k];
  unsigned long long head = *top;
  while ((head & 0xffffffffull) != 0) {
    __hipmlir_heap_block* b = (__hipmlir_heap_block*)(region + (head & 0xffffffffull) * 16);
    // Another thread may take this block first and reuse it: `next` is then stale, and the
    // exchange fails because the head's count of changes moved on.
    unsigned long long wanted = (((head >> 32) + 1) << 32) | (b->next & 0xffffffffull);
    unsigned long long seen = atomicCAS(top, head, wanted);
    if (seen == head) {
      __threadfence();
      return b;
    }
    head = seen;
  }
  return nullptr;
}

// A new block of size class k from the part of the region never used; NULL if it does not fit.
__device__ inline __hipmlir_heap_block* __hipmlir_heap_carve(char* region, __hipmlir_heap_state* h,
                                                            unsigned int k) {
  unsigned long long usable = h->size < HIPMLIR_HEAP_MAX_BYTES ? h->size : HIPMLIR_HEAP_MAX_BYTES;
  if (usable <= HIPMLIR_HEAP_HEADER_BYTES) return nullptr;
  unsigned long long room = usable - HIPMLIR_HEAP_HEADER_BYTES;
  unsigned long long bytes = 1ull << k;
  unsigned long long carved = h->carved;
  while (true) {
    if (bytes > room || carved > room - bytes) return nullptr;
    unsigned long long seen = atomicCAS(&h->carved, carved, carved + bytes);
    if (seen == carved) break;
    carved = seen;
  }
  __hipmlir_heap_block* b =
      (__hipmlir_heap_block*)(region + HIPMLIR_HEAP_HEADER_BYTES + carved);
  b->mark = HIPMLIR_HEAP_BLOCK_MARK;
  b->size_class = k;
  b->next = 0;
  return b;
}

extern "C" {
__device__ inline void* malloc(size_t size) {
  char* region = __hipmlir_heap_region();
  if (region == nullptr || size > HIPMLIR_HEAP_MAX_BYTES) return nullptr;
  __hipmlir_heap_state* h = (__hipmlir_heap_state*)region;
  unsigned long long needed = (unsigned long long)size + sizeof(__hipmlir_heap_block);
  unsigned int k = HIPMLIR_HEAP_MIN_CLASS;
  while ((1ull << k) < needed) ++k;
  __hipmlir_heap_block* b = __hipmlir_heap_pop(region, h, k);
  if (b == nullptr) b = __hipmlir_heap_carve(region, h, k);
  for (unsigned int larger = k + 1; b == nullptr && larger < HIPMLIR_HEAP_CLASSES; ++larger) {
    b = __hipmlir_heap_pop(region, h, larger);
  }
  if (b == nullptr) return nullptr;
  return (char*)b + sizeof(__hipmlir_heap_block);
}

// Pointers that malloc did not return (outside the heap, or without a block's mark) are left
// alone.
__device__ inline void free(void* ptr) {
  char* region = __hipmlir_heap_region();
  char* p = (char*)ptr;
  if (p == nullptr || region == nullptr) return;
  __hipmlir_heap_state* h = (__hipmlir_heap_state*)region;
  if (p < region + HIPMLIR_HEAP_HEADER_BYTES + sizeof(__hipmlir_heap_block) ||
      p >= region + h->size) {
    return;
  }
  __hipmlir_heap_block* b = (__hipmlir_heap_block*)(p - sizeof(__hipmlir_heap_block));
  unsigned int k = b->size_class;
  if (b->mark != HIPMLIR_HEAP_BLOCK_MARK || k < HIPMLIR_HEAP_MIN_CLASS ||
      k >= HIPMLIR_HEAP_CLASSES) {
    return;
  }
  unsigned long long offset = (unsigned long long)((char*)b - region) / 16;
  unsigned long long* top = &h->free_top[k];
  unsigned long long head = *top;
  while (true) {
    b->next = head & 0xffffffffull;
    // The block's contents and its link are visible before the block is.
    __threadfence();
    unsigned long long seen = atomicCAS(top, head, (((head >> 32) + 1) << 32) | offset);
    if (seen == head) return;
    head = seen;
  }
}
}  // extern "C"

// The global allocation functions of device code (clang calls them for new and delete); they
// replace the standard ones, so they are not `inline`, and each device module keeps its own
// copies. Device code has no exceptions: a failed allocation is a null pointer.
__device__ void* operator new(size_t size) { return malloc(size ? size : 1); }
__device__ void* operator new[](size_t size) { return malloc(size ? size : 1); }
__device__ void* operator new(size_t size, const std::nothrow_t&) noexcept {
  return malloc(size ? size : 1);
}
__device__ void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  return malloc(size ? size : 1);
}
__device__ void operator delete(void* ptr) noexcept { free(ptr); }
__device__ void operator delete[](void* ptr) noexcept { free(ptr); }
__device__ void operator delete(void* ptr, size_t) noexcept { free(ptr); }
__device__ void operator delete[](void* ptr, size_t) noexcept { free(ptr); }
__device__ void operator delete(void* ptr, const std::nothrow_t&) noexcept { free(ptr); }
__device__ void operator delete[](void* ptr, const std::nothrow_t&) noexcept { free(ptr); }
// Placement forms: construction in memory the program provides.
__device__ inline void* operator new(size_t, void* ptr) noexcept { return ptr; }
__device__ inline void* operator new[](size_t, void* ptr) noexcept { return ptr; }
__device__ inline void operator delete(void*, void*) noexcept {}
__device__ inline void operator delete[](void*, void*) noexcept {}
#endif  // __HIP_DEVICE_COMPILE__

#endif  // HIPMLIR_HEAP_H
