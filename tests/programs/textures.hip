// Texture objects over linear buffers, pitched 2-D memory, 2-D, 3-D and layered arrays: point and
// linear filtering, every address mode, normalized coordinates, normalized-float reads of uchar4
// (sRGB-decoded too) and short, integer texels; every result compared with a host model of the
// texture unit.
#include "test_common.h"
#include "include/texture_reference.h"

#include <cstring>

// Samples a texture at each coordinate; T is the texel type the kernel reads.
template <class T>
__global__ void fetch_1d(hipTextureObject_t tex, const int* at, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<T>(tex, at[i]);
}

template <class T>
__global__ void sample_2d(hipTextureObject_t tex, const float2* at, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<T>(tex, at[i].x, at[i].y);
}

template <class T>
__global__ void sample_1d(hipTextureObject_t tex, const float* at, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tex1D(&out[i], tex, at[i]);
}

__global__ void sample_3d(hipTextureObject_t tex, const float4* at, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float>(tex, at[i].x, at[i].y, at[i].z);
}

__global__ void sample_layered(hipTextureObject_t tex, const float4* at, float2* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLayered<float2>(tex, at[i].x, at[i].y, (int)at[i].z);
}

// Lanes of a texel type as floats, for comparison.
template <class T>
struct Lanes;
template <>
struct Lanes<float> {
  static constexpr int n = 1;
  static float get(const float& v, int) { return v; }
};
template <>
struct Lanes<int> {
  static constexpr int n = 1;
  static float get(const int& v, int) { return (float)v; }
};
template <>
struct Lanes<float2> {
  static constexpr int n = 2;
  static float get(const float2& v, int c) { return c == 0 ? v.x : v.y; }
};
template <>
struct Lanes<int2> {
  static constexpr int n = 2;
  static float get(const int2& v, int c) { return (float)(c == 0 ? v.x : v.y); }
};
template <>
struct Lanes<float4> {
  static constexpr int n = 4;
  static float get(const float4& v, int c) {
    return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w;
  }
};

template <class T>
std::vector<float> flatten(const std::vector<T>& v) {
  std::vector<float> out;
  for (const T& t : v)
    for (int c = 0; c < Lanes<T>::n; ++c) out.push_back(Lanes<T>::get(t, c));
  return out;
}

template <class T>
std::vector<float> expected(const std::vector<HostTexel>& v) {
  std::vector<float> out;
  for (const HostTexel& t : v)
    for (int c = 0; c < Lanes<T>::n; ++c) out.push_back(t.f[c]);
  return out;
}

static int blocks(int n) { return (n + 63) / 64; }

// Coordinates that visit every texel centre, the points between them, and the outside on each side.
static std::vector<float> coordinates(int n, bool normalized) {
  std::vector<float> out;
  for (float u = -2.75f; u < n + 2.75f; u += 0.375f) out.push_back(normalized ? u / n : u);
  return out;
}

static hipResourceDesc pitch_resource(void* ptr, hipChannelFormatDesc desc, size_t w, size_t h,
                                      size_t pitch) {
  hipResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = hipResourceTypePitch2D;
  r.res.pitch2D.devPtr = ptr;
  r.res.pitch2D.desc = desc;
  r.res.pitch2D.width = w;
  r.res.pitch2D.height = h;
  r.res.pitch2D.pitchInBytes = pitch;
  return r;
}

static hipResourceDesc array_resource(hipArray_t a) {
  hipResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = hipResourceTypeArray;
  r.res.array.array = a;
  return r;
}

// Runs sample_2d<T> over a grid of coordinates and compares with the model.
template <class T>
int check_2d(const char* what, const hipResourceDesc& res, const HostTexture& model, float tol) {
  hipTextureDesc td = model.desc();
  hipTextureObject_t tex = nullptr;
  HIP_CHECK(hipCreateTextureObject(&tex, &res, &td, nullptr));
  std::vector<float2> at;
  std::vector<HostTexel> want;
  for (float y : coordinates(model.height, model.normalized_coords))
    for (float x : coordinates(model.width, model.normalized_coords)) {
      at.push_back(make_float2(x, y));
      want.push_back(model.sample(2, x, y, 0, 0));
    }
  int n = (int)at.size();
  float2* d_at = to_device(at);
  T* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(T)));
  hipLaunchKernelGGL(sample_2d<T>, dim3(blocks(n)), dim3(64), 0, 0, tex, d_at, d_out, n);
  HIP_CHECK(hipGetLastError());
  std::vector<T> got = from_device(d_out, n);
  HIP_CHECK(hipDestroyTextureObject(tex));
  HIP_CHECK(hipFree(d_at));
  HIP_CHECK(hipFree(d_out));
  return count_far(what, flatten(got), expected<T>(want), tol);
}

static const float kLinearTolerance = 1e-5f;

int main() {
  int bad = 0;

  // ---- 1-D linear buffer: tex1Dfetch of float and int2, zeros outside ----
  {
    const int n = 100;
    std::vector<float> values(n);
    std::vector<int2> pairs(n);
    for (int i = 0; i < n; ++i) {
      values[i] = 0.5f * i - 7.0f;
      pairs[i] = make_int2(i * 3, -i);
    }
    float* d_values = to_device(values);
    int2* d_pairs = to_device(pairs);
    std::vector<int> at;
    for (int i = -3; i < n + 3; ++i) at.push_back(i);
    int m = (int)at.size();
    int* d_at = to_device(at);

    hipResourceDesc res;
    std::memset(&res, 0, sizeof res);
    res.resType = hipResourceTypeLinear;
    res.res.linear.devPtr = d_values;
    res.res.linear.desc = hipCreateChannelDesc<float>();
    res.res.linear.sizeInBytes = n * sizeof(float);
    hipTextureDesc td;
    std::memset(&td, 0, sizeof td);
    td.readMode = hipReadModeElementType;
    hipTextureObject_t tex;
    HIP_CHECK(hipCreateTextureObject(&tex, &res, &td, nullptr));
    float* d_out = nullptr;
    HIP_CHECK(hipMalloc(&d_out, m * sizeof(float)));
    hipLaunchKernelGGL(fetch_1d<float>, dim3(blocks(m)), dim3(64), 0, 0, tex, d_at, d_out, m);
    std::vector<float> got = from_device(d_out, m), want(m);
    for (int i = 0; i < m; ++i) want[i] = (at[i] >= 0 && at[i] < n) ? values[at[i]] : 0.0f;
    bad += count_far("tex1Dfetch<float>", got, want, 0.0f);

    hipResourceDesc res2 = res;
    res2.res.linear.devPtr = d_pairs;
    res2.res.linear.desc = hipCreateChannelDesc<int2>();
    res2.res.linear.sizeInBytes = n * sizeof(int2);
    hipTextureObject_t tex2;
    HIP_CHECK(hipCreateTextureObject(&tex2, &res2, &td, nullptr));
    hipResourceDesc back;
    HIP_CHECK(hipGetTextureObjectResourceDesc(&back, tex2));
    if (back.resType != hipResourceTypeLinear || back.res.linear.devPtr != d_pairs ||
        back.res.linear.desc.y != 32) {
      std::printf("hipGetTextureObjectResourceDesc: wrong description\n");
      ++bad;
    }
    int2* d_out2 = nullptr;
    HIP_CHECK(hipMalloc(&d_out2, m * sizeof(int2)));
    hipLaunchKernelGGL(fetch_1d<int2>, dim3(blocks(m)), dim3(64), 0, 0, tex2, d_at, d_out2, m);
    std::vector<int2> got2 = from_device(d_out2, m);
    for (int i = 0; i < m; ++i) {
      int2 w = (at[i] >= 0 && at[i] < n) ? pairs[at[i]] : make_int2(0, 0);
      if (got2[i].x != w.x || got2[i].y != w.y) {
        if (bad < 5) std::printf("tex1Dfetch<int2> at %d: got (%d, %d)\n", at[i], got2[i].x, got2[i].y);
        ++bad;
      }
    }
    HIP_CHECK(hipDestroyTextureObject(tex));
    HIP_CHECK(hipDestroyTextureObject(tex2));
    HIP_CHECK(hipFree(d_values));
    HIP_CHECK(hipFree(d_pairs));
    HIP_CHECK(hipFree(d_at));
    HIP_CHECK(hipFree(d_out));
    HIP_CHECK(hipFree(d_out2));
  }

  // ---- 1-D linear buffer of halves (16-bit float channels), read as float ----
  {
    const unsigned short bits[] = {0x0000, 0x3c00, 0xc100, 0x7bff, 0x0400, 0x0001, 0x8000, 0x7c00, 0x3555};
    const float values[] = {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.9604644775390625e-08f,
                            -0.0f, INFINITY, 0.333251953125f};
    const int n = sizeof(bits) / sizeof(bits[0]);
    std::vector<unsigned short> halves(bits, bits + n);
    unsigned short* d_halves = to_device(halves);
    std::vector<int> at;
    for (int i = 0; i < n; ++i) at.push_back(i);
    int* d_at = to_device(at);
    hipResourceDesc res;
    std::memset(&res, 0, sizeof res);
    res.resType = hipResourceTypeLinear;
    res.res.linear.devPtr = d_halves;
    res.res.linear.desc = hipCreateChannelDesc(16, 0, 0, 0, hipChannelFormatKindFloat);
    res.res.linear.sizeInBytes = n * sizeof(unsigned short);
    hipTextureDesc td;
    std::memset(&td, 0, sizeof td);
    hipTextureObject_t tex;
    HIP_CHECK(hipCreateTextureObject(&tex, &res, &td, nullptr));
    float* d_out = nullptr;
    HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
    hipLaunchKernelGGL(fetch_1d<float>, dim3(1), dim3(64), 0, 0, tex, d_at, d_out, n);
    std::vector<float> got = from_device(d_out, n);
    bad += count_far("tex1Dfetch of halves", got, std::vector<float>(values, values + n), 0.0f);
    if (!std::signbit(got[6])) {
      std::printf("tex1Dfetch of halves: -0 lost its sign\n");
      ++bad;
    }
    HIP_CHECK(hipDestroyTextureObject(tex));
    HIP_CHECK(hipFree(d_halves));
    HIP_CHECK(hipFree(d_at));
    HIP_CHECK(hipFree(d_out));
  }

  // ---- 2-D pitched float memory: point and linear, clamp and border, unnormalized ----
  {
    const int w = 13, h = 7;
    HostTexture model;
    model.width = w;
    model.height = h;
    model.data.resize(w * h * sizeof(float));
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        float v = (float)(x * x) - 3.0f * y + 0.25f * x * y;
        std::memcpy(&model.data[(y * w + x) * 4], &v, 4);
      }
    float* d_img = nullptr;
    size_t pitch = 0;
    HIP_CHECK(hipMallocPitch((void**)&d_img, &pitch, w * sizeof(float), h));
    HIP_CHECK(hipMemcpy2D(d_img, pitch, model.data.data(), w * sizeof(float), w * sizeof(float), h,
                          hipMemcpyHostToDevice));
    hipResourceDesc res = pitch_resource(d_img, hipCreateChannelDesc<float>(), w, h, pitch);
    for (hipTextureAddressMode m : {hipAddressModeClamp, hipAddressModeBorder}) {
      for (bool lin : {false, true}) {
        model.mode[0] = model.mode[1] = m;
        model.linear_filter = lin;
        model.border[0] = -100.0f;
        bad += check_2d<float>(lin ? "pitch2D linear" : "pitch2D point", res, model,
                               lin ? kLinearTolerance : 0.0f);
      }
    }
    // Wrap and mirror with unnormalized coordinates act as clamp.
    model.mode[0] = hipAddressModeWrap;
    model.mode[1] = hipAddressModeMirror;
    model.linear_filter = true;
    bad += check_2d<float>("pitch2D wrap/mirror unnormalized", res, model, kLinearTolerance);
    HIP_CHECK(hipFree(d_img));
  }

  // ---- 2-D float2 array: normalized coordinates, every address mode, point and linear ----
  {
    const int w = 9, h = 6;
    HostTexture model;
    model.width = w;
    model.height = h;
    model.channels = 2;
    model.normalized_coords = true;
    model.data.resize(w * h * 8);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        float v[2] = {(float)(3 * x + 11 * y), (float)(x - y) * 0.5f};
        std::memcpy(&model.data[(y * w + x) * 8], v, 8);
      }
    hipChannelFormatDesc fmt = hipCreateChannelDesc<float2>();
    hipArray_t array = nullptr;
    HIP_CHECK(hipMallocArray(&array, &fmt, w, h));
    HIP_CHECK(hipMemcpy2DToArray(array, 0, 0, model.data.data(), w * 8, w * 8, h,
                                 hipMemcpyHostToDevice));
    hipChannelFormatDesc got_fmt;
    hipExtent got_extent;
    unsigned int got_flags = 99;
    HIP_CHECK(hipArrayGetInfo(&got_fmt, &got_extent, &got_flags, array));
    if (got_fmt.x != 32 || got_fmt.y != 32 || got_fmt.z != 0 || got_fmt.f != hipChannelFormatKindFloat ||
        got_extent.width != (size_t)w || got_extent.height != (size_t)h || got_extent.depth != 0 ||
        got_flags != 0) {
      std::printf("hipArrayGetInfo: wrong answer\n");
      ++bad;
    }
    hipResourceDesc res = array_resource(array);
    const hipTextureAddressMode modes[] = {hipAddressModeWrap, hipAddressModeClamp,
                                           hipAddressModeMirror, hipAddressModeBorder};
    for (hipTextureAddressMode mx : modes) {
      for (bool lin : {false, true}) {
        model.mode[0] = mx;
        model.mode[1] = modes[(mx + 1) % 4];
        model.linear_filter = lin;
        model.border[0] = 42.0f;
        model.border[1] = -1.5f;
        char what[64];
        std::snprintf(what, sizeof what, "array float2 mode %d/%d %s", (int)model.mode[0],
                      (int)model.mode[1], lin ? "linear" : "point");
        bad += check_2d<float2>(what, res, model, lin ? kLinearTolerance : 0.0f);
      }
    }
    HIP_CHECK(hipFreeArray(array));
  }

  // ---- uchar4 array read as normalized float4, linear; short read as normalized float ----
  {
    const int w = 8, h = 5;
    HostTexture model;
    model.width = w;
    model.height = h;
    model.channels = 4;
    model.bytes = 1;
    model.kind = hipChannelFormatKindUnsigned;
    model.normalized_read = true;
    model.linear_filter = true;
    model.data.resize(w * h * 4);
    for (size_t i = 0; i < model.data.size(); ++i) model.data[i] = (unsigned char)(i * 37 + 5);
    hipChannelFormatDesc fmt = hipCreateChannelDesc<uchar4>();
    hipArray_t array = nullptr;
    HIP_CHECK(hipMallocArray(&array, &fmt, w, h, hipArrayDefault));
    HIP_CHECK(hipMemcpyToArray(array, 0, 0, model.data.data(), model.data.size(),
                               hipMemcpyHostToDevice));
    bad += check_2d<float4>("uchar4 normalized linear", array_resource(array), model,
                            kLinearTolerance);
    model.linear_filter = false;
    bad += check_2d<float4>("uchar4 normalized point", array_resource(array), model, 0.0f);
    // sRGB: r, g, b decoded to linear before filtering, alpha as it is.
    model.srgb = true;
    bad += check_2d<float4>("uchar4 sRGB point", array_resource(array), model, kLinearTolerance);
    model.linear_filter = true;
    bad += check_2d<float4>("uchar4 sRGB linear", array_resource(array), model, kLinearTolerance);
    HIP_CHECK(hipFreeArray(array));

    HostTexture s;
    s.width = 11;
    s.height = 3;
    s.bytes = 2;
    s.kind = hipChannelFormatKindSigned;
    s.normalized_read = true;
    s.linear_filter = true;
    s.mode[0] = s.mode[1] = hipAddressModeBorder;
    s.border[0] = 0.5f;
    s.data.resize(s.width * s.height * 2);
    for (int i = 0; i < s.width * s.height; ++i) {
      short v = (short)(i * 2711 - 32768);
      std::memcpy(&s.data[i * 2], &v, 2);
    }
    short* d_s = nullptr;
    size_t pitch = 0;
    HIP_CHECK(hipMallocPitch((void**)&d_s, &pitch, s.width * 2, s.height));
    HIP_CHECK(hipMemcpy2D(d_s, pitch, s.data.data(), s.width * 2, s.width * 2, s.height,
                          hipMemcpyHostToDevice));
    bad += check_2d<float>("short normalized linear border",
                           pitch_resource(d_s, hipCreateChannelDesc<short>(), s.width, s.height, pitch),
                           s, kLinearTolerance);
    HIP_CHECK(hipFree(d_s));
  }

  // ---- int array, point sampling with integer results ----
  {
    const int w = 6, h = 4;
    HostTexture model;
    model.width = w;
    model.height = h;
    model.kind = hipChannelFormatKindSigned;
    model.data.resize(w * h * 4);
    for (int i = 0; i < w * h; ++i) {
      int v = i * i - 50;
      std::memcpy(&model.data[i * 4], &v, 4);
    }
    hipChannelFormatDesc fmt = hipCreateChannelDesc<int>();
    hipArray_t array = nullptr;
    HIP_CHECK(hipMallocArray(&array, &fmt, w, h));
    HIP_CHECK(hipMemcpy2DToArray(array, 0, 0, model.data.data(), w * 4, w * 4, h,
                                 hipMemcpyHostToDevice));
    bad += check_2d<int>("int point", array_resource(array), model, 0.0f);
    HIP_CHECK(hipFreeArray(array));
  }

  // ---- 1-D array through tex1D (the pointer form), linear, mirror with normalized coords ----
  {
    const int w = 10;
    HostTexture model;
    model.width = w;
    model.normalized_coords = true;
    model.linear_filter = true;
    model.mode[0] = hipAddressModeMirror;
    model.data.resize(w * 4);
    for (int i = 0; i < w; ++i) {
      float v = (float)((i * 7) % 5) - 1.0f;
      std::memcpy(&model.data[i * 4], &v, 4);
    }
    hipChannelFormatDesc fmt = hipCreateChannelDesc<float>();
    hipArray_t array = nullptr;
    HIP_CHECK(hipMallocArray(&array, &fmt, w));
    HIP_CHECK(hipMemcpyToArray(array, 0, 0, model.data.data(), w * 4, hipMemcpyHostToDevice));
    hipResourceDesc res = array_resource(array);
    hipTextureDesc td = model.desc();
    hipTextureObject_t tex;
    HIP_CHECK(hipCreateTextureObject(&tex, &res, &td, nullptr));
    std::vector<float> at = coordinates(w, true);
    for (float& u : at) u *= 2.5f;  // several mirrored periods
    int n = (int)at.size();
    std::vector<float> want;
    for (float u : at) want.push_back(model.sample(1, u, 0, 0, 0).f[0]);
    float* d_at = to_device(at);
    float* d_out = nullptr;
    HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
    hipLaunchKernelGGL(sample_1d<float>, dim3(blocks(n)), dim3(64), 0, 0, tex, d_at, d_out, n);
    bad += count_far("tex1D mirror linear", from_device(d_out, n), want, kLinearTolerance);
    HIP_CHECK(hipDestroyTextureObject(tex));
    HIP_CHECK(hipFreeArray(array));
    HIP_CHECK(hipFree(d_at));
    HIP_CHECK(hipFree(d_out));
  }

  // ---- 3-D array filled by hipMemcpy3D, trilinear, clamp ----
  {
    const int w = 5, h = 4, d = 3;
    HostTexture model;
    model.width = w;
    model.height = h;
    model.depth = d;
    model.linear_filter = true;
    model.data.resize(w * h * d * 4);
    for (int i = 0; i < w * h * d; ++i) {
      float v = (float)((i * 13) % 17) * 0.5f;
      std::memcpy(&model.data[i * 4], &v, 4);
    }
    hipChannelFormatDesc fmt = hipCreateChannelDesc<float>();
    hipArray_t array = nullptr;
    HIP_CHECK(hipMalloc3DArray(&array, &fmt, make_hipExtent(w, h, d), 0));
    hipMemcpy3DParms p;
    std::memset(&p, 0, sizeof p);
    p.srcPtr = make_hipPitchedPtr(model.data.data(), w * 4, w, h);
    p.dstArray = array;
    p.extent = make_hipExtent(w, h, d);
    p.kind = hipMemcpyHostToDevice;
    HIP_CHECK(hipMemcpy3D(&p));
    hipResourceDesc res = array_resource(array);
    hipTextureDesc td = model.desc();
    hipTextureObject_t tex;
    HIP_CHECK(hipCreateTextureObject(&tex, &res, &td, nullptr));
    std::vector<float4> at;
    std::vector<float> want;
    for (float z = -1.0f; z < d + 1.0f; z += 0.625f)
      for (float y = -1.0f; y < h + 1.0f; y += 0.75f)
        for (float x = -1.0f; x < w + 1.0f; x += 0.875f) {
          at.push_back(make_float4(x, y, z, 0.0f));
          want.push_back(model.sample(3, x, y, z, 0).f[0]);
        }
    int n = (int)at.size();
    float4* d_at = to_device(at);
    float* d_out = nullptr;
    HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
    hipLaunchKernelGGL(sample_3d, dim3(blocks(n)), dim3(64), 0, 0, tex, d_at, d_out, n);
    bad += count_far("tex3D linear", from_device(d_out, n), want, kLinearTolerance);
    HIP_CHECK(hipDestroyTextureObject(tex));
    HIP_CHECK(hipFreeArray(array));
    HIP_CHECK(hipFree(d_at));
    HIP_CHECK(hipFree(d_out));
  }

  // ---- 2-D layered float2 array: each layer sampled on its own, bilinear, border ----
  {
    const int w = 4, h = 3, layers = 3;
    HostTexture model;
    model.width = w;
    model.height = h;
    model.depth = layers;
    model.channels = 2;
    model.linear_filter = true;
    model.mode[0] = model.mode[1] = hipAddressModeBorder;
    model.border[0] = 7.0f;
    model.border[1] = -7.0f;
    model.data.resize(w * h * layers * 8);
    for (int i = 0; i < w * h * layers * 2; ++i) {
      float v = (float)(i % 9) + 0.125f * (i / 9);
      std::memcpy(&model.data[i * 4], &v, 4);
    }
    hipChannelFormatDesc fmt = hipCreateChannelDesc<float2>();
    hipArray_t array = nullptr;
    HIP_CHECK(hipMalloc3DArray(&array, &fmt, make_hipExtent(w, h, layers), hipArrayLayered));
    hipMemcpy3DParms p;
    std::memset(&p, 0, sizeof p);
    p.srcPtr = make_hipPitchedPtr(model.data.data(), w * 8, w, h);
    p.dstArray = array;
    p.extent = make_hipExtent(w, h, layers);
    p.kind = hipMemcpyHostToDevice;
    HIP_CHECK(hipMemcpy3D(&p));
    hipResourceDesc res = array_resource(array);
    hipTextureDesc td = model.desc();
    hipTextureObject_t tex;
    HIP_CHECK(hipCreateTextureObject(&tex, &res, &td, nullptr));
    std::vector<float4> at;
    std::vector<HostTexel> want;
    for (int layer = 0; layer < layers; ++layer)
      for (float y = -1.0f; y < h + 1.0f; y += 0.5f)
        for (float x = -1.0f; x < w + 1.0f; x += 0.625f) {
          at.push_back(make_float4(x, y, (float)layer, 0.0f));
          want.push_back(model.sample(2, x, y, 0, layer));
        }
    int n = (int)at.size();
    float4* d_at = to_device(at);
    float2* d_out = nullptr;
    HIP_CHECK(hipMalloc(&d_out, n * sizeof(float2)));
    hipLaunchKernelGGL(sample_layered, dim3(blocks(n)), dim3(64), 0, 0, tex, d_at, d_out, n);
    bad += count_far("tex2DLayered", flatten(from_device(d_out, n)), expected<float2>(want),
                     kLinearTolerance);
    HIP_CHECK(hipDestroyTextureObject(tex));
    HIP_CHECK(hipFreeArray(array));
    HIP_CHECK(hipFree(d_at));
    HIP_CHECK(hipFree(d_out));
  }

  // ---- misuse is reported, not run ----
  {
    hipResourceDesc res;
    std::memset(&res, 0, sizeof res);
    res.resType = hipResourceTypeArray;
    res.res.array.array = nullptr;
    hipTextureDesc td;
    std::memset(&td, 0, sizeof td);
    hipTextureObject_t tex;
    if (hipCreateTextureObject(&tex, &res, &td, nullptr) == hipSuccess) {
      std::printf("a texture over a null array was created\n");
      ++bad;
    }
    hipChannelFormatDesc odd = hipCreateChannelDesc(8, 16, 0, 0, hipChannelFormatKindUnsigned);
    hipArray_t array;
    if (hipMallocArray(&array, &odd, 4, 4) != hipErrorInvalidValue) {
      std::printf("channels of different sizes were accepted\n");
      ++bad;
    }
    (void)hipGetLastError();
  }

  if (bad != 0) {
    std::printf("FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASSED\n");
  return 0;
}
