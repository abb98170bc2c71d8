// HIP's vector types: the class template HIP_vector_type<T, N> (N = 1..4) and its instances
// float4, int2, uchar1, ... with make_* functions and element-wise operators, for host and device
// code alike. Sizes and alignments follow HIP's: two- and four-lane vectors are aligned to their
// size, one- and three-lane ones to their element. The lanes are the members x, y, z, w.
#ifndef HIPMLIR_VECTOR_TYPES_H
#define HIPMLIR_VECTOR_TYPES_H
// Written with C++17 features that every C++ mode of clang and GCC takes; a program compiled
// as C++14 gets no warnings about them.
#pragma GCC system_header

#if defined(__HIP__) || defined(__CUDA__)
#define HIPMLIR_HD __attribute__((host)) __attribute__((device))
#else
#define HIPMLIR_HD
#endif

template <class T, unsigned int Rank>
struct HIP_vector_type;

// As ROCm's: default construction leaves the lanes uninitialized (value-initialization, `{}`,
// zeroes them); a scalar sets every lane (explicitly); N values set the N lanes, each converted
// to T. Copies are trivial, so vectors pass to kernels by value.
template <class T>
struct HIP_vector_type<T, 1> {
  typedef T value_type;
  T x;
  HIP_vector_type() = default;
  template <class U>
  HIPMLIR_HD explicit constexpr HIP_vector_type(U a) : x(static_cast<T>(a)) {}
};
template <class T>
struct alignas(2 * sizeof(T)) HIP_vector_type<T, 2> {
  typedef T value_type;
  T x, y;
  HIP_vector_type() = default;
  template <class U>
  HIPMLIR_HD explicit constexpr HIP_vector_type(U a) : x(static_cast<T>(a)), y(static_cast<T>(a)) {}
  template <class U0, class U1>
  HIPMLIR_HD constexpr HIP_vector_type(U0 a, U1 b) : x(static_cast<T>(a)), y(static_cast<T>(b)) {}
};
template <class T>
struct HIP_vector_type<T, 3> {
  typedef T value_type;
  T x, y, z;
  HIP_vector_type() = default;
  template <class U>
  HIPMLIR_HD explicit constexpr HIP_vector_type(U a)
      : x(static_cast<T>(a)), y(static_cast<T>(a)), z(static_cast<T>(a)) {}
  template <class U0, class U1, class U2>
  HIPMLIR_HD constexpr HIP_vector_type(U0 a, U1 b, U2 c)
      : x(static_cast<T>(a)), y(static_cast<T>(b)), z(static_cast<T>(c)) {}
};
template <class T>
struct alignas(4 * sizeof(T)) HIP_vector_type<T, 4> {
  typedef T value_type;
  T x, y, z, w;
  HIP_vector_type() = default;
  template <class U>
  HIPMLIR_HD explicit constexpr HIP_vector_type(U a)
      : x(static_cast<T>(a)), y(static_cast<T>(a)), z(static_cast<T>(a)), w(static_cast<T>(a)) {}
  template <class U0, class U1, class U2, class U3>
  HIPMLIR_HD constexpr HIP_vector_type(U0 a, U1 b, U2 c, U3 d)
      : x(static_cast<T>(a)), y(static_cast<T>(b)), z(static_cast<T>(c)), w(static_cast<T>(d)) {}
};

// The element type and lane count of a vector type (lanes 0 for anything else).
template <class V>
struct __hipmlir_vector_traits {
  static constexpr unsigned int lanes = 0;
};
template <class T, unsigned int N>
struct __hipmlir_vector_traits<HIP_vector_type<T, N>> {
  typedef T element;
  static constexpr unsigned int lanes = N;
};

template <bool B>
struct __hipmlir_enable_if {};
template <>
struct __hipmlir_enable_if<true> {
  typedef void type;
};

// Element-wise operators, as templates over the vector types (so that a file pays for the ones
// it uses): vector op vector, vector op scalar, scalar op vector, op=. The bitwise and shift
// operators and % need integer lanes, as on scalars.
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
  return V(s);
}
#define HIPMLIR_VECTOR_OP(OP, NAME)                                                              \
  struct __hipmlir_##NAME {                                                                      \
    template <class T>                                                                           \
    HIPMLIR_HD T operator()(T a, T b) const {                                                    \
      return static_cast<T>(a OP b);                                                             \
    }                                                                                            \
  };                                                                                             \
  template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >   \
                                                           0)>::type>                            \
  HIPMLIR_HD inline V operator OP(V a, V b) {                                                    \
    return __hipmlir_map(a, b, __hipmlir_##NAME());                                              \
  }                                                                                              \
  template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >   \
                                                           0)>::type>                            \
  HIPMLIR_HD inline V operator OP(V a, typename __hipmlir_vector_traits<V>::element s) {         \
    return __hipmlir_map(a, __hipmlir_splat<V>(s), __hipmlir_##NAME());                          \
  }                                                                                              \
  template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >   \
                                                           0)>::type>                            \
  HIPMLIR_HD inline V operator OP(typename __hipmlir_vector_traits<V>::element s, V a) {         \
    return __hipmlir_map(__hipmlir_splat<V>(s), a, __hipmlir_##NAME());                          \
  }                                                                                              \
  template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >   \
                                                           0)>::type>                            \
  HIPMLIR_HD inline V& operator OP##=(V& a, V b) {                                               \
    a = a OP b;                                                                                  \
    return a;                                                                                    \
  }                                                                                              \
  template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >   \
                                                           0)>::type>                            \
  HIPMLIR_HD inline V& operator OP##=(V& a, typename __hipmlir_vector_traits<V>::element s) {    \
    a = a OP __hipmlir_splat<V>(s);                                                              \
    return a;                                                                                    \
  }
HIPMLIR_VECTOR_OP(+, add)
HIPMLIR_VECTOR_OP(-, sub)
HIPMLIR_VECTOR_OP(*, mul)
HIPMLIR_VECTOR_OP(/, div)
HIPMLIR_VECTOR_OP(%, rem)
HIPMLIR_VECTOR_OP(&, bit_and)
HIPMLIR_VECTOR_OP(|, bit_or)
HIPMLIR_VECTOR_OP(^, bit_xor)
HIPMLIR_VECTOR_OP(<<, shl)
HIPMLIR_VECTOR_OP(>>, shr)
#undef HIPMLIR_VECTOR_OP

// Unary minus and plus, bitwise not: lane by lane.
template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >
                                                         0)>::type>
HIPMLIR_HD inline V operator-(V a) {
  return __hipmlir_splat<V>(0) - a;
}
template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >
                                                         0)>::type>
HIPMLIR_HD inline V operator+(V a) {
  return a;
}
template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >
                                                         0)>::type>
HIPMLIR_HD inline V operator~(V a) {
  return a ^ __hipmlir_splat<V>(~typename __hipmlir_vector_traits<V>::element(0));
}
// Increment and decrement: every lane.
template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >
                                                         0)>::type>
HIPMLIR_HD inline V& operator++(V& a) {
  a += __hipmlir_splat<V>(1);
  return a;
}
template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >
                                                         0)>::type>
HIPMLIR_HD inline V& operator--(V& a) {
  a -= __hipmlir_splat<V>(1);
  return a;
}
template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >
                                                         0)>::type>
HIPMLIR_HD inline V operator++(V& a, int) {
  V old = a;
  ++a;
  return old;
}
template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >
                                                         0)>::type>
HIPMLIR_HD inline V operator--(V& a, int) {
  V old = a;
  --a;
  return old;
}
// Equal when every lane is.
template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >
                                                         0)>::type>
HIPMLIR_HD inline bool operator==(const V& a, const V& b) {
  bool same = a.x == b.x;
  if constexpr (__hipmlir_vector_traits<V>::lanes > 1) same = same && a.y == b.y;
  if constexpr (__hipmlir_vector_traits<V>::lanes > 2) same = same && a.z == b.z;
  if constexpr (__hipmlir_vector_traits<V>::lanes > 3) same = same && a.w == b.w;
  return same;
}
template <class V, class = typename __hipmlir_enable_if<(__hipmlir_vector_traits<V>::lanes >
                                                         0)>::type>
HIPMLIR_HD inline bool operator!=(const V& a, const V& b) {
  return !(a == b);
}

// The named instances and their make_* functions.
#define HIPMLIR_VECTOR_FAMILY(T, N)                                                    \
  typedef HIP_vector_type<T, 1> N##1;                                                  \
  typedef HIP_vector_type<T, 2> N##2;                                                  \
  typedef HIP_vector_type<T, 3> N##3;                                                  \
  typedef HIP_vector_type<T, 4> N##4;                                                  \
  HIPMLIR_HD inline N##1 make_##N##1(T x) { return N##1(x); }                          \
  HIPMLIR_HD inline N##2 make_##N##2(T x, T y) { return N##2(x, y); }                  \
  HIPMLIR_HD inline N##3 make_##N##3(T x, T y, T z) { return N##3(x, y, z); }          \
  HIPMLIR_HD inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4(x, y, z, w); }

HIPMLIR_VECTOR_FAMILY(char, char)
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
#undef HIPMLIR_HD

#endif  // HIPMLIR_VECTOR_TYPES_H
