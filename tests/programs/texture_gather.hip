// tex2Dgather: one component of the 2x2 texels around each coordinate, in CUDA's order, with
// clamped and wrapped addressing, for float and integer textures over 2-D arrays; every result
// compared with a host model.
#include "test_common.h"

#include <cmath>
#include <cstring>

template <typename T>
__global__ void gather(hipTextureObject_t tex, const float2* at, T* out, int n, int comp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2Dgather<T>(tex, at[i].x, at[i].y, comp);
}

// ROCm's spelling: the texel type, a four-lane vector returned.
__global__ void gather_by_texel(hipTextureObject_t tex, const float2* at, float4* out, int n,
                                int comp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2Dgather<float>(tex, at[i].x, at[i].y, comp);
}

__global__ void gather_into(hipTextureObject_t tex, const float2* at, int4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tex2Dgather(&out[i], tex, at[i].x, at[i].y, 3);
}

static const int W = 9, H = 6;

// The texel index of the integral texel coordinate c on an axis of n texels, as texture units
// address it (wrapping in normalized space).
static int address(float c, int n, bool wrap) {
  if (wrap) {
    float w = c / (float)n;
    c = (w - std::floor(w)) * (float)n;
  }
  return (int)std::fmin(std::fmax(c, 0.0f), (float)n - 1.0f);
}

// The first texel coordinate of a 2 x 2 footprint at texel coordinate u: u - 0.5 with 8
// fractional bits, as texture units quantize it.
static float footprint(float u) { return std::floor(std::round((u - 0.5f) * 256.0f) / 256.0f); }

template <typename T>
static hipTextureObject_t texture_over(hipArray_t array, hipTextureAddressMode mode, bool normalized) {
  hipResourceDesc res;
  std::memset(&res, 0, sizeof(res));
  res.resType = hipResourceTypeArray;
  res.res.array.array = array;
  hipTextureDesc td;
  std::memset(&td, 0, sizeof(td));
  td.addressMode[0] = td.addressMode[1] = mode;
  td.filterMode = hipFilterModePoint;
  td.readMode = hipReadModeElementType;
  td.normalizedCoords = normalized;
  hipTextureObject_t tex = nullptr;
  HIP_CHECK(hipCreateTextureObject(&tex, &res, &td, nullptr));
  return tex;
}

int main() {
  int bad = 0;
  // Texel (x, y) holds (x + 10 y, 100 + x, 200 + y, 300 + x * y) in each type.
  std::vector<float4> fl(W * H);
  std::vector<int4> in(W * H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      fl[y * W + x] = make_float4(x + 10 * y, 100 + x, 200 + y, 300 + x * y);
      in[y * W + x] = make_int4(x + 10 * y, 100 + x, 200 + y, 300 + x * y);
    }
  hipChannelFormatDesc fdesc = hipCreateChannelDesc<float4>(), idesc = hipCreateChannelDesc<int4>();
  hipArray_t fa = nullptr, ia = nullptr;
  HIP_CHECK(hipMallocArray(&fa, &fdesc, W, H, hipArrayTextureGather));
  HIP_CHECK(hipMallocArray(&ia, &idesc, W, H, hipArrayTextureGather));
  HIP_CHECK(hipMemcpy2DToArray(fa, 0, 0, fl.data(), W * 16, W * 16, H, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy2DToArray(ia, 0, 0, in.data(), W * 16, W * 16, H, hipMemcpyHostToDevice));

  // Coordinates inside, on texel centres and edges, and outside the array.
  std::vector<float2> at;
  for (float y = -1.25f; y < H + 1.5f; y += 0.75f)
    for (float x = -1.5f; x < W + 1.5f; x += 0.625f) at.push_back(make_float2(x, y));
  const int n = (int)at.size();
  float2* d_at = to_device(at);
  float4* d_f = nullptr;
  int4* d_i = nullptr;
  HIP_CHECK(hipMalloc(&d_f, n * sizeof(float4)));
  HIP_CHECK(hipMalloc(&d_i, n * sizeof(int4)));

  for (int wrap = 0; wrap < 2; ++wrap) {
    hipTextureAddressMode mode = wrap ? hipAddressModeWrap : hipAddressModeClamp;
    // Wrapping needs normalized coordinates: the same points scaled by the size.
    std::vector<float2> coords = at;
    if (wrap)
      for (float2& c : coords) c = make_float2(c.x / W, c.y / H);
    HIP_CHECK(hipMemcpy(d_at, coords.data(), n * sizeof(float2), hipMemcpyHostToDevice));
    hipTextureObject_t ft = texture_over<float4>(fa, mode, wrap), it = texture_over<int4>(ia, mode, wrap);
    for (int comp = 0; comp < 4; ++comp) {
      if (comp == 1) {
        gather_by_texel<<<(n + 63) / 64, 64>>>(ft, d_at, d_f, n, comp);
      } else {
        gather<float4><<<(n + 63) / 64, 64>>>(ft, d_at, d_f, n, comp);
      }
      gather<int4><<<(n + 63) / 64, 64>>>(it, d_at, d_i, n, comp);
      std::vector<float4> gf = from_device(d_f, n);
      std::vector<int4> gi = from_device(d_i, n);
      for (int k = 0; k < n; ++k) {
        // The device's texel coordinates (normalized ones scaled back by the size).
        float ux = wrap ? coords[k].x * (float)W : at[k].x;
        float uy = wrap ? coords[k].y * (float)H : at[k].y;
        float bx = footprint(ux), by = footprint(uy);
        int i0 = address(bx, W, wrap), i1 = address(bx + 1.0f, W, wrap);
        int j0 = address(by, H, wrap), j1 = address(by + 1.0f, H, wrap);
        int xs[4] = {i0, i1, i1, i0}, ys[4] = {j1, j1, j0, j0};
        float want[4];
        for (int q = 0; q < 4; ++q) {
          const float4& t = fl[ys[q] * W + xs[q]];
          want[q] = comp == 0 ? t.x : comp == 1 ? t.y : comp == 2 ? t.z : t.w;
        }
        float gotf[4] = {gf[k].x, gf[k].y, gf[k].z, gf[k].w};
        int goti[4] = {gi[k].x, gi[k].y, gi[k].z, gi[k].w};
        for (int q = 0; q < 4; ++q)
          if (gotf[q] != want[q] || goti[q] != (int)want[q]) {
            if (bad++ < 8)
              std::printf("wrap %d comp %d at (%g, %g) lane %d: %g / %d, want %g\n", wrap, comp,
                          at[k].x, at[k].y, q, gotf[q], goti[q], want[q]);
          }
      }
    }
    if (!wrap) {
      // The pointer form, component 3 (w).
      gather_into<<<(n + 63) / 64, 64>>>(it, d_at, d_i, n);
      std::vector<int4> gi = from_device(d_i, n);
      for (int k = 0; k < n; ++k) {
        int i0 = address(at[k].x - 0.5f, W, false), j0 = address(at[k].y - 0.5f, H, false);
        if (gi[k].w != in[j0 * W + i0].w) {
          if (bad++ < 8) std::printf("pointer form at %d: %d\n", k, gi[k].w);
        }
      }
    }
    HIP_CHECK(hipDestroyTextureObject(ft));
    HIP_CHECK(hipDestroyTextureObject(it));
  }
  HIP_CHECK(hipFree(d_at));
  HIP_CHECK(hipFree(d_f));
  HIP_CHECK(hipFree(d_i));
  HIP_CHECK(hipFreeArray(fa));
  HIP_CHECK(hipFreeArray(ia));
  return report("texture_gather", bad);
}
