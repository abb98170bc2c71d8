// Dynamic memory in device code: malloc and free, and the global operator new and delete over
// them (with the placement forms), as HIP offers them. Plain C++ compiled like user code.
//
// Each device module that allocates has an arena: device memory the runtime allocates
// (hipLimitMallocHeapSize bytes, 64 MiB unless the program sets another size before its first
// kernel that allocates), writes the arena's size into its first 16 bytes and stores its address
// in the module's variable __hipmlir_device_heap before the module's first launch
// (runtime/src/heap.rs). Only code that calls malloc references that variable, so only modules
// that allocate have it. Memory allocated by one kernel of a module may be used and freed by any
// other kernel of that module.
//
// The allocator: blocks of 2^k bytes (k >= 5), each a 16-byte header (a mark and k) and then the
// memory malloc returns, 16-byte aligned. The free blocks of each size form a lock-free stack
// whose head packs the top block's offset with a count of changes, so that a compare-and-swap
// never succeeds on a head that changed and changed back (ABA). malloc takes a free block of its
// size, else carves a new one from the part of the arena never used, else takes a free block of
// a larger size (kept whole: freed, it returns to its own size's stack); it returns NULL when
// nothing is left, as HIP's does. free puts the block back on its stack, where later allocations
// of that size find it.
#ifndef HIPMLIR_HEAP_H
#define HIPMLIR_HEAP_H

#include <stddef.h>

#if defined(__HIP_DEVICE_COMPILE__)
// The host's allocation functions first: the device ones below overload them.
#include <new>

// Offsets are kept in 16-byte units in 32 bits: an arena holds at most 64 GiB.
#define HIPMLIR_HEAP_MAX_BYTES (1ull << 36)
#define HIPMLIR_HEAP_CLASSES 37
#define HIPMLIR_HEAP_MIN_CLASS 5
#define HIPMLIR_HEAP_BLOCK_MARK 0x6d6c6968u

// The arena's first 16 bytes: its size in bytes (written by the runtime); blocks follow.
#define HIPMLIR_HEAP_ARENA_HEADER 16ull

struct __hipmlir_heap_state {
  // Bytes carved so far from the arena's blocks.
  unsigned long long carved;
  // Per block size 2^k: (changes << 32) | (offset of the top free block / 16 + 1); 0: none free.
  unsigned long long free_top[HIPMLIR_HEAP_CLASSES];
};

extern "C" {
// The module's arena: null until the runtime stores its address (malloc then returns NULL).
__device__ char* __hipmlir_device_heap;
// The allocator's state (zero when the program is built). A variable of its own, apart from the
// arena's address: global memory, so atomics on it are global-memory atomics, which every device
// has. (Kept in one variable with the address, it made Intel's OpenCL CPU compiler miscompile
// loops over allocated memory.)
__device__ __hipmlir_heap_state __hipmlir_heap_lists;
}

// The arena's size in bytes.
__device__ inline unsigned long long __hipmlir_heap_size(const char* arena) {
  return *(const unsigned long long*)arena;
}

struct __hipmlir_heap_block {
  unsigned int mark;
  unsigned int size_class;
  // While the block is free: the link to the next free block of its size, as in free_top.
  unsigned long long next;
};

// Takes the top block off the free stack of size class k; NULL if it is empty.
__device__ inline __hipmlir_heap_block* __hipmlir_heap_pop(unsigned int k) {
  char* arena = __hipmlir_device_heap;
  unsigned long long* top = &__hipmlir_heap_lists.free_top[k];
  unsigned long long head = *top;
  while ((head & 0xffffffffull) != 0) {
    __hipmlir_heap_block* b =
        (__hipmlir_heap_block*)(arena + ((head & 0xffffffffull) - 1) * 16);
    // Another thread may take this block first and reuse it: `next` is then stale, and the
    // exchange fails because the head's count of changes moved on. The link is read after a
    // fence with an atomic load, from memory rather than an incoherent cache (an SM's L1 on an
    // NVIDIA GPU), so that the link the freeing thread published with the head is the one seen.
    __threadfence();
    unsigned long long next = __atomic_load_n(&b->next, __ATOMIC_RELAXED);
    unsigned long long wanted = (((head >> 32) + 1) << 32) | (next & 0xffffffffull);
    unsigned long long seen = atomicCAS(top, head, wanted);
    if (seen == head) {
      __threadfence();
      return b;
    }
    head = seen;
  }
  return nullptr;
}

// A new block of size class k from the part of the arena never used; NULL if it does not fit.
__device__ inline __hipmlir_heap_block* __hipmlir_heap_carve(unsigned int k) {
  char* arena = __hipmlir_device_heap;
  unsigned long long size = __hipmlir_heap_size(arena);
  if (size > HIPMLIR_HEAP_MAX_BYTES) size = HIPMLIR_HEAP_MAX_BYTES;
  if (size <= HIPMLIR_HEAP_ARENA_HEADER) return nullptr;
  unsigned long long room = size - HIPMLIR_HEAP_ARENA_HEADER;
  unsigned long long bytes = 1ull << k;
  unsigned long long* carved_word = &__hipmlir_heap_lists.carved;
  unsigned long long carved = *carved_word;
  while (true) {
    if (bytes > room || carved > room - bytes) return nullptr;
    unsigned long long seen = atomicCAS(carved_word, carved, carved + bytes);
    if (seen == carved) break;
    carved = seen;
  }
  __hipmlir_heap_block* b = (__hipmlir_heap_block*)(arena + HIPMLIR_HEAP_ARENA_HEADER + carved);
  b->mark = HIPMLIR_HEAP_BLOCK_MARK;
  b->size_class = k;
  b->next = 0;
  return b;
}

extern "C" {
__device__ inline void* malloc(size_t size) {
  if (__hipmlir_device_heap == nullptr || size > HIPMLIR_HEAP_MAX_BYTES) return nullptr;
  unsigned long long needed = (unsigned long long)size + sizeof(__hipmlir_heap_block);
  unsigned int k = HIPMLIR_HEAP_MIN_CLASS;
  while ((1ull << k) < needed) ++k;
  __hipmlir_heap_block* b = __hipmlir_heap_pop(k);
  if (b == nullptr) b = __hipmlir_heap_carve(k);
  for (unsigned int larger = k + 1; b == nullptr && larger < HIPMLIR_HEAP_CLASSES; ++larger) {
    b = __hipmlir_heap_pop(larger);
  }
  if (b == nullptr) return nullptr;
  return (char*)b + sizeof(__hipmlir_heap_block);
}

// Pointers that this module's malloc did not return (outside its arena, or without a block's
// mark) are left alone.
__device__ inline void free(void* ptr) {
  char* arena = __hipmlir_device_heap;
  char* p = (char*)ptr;
  if (p == nullptr || arena == nullptr) return;
  if (p < arena + HIPMLIR_HEAP_ARENA_HEADER + sizeof(__hipmlir_heap_block) ||
      p >= arena + __hipmlir_heap_size(arena)) {
    return;
  }
  __hipmlir_heap_block* b = (__hipmlir_heap_block*)(p - sizeof(__hipmlir_heap_block));
  unsigned int k = b->size_class;
  if (b->mark != HIPMLIR_HEAP_BLOCK_MARK || k < HIPMLIR_HEAP_MIN_CLASS ||
      k >= HIPMLIR_HEAP_CLASSES) {
    return;
  }
  unsigned long long link = (unsigned long long)((char*)b - arena) / 16 + 1;
  unsigned long long* top = &__hipmlir_heap_lists.free_top[k];
  unsigned long long head = *top;
  while (true) {
    b->next = head & 0xffffffffull;
    // The block's contents and its link are visible before the block is.
    __threadfence();
    unsigned long long seen = atomicCAS(top, head, (((head >> 32) + 1) << 32) | link);
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

// The aligned forms, which clang calls for types aligned beyond 16 bytes (`alignas(64)`) from
// C++17 on: a block with room to move the object to its alignment, the block's address kept
// just before the object for the delete.
#ifdef __cpp_aligned_new
__device__ inline void* __hipmlir_aligned_new(size_t size, std::align_val_t alignment) {
  size_t align = static_cast<size_t>(alignment);
  char* block = (char*)malloc((size ? size : 1) + align);
  if (block == nullptr) return nullptr;
  // The block is 16-byte aligned and `align` larger: the object starts at least 16 bytes in.
  char* object = (char*)(((unsigned long long)block + align) & ~(unsigned long long)(align - 1));
  ((void**)object)[-1] = block;
  return object;
}
__device__ inline void __hipmlir_aligned_delete(void* ptr) {
  if (ptr != nullptr) free(((void**)ptr)[-1]);
}
__device__ void* operator new(size_t size, std::align_val_t a) {
  return __hipmlir_aligned_new(size, a);
}
__device__ void* operator new[](size_t size, std::align_val_t a) {
  return __hipmlir_aligned_new(size, a);
}
__device__ void* operator new(size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return __hipmlir_aligned_new(size, a);
}
__device__ void* operator new[](size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return __hipmlir_aligned_new(size, a);
}
__device__ void operator delete(void* ptr, std::align_val_t) noexcept {
  __hipmlir_aligned_delete(ptr);
}
__device__ void operator delete[](void* ptr, std::align_val_t) noexcept {
  __hipmlir_aligned_delete(ptr);
}
__device__ void operator delete(void* ptr, size_t, std::align_val_t) noexcept {
  __hipmlir_aligned_delete(ptr);
}
__device__ void operator delete[](void* ptr, size_t, std::align_val_t) noexcept {
  __hipmlir_aligned_delete(ptr);
}
#endif  // __cpp_aligned_new

// Placement forms: construction in memory the program provides.
__device__ inline void* operator new(size_t, void* ptr) noexcept { return ptr; }
__device__ inline void* operator new[](size_t, void* ptr) noexcept { return ptr; }
__device__ inline void operator delete(void*, void*) noexcept {}
__device__ inline void operator delete[](void*, void*) noexcept {}
#endif  // __HIP_DEVICE_COMPILE__

#endif  // HIPMLIR_HEAP_H
