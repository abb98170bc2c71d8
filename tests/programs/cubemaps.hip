// Cubemap arrays (hipArrayCubemap, and layered cubemaps): faces written through surfaces
// (surfCubemapwrite, surfCubemapLayeredwrite), read back by copies and through texture objects
// with direction vectors (texCubemap, texCubemapLayered), each compared with a host model of
// CUDA's face table; misshapen cubemaps are refused.
#include "test_common.h"

#include <cstring>

constexpr int kSide = 8;

__global__ void write_faces(hipSurfaceObject_t s) {
  int x = threadIdx.x, y = threadIdx.y, face = blockIdx.x;
  surfCubemapwrite(1000.0f * face + 10.0f * y + x, s, x * (int)sizeof(float), y, face);
}

__global__ void write_layered_faces(hipSurfaceObject_t s) {
  int x = threadIdx.x, y = threadIdx.y, face = blockIdx.x, layer = blockIdx.y;
  surfCubemapLayeredwrite(make_int2(layer * 6 + face, y * kSide + x), s, x * (int)sizeof(int2), y,
                          face, layer);
}

__global__ void look(hipTextureObject_t t, const float4* dirs, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemap<float>(t, dirs[i].x, dirs[i].y, dirs[i].z);
}

__global__ void look_layered(hipTextureObject_t t, const float4* dirs, int2* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) texCubemapLayered(&out[i], t, dirs[i].x, dirs[i].y, dirs[i].z, (int)dirs[i].w);
}

// The direction whose face is `face` and whose point on it is the centre of texel (i, j): CUDA's
// table read backwards, with the largest component 1.
static float4 direction(int face, int i, int j, float layer) {
  float sc = 2.0f * (i + 0.5f) / kSide - 1.0f, tc = 2.0f * (j + 0.5f) / kSide - 1.0f;
  switch (face) {
    case 0: return make_float4(1.0f, -tc, -sc, layer);
    case 1: return make_float4(-1.0f, -tc, sc, layer);
    case 2: return make_float4(sc, 1.0f, tc, layer);
    case 3: return make_float4(sc, -1.0f, -tc, layer);
    case 4: return make_float4(sc, -tc, 1.0f, layer);
    default: return make_float4(-sc, -tc, -1.0f, layer);
  }
}

static hipSurfaceObject_t surface_over(hipArray_t a) {
  hipResourceDesc res;
  std::memset(&res, 0, sizeof(res));
  res.resType = hipResourceTypeArray;
  res.res.array.array = a;
  hipSurfaceObject_t s = nullptr;
  HIP_CHECK(hipCreateSurfaceObject(&s, &res));
  return s;
}

static hipTextureObject_t texture_over(hipArray_t a) {
  hipResourceDesc res;
  std::memset(&res, 0, sizeof(res));
  res.resType = hipResourceTypeArray;
  res.res.array.array = a;
  hipTextureDesc td;
  std::memset(&td, 0, sizeof(td));
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = hipAddressModeClamp;
  td.filterMode = hipFilterModePoint;
  td.readMode = hipReadModeElementType;
  td.normalizedCoords = 1;
  hipTextureObject_t t = nullptr;
  HIP_CHECK(hipCreateTextureObject(&t, &res, &td, nullptr));
  return t;
}

template <typename T>
static std::vector<T> read_back(hipArray_t a, int depth) {
  std::vector<T> got(kSide * kSide * depth);
  hipMemcpy3DParms copy;
  std::memset(&copy, 0, sizeof(copy));
  copy.srcArray = a;
  copy.dstPtr = make_hipPitchedPtr(got.data(), kSide * sizeof(T), kSide, kSide);
  copy.extent = make_hipExtent(kSide, kSide, depth);
  copy.kind = hipMemcpyDeviceToHost;
  HIP_CHECK(hipMemcpy3D(&copy));
  return got;
}

int main() {
  int bad = 0;
  // One cubemap of floats.
  hipChannelFormatDesc fdesc = hipCreateChannelDesc<float>();
  hipArray_t cube = nullptr;
  HIP_CHECK(hipMalloc3DArray(&cube, &fdesc, make_hipExtent(kSide, kSide, 6),
                             hipArrayCubemap | hipArraySurfaceLoadStore));
  hipSurfaceObject_t s = surface_over(cube);
  write_faces<<<6, dim3(kSide, kSide)>>>(s);
  HIP_CHECK(hipGetLastError());
  std::vector<float> faces = read_back<float>(cube, 6), want(kSide * kSide * 6);
  for (int f = 0; f < 6; ++f)
    for (int y = 0; y < kSide; ++y)
      for (int x = 0; x < kSide; ++x) want[(f * kSide + y) * kSide + x] = 1000.0f * f + 10.0f * y + x;
  bad += count_mismatches("faces", faces, want);

  std::vector<float4> dirs;
  std::vector<float> seen_want;
  for (int f = 0; f < 6; ++f)
    for (int j = 0; j < kSide; ++j)
      for (int i = 0; i < kSide; ++i) {
        // Scaled: only the direction counts.
        float4 d = direction(f, i, j, 0.0f);
        float k = 0.5f + 0.25f * ((i + j) % 5);
        dirs.push_back(make_float4(d.x * k, d.y * k, d.z * k, 0.0f));
        seen_want.push_back(1000.0f * f + 10.0f * j + i);
      }
  const int n = (int)dirs.size();
  float4* d_dirs = to_device(dirs);
  float* d_seen = nullptr;
  HIP_CHECK(hipMalloc(&d_seen, n * sizeof(float)));
  hipTextureObject_t t = texture_over(cube);
  look<<<(n + 63) / 64, 64>>>(t, d_dirs, d_seen, n);
  bad += count_mismatches("texCubemap", from_device(d_seen, n), seen_want);
  HIP_CHECK(hipDestroyTextureObject(t));
  HIP_CHECK(hipDestroySurfaceObject(s));
  HIP_CHECK(hipFreeArray(cube));

  // Two layered cubemaps of int2.
  const int layers = 2;
  hipChannelFormatDesc idesc = hipCreateChannelDesc<int2>();
  hipArray_t lcube = nullptr;
  HIP_CHECK(hipMalloc3DArray(&lcube, &idesc, make_hipExtent(kSide, kSide, 6 * layers),
                             hipArrayCubemap | hipArrayLayered | hipArraySurfaceLoadStore));
  s = surface_over(lcube);
  write_layered_faces<<<dim3(6, layers), dim3(kSide, kSide)>>>(s);
  std::vector<int2> lfaces = read_back<int2>(lcube, 6 * layers);
  for (int lf = 0; lf < 6 * layers; ++lf)
    for (int p = 0; p < kSide * kSide; ++p) {
      int2 v = lfaces[lf * kSide * kSide + p];
      if (v.x != lf || v.y != p) {
        if (bad++ < 5) std::printf("layered face %d texel %d: %d %d\n", lf, p, v.x, v.y);
      }
    }
  std::vector<float4> ldirs;
  for (int layer = 0; layer < layers; ++layer)
    for (int f = 0; f < 6; ++f)
      for (int p = 0; p < kSide * kSide; p += 3) ldirs.push_back(direction(f, p % kSide, p / kSide, (float)layer));
  const int ln = (int)ldirs.size();
  float4* d_ldirs = to_device(ldirs);
  int2* d_lseen = nullptr;
  HIP_CHECK(hipMalloc(&d_lseen, ln * sizeof(int2)));
  t = texture_over(lcube);
  look_layered<<<(ln + 63) / 64, 64>>>(t, d_ldirs, d_lseen, ln);
  std::vector<int2> lseen = from_device(d_lseen, ln);
  int k = 0;
  for (int layer = 0; layer < layers; ++layer)
    for (int f = 0; f < 6; ++f)
      for (int p = 0; p < kSide * kSide; p += 3, ++k)
        if (lseen[k].x != layer * 6 + f || lseen[k].y != p) {
          if (bad++ < 5) std::printf("texCubemapLayered %d: %d %d\n", k, lseen[k].x, lseen[k].y);
        }
  HIP_CHECK(hipDestroyTextureObject(t));
  HIP_CHECK(hipDestroySurfaceObject(s));
  HIP_CHECK(hipFreeArray(lcube));

  // Faces that are not square, or not six of them: refused as CUDA refuses them.
  hipArray_t refused = nullptr;
  if (hipMalloc3DArray(&refused, &fdesc, make_hipExtent(8, 4, 6), hipArrayCubemap) !=
          hipErrorInvalidValue ||
      hipMalloc3DArray(&refused, &fdesc, make_hipExtent(8, 8, 5), hipArrayCubemap) !=
          hipErrorInvalidValue ||
      hipMalloc3DArray(&refused, &fdesc, make_hipExtent(8, 8, 9),
                       hipArrayCubemap | hipArrayLayered) != hipErrorInvalidValue) {
    std::printf("a misshapen cubemap was not refused\n");
    ++bad;
  }
  HIP_CHECK(hipFree(d_dirs));
  HIP_CHECK(hipFree(d_seen));
  HIP_CHECK(hipFree(d_ldirs));
  HIP_CHECK(hipFree(d_lseen));
  return report("cubemaps", bad);
}
