// The C library functions HIP offers in device code: memset, memcpy, memmove, memcmp, abort (and
// CUDA's __trap) and the device side of assert (glibc's assert calls __assert_fail). Plain C++
// compiled like user code.
//
// Declared before <string.h>, <stdlib.h> and <assert.h> (hip_runtime.h includes this header
// first), whose host declarations of the same C functions then redeclare them, as with the math
// library.
#ifndef HIPMLIR_LIBC_H
#define HIPMLIR_LIBC_H

#include <stddef.h>

#if defined(__HIP_DEVICE_COMPILE__)
extern "C" {
__device__ inline void* memset(void* dst, int value, size_t size) {
  unsigned char* d = (unsigned char*)dst;
  for (size_t i = 0; i < size; ++i) d[i] = (unsigned char)value;
  return dst;
}
__device__ inline void* memcpy(void* dst, const void* src, size_t size) {
  unsigned char* d = (unsigned char*)dst;
  const unsigned char* s = (const unsigned char*)src;
  for (size_t i = 0; i < size; ++i) d[i] = s[i];
  return dst;
}
// Overlapping ranges: copy backwards when the destination starts inside the source.
__device__ inline void* memmove(void* dst, const void* src, size_t size) {
  unsigned char* d = (unsigned char*)dst;
  const unsigned char* s = (const unsigned char*)src;
  if (d < s) {
    for (size_t i = 0; i < size; ++i) d[i] = s[i];
  } else {
    for (size_t i = size; i > 0; --i) d[i - 1] = s[i - 1];
  }
  return dst;
}
__device__ inline int memcmp(const void* a, const void* b, size_t size) {
  const unsigned char* x = (const unsigned char*)a;
  const unsigned char* y = (const unsigned char*)b;
  int result = 0;
  for (size_t i = 0; i < size && result == 0; ++i) {
    if (x[i] != y[i]) result = x[i] < y[i] ? -1 : 1;
  }
  return result;
}

// Stopping the program from device code, as HIP does: the compiler makes every trap stop the
// program, the kernel named, on OpenCL devices too (where the work-item runs on to the kernel's
// end, unseen: the runtime ends the program when the kernel completes).
__device__ inline void abort() { __builtin_trap(); }
__device__ inline void __trap() { __builtin_trap(); }

// A failed assert in device code prints where it failed, then stops the program.
__device__ inline void __assert_fail(const char* assertion, const char* file, unsigned int line,
                                     const char* function) {
  printf("%s:%u: %s: Device-side assertion `%s' failed.\n", file, line, function, assertion);
  __builtin_trap();
}
__device__ inline void __assertfail(const char* assertion, const char* file, unsigned int line,
                                    const char* function, size_t char_size) {
  (void)char_size;
  __assert_fail(assertion, file, line, function);
}
}  // extern "C"
#endif  // __HIP_DEVICE_COMPILE__

#endif  // HIPMLIR_LIBC_H
