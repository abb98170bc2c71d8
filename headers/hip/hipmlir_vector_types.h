// HIP's vector types (float4, int2, ...) with make_* functions and arithmetic operators, for
// host and device code alike. Sizes and alignments follow HIP's: two- and four-lane vectors are
// aligned to their size, three-lane ones to their element.
#ifndef HIPMLIR_VECTOR_TYPES_H
#define HIPMLIR_VECTOR_TYPES_H

#if defined(__HIP__) || defined(__CUDA__)
#define HIPMLIR_HD __attribute__((host)) __attribute__((device))
#else
#define HIPMLIR_HD
#endif

#define HIPMLIR_VEC1(T, N)                                                           \
  struct N##1 {                                                                      \
    T x;                                                                             \
  };                                                                                 \
  HIPMLIR_HD inline N##1 make_##N##1(T x) {                                          \
    N##1 r;                                                                          \
    r.x = x;                                                                         \
    return r;                                                                        \
  }
#define HIPMLIR_VEC2(T, N)                                                           \
  struct __attribute__((aligned(2 * sizeof(T)))) N##2 {                              \
    T x, y;                                                                          \
  };                                                                                 \
  HIPMLIR_HD inline N##2 make_##N##2(T x, T y) {                                     \
    N##2 r;                                                                          \
    r.x = x;                                                                         \
    r.y = y;                                                                         \
    return r;                                                                        \
  }
#define HIPMLIR_VEC3(T, N)                                                           \
  struct N##3 {                                                                      \
    T x, y, z;                                                                       \
  };                                                                                 \
  HIPMLIR_HD inline N##3 make_##N##3(T x, T y, T z) {                                \
    N##3 r;                                                                          \
    r.x = x;                                                                         \
    r.y = y;                                                                         \
    r.z = z;                                                                         \
    return r;                                                                        \
  }
#define HIPMLIR_VEC4(T, N)                                                           \
  struct __attribute__((aligned(4 * sizeof(T)))) N##4 {                              \
    T x, y, z, w;                                                                    \
  };                                                                                 \
  HIPMLIR_HD inline N##4 make_##N##4(T x, T y, T z, T w) {                           \
    N##4 r;                                                                          \
    r.x = x;                                                                         \
    r.y = y;                                                                         \
    r.z = z;                                                                         \
    r.w = w;                                                                         \
    return r;                                                                        \
  }

// Element-wise operators: vector op vector, vector op scalar, scalar op vector, op=.
#define HIPMLIR_OPS2(V, T, OP)                                                                 \
  HIPMLIR_HD inline V operator OP(V a, V b) { return make_##V(a.x OP b.x, a.y OP b.y); }      \
  HIPMLIR_HD inline V operator OP(V a, T s) { return make_##V(a.x OP s, a.y OP s); }          \
  HIPMLIR_HD inline V operator OP(T s, V a) { return make_##V(s OP a.x, s OP a.y); }          \
  HIPMLIR_HD inline V& operator OP##=(V& a, V b) {                                            \
    a = a OP b;                                                                               \
    return a;                                                                                 \
  }
#define HIPMLIR_OPS3(V, T, OP)                                                                 \
  HIPMLIR_HD inline V operator OP(V a, V b) { return make_##V(a.x OP b.x, a.y OP b.y, a.z OP b.z); } \
  HIPMLIR_HD inline V operator OP(V a, T s) { return make_##V(a.x OP s, a.y OP s, a.z OP s); } \
  HIPMLIR_HD inline V operator OP(T s, V a) { return make_##V(s OP a.x, s OP a.y, s OP a.z); } \
  HIPMLIR_HD inline V& operator OP##=(V& a, V b) {                                            \
    a = a OP b;                                                                               \
    return a;                                                                                 \
  }
#define HIPMLIR_OPS4(V, T, OP)                                                                 \
  HIPMLIR_HD inline V operator OP(V a, V b) {                                                  \
    return make_##V(a.x OP b.x, a.y OP b.y, a.z OP b.z, a.w OP b.w);                          \
  }                                                                                           \
  HIPMLIR_HD inline V operator OP(V a, T s) {                                                  \
    return make_##V(a.x OP s, a.y OP s, a.z OP s, a.w OP s);                                  \
  }                                                                                           \
  HIPMLIR_HD inline V operator OP(T s, V a) {                                                  \
    return make_##V(s OP a.x, s OP a.y, s OP a.z, s OP a.w);                                  \
  }                                                                                           \
  HIPMLIR_HD inline V& operator OP##=(V& a, V b) {                                            \
    a = a OP b;                                                                               \
    return a;                                                                                 \
  }
#define HIPMLIR_ALL_OPS(L, V, T) \
  HIPMLIR_OPS##L(V, T, +)        \
  HIPMLIR_OPS##L(V, T, -)        \
  HIPMLIR_OPS##L(V, T, *)        \
  HIPMLIR_OPS##L(V, T, /)

#define HIPMLIR_VECTOR_FAMILY(T, N) \
  HIPMLIR_VEC1(T, N)                \
  HIPMLIR_VEC2(T, N)                \
  HIPMLIR_VEC3(T, N)                \
  HIPMLIR_VEC4(T, N)                \
  HIPMLIR_ALL_OPS(2, N##2, T)       \
  HIPMLIR_ALL_OPS(3, N##3, T)       \
  HIPMLIR_ALL_OPS(4, N##4, T)

HIPMLIR_VECTOR_FAMILY(signed char, char)
HIPMLIR_VECTOR_FAMILY(unsigned char, uchar)
HIPMLIR_VECTOR_FAMILY(short, short)
HIPMLIR_VECTOR_FAMILY(unsigned short, ushort)
HIPMLIR_VECTOR_FAMILY(int, int)
HIPMLIR_VECTOR_FAMILY(unsigned int, uint)
HIPMLIR_VECTOR_FAMILY(long, long)
HIPMLIR_VECTOR_FAMILY(unsigned long, ulong)
HIPMLIR_VECTOR_FAMILY(long long, longlong)
HIPMLIR_VECTOR_FAMILY(unsigned long long, ulonglong)
HIPMLIR_VECTOR_FAMILY(float, float)
HIPMLIR_VECTOR_FAMILY(double, double)

#undef HIPMLIR_VECTOR_FAMILY
#undef HIPMLIR_ALL_OPS
#undef HIPMLIR_OPS2
#undef HIPMLIR_OPS3
#undef HIPMLIR_OPS4
#undef HIPMLIR_VEC1
#undef HIPMLIR_VEC2
#undef HIPMLIR_VEC3
#undef HIPMLIR_VEC4
#undef HIPMLIR_HD

#endif  // HIPMLIR_VECTOR_TYPES_H
