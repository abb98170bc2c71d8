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

// Element-wise operators, as templates over the vector types (so that a file pays for the ones
// it uses): vector op vector, vector op scalar, scalar op vector, op=.
template <class V>
struct __hipmlir_vector_traits {
  static constexpr int lanes = 0;
};
#define HIPMLIR_TRAITS(V, T, L)               \
  template <>                                 \
  struct __hipmlir_vector_traits<V> {         \
    typedef T element;                        \
    static constexpr int lanes = L;           \
  };

template <class V, class F>
HIPMLIR_HD inline V __hipmlir_map(V a, V b, F f) {
  V r = a;
  r.x = f(a.x, b.x);
  if constexpr (__hipmlir_vector_traits<V>::lanes > 1) r.y = f(a.y, b.y);
  if constexpr (__hipmlir_vector_traits<V>::lanes > 2) r.z = f(a.z, b.z);
  if constexpr (__hipmlir_vector_traits<V>::lanes > 3) r.w = f(a.w, b.w);
  return r;
}
template <class V>
HIPMLIR_HD inline V __hipmlir_splat(typename __hipmlir_vector_traits<V>::element s) {
  V r;
  r.x = s;
  if constexpr (__hipmlir_vector_traits<V>::lanes > 1) r.y = s;
  if constexpr (__hipmlir_vector_traits<V>::lanes > 2) r.z = s;
  if constexpr (__hipmlir_vector_traits<V>::lanes > 3) r.w = s;
  return r;
}
#define HIPMLIR_VECTOR_OP(OP, NAME)                                                                \
  struct __hipmlir_##NAME {                                                                      \
    template <class T>                                                                           \
    HIPMLIR_HD T operator()(T a, T b) const {                                                    \
      return a OP b;                                                                             \
    }                                                                                            \
  };                                                                                             \
  template <class V, int L = __hipmlir_vector_traits<V>::lanes, class = typename __hipmlir_enable_if<(L > 0)>::type> \
  HIPMLIR_HD inline V operator OP(V a, V b) {                                                    \
    return __hipmlir_map(a, b, __hipmlir_##NAME());                                              \
  }                                                                                              \
  template <class V, int L = __hipmlir_vector_traits<V>::lanes, class = typename __hipmlir_enable_if<(L > 0)>::type> \
  HIPMLIR_HD inline V operator OP(V a, typename __hipmlir_vector_traits<V>::element s) {          \
    return __hipmlir_map(a, __hipmlir_splat<V>(s), __hipmlir_##NAME());                          \
  }                                                                                              \
  template <class V, int L = __hipmlir_vector_traits<V>::lanes, class = typename __hipmlir_enable_if<(L > 0)>::type> \
  HIPMLIR_HD inline V operator OP(typename __hipmlir_vector_traits<V>::element s, V a) {          \
    return __hipmlir_map(__hipmlir_splat<V>(s), a, __hipmlir_##NAME());                          \
  }                                                                                              \
  template <class V, int L = __hipmlir_vector_traits<V>::lanes, class = typename __hipmlir_enable_if<(L > 0)>::type> \
  HIPMLIR_HD inline V& operator OP##=(V& a, V b) {                                               \
    a = a OP b;                                                                                  \
    return a;                                                                                    \
  }
template <bool B>
struct __hipmlir_enable_if {};
template <>
struct __hipmlir_enable_if<true> {
  typedef void type;
};
HIPMLIR_VECTOR_OP(+, add)
HIPMLIR_VECTOR_OP(-, sub)
HIPMLIR_VECTOR_OP(*, mul)
HIPMLIR_VECTOR_OP(/, div)
#undef HIPMLIR_VECTOR_OP

// HIP_vector_type<T, n> (ROCm's class behind float4 and the rest) names the same types here:
// HIP_vector_type<float, 4> is float4.
template <class T, unsigned int Rank>
struct __hipmlir_vector_of;

#define HIPMLIR_VECTOR_OF(V, T, L)          \
  template <>                               \
  struct __hipmlir_vector_of<T, L> {        \
    typedef V type;                         \
  };

#define HIPMLIR_VECTOR_FAMILY(T, N) \
  HIPMLIR_VEC1(T, N)                \
  HIPMLIR_VEC2(T, N)                \
  HIPMLIR_VEC3(T, N)                \
  HIPMLIR_VEC4(T, N)                \
  HIPMLIR_TRAITS(N##2, T, 2)        \
  HIPMLIR_TRAITS(N##3, T, 3)        \
  HIPMLIR_TRAITS(N##4, T, 4)        \
  HIPMLIR_VECTOR_OF(N##1, T, 1)     \
  HIPMLIR_VECTOR_OF(N##2, T, 2)     \
  HIPMLIR_VECTOR_OF(N##3, T, 3)     \
  HIPMLIR_VECTOR_OF(N##4, T, 4)

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

template <class T, unsigned int Rank>
using HIP_vector_type = typename __hipmlir_vector_of<T, Rank>::type;

#undef HIPMLIR_VECTOR_FAMILY
#undef HIPMLIR_VECTOR_OF
#undef HIPMLIR_TRAITS
#undef HIPMLIR_VEC1
#undef HIPMLIR_VEC2
#undef HIPMLIR_VEC3
#undef HIPMLIR_VEC4
#undef HIPMLIR_HD

#endif  // HIPMLIR_VECTOR_TYPES_H
