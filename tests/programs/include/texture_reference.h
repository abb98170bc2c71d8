// A host model of a texture unit, for checking device texture reads: the OpenCL sampler rules
// that HIP and CUDA hardware share (texel centres at i + 0.5; clamp to edge; border; wrap and
// mirror for normalized coordinates only, clamp otherwise; linear filtering with float weights;
// 8- and 16-bit integers normalized to [0, 1] or [-1, 1]).
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
    if (kind == hipChannelFormatKindUnsigned) return (float)r * (bytes == 1 ? 1.0f / 255.0f : 1.0f / 65535.0f);
    return std::fmax((float)r * (bytes == 1 ? 1.0f / 127.0f : 1.0f / 32767.0f), -1.0f);
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

  // The texel indices and weight along one axis of size n.
  void axis(int a, float s, int n, bool lin, int* i0, int* i1, float* w) const {
    hipTextureAddressMode m = mode[a];
    if (!normalized_coords && (m == hipAddressModeWrap || m == hipAddressModeMirror)) {
      m = hipAddressModeClamp;
    }
    float u;
    if (m == hipAddressModeWrap) {
      u = (s - std::floor(s)) * (float)n;
    } else if (m == hipAddressModeMirror) {
      u = std::fabs(s - 2.0f * std::rint(0.5f * s)) * (float)n;
    } else {
      u = normalized_coords ? s * (float)n : s;
    }
    auto place = [&](int i) {
      switch (m) {
        case hipAddressModeWrap:
          return i < 0 ? i + n : (i >= n ? i - n : i);
        case hipAddressModeMirror:
          return i < 0 ? 0 : (i >= n ? n - 1 : i);
        case hipAddressModeBorder:
          return (i < 0 || i >= n) ? -1 : i;
        default:
          return i < 0 ? 0 : (i >= n ? n - 1 : i);
      }
    };
    if (!lin) {
      *i0 = *i1 = place((int)std::floor(u));
      *w = 0.0f;
      return;
    }
    float b = u - 0.5f;
    float f = std::floor(b);
    *i0 = place((int)f);
    *i1 = place((int)f + 1);
    *w = b - f;
  }

  // A sample of a dims-dimensional texture; layered textures read slice `layer`.
  HostTexel sample(int dims, float x, float y, float z, int layer) const {
    int x0, x1, y0 = 0, y1 = 0, z0 = layer, z1 = layer;
    float wx, wy = 0.0f, wz = 0.0f;
    axis(0, x, width, linear_filter, &x0, &x1, &wx);
    if (dims > 1) axis(1, y, height, linear_filter, &y0, &y1, &wy);
    if (dims > 2) axis(2, z, depth, linear_filter, &z0, &z1, &wz);
    HostTexel out = {{0, 0, 0, 0}};
    for (int corner = 0; corner < 8; ++corner) {
      bool hx = corner & 1, hy = corner & 2, hz = corner & 4;
      float w = (hx ? wx : 1.0f - wx) * (hy ? wy : 1.0f - wy) * (hz ? wz : 1.0f - wz);
      if (w == 0.0f) continue;
      HostTexel t = texel(hx ? x1 : x0, hy ? y1 : y0, hz ? z1 : z0);
      for (int c = 0; c < 4; ++c) out.f[c] += w * t.f[c];
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
