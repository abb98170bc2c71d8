// HIP arrays and 3-D copies: hipMemcpy3D between padded host volumes, pitched device volumes
// (hipMalloc3D) and 3-D arrays, whole and as sub-boxes at positions, synchronous and on a stream;
// 2-D and linear copies out of arrays at offsets; a kernel over the pitched volume; misuse.
#include "test_common.h"

#include <cstring>

// Adds `delta` to every element of a pitched volume of w x h x d ints.
__global__ void add_in_volume(hipPitchedPtr v, int w, int h, int d, int delta) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  int z = blockIdx.z;
  if (x >= w || y >= h || z >= d) return;
  char* slice = (char*)v.ptr + (size_t)z * v.pitch * v.ysize;
  int* row = (int*)(slice + (size_t)y * v.pitch);
  row[x] += delta;
}

// A host volume with padded rows and slices: element (x, y, z) at z*rows*pitch + y*pitch.
template <class T>
struct HostVolume {
  int w, h, d, pitch_elems, rows;
  std::vector<T> data;
  HostVolume(int w_, int h_, int d_, int pad_x, int pad_y)
      : w(w_), h(h_), d(d_), pitch_elems(w_ + pad_x), rows(h_ + pad_y),
        data((size_t)(w_ + pad_x) * (h_ + pad_y) * d_, T(-1)) {}
  T& at(int x, int y, int z) { return data[((size_t)z * rows + y) * pitch_elems + x]; }
  hipPitchedPtr pitched() {
    return make_hipPitchedPtr(data.data(), pitch_elems * sizeof(T), w, rows);
  }
};

static hipMemcpy3DParms params() {
  hipMemcpy3DParms p;
  std::memset(&p, 0, sizeof p);
  return p;
}

int main() {
  int bad = 0;
  const int w = 19, h = 6, d = 5;

  HostVolume<int> src(w, h, d, 3, 2);
  for (int z = 0; z < d; ++z)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) src.at(x, y, z) = x + 100 * y + 10000 * z;

  // Host (padded) -> device pitched volume.
  hipPitchedPtr dev;
  hipExtent bytes_extent = make_hipExtent(w * sizeof(int), h, d);
  HIP_CHECK(hipMalloc3D(&dev, bytes_extent));
  hipMemcpy3DParms p = params();
  p.srcPtr = src.pitched();
  p.dstPtr = dev;
  p.extent = bytes_extent;
  p.kind = hipMemcpyHostToDevice;
  HIP_CHECK(hipMemcpy3D(&p));

  // A kernel walks the pitched layout.
  hipLaunchKernelGGL(add_in_volume, dim3((w + 31) / 32, h, d), dim3(32), 0, 0, dev, w, h, d, 7);
  HIP_CHECK(hipGetLastError());

  // Device -> 3-D array (whole volume), on a stream.
  hipChannelFormatDesc fmt = hipCreateChannelDesc<int>();
  hipArray_t array = nullptr;
  HIP_CHECK(hipMalloc3DArray(&array, &fmt, make_hipExtent(w, h, d), hipArrayDefault));
  hipStream_t stream;
  HIP_CHECK(hipStreamCreate(&stream));
  p = params();
  p.srcPtr = dev;
  p.dstArray = array;
  p.extent = make_hipExtent(w, h, d);  // texels: an array takes part
  p.kind = hipMemcpyDeviceToDevice;
  HIP_CHECK(hipMemcpy3DAsync(&p, stream));
  HIP_CHECK(hipStreamSynchronize(stream));

  // 3-D array -> host, whole, into another padded layout.
  HostVolume<int> back(w, h, d, 5, 1);
  p = params();
  p.srcArray = array;
  p.dstPtr = back.pitched();
  p.extent = make_hipExtent(w, h, d);
  p.kind = hipMemcpyDeviceToHost;
  HIP_CHECK(hipMemcpy3D(&p));
  {
    std::vector<int> got, want;
    for (int z = 0; z < d; ++z)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          got.push_back(back.at(x, y, z));
          want.push_back(src.at(x, y, z) + 7);
        }
    bad += count_mismatches("array -> host", got, want);
    // The padding of the destination is untouched.
    if (back.at(w, 0, 0) != -1 || back.data.back() != -1) {
      std::printf("a 3-D copy wrote outside its rows\n");
      ++bad;
    }
  }

  // A sub-box: array (at 2, 1, 1) -> host (at 1, 2, 0), 4 x 3 x 2 texels.
  {
    HostVolume<int> box(8, 6, 3, 0, 0);
    p = params();
    p.srcArray = array;
    p.srcPos = make_hipPos(2, 1, 1);
    p.dstPtr = box.pitched();
    p.dstPos = make_hipPos(1 * sizeof(int), 2, 0);  // bytes for a pointer
    p.extent = make_hipExtent(4, 3, 2);
    p.kind = hipMemcpyDeviceToHost;
    HIP_CHECK(hipMemcpy3D(&p));
    std::vector<int> got, want;
    for (int z = 0; z < 3; ++z)
      for (int y = 0; y < 6; ++y)
        for (int x = 0; x < 8; ++x) {
          bool inside = x >= 1 && x < 5 && y >= 2 && y < 5 && z < 2;
          got.push_back(box.at(x, y, z));
          want.push_back(inside ? src.at(x - 1 + 2, y - 2 + 1, z + 1) + 7 : -1);
        }
    bad += count_mismatches("sub-box array -> host", got, want);
  }

  // A sub-box host -> array (into slice 3), then the whole array -> device -> host.
  {
    HostVolume<int> patch(3, 2, 1, 1, 0);
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x) patch.at(x, y, 0) = -1000 - x - 10 * y;
    p = params();
    p.srcPtr = patch.pitched();
    p.dstArray = array;
    p.dstPos = make_hipPos(10, 4, 3);
    p.extent = make_hipExtent(3, 2, 1);
    p.kind = hipMemcpyHostToDevice;
    HIP_CHECK(hipMemcpy3D(&p));

    hipPitchedPtr dev2;
    HIP_CHECK(hipMalloc3D(&dev2, bytes_extent));
    p = params();
    p.srcArray = array;
    p.dstPtr = dev2;
    p.extent = make_hipExtent(w, h, d);
    p.kind = hipMemcpyDeviceToDevice;
    HIP_CHECK(hipMemcpy3D(&p));
    HostVolume<int> out(w, h, d, 0, 0);
    p = params();
    p.srcPtr = dev2;
    p.dstPtr = out.pitched();
    p.extent = bytes_extent;
    p.kind = hipMemcpyDefault;
    HIP_CHECK(hipMemcpy3D(&p));
    std::vector<int> got, want;
    for (int z = 0; z < d; ++z)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          bool patched = z == 3 && y >= 4 && y < 6 && x >= 10 && x < 13;
          got.push_back(out.at(x, y, z));
          want.push_back(patched ? -1000 - (x - 10) - 10 * (y - 4) : src.at(x, y, z) + 7);
        }
    bad += count_mismatches("patched array -> device -> host", got, want);
    HIP_CHECK(hipFree(dev2.ptr));
  }

  // 2-D and linear copies out of a 2-D array at offsets.
  {
    const int aw = 7, ah = 5;
    std::vector<short> img(aw * ah);
    for (int i = 0; i < aw * ah; ++i) img[i] = (short)(i * 31 - 400);
    hipChannelFormatDesc sfmt = hipCreateChannelDesc<short>();
    hipArray_t a2 = nullptr;
    HIP_CHECK(hipMallocArray(&a2, &sfmt, aw, ah));
    HIP_CHECK(hipMemcpyToArray(a2, 0, 0, img.data(), img.size() * sizeof(short),
                               hipMemcpyHostToDevice));
    // Rows 1..3, texels 2..5, into a buffer with a pitch of 6 shorts.
    std::vector<short> part(6 * 3, 0);
    HIP_CHECK(hipMemcpy2DFromArray(part.data(), 6 * sizeof(short), a2, 2 * sizeof(short), 1,
                                   4 * sizeof(short), 3, hipMemcpyDeviceToHost));
    std::vector<short> want_part(6 * 3, 0);
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 4; ++x) want_part[y * 6 + x] = img[(y + 1) * aw + x + 2];
    bad += count_mismatches("hipMemcpy2DFromArray", part, want_part);
    // 12 shorts from texel 3 of row 2: the rest of row 2, all of row 3, one texel of row 4.
    std::vector<short> run(12, 0);
    HIP_CHECK(hipMemcpyFromArray(run.data(), a2, 3 * sizeof(short), 2, run.size() * sizeof(short),
                                 hipMemcpyDeviceToHost));
    std::vector<short> want_run(img.begin() + 2 * aw + 3, img.begin() + 2 * aw + 3 + 12);
    bad += count_mismatches("hipMemcpyFromArray", run, want_run);
    // Write through a 2-D copy at an offset, read everything back.
    std::vector<short> two = {1, 2, 3, 4};
    HIP_CHECK(hipMemcpy2DToArray(a2, 5 * sizeof(short), 3, two.data(), 2 * sizeof(short),
                                 2 * sizeof(short), 2, hipMemcpyHostToDevice));
    std::vector<short> all(aw * ah, 0);
    HIP_CHECK(hipMemcpy2DFromArray(all.data(), aw * sizeof(short), a2, 0, 0, aw * sizeof(short),
                                   ah, hipMemcpyDeviceToHost));
    std::vector<short> want_all = img;
    want_all[3 * aw + 5] = 1;
    want_all[3 * aw + 6] = 2;
    want_all[4 * aw + 5] = 3;
    want_all[4 * aw + 6] = 4;
    bad += count_mismatches("hipMemcpy2DToArray at an offset", all, want_all);

    // Misuse: a box past the array, a freed array.
    if (hipMemcpy2DFromArray(all.data(), aw * sizeof(short), a2, 0, 1, aw * sizeof(short), ah,
                             hipMemcpyDeviceToHost) != hipErrorInvalidValue) {
      std::printf("a copy past the array's rows was accepted\n");
      ++bad;
    }
    HIP_CHECK(hipFreeArray(a2));
    if (hipMemcpyFromArray(run.data(), a2, 0, 0, 2, hipMemcpyDeviceToHost) !=
        hipErrorInvalidHandle) {
      std::printf("a freed array was used\n");
      ++bad;
    }
    (void)hipGetLastError();
  }

  // Misuse of hipMemcpy3D: a box beyond the array, both an array and a pointer.
  {
    HostVolume<int> small(2, 2, 2, 0, 0);
    p = params();
    p.srcArray = array;
    p.srcPos = make_hipPos(w - 1, 0, 0);
    p.dstPtr = small.pitched();
    p.extent = make_hipExtent(2, 2, 2);
    p.kind = hipMemcpyDeviceToHost;
    if (hipMemcpy3D(&p) != hipErrorInvalidValue) {
      std::printf("a box beyond the array was accepted\n");
      ++bad;
    }
    p.srcPos = make_hipPos(0, 0, 0);
    p.srcPtr = small.pitched();
    if (hipMemcpy3D(&p) != hipErrorInvalidValue) {
      std::printf("a side with an array and a pointer was accepted\n");
      ++bad;
    }
    (void)hipGetLastError();
  }

  HIP_CHECK(hipStreamDestroy(stream));
  HIP_CHECK(hipFreeArray(array));
  HIP_CHECK(hipFree(dev.ptr));
  if (bad != 0) {
    std::printf("FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASSED\n");
  return 0;
}
