// A host model of a texture unit, for checking device texture reads: the rules AMD's and NVIDIA's
// units follow (texel centres at i + 0.5; clamp to edge; border; wrap and mirror of each texel
// index for normalized coordinates only, clamp otherwise; linear filtering with weights of 8
// fractional bits;
// 8- and 16-bit integers normalized to [0, 1] or [-1, 1]; sRGB decoding of 8-bit r, g, b).
#pragma once

#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

struct HostTexel {
  float f[4];
};

struct HostTexture {
  // Texels: rows of `width` texels of `channels` channels of `bytes` bytes, packed.
  std::vector<unsigned char> data;
  int width = 1, height = 1, depth = 1;
  int channels = 1, bytes = 4;
  hipChannelFormatKind kind = hipChannelFormatKindFloat;
  hipTextureAddressMode mode[3] = {hipAddressModeClamp, hipAddressModeClamp, hipAddressModeClamp};
  bool linear_filter = false;
  bool normalized_read = false;
  bool normalized_coords = false;
  bool srgb = false;  // 8-bit unsigned r, g, b read as normalized floats are sRGB-encoded
  float border[4] = {0, 0, 0, 0};

  long long raw(int x, int y, int z, int c) const {
    size_t at = ((((size_t)z * height + y) * width + x) * channels + c) * bytes;
    const unsigned char* p = data.data() + at;
    if (bytes == 1) return kind == hipChannelFormatKindSigned ? (long long)(int8_t)*p : *p;
    if (bytes == 2) {
      uint16_t u;
      std::memcpy(&u, p, 2);
      return kind == hipChannelFormatKindSigned ? (long long)(int16_t)u : u;
    }
    int32_t v;
    std::memcpy(&v, p, 4);
    return kind == hipChannelFormatKindUnsigned ? (long long)(uint32_t)v : v;
  }

  float value(int x, int y, int z, int c) const {
    if (kind == hipChannelFormatKindFloat) {
      float v;
      std::memcpy(&v, data.data() + ((((size_t)z * height + y) * width + x) * channels + c) * 4, 4);
      return v;
    }
    long long r = raw(x, y, z, c);
    if (!normalized_read) return (float)r;
    if (kind == hipChannelFormatKindUnsigned) {
      float v = (float)r / (bytes == 1 ? 255.0f : 65535.0f);
      if (srgb && bytes == 1 && c < 3) {
        v = v <= 0.04045f ? v / 12.92f : (float)std::pow((v + 0.055) / 1.055, 2.4);
      }
      return v;
    }
    return std::fmax((float)r / (bytes == 1 ? 127.0f : 32767.0f), -1.0f);
  }

  // A texel, or the border color when an index is -1.
  HostTexel texel(int x, int y, int z) const {
    HostTexel t = {{0, 0, 0, 0}};
    for (int c = 0; c < 4; ++c) {
      if (x < 0 || y < 0 || z < 0) {
        t.f[c] = border[c];
      } else if (c < channels) {
        t.f[c] = value(x, y, z, c);
      }
    }
    return t;
  }

  // The texel an integral texel coordinate c addresses along an axis of size n (-1: border):
  // wrap and mirror in normalized space, a mirrored edge reading the texel below.
  int index(hipTextureAddressMode m, float c, int n) const {
    float size = (float)n;
    if (m == hipAddressModeWrap) {
      float w = c / size;
      c = (w - std::floor(w)) * size;
    } else if (m == hipAddressModeMirror) {
      float v = c / size;
      float whole = std::floor(v);
      float frac = v - whole;
      bool reversing = ((long long)whole & 1) != 0;
      v = (reversing ? 1.0f - frac : frac) * size;
      if (reversing && v == std::trunc(v)) v -= 1.0f;
      c = v;
    } else if (m == hipAddressModeBorder && (c < 0.0f || c > size - 1.0f)) {
      return -1;
    }
    return (int)std::fmin(std::fmax(c, 0.0f), size - 1.0f);
  }

  // The texel indices and weight along one axis of size n: the coordinate in texels, rounded to
  // 8 fractional bits for linear filtering, as texture units weigh.
  void axis(int a, float s, int n, bool lin, int* i0, int* i1, float* w) const {
    hipTextureAddressMode m = mode[a];
    if (!normalized_coords && (m == hipAddressModeWrap || m == hipAddressModeMirror)) {
      m = hipAddressModeClamp;
    }
    float u = normalized_coords ? s * (float)n : s;
    if (!lin) {
      *i0 = *i1 = index(m, std::floor(u), n);
      *w = 0.0f;
      return;
    }
    float b = std::round((u - 0.5f) * 256.0f) / 256.0f;
    float f = std::floor(b);
    *i0 = index(m, f, n);
    *i1 = index(m, f + 1.0f, n);
    *w = b - f;
  }

  // A sample of a dims-dimensional texture; layered textures read slice `layer`. Linear
  // filtering sums the corners' weighed values from the last back.
  HostTexel sample(int dims, float x, float y, float z, int layer) const {
    int x0, x1, y0 = 0, y1 = 0, z0 = layer, z1 = layer;
    float wx, wy = 0.0f, wz = 0.0f;
    axis(0, x, width, linear_filter, &x0, &x1, &wx);
    if (dims > 1) axis(1, y, height, linear_filter, &y0, &y1, &wy);
    if (dims > 2) axis(2, z, depth, linear_filter, &z0, &z1, &wz);
    if (!linear_filter) return texel(x0, y0, z0);
    int corners = dims == 1 ? 2 : (dims == 2 ? 4 : 8);
    HostTexel out = {{0, 0, 0, 0}};
    for (int corner = corners - 1; corner >= 0; --corner) {
      bool hx = corner & 1, hy = corner & 2, hz = corner & 4;
      float w = (hx ? wx : 1.0f - wx) * (hy ? wy : 1.0f - wy) * (hz ? wz : 1.0f - wz);
      HostTexel t = texel(hx ? x1 : x0, hy ? y1 : y0, hz ? z1 : z0);
      for (int c = 0; c < 4; ++c) {
        volatile float term = w * t.f[c];  // rounded on its own, as the units do
        out.f[c] = term + out.f[c];
      }
    }
    return out;
  }

  hipTextureDesc desc() const {
    hipTextureDesc d;
    std::memset(&d, 0, sizeof d);
    for (int a = 0; a < 3; ++a) d.addressMode[a] = mode[a];
    d.filterMode = linear_filter ? hipFilterModeLinear : hipFilterModePoint;
    d.readMode = normalized_read ? hipReadModeNormalizedFloat : hipReadModeElementType;
    d.normalizedCoords = normalized_coords ? 1 : 0;
    d.sRGB = srgb ? 1 : 0;
    for (int c = 0; c < 4; ++c) d.borderColor[c] = border[c];
    return d;
  }
};

// Compares float lanes within a relative tolerance (exact for point sampling: tol 0).
inline int count_far(const char* what, const std::vector<float>& got,
                     const std::vector<float>& want, float tol) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    float limit = tol * std::fmax(1.0f, std::fabs(want[i]));
    bool same = got[i] == want[i] || std::fabs(got[i] - want[i]) <= limit;
    if (!same) {
      if (bad < 5) std::printf("%s: element %zu: got %.9g, want %.9g\n", what, i, got[i], want[i]);
      ++bad;
    }
  }
  return bad;
}
