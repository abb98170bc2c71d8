// Surface objects: 1-D, 2-D, 3-D and layered arrays written and read by kernels through
// surf*read/surf*write (HIP's pointer forms and CUDA's value forms), the zero and clamp boundary
// modes; every texel compared with a host reference.
#include "test_common.h"
#include "include/surface_kernels.h"

#include <cstring>

static hipSurfaceObject_t surface_over(hipArray_t array) {
  hipResourceDesc res;
  std::memset(&res, 0, sizeof(res));
  res.resType = hipResourceTypeArray;
  res.res.array.array = array;
  hipSurfaceObject_t s = nullptr;
  HIP_CHECK(hipCreateSurfaceObject(&s, &res));
  return s;
}

static int planes() {
  const int w = 37, h = 23;
  hipChannelFormatDesc desc = hipCreateChannelDesc<float>();
  hipArray_t a = nullptr, b = nullptr;
  HIP_CHECK(hipMallocArray(&a, &desc, w, h, hipArraySurfaceLoadStore));
  HIP_CHECK(hipMallocArray(&b, &desc, w, h, hipArraySurfaceLoadStore));
  hipSurfaceObject_t sa = surface_over(a), sb = surface_over(b);
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  fill_plane<<<grid, block>>>(sa, w, h, 100.0f);
  blur<<<grid, block>>>(sa, sb, w, h);
  HIP_CHECK(hipGetLastError());
  std::vector<float> filled(w * h), blurred(w * h);
  HIP_CHECK(hipMemcpy2DFromArray(filled.data(), w * sizeof(float), a, 0, 0, w * sizeof(float), h,
                                 hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy2DFromArray(blurred.data(), w * sizeof(float), b, 0, 0, w * sizeof(float),
                                 h, hipMemcpyDeviceToHost));
  std::vector<float> want_filled(w * h), want_blurred(w * h);
  auto f = [&](int x, int y) {
    x = x < 0 ? 0 : (x >= w ? w - 1 : x);
    y = y < 0 ? 0 : (y >= h ? h - 1 : y);
    return 100.0f * y + x;
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      want_filled[y * w + x] = f(x, y);
      float sum = 0.0f;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) sum += f(x + dx, y + dy);
      want_blurred[y * w + x] = sum / 9.0f;
    }
  int bad = count_mismatches("fill_plane", filled, want_filled);
  for (int i = 0; i < w * h; ++i)
    if (std::abs(blurred[i] - want_blurred[i]) > 1e-3f * std::abs(want_blurred[i]) + 1e-4f) {
      if (bad++ < 5) std::printf("blur: %d: %f, want %f\n", i, blurred[i], want_blurred[i]);
    }
  HIP_CHECK(hipDestroySurfaceObject(sa));
  HIP_CHECK(hipDestroySurfaceObject(sb));
  HIP_CHECK(hipFreeArray(a));
  HIP_CHECK(hipFreeArray(b));
  return bad;
}

static int rgba() {
  const int w = 20, h = 9;
  std::vector<uchar4> image(w * h);
  for (int i = 0; i < w * h; ++i)
    image[i] = make_uchar4(i % 251, (3 * i) % 256, 255 - i % 200, i % 7);
  hipChannelFormatDesc desc = hipCreateChannelDesc<uchar4>();
  hipArray_t a = nullptr;
  HIP_CHECK(hipMallocArray(&a, &desc, w, h, hipArraySurfaceLoadStore));
  HIP_CHECK(hipMemcpy2DToArray(a, 0, 0, image.data(), w * 4, w * 4, h, hipMemcpyHostToDevice));
  hipSurfaceObject_t s = surface_over(a);
  int* outside = nullptr;
  HIP_CHECK(hipMalloc(&outside, sizeof(int)));
  HIP_CHECK(hipMemset(outside, 0, sizeof(int)));
  // Two threads more than the image on each axis: their reads give zero, their writes nothing.
  swap_red_blue<<<dim3(1, 1), dim3(w + 2, h + 2)>>>(s, w, h, outside);
  std::vector<uchar4> got(w * h);
  HIP_CHECK(hipMemcpy2DFromArray(got.data(), w * 4, a, 0, 0, w * 4, h, hipMemcpyDeviceToHost));
  int outside_sum = -1;
  HIP_CHECK(hipMemcpy(&outside_sum, outside, sizeof(int), hipMemcpyDeviceToHost));
  int bad = outside_sum != 0;
  if (bad) std::printf("reads outside the image gave %d, want 0\n", outside_sum);
  for (int i = 0; i < w * h; ++i) {
    uchar4 p = image[i], q = got[i];
    if (q.x != p.z || q.y != p.y || q.z != p.x || q.w != p.w) {
      if (bad++ < 5) std::printf("rgba: pixel %d: %d %d %d %d\n", i, q.x, q.y, q.z, q.w);
    }
  }
  HIP_CHECK(hipDestroySurfaceObject(s));
  HIP_CHECK(hipFreeArray(a));
  HIP_CHECK(hipFree(outside));
  return bad;
}

static int volume_and_layers() {
  const int w = 13, h = 5, d = 4;
  std::vector<int2> v(w * h * d);
  for (int i = 0; i < w * h * d; ++i) v[i] = make_int2(i, -i);
  hipChannelFormatDesc desc = hipCreateChannelDesc<int2>();
  hipArray_t vol = nullptr;
  HIP_CHECK(hipMalloc3DArray(&vol, &desc, make_hipExtent(w, h, d), hipArraySurfaceLoadStore));
  hipMemcpy3DParms copy;
  std::memset(&copy, 0, sizeof(copy));
  copy.srcPtr = make_hipPitchedPtr(v.data(), w * sizeof(int2), w, h);
  copy.dstArray = vol;
  copy.extent = make_hipExtent(w, h, d);
  copy.kind = hipMemcpyHostToDevice;
  HIP_CHECK(hipMemcpy3D(&copy));
  hipSurfaceObject_t s = surface_over(vol);
  shift_volume<<<dim3(1, h, d), 32>>>(s, w, h, d);
  std::vector<int2> got(w * h * d);
  std::memset(&copy, 0, sizeof(copy));
  copy.srcArray = vol;
  copy.dstPtr = make_hipPitchedPtr(got.data(), w * sizeof(int2), w, h);
  copy.extent = make_hipExtent(w, h, d);
  copy.kind = hipMemcpyDeviceToHost;
  HIP_CHECK(hipMemcpy3D(&copy));
  int bad = 0;
  for (int z = 0; z < d; ++z)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        int i = (z * h + y) * w + x;
        int2 want = make_int2(i + x + z, -i + y - z);
        if (got[i].x != want.x || got[i].y != want.y) {
          if (bad++ < 5) std::printf("volume: %d: %d %d\n", i, got[i].x, got[i].y);
        }
      }
  HIP_CHECK(hipDestroySurfaceObject(s));
  HIP_CHECK(hipFreeArray(vol));

  // Three layers of 2-D floats.
  const int layers = 3;
  std::vector<float> l(w * h * layers);
  for (int i = 0; i < w * h * layers; ++i) l[i] = 0.5f * i;
  desc = hipCreateChannelDesc<float>();
  hipArray_t la = nullptr;
  HIP_CHECK(hipMalloc3DArray(&la, &desc, make_hipExtent(w, h, layers),
                             hipArrayLayered | hipArraySurfaceLoadStore));
  std::memset(&copy, 0, sizeof(copy));
  copy.srcPtr = make_hipPitchedPtr(l.data(), w * sizeof(float), w, h);
  copy.dstArray = la;
  copy.extent = make_hipExtent(w, h, layers);
  copy.kind = hipMemcpyHostToDevice;
  HIP_CHECK(hipMemcpy3D(&copy));
  s = surface_over(la);
  add_layer<float><<<dim3(1, h, layers), 32>>>(s, w, h, layers);
  std::vector<float> lgot(w * h * layers);
  std::memset(&copy, 0, sizeof(copy));
  copy.srcArray = la;
  copy.dstPtr = make_hipPitchedPtr(lgot.data(), w * sizeof(float), w, h);
  copy.extent = make_hipExtent(w, h, layers);
  copy.kind = hipMemcpyDeviceToHost;
  HIP_CHECK(hipMemcpy3D(&copy));
  std::vector<float> lwant(w * h * layers);
  for (int i = 0; i < w * h * layers; ++i) lwant[i] = 0.5f * i + 100.0f * (i / (w * h));
  bad += count_mismatches("layers", lgot, lwant);
  HIP_CHECK(hipDestroySurfaceObject(s));
  HIP_CHECK(hipFreeArray(la));
  return bad;
}

static int row() {
  const int n = 300;
  std::vector<short> in(n);
  for (int i = 0; i < n; ++i) in[i] = (short)(i * 37 - 5000);
  hipChannelFormatDesc desc = hipCreateChannelDesc<short>();
  hipArray_t a = nullptr, b = nullptr;
  HIP_CHECK(hipMallocArray(&a, &desc, n, 0, hipArraySurfaceLoadStore));
  HIP_CHECK(hipMallocArray(&b, &desc, n, 0, hipArraySurfaceLoadStore));
  HIP_CHECK(hipMemcpy2DToArray(a, 0, 0, in.data(), n * 2, n * 2, 1, hipMemcpyHostToDevice));
  hipSurfaceObject_t sa = surface_over(a), sb = surface_over(b);
  reverse_row<<<(n + 63) / 64, 64>>>(sa, sb, n);
  std::vector<short> got(n), want(n);
  HIP_CHECK(hipMemcpy2DFromArray(got.data(), n * 2, b, 0, 0, n * 2, 1, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) want[i] = in[n - 1 - i];
  HIP_CHECK(hipDestroySurfaceObject(sa));
  HIP_CHECK(hipDestroySurfaceObject(sb));
  HIP_CHECK(hipFreeArray(a));
  HIP_CHECK(hipFreeArray(b));
  return count_mismatches("row", got, want);
}

int main() {
  int bad = planes() + rgba() + volume_and_layers() + row();
  return report("surfaces", bad);
}
