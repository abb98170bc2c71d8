// Texture reads in device code: tex1Dfetch, tex1D, tex2D, tex3D, their layered, Lod and Grad
// forms, on a hipTextureObject_t (hipmlir_texture_types.h).
//
// Textures are read in software, the same way on every device (OpenCL has images, but SPIR-V
// kernels for CUDA have none and a hipArray is plain memory): the object points to a
// __hip_texture in device memory that tells where the texels are, their format and the sampler
// state, and these functions do what AMD's and NVIDIA's texture units do, bit for bit, as the
// HIP project's reference model of them (hip-tests' texture_reference.hh) computes it:
// - coordinates: texel centres at i + 0.5; normalized coordinates are scaled by the size first;
// - addressing per axis, of each texel index a sample reads: clamp (to the edge texel), border
//   (texels outside read the border color), wrap and mirror (normalized coordinates only: with
//   unnormalized ones they act as clamp, as CUDA documents), both in normalized space (a
//   mirrored index landing on a texel edge reads the texel below);
// - filtering: point (the texel holding the coordinate) or linear (the 2, 4 or 8 nearest texels,
//   over float results only), the coordinate rounded to 8 fractional bits first as the units
//   quantize it, each texel's weighted value summed from the last corner back;
// - read mode: element type, or normalized float for 8- and 16-bit integer channels (unsigned to
//   [0, 1] divided by 255 or 65535, signed to [-1, 1] by 127 or 32767, each correctly rounded),
//   sRGB-decoded where the object asks;
// - tex1Dfetch reads texel x of a linear resource without filtering; outside it reads zeros.
// Mipmaps: the Lod forms sample the level(s) their level of detail picks (biased, clamped to the
// description's range and the levels there are; nearest level, or a blend of the two around it
// for linear mipmap filtering of float results); the Grad forms take the level of detail from
// the gradients, log2 of the longer one in texels. Other reads, and any read of a texture
// without mipmaps, sample level 0.
#ifndef HIPMLIR_TEXTURE_H
#define HIPMLIR_TEXTURE_H
// Written with C++17 features that every C++ mode of clang and GCC takes; a program compiled
// as C++14 gets no warnings about them.
#pragma GCC system_header

#if defined(__HIP_DEVICE_COMPILE__)

// What a texel type T is made of: float lanes or integer lanes, and how many (scalars: 1); the
// four-lane type of its family (what tex2Dgather returns).
template <class T>
struct __hipmlir_texel_of {};
#define HIPMLIR_TEXEL(T, E, L, S, F, V)                \
  template <>                                          \
  struct __hipmlir_texel_of<T> {                       \
    typedef E element;                                 \
    typedef V four;                                    \
    static constexpr int lanes = L;                    \
    static constexpr bool scalar = S;                  \
    static constexpr bool is_float = F;                \
  };
#define HIPMLIR_TEXEL_FAMILY(E, N, F)          \
  HIPMLIR_TEXEL(E, E, 1, true, F, N##4)        \
  HIPMLIR_TEXEL(N##1, E, 1, false, F, N##4)    \
  HIPMLIR_TEXEL(N##2, E, 2, false, F, N##4)    \
  HIPMLIR_TEXEL(N##3, E, 3, false, F, N##4)    \
  HIPMLIR_TEXEL(N##4, E, 4, false, F, N##4)
HIPMLIR_TEXEL(char, char, 1, true, false, char4)
HIPMLIR_TEXEL_FAMILY(signed char, char, false)
HIPMLIR_TEXEL_FAMILY(unsigned char, uchar, false)
HIPMLIR_TEXEL_FAMILY(short, short, false)
HIPMLIR_TEXEL_FAMILY(unsigned short, ushort, false)
HIPMLIR_TEXEL_FAMILY(int, int, false)
HIPMLIR_TEXEL_FAMILY(unsigned int, uint, false)
HIPMLIR_TEXEL_FAMILY(float, float, true)
#undef HIPMLIR_TEXEL_FAMILY
#undef HIPMLIR_TEXEL

// A float texel type's lanes as a float4 (missing lanes 0).
template <class T>
__device__ inline float4 __hipmlir_texel_unpack(T v) {
  typedef __hipmlir_texel_of<T> tr;
  float4 r = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if constexpr (tr::scalar) {
    r.x = (float)v;
  } else {
    r.x = (float)v.x;
    if constexpr (tr::lanes > 1) r.y = (float)v.y;
    if constexpr (tr::lanes > 2) r.z = (float)v.z;
    if constexpr (tr::lanes > 3) r.w = (float)v.w;
  }
  return r;
}

// The first lanes of v as a T.
template <class T, class V>
__device__ inline T __hipmlir_texel_pack(V v) {
  typedef __hipmlir_texel_of<T> tr;
  typedef typename tr::element E;
  if constexpr (tr::scalar) {
    return (E)v.x;
  } else {
    T r;
    r.x = (E)v.x;
    if constexpr (tr::lanes > 1) r.y = (E)v.y;
    if constexpr (tr::lanes > 2) r.z = (E)v.z;
    if constexpr (tr::lanes > 3) r.w = (E)v.w;
    return r;
  }
}

// A half's bits as a float (no fp16 arithmetic needed on the device).
__device__ inline float __hipmlir_tex_half(unsigned int h) {
  unsigned int sign = (h & 0x8000u) << 16;
  unsigned int exponent = (h >> 10) & 31u;
  unsigned int mantissa = h & 1023u;
  float magnitude;
  if (exponent == 0u) {
    magnitude = (float)mantissa * 5.9604644775390625e-8f;  // subnormal: mantissa * 2^-24
  } else if (exponent == 31u) {
    magnitude = __uint_as_float(0x7f800000u | (mantissa << 13));
  } else {
    magnitude = __uint_as_float(((exponent + 112u) << 23) | (mantissa << 13));
  }
  return __uint_as_float(__float_as_uint(magnitude) | sign);
}

// The address of texel (x, y, z); the indices are in range.
__device__ inline const unsigned char* __hipmlir_texel_address(hipTextureObject_t t, int x, int y,
                                                               int z) {
  unsigned long long texel = (unsigned long long)(t->channels * t->channel_bytes);
  return t->base + (unsigned long long)z * t->slice_pitch + (unsigned long long)y * t->row_pitch +
         (unsigned long long)x * texel;
}

// Channel c of the texel at p as an integer (sign- or zero-extended; 32-bit floats as bits).
__device__ inline int __hipmlir_tex_raw(hipTextureObject_t t, const unsigned char* p, int c) {
  unsigned int bytes = t->channel_bytes;
  bool is_signed = t->kind == hipChannelFormatKindSigned;
  if (bytes == 1u) {
    unsigned char u = p[c];
    return is_signed ? (int)(signed char)u : (int)u;
  }
  if (bytes == 2u) {
    unsigned short u = ((const unsigned short*)p)[c];
    return is_signed ? (int)(short)u : (int)u;
  }
  return ((const int*)p)[c];
}

// An sRGB-encoded value in [0, 1] as linear intensity (the sRGB standard's curve, as OpenCL's
// sRGB images and CUDA's sRGB textures decode it).
__device__ inline float __hipmlir_srgb_to_linear(float v) {
  return v <= 0.04045f ? v * (1.0f / 12.92f) : powf((v + 0.055f) * (1.0f / 1.055f), 2.4f);
}

// Channel c of the texel at p as a float, per the read mode (and sRGB decoding of r, g, b where
// the object asks for it: the runtime sets srgb only for 8-bit unsigned normalized reads).
__device__ inline float __hipmlir_tex_value(hipTextureObject_t t, const unsigned char* p, int c) {
  unsigned int bytes = t->channel_bytes;
  if (t->kind == hipChannelFormatKindFloat) {
    if (bytes == 4u) return ((const float*)p)[c];
    return __hipmlir_tex_half(((const unsigned short*)p)[c]);
  }
  int raw = __hipmlir_tex_raw(t, p, c);
  if (t->kind == hipChannelFormatKindUnsigned) {
    if (t->read_mode == hipReadModeNormalizedFloat) {
      float v = (float)raw / (bytes == 1u ? 255.0f : 65535.0f);
      return t->srgb && c < 3 ? __hipmlir_srgb_to_linear(v) : v;
    }
    return (float)(unsigned int)raw;
  }
  if (t->read_mode == hipReadModeNormalizedFloat) {
    return fmaxf((float)raw / (bytes == 1u ? 127.0f : 32767.0f), -1.0f);
  }
  return (float)raw;
}

// Texel (x, y, z) as float lanes; an index of -1 (outside, border addressing) reads the border
// color. Missing channels read 0.
__device__ inline float4 __hipmlir_texel_float(hipTextureObject_t t, int x, int y, int z) {
  float4 r = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (x < 0 || y < 0 || z < 0) {
    return make_float4(t->border_color[0], t->border_color[1], t->border_color[2],
                       t->border_color[3]);
  }
  const unsigned char* p = __hipmlir_texel_address(t, x, y, z);
  unsigned int n = t->channels;
  r.x = __hipmlir_tex_value(t, p, 0);
  if (n > 1u) r.y = __hipmlir_tex_value(t, p, 1);
  if (n > 2u) r.z = __hipmlir_tex_value(t, p, 2);
  if (n > 3u) r.w = __hipmlir_tex_value(t, p, 3);
  return r;
}

// The same as integer lanes (element read mode of integer formats).
__device__ inline int4 __hipmlir_texel_int(hipTextureObject_t t, int x, int y, int z) {
  int4 r = make_int4(0, 0, 0, 0);
  if (x < 0 || y < 0 || z < 0) {
    return make_int4((int)t->border_color[0], (int)t->border_color[1], (int)t->border_color[2],
                     (int)t->border_color[3]);
  }
  const unsigned char* p = __hipmlir_texel_address(t, x, y, z);
  unsigned int n = t->channels;
  r.x = __hipmlir_tex_raw(t, p, 0);
  if (n > 1u) r.y = __hipmlir_tex_raw(t, p, 1);
  if (n > 2u) r.z = __hipmlir_tex_raw(t, p, 2);
  if (n > 3u) r.w = __hipmlir_tex_raw(t, p, 3);
  return r;
}

// One axis of a sample: the texel indices i0 and i1 (-1 outside with border addressing) and the
// weight a of i1. Point filtering gives i1 = i0 and a = 0.
struct __hipmlir_tex_axis {
  int i0;
  int i1;
  float a;
};
// The texel that the integral texel coordinate c (a float, as the units compute it) of an axis
// of n texels addresses in `mode`; -1 outside with border addressing.
__device__ inline int __hipmlir_tex_index(unsigned int mode, float c, int n) {
  float size = (float)n;
  if (mode == hipAddressModeWrap) {
    float w = c / size;
    c = (w - floorf(w)) * size;
  } else if (mode == hipAddressModeMirror) {
    float m = c / size;
    float whole = floorf(m);
    float frac = m - whole;
    bool reversing = ((long long)whole & 1) != 0;
    m = (reversing ? 1.0f - frac : frac) * size;
    if (reversing && m == truncf(m)) m -= 1.0f;
    c = m;
  } else if (mode == hipAddressModeBorder && (c < 0.0f || c > size - 1.0f)) {
    return -1;
  }
  return (int)fminf(fmaxf(c, 0.0f), size - 1.0f);
}
__device__ inline __hipmlir_tex_axis __hipmlir_tex_address(hipTextureObject_t t, int axis,
                                                           float s, int n, bool linear) {
  unsigned int mode = t->address_mode[axis];
  bool normalized = t->normalized_coords != 0u;
  if (!normalized && (mode == hipAddressModeWrap || mode == hipAddressModeMirror)) {
    mode = hipAddressModeClamp;
  }
  float u = normalized ? s * (float)n : s;
  // Far outside (and NaN) stays in int range; such coordinates address edge or border texels.
  u = fminf(fmaxf(u, -16777216.0f), 16777216.0f);
  __hipmlir_tex_axis r;
  if (!linear) {
    r.i0 = __hipmlir_tex_index(mode, floorf(u), n);
    r.i1 = r.i0;
    r.a = 0.0f;
    return r;
  }
  // 8 fractional bits, rounded half away from zero, as the units weigh.
  float b = roundf((u - 0.5f) * 256.0f) / 256.0f;
  float f = floorf(b);
  r.a = b - f;
  r.i0 = __hipmlir_tex_index(mode, f, n);
  r.i1 = __hipmlir_tex_index(mode, f + 1.0f, n);
  return r;
}

__device__ inline int __hipmlir_tex_layer(hipTextureObject_t t, int layer) {
  int last = (int)t->depth - 1;
  return layer < 0 ? 0 : (layer > last ? last : layer);
}

// A sample of a `dims`-dimensional texture (layered ones: at slice `layer`, never filtered
// across layers) as float lanes.
__device__ inline float4 __hipmlir_tex_sample_float(hipTextureObject_t t, int dims, float x,
                                                    float y, float z, int layer) {
  bool linear = t->filter_mode == hipFilterModeLinear;
  __hipmlir_tex_axis ax = __hipmlir_tex_address(t, 0, x, (int)t->width, linear);
  __hipmlir_tex_axis ay;
  ay.i0 = 0;
  ay.i1 = 0;
  ay.a = 0.0f;
  __hipmlir_tex_axis az;
  az.i0 = layer;
  az.i1 = layer;
  az.a = 0.0f;
  if (dims > 1) ay = __hipmlir_tex_address(t, 1, y, (int)t->height, linear);
  if (dims > 2) az = __hipmlir_tex_address(t, 2, z, (int)t->depth, linear);
  if (!linear) return __hipmlir_texel_float(t, ax.i0, ay.i0, az.i0);
  // The corners of the filter's footprint (2, 4 or 8), summed from the last back, each weighed
  // value rounded on its own (no fused multiply-add), as the units sum them.
  int corners = dims == 1 ? 2 : (dims == 2 ? 4 : 8);
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int corner = corners - 1; corner >= 0; --corner) {
    bool hx = (corner & 1) != 0;
    bool hy = (corner & 2) != 0;
    bool hz = (corner & 4) != 0;
    float w = (hx ? ax.a : 1.0f - ax.a) * (hy ? ay.a : 1.0f - ay.a) * (hz ? az.a : 1.0f - az.a);
    float4 v = __hipmlir_texel_float(t, hx ? ax.i1 : ax.i0, hy ? ay.i1 : ay.i0,
                                     hz ? az.i1 : az.i0);
    float4 term = make_float4(w * v.x, w * v.y, w * v.z, w * v.w);
    acc.x = term.x + acc.x;
    acc.y = term.y + acc.y;
    acc.z = term.z + acc.z;
    acc.w = term.w + acc.w;
  }
  return acc;
}

// The same as integer lanes: point sampling (linear filtering needs float results).
__device__ inline int4 __hipmlir_tex_sample_int(hipTextureObject_t t, int dims, float x, float y,
                                                float z, int layer) {
  int ix = __hipmlir_tex_address(t, 0, x, (int)t->width, false).i0;
  int iy = dims > 1 ? __hipmlir_tex_address(t, 1, y, (int)t->height, false).i0 : 0;
  int iz = dims > 2 ? __hipmlir_tex_address(t, 2, z, (int)t->depth, false).i0 : layer;
  return __hipmlir_texel_int(t, ix, iy, iz);
}

template <class T>
__device__ inline T __hipmlir_tex_sample(hipTextureObject_t t, int dims, float x, float y, float z,
                                         int layer) {
  if constexpr (__hipmlir_texel_of<T>::is_float) {
    return __hipmlir_texel_pack<T>(__hipmlir_tex_sample_float(t, dims, x, y, z, layer));
  } else {
    return __hipmlir_texel_pack<T>(__hipmlir_tex_sample_int(t, dims, x, y, z, layer));
  }
}

// Lane c (0 to 3) of v.
template <class V>
__device__ inline auto __hipmlir_lane(V v, int c) -> decltype(v.x) {
  return c == 0 ? v.x : (c == 1 ? v.y : (c == 2 ? v.z : v.w));
}

// tex2Dgather: component `comp` of the four texels bilinear filtering at (x, y) would weigh,
// whatever the filter mode, as (i0, j1), (i1, j1), (i1, j0), (i0, j0): the order of CUDA's and
// OpenGL's gathers. T is the texel type as ROCm takes it (float: a float4 is returned) or the
// four-lane result as CUDA code names it (float4).
template <class T>
__device__ inline typename __hipmlir_texel_of<T>::four tex2Dgather(hipTextureObject_t t, float x,
                                                                   float y, int comp = 0) {
  typedef typename __hipmlir_texel_of<T>::four R;
  __hipmlir_tex_axis ax = __hipmlir_tex_address(t, 0, x, (int)t->width, true);
  __hipmlir_tex_axis ay = __hipmlir_tex_address(t, 1, y, (int)t->height, true);
  if constexpr (__hipmlir_texel_of<T>::is_float) {
    return __hipmlir_texel_pack<R>(
        make_float4(__hipmlir_lane(__hipmlir_texel_float(t, ax.i0, ay.i1, 0), comp),
                    __hipmlir_lane(__hipmlir_texel_float(t, ax.i1, ay.i1, 0), comp),
                    __hipmlir_lane(__hipmlir_texel_float(t, ax.i1, ay.i0, 0), comp),
                    __hipmlir_lane(__hipmlir_texel_float(t, ax.i0, ay.i0, 0), comp)));
  } else {
    return __hipmlir_texel_pack<R>(
        make_int4(__hipmlir_lane(__hipmlir_texel_int(t, ax.i0, ay.i1, 0), comp),
                  __hipmlir_lane(__hipmlir_texel_int(t, ax.i1, ay.i1, 0), comp),
                  __hipmlir_lane(__hipmlir_texel_int(t, ax.i1, ay.i0, 0), comp),
                  __hipmlir_lane(__hipmlir_texel_int(t, ax.i0, ay.i0, 0), comp)));
  }
}
template <class T>
__device__ inline void tex2Dgather(T* out, hipTextureObject_t t, float x, float y, int comp = 0) {
  *out = tex2Dgather<T>(t, x, y, comp);
}

template <class T>
__device__ inline T tex1Dfetch(hipTextureObject_t t, int x) {
  if constexpr (__hipmlir_texel_of<T>::is_float) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (x >= 0 && x < (int)t->width) v = __hipmlir_texel_float(t, x, 0, 0);
    return __hipmlir_texel_pack<T>(v);
  } else {
    int4 v = make_int4(0, 0, 0, 0);
    if (x >= 0 && x < (int)t->width) v = __hipmlir_texel_int(t, x, 0, 0);
    return __hipmlir_texel_pack<T>(v);
  }
}
template <class T>
__device__ inline T tex1D(hipTextureObject_t t, float x) {
  return __hipmlir_tex_sample<T>(t, 1, x, 0.0f, 0.0f, 0);
}
template <class T>
__device__ inline T tex2D(hipTextureObject_t t, float x, float y) {
  return __hipmlir_tex_sample<T>(t, 2, x, y, 0.0f, 0);
}
template <class T>
__device__ inline T tex3D(hipTextureObject_t t, float x, float y, float z) {
  return __hipmlir_tex_sample<T>(t, 3, x, y, z, 0);
}
template <class T>
__device__ inline T tex1DLayered(hipTextureObject_t t, float x, int layer) {
  return __hipmlir_tex_sample<T>(t, 1, x, 0.0f, 0.0f, __hipmlir_tex_layer(t, layer));
}
template <class T>
__device__ inline T tex2DLayered(hipTextureObject_t t, float x, float y, int layer) {
  return __hipmlir_tex_sample<T>(t, 2, x, y, 0.0f, __hipmlir_tex_layer(t, layer));
}
// The level(s) a level of detail reads: `lo` alone, or `lo` and `hi` blended by f.
struct __hipmlir_tex_levels {
  hipTextureObject_t lo;
  hipTextureObject_t hi;
  float f;
};
template <class T>
__device__ inline __hipmlir_tex_levels __hipmlir_tex_pick_levels(hipTextureObject_t t,
                                                                 float lod) {
  __hipmlir_tex_levels r;
  r.lo = t;
  r.hi = t;
  r.f = 0.0f;
  if (t->levels == 0u) return r;
  lod = fminf(fmaxf(lod + t->mipmap_level_bias, t->min_mipmap_level_clamp),
              t->max_mipmap_level_clamp);
  lod = fminf(fmaxf(lod, 0.0f), (float)(t->levels - 1u));
  if (__hipmlir_texel_of<T>::is_float && t->mipmap_filter_mode == hipFilterModeLinear) {
    float whole = floorf(lod);
    r.lo = t + 1 + (int)whole;
    r.hi = lod > whole ? r.lo + 1 : r.lo;
    r.f = lod - whole;
  } else {
    // The nearest level; a level of detail halfway between two reads the lower (OpenGL's rule).
    r.lo = t + 1 + (int)(ceilf(lod + 0.5f) - 1.0f);
    r.hi = r.lo;
  }
  return r;
}
// a and b, read from two levels, blended (float results only: others read one level).
template <class T>
__device__ inline T __hipmlir_tex_mix(T a, T b, float f) {
  if constexpr (__hipmlir_texel_of<T>::is_float) {
    float4 x = __hipmlir_texel_unpack(a), y = __hipmlir_texel_unpack(b);
    float g = 1.0f - f;
    return __hipmlir_texel_pack<T>(make_float4(g * x.x + f * y.x, g * x.y + f * y.y,
                                               g * x.z + f * y.z, g * x.w + f * y.w));
  } else {
    return a;
  }
}
// The level of detail of a gradient of `n` axes: log2 of the longer gradient in texels (a
// normalized coordinate's scaled by the level-0 size).
__device__ inline float __hipmlir_tex_grad_lod(hipTextureObject_t t, int n, float4 dx,
                                               float4 dy) {
  float sx = t->normalized_coords ? (float)t->width : 1.0f;
  float sy = t->normalized_coords ? (float)t->height : 1.0f;
  float sz = t->normalized_coords ? (float)t->depth : 1.0f;
  float a = dx.x * sx, b = n > 1 ? dx.y * sy : 0.0f, c = n > 2 ? dx.z * sz : 0.0f;
  float d = dy.x * sx, e = n > 1 ? dy.y * sy : 0.0f, g = n > 2 ? dy.z * sz : 0.0f;
  return log2f(fmaxf(sqrtf(a * a + b * b + c * c), sqrtf(d * d + e * e + g * g)));
}
#define HIPMLIR_TEX_AT_LEVEL(T, t, level, READ)                                 \
  __hipmlir_tex_levels l_ = __hipmlir_tex_pick_levels<T>(t, level);            \
  T a_ = READ(l_.lo);                                                           \
  return l_.f == 0.0f ? a_ : __hipmlir_tex_mix<T>(a_, READ(l_.hi), l_.f)
template <class T>
__device__ inline T tex1DLod(hipTextureObject_t t, float x, float level) {
#define HIPMLIR_READ(u) tex1D<T>(u, x)
  HIPMLIR_TEX_AT_LEVEL(T, t, level, HIPMLIR_READ);
#undef HIPMLIR_READ
}
template <class T>
__device__ inline T tex2DLod(hipTextureObject_t t, float x, float y, float level) {
#define HIPMLIR_READ(u) tex2D<T>(u, x, y)
  HIPMLIR_TEX_AT_LEVEL(T, t, level, HIPMLIR_READ);
#undef HIPMLIR_READ
}
template <class T>
__device__ inline T tex3DLod(hipTextureObject_t t, float x, float y, float z, float level) {
#define HIPMLIR_READ(u) tex3D<T>(u, x, y, z)
  HIPMLIR_TEX_AT_LEVEL(T, t, level, HIPMLIR_READ);
#undef HIPMLIR_READ
}
template <class T>
__device__ inline T tex1DLayeredLod(hipTextureObject_t t, float x, int layer, float level) {
#define HIPMLIR_READ(u) tex1DLayered<T>(u, x, layer)
  HIPMLIR_TEX_AT_LEVEL(T, t, level, HIPMLIR_READ);
#undef HIPMLIR_READ
}
template <class T>
__device__ inline T tex2DLayeredLod(hipTextureObject_t t, float x, float y, int layer,
                                    float level) {
#define HIPMLIR_READ(u) tex2DLayered<T>(u, x, y, layer)
  HIPMLIR_TEX_AT_LEVEL(T, t, level, HIPMLIR_READ);
#undef HIPMLIR_READ
}
template <class T>
__device__ inline T tex1DGrad(hipTextureObject_t t, float x, float dx, float dy) {
  float lod = __hipmlir_tex_grad_lod(t, 1, make_float4(dx, 0.0f, 0.0f, 0.0f),
                                     make_float4(dy, 0.0f, 0.0f, 0.0f));
  return tex1DLod<T>(t, x, lod);
}
template <class T>
__device__ inline T tex2DGrad(hipTextureObject_t t, float x, float y, float2 dx, float2 dy) {
  float lod = __hipmlir_tex_grad_lod(t, 2, make_float4(dx.x, dx.y, 0.0f, 0.0f),
                                     make_float4(dy.x, dy.y, 0.0f, 0.0f));
  return tex2DLod<T>(t, x, y, lod);
}
template <class T>
__device__ inline T tex3DGrad(hipTextureObject_t t, float x, float y, float z, float4 dx,
                              float4 dy) {
  return tex3DLod<T>(t, x, y, z, __hipmlir_tex_grad_lod(t, 3, dx, dy));
}
template <class T>
__device__ inline T tex1DLayeredGrad(hipTextureObject_t t, float x, int layer, float dx,
                                     float dy) {
  float lod = __hipmlir_tex_grad_lod(t, 1, make_float4(dx, 0.0f, 0.0f, 0.0f),
                                     make_float4(dy, 0.0f, 0.0f, 0.0f));
  return tex1DLayeredLod<T>(t, x, layer, lod);
}
template <class T>
__device__ inline T tex2DLayeredGrad(hipTextureObject_t t, float x, float y, int layer, float2 dx,
                                     float2 dy) {
  float lod = __hipmlir_tex_grad_lod(t, 2, make_float4(dx.x, dx.y, 0.0f, 0.0f),
                                     make_float4(dy.x, dy.y, 0.0f, 0.0f));
  return tex2DLayeredLod<T>(t, x, y, layer, lod);
}

// The forms that store through a pointer.
template <class T>
__device__ inline void tex1Dfetch(T* out, hipTextureObject_t t, int x) {
  *out = tex1Dfetch<T>(t, x);
}
template <class T>
__device__ inline void tex1D(T* out, hipTextureObject_t t, float x) {
  *out = tex1D<T>(t, x);
}
template <class T>
__device__ inline void tex2D(T* out, hipTextureObject_t t, float x, float y) {
  *out = tex2D<T>(t, x, y);
}
template <class T>
__device__ inline void tex3D(T* out, hipTextureObject_t t, float x, float y, float z) {
  *out = tex3D<T>(t, x, y, z);
}
template <class T>
__device__ inline void tex1DLayered(T* out, hipTextureObject_t t, float x, int layer) {
  *out = tex1DLayered<T>(t, x, layer);
}
template <class T>
__device__ inline void tex2DLayered(T* out, hipTextureObject_t t, float x, float y, int layer) {
  *out = tex2DLayered<T>(t, x, y, layer);
}

// Cubemaps: the direction (x, y, z) picks the face its largest component points to and a point
// on it, as CUDA's table (OpenGL's) says: face 0 +x (s, t from -z, -y), 1 -x (z, -y), 2 +y (x, z),
// 3 -y (x, -z), 4 +z (x, -y), 5 -z (-x, -y), each divided by the largest magnitude and mapped
// from [-1, 1] to [0, 1]; between components of equal magnitude z wins, then y, as AMD's cube
// instructions and the HIP project's reference model choose. The face is then sampled as a
// layer (filtered within it, never across its edges), at face + 6 * layer of a layered cubemap.
struct __hipmlir_cube_point {
  int face;
  float s;
  float t;
};
__device__ inline __hipmlir_cube_point __hipmlir_cube_face(float x, float y, float z) {
  float ax = fabsf(x), ay = fabsf(y), az = fabsf(z);
  __hipmlir_cube_point p;
  float sc, tc, ma;
  if (ax > ay && ax > az) {
    p.face = x >= 0.0f ? 0 : 1;
    sc = x >= 0.0f ? -z : z;
    tc = -y;
    ma = ax;
  } else if (ay >= ax && ay > az) {
    p.face = y >= 0.0f ? 2 : 3;
    sc = x;
    tc = y >= 0.0f ? z : -z;
    ma = ay;
  } else {
    p.face = z >= 0.0f ? 4 : 5;
    sc = z >= 0.0f ? x : -x;
    tc = -y;
    ma = az;
  }
  float inv = ma > 0.0f ? 1.0f / ma : 0.0f;
  p.s = 0.5f * (sc * inv + 1.0f);
  p.t = 0.5f * (tc * inv + 1.0f);
  return p;
}

template <class T>
__device__ inline T __hipmlir_tex_cube(hipTextureObject_t t, float x, float y, float z,
                                       int layer) {
  __hipmlir_cube_point p = __hipmlir_cube_face(x, y, z);
  // The face's coordinates are normalized; a texture with unnormalized ones is addressed in
  // texels.
  float u = t->normalized_coords ? p.s : p.s * (float)t->width;
  float v = t->normalized_coords ? p.t : p.t * (float)t->height;
  return __hipmlir_tex_sample<T>(t, 2, u, v, 0.0f, __hipmlir_tex_layer(t, layer * 6 + p.face));
}

template <class T>
__device__ inline T texCubemap(hipTextureObject_t t, float x, float y, float z) {
  return __hipmlir_tex_cube<T>(t, x, y, z, 0);
}
template <class T>
__device__ inline T texCubemapLayered(hipTextureObject_t t, float x, float y, float z, int layer) {
  return __hipmlir_tex_cube<T>(t, x, y, z, layer);
}
// A cube face's gradients are taken in the face's own texels (the x axis's size).
template <class T>
__device__ inline T texCubemapLod(hipTextureObject_t t, float x, float y, float z, float level) {
#define HIPMLIR_READ(u) texCubemap<T>(u, x, y, z)
  HIPMLIR_TEX_AT_LEVEL(T, t, level, HIPMLIR_READ);
#undef HIPMLIR_READ
}
template <class T>
__device__ inline T texCubemapGrad(hipTextureObject_t t, float x, float y, float z, float4 dx,
                                   float4 dy) {
  return texCubemapLod<T>(t, x, y, z, __hipmlir_tex_grad_lod(t, 1, dx, dy));
}
template <class T>
__device__ inline T texCubemapLayeredLod(hipTextureObject_t t, float x, float y, float z,
                                         int layer, float level) {
#define HIPMLIR_READ(u) texCubemapLayered<T>(u, x, y, z, layer)
  HIPMLIR_TEX_AT_LEVEL(T, t, level, HIPMLIR_READ);
#undef HIPMLIR_READ
}
template <class T>
__device__ inline T texCubemapLayeredGrad(hipTextureObject_t t, float x, float y, float z,
                                          int layer, float4 dx, float4 dy) {
  return texCubemapLayeredLod<T>(t, x, y, z, layer, __hipmlir_tex_grad_lod(t, 1, dx, dy));
}
template <class T>
__device__ inline void texCubemap(T* out, hipTextureObject_t t, float x, float y, float z) {
  *out = texCubemap<T>(t, x, y, z);
}
template <class T>
__device__ inline void texCubemapLayered(T* out, hipTextureObject_t t, float x, float y, float z,
                                         int layer) {
  *out = texCubemapLayered<T>(t, x, y, z, layer);
}

// Reads through a legacy texture reference (texture<T, dim, mode>, hipmlir_texture_types.h):
// the object its binding stored in the device's copy, read as the reference's type and read mode
// say: T itself, or for hipReadModeNormalizedFloat the float type of T's lanes (uchar4 reads as
// float4).
template <class T, bool Scalar, int Lanes>
struct __hipmlir_float_texel {};
template <class T>
struct __hipmlir_float_texel<T, true, 1> { typedef float type; };
template <class T>
struct __hipmlir_float_texel<T, false, 1> { typedef float1 type; };
template <class T>
struct __hipmlir_float_texel<T, false, 2> { typedef float2 type; };
template <class T>
struct __hipmlir_float_texel<T, false, 3> { typedef float3 type; };
template <class T>
struct __hipmlir_float_texel<T, false, 4> { typedef float4 type; };
template <class T, enum hipTextureReadMode Mode>
struct __hipmlir_reference_texel {
  typedef T type;
};
template <class T>
struct __hipmlir_reference_texel<T, hipReadModeNormalizedFloat> {
  typedef typename __hipmlir_float_texel<T, __hipmlir_texel_of<T>::scalar,
                                         __hipmlir_texel_of<T>::lanes>::type type;
};
#define HIPMLIR_TEXTURE_REFERENCE_READ(NAME, DIM, PARAMS, ARGS)                              \
  template <class T, enum hipTextureReadMode M>                                              \
  __device__ inline typename __hipmlir_reference_texel<T, M>::type NAME(                     \
      const texture<T, DIM, M>& t HIPMLIR_EXPAND PARAMS) {                                   \
    return NAME<typename __hipmlir_reference_texel<T, M>::type>(t.textureObject HIPMLIR_EXPAND \
                                                                    ARGS);                   \
  }
#define HIPMLIR_EXPAND(...) , __VA_ARGS__
HIPMLIR_TEXTURE_REFERENCE_READ(tex1Dfetch, hipTextureType1D, (int x), (x))
HIPMLIR_TEXTURE_REFERENCE_READ(tex1D, hipTextureType1D, (float x), (x))
HIPMLIR_TEXTURE_REFERENCE_READ(tex1DLod, hipTextureType1D, (float x, float level), (x, level))
HIPMLIR_TEXTURE_REFERENCE_READ(tex1DGrad, hipTextureType1D, (float x, float dx, float dy),
                               (x, dx, dy))
HIPMLIR_TEXTURE_REFERENCE_READ(tex2D, hipTextureType2D, (float x, float y), (x, y))
HIPMLIR_TEXTURE_REFERENCE_READ(tex2DLod, hipTextureType2D, (float x, float y, float level),
                               (x, y, level))
HIPMLIR_TEXTURE_REFERENCE_READ(tex2DGrad, hipTextureType2D, (float x, float y, float2 dx, float2 dy),
                               (x, y, dx, dy))
HIPMLIR_TEXTURE_REFERENCE_READ(tex3D, hipTextureType3D, (float x, float y, float z), (x, y, z))
HIPMLIR_TEXTURE_REFERENCE_READ(tex3DLod, hipTextureType3D, (float x, float y, float z, float level),
                               (x, y, z, level))
HIPMLIR_TEXTURE_REFERENCE_READ(tex3DGrad, hipTextureType3D,
                               (float x, float y, float z, float4 dx, float4 dy),
                               (x, y, z, dx, dy))
HIPMLIR_TEXTURE_REFERENCE_READ(tex1DLayered, hipTextureType1DLayered, (float x, int layer),
                               (x, layer))
HIPMLIR_TEXTURE_REFERENCE_READ(tex1DLayeredLod, hipTextureType1DLayered,
                               (float x, int layer, float level), (x, layer, level))
HIPMLIR_TEXTURE_REFERENCE_READ(tex1DLayeredGrad, hipTextureType1DLayered,
                               (float x, int layer, float dx, float dy), (x, layer, dx, dy))
HIPMLIR_TEXTURE_REFERENCE_READ(tex2DLayered, hipTextureType2DLayered, (float x, float y, int layer),
                               (x, y, layer))
HIPMLIR_TEXTURE_REFERENCE_READ(tex2DLayeredLod, hipTextureType2DLayered,
                               (float x, float y, int layer, float level), (x, y, layer, level))
HIPMLIR_TEXTURE_REFERENCE_READ(tex2DLayeredGrad, hipTextureType2DLayered,
                               (float x, float y, int layer, float2 dx, float2 dy),
                               (x, y, layer, dx, dy))
HIPMLIR_TEXTURE_REFERENCE_READ(texCubemap, hipTextureTypeCubemap, (float x, float y, float z),
                               (x, y, z))
HIPMLIR_TEXTURE_REFERENCE_READ(texCubemapLod, hipTextureTypeCubemap,
                               (float x, float y, float z, float level), (x, y, z, level))
HIPMLIR_TEXTURE_REFERENCE_READ(texCubemapGrad, hipTextureTypeCubemap,
                               (float x, float y, float z, float4 dx, float4 dy),
                               (x, y, z, dx, dy))
HIPMLIR_TEXTURE_REFERENCE_READ(texCubemapLayered, hipTextureTypeCubemapLayered,
                               (float x, float y, float z, int layer), (x, y, z, layer))
HIPMLIR_TEXTURE_REFERENCE_READ(texCubemapLayeredLod, hipTextureTypeCubemapLayered,
                               (float x, float y, float z, int layer, float level),
                               (x, y, z, layer, level))
HIPMLIR_TEXTURE_REFERENCE_READ(texCubemapLayeredGrad, hipTextureTypeCubemapLayered,
                               (float x, float y, float z, int layer, float4 dx, float4 dy),
                               (x, y, z, layer, dx, dy))
#undef HIPMLIR_EXPAND
#undef HIPMLIR_TEXTURE_REFERENCE_READ
#undef HIPMLIR_TEX_AT_LEVEL
// tex2Dgather on a reference returns the four-lane type of what it reads, as on an object.
template <class T, enum hipTextureReadMode M>
__device__ inline
    typename __hipmlir_texel_of<typename __hipmlir_reference_texel<T, M>::type>::four
    tex2Dgather(const texture<T, hipTextureType2D, M>& t, float x, float y, int comp = 0) {
  return tex2Dgather<typename __hipmlir_reference_texel<T, M>::type>(t.textureObject, x, y, comp);
}

#endif  // __HIP_DEVICE_COMPILE__

#endif  // HIPMLIR_TEXTURE_H
