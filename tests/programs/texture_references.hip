// Legacy texture references: `texture<T, dim, mode>` globals (one in a namespace, one with a
// constructor's sampler state) read in kernels through tex1Dfetch, tex2D and a device template
// taking the reference, bound with hipBindTexture (rebound to other memory, unbound),
// hipBindTexture2D over pitched memory with linear filtering, hipBindTextureToArray with
// normalized coordinates and normalized-float reads, and through the driver API
// (hipGetTextureReference, hipTexRefSetFormat, hipTexRefSetAddress); every result compared with a
// host model of the texture unit, and misuse answered with HIP's error codes.
#include "test_common.h"
#include "host_utilities.h"
#include "include/texture_reference.h"

#include <cstring>

texture<float, hipTextureType1D, hipReadModeElementType> samples;
texture<float, 2> field(0, hipFilterModeLinear, hipAddressModeClamp);
namespace images {
texture<uchar4, hipTextureType2D, hipReadModeNormalizedFloat> photo;
}
texture<int2, hipTextureType1D> pairs;

#define LAUNCH_OVER(n, kernel, ...) kernel<<<((n) + 127) / 128, 128>>>(__VA_ARGS__, (n))

__global__ void fetch_samples(const int* at, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch(samples, at[i]);
}

// A reference handed to a device template, as helper libraries take them.
template <class Reference>
__device__ auto sample_at(const Reference& r, float2 p) -> decltype(tex2D(r, p.x, p.y)) {
  return tex2D(r, p.x, p.y);
}

__global__ void sample_field(const float2* at, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sample_at(field, at[i]);
}

__global__ void sample_photo(const float2* at, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sample_at(images::photo, at[i]);
}

__global__ void fetch_pairs(int2* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch(pairs, i);
}

static std::vector<float> lanes(const std::vector<float4>& v) {
  std::vector<float> out;
  for (const float4& f : v) out.insert(out.end(), {f.x, f.y, f.z, f.w});
  return out;
}

// hipBindTexture over linear memory: in-range fetches read the buffer, others zeros; rebinding
// reads the new buffer; memory that is not texture-aligned is bound with an offset; unbinding
// succeeds.
static int check_linear() {
  const int n = 1000, m = 1100;
  std::vector<float> a = host_utilities::random_floats(n, 1), b = host_utilities::random_floats(n, 2);
  std::vector<int> at(m);
  for (int i = 0; i < m; ++i) at[i] = (i * 37) % (n + 40) - 20;
  float* da = to_device(a);
  float* db = to_device(b);
  int* dat = to_device(at);
  float* dout = nullptr;
  HIP_CHECK(hipMalloc(&dout, m * sizeof(float)));
  int bad = 0;
  size_t offset = 1;
  HIP_CHECK(hipBindTexture(&offset, samples, da, n * sizeof(float)));
  bad += offset != 0;
  for (const std::vector<float>* source : {&a, &b}) {
    LAUNCH_OVER(m, fetch_samples, dat, dout);
    HIP_CHECK(hipDeviceSynchronize());
    std::vector<float> want(m);
    for (int i = 0; i < m; ++i) want[i] = at[i] >= 0 && at[i] < n ? (*source)[at[i]] : 0.0f;
    bad += count_far("tex1Dfetch", from_device(dout, m), want, 0.0f);
    hipChannelFormatDesc desc = hipCreateChannelDesc<float>();
    HIP_CHECK(hipBindTexture(nullptr, samples, db, desc, n * sizeof(float)));
  }
  HIP_CHECK(hipGetTextureAlignmentOffset(&offset, &samples));
  bad += offset != 0;
  // Memory that is not texture-aligned: the aligned address below it is bound, and fetches add
  // the returned offset, as with CUDA; without an offset pointer the bind is refused.
  bad += hipBindTexture(nullptr, samples, db + 3, n * sizeof(float)) != hipErrorInvalidValue;
  HIP_CHECK(hipBindTexture(&offset, samples, db + 3, (n - 3) * sizeof(float)));
  size_t queried = 0;
  HIP_CHECK(hipGetTextureAlignmentOffset(&queried, &samples));
  bad += offset != 3 * sizeof(float) || queried != offset;
  std::vector<int> shifted(m);
  for (int i = 0; i < m; ++i) shifted[i] = at[i] + (int)(offset / sizeof(float));
  HIP_CHECK(hipMemcpy(dat, shifted.data(), m * sizeof(int), hipMemcpyHostToDevice));
  LAUNCH_OVER(m, fetch_samples, dat, dout);
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<float> want(m);
  // The texture starts at the aligned address: its texels are b[0], b[1], ...
  for (int i = 0; i < m; ++i) want[i] = at[i] + 3 >= 0 && at[i] + 3 < n ? b[at[i] + 3] : 0.0f;
  bad += count_far("tex1Dfetch past an offset", from_device(dout, m), want, 0.0f);
  HIP_CHECK(hipUnbindTexture(samples));
  for (void* p : {(void*)da, (void*)db, (void*)dat, (void*)dout}) HIP_CHECK(hipFree(p));
  return bad;
}

// hipBindTexture2D over pitched memory, linear filtering as `field` was declared.
static int check_pitched() {
  const int w = 37, h = 23, m = 500;
  HostTexture host;
  host.width = w;
  host.height = h;
  host.linear_filter = true;
  std::vector<float> texels = host_utilities::random_floats(w * h, 3);
  host.data.resize(texels.size() * 4);
  std::memcpy(host.data.data(), texels.data(), host.data.size());
  float* dev = nullptr;
  size_t pitch = 0;
  HIP_CHECK(hipMallocPitch((void**)&dev, &pitch, w * sizeof(float), h));
  HIP_CHECK(hipMemcpy2D(dev, pitch, texels.data(), w * sizeof(float), w * sizeof(float), h,
                        hipMemcpyHostToDevice));
  HIP_CHECK(hipBindTexture2D(nullptr, field, dev, w, h, pitch));
  std::vector<float2> at(m);
  std::vector<float> want(m);
  for (int i = 0; i < m; ++i) {
    at[i] = make_float2(-2.0f + (w + 4.0f) * ((i * 7919) % 1000) / 1000.0f,
                        -2.0f + (h + 4.0f) * ((i * 104729) % 997) / 997.0f);
    want[i] = host.sample(2, at[i].x, at[i].y, 0.0f, 0).f[0];
  }
  float2* dat = to_device(at);
  float* dout = nullptr;
  HIP_CHECK(hipMalloc(&dout, m * sizeof(float)));
  LAUNCH_OVER(m, sample_field, dat, dout);
  HIP_CHECK(hipDeviceSynchronize());
  int bad = count_far("tex2D linear", from_device(dout, m), want, 1e-5f);
  HIP_CHECK(hipUnbindTexture(&field));
  for (void* p : {(void*)dev, (void*)dat, (void*)dout}) HIP_CHECK(hipFree(p));
  return bad;
}

// hipBindTextureToArray: uchar4 texels read as normalized floats at normalized coordinates,
// wrapping, as the host set the reference's fields before binding.
static int check_array() {
  const int w = 16, h = 8, m = 300;
  HostTexture host;
  host.width = w;
  host.height = h;
  host.channels = 4;
  host.bytes = 1;
  host.kind = hipChannelFormatKindUnsigned;
  host.normalized_read = true;
  host.normalized_coords = true;
  host.mode[0] = host.mode[1] = hipAddressModeWrap;
  host.data.resize(w * h * 4);
  for (size_t i = 0; i < host.data.size(); ++i) host.data[i] = (unsigned char)(i * 31 + 7);
  hipChannelFormatDesc desc = hipCreateChannelDesc<uchar4>();
  hipArray_t array = nullptr;
  HIP_CHECK(hipMallocArray(&array, &desc, w, h));
  HIP_CHECK(hipMemcpy2DToArray(array, 0, 0, host.data.data(), w * 4, w * 4, h,
                               hipMemcpyHostToDevice));
  images::photo.normalized = 1;
  images::photo.addressMode[0] = images::photo.addressMode[1] = hipAddressModeWrap;
  HIP_CHECK(hipBindTextureToArray(images::photo, array));
  std::vector<float2> at(m);
  std::vector<float4> want(m);
  for (int i = 0; i < m; ++i) {
    at[i] = make_float2(-1.5f + 3.0f * ((i * 61) % 113) / 113.0f,
                        -1.5f + 3.0f * ((i * 17) % 101) / 101.0f);
    HostTexel t = host.sample(2, at[i].x, at[i].y, 0.0f, 0);
    want[i] = make_float4(t.f[0], t.f[1], t.f[2], t.f[3]);
  }
  float2* dat = to_device(at);
  float4* dout = nullptr;
  HIP_CHECK(hipMalloc(&dout, m * sizeof(float4)));
  LAUNCH_OVER(m, sample_photo, dat, dout);
  HIP_CHECK(hipDeviceSynchronize());
  int bad = count_far("tex2D normalized", lanes(from_device(dout, m)), lanes(want), 0.0f);
  HIP_CHECK(hipUnbindTexture(images::photo));
  HIP_CHECK(hipFreeArray(array));
  for (void* p : {(void*)dat, (void*)dout}) HIP_CHECK(hipFree(p));
  return bad;
}

// The driver API on the program's reference: the format set by hipTexRefSetFormat, the memory
// by hipTexRefSetAddress and read back by hipTexRefGetAddress; misuse refused.
static int check_driver_api() {
  const int n = 257;
  std::vector<int2> values(n);
  for (int i = 0; i < n; ++i) values[i] = make_int2(i * 3 - 100, -i * i);
  int2* dev = to_device(values);
  const textureReference* constant_ref = nullptr;
  HIP_CHECK(hipGetTextureReference(&constant_ref, &pairs));
  int bad = constant_ref != &pairs;
  textureReference* ref = const_cast<textureReference*>(constant_ref);
  HIP_CHECK(hipTexRefSetFormat(ref, HIP_AD_FORMAT_SIGNED_INT32, 2));
  HIP_CHECK(hipTexRefSetFlags(ref, HIP_TRSF_READ_AS_INTEGER));
  hipDeviceptr_t bound = nullptr;
  bad += hipTexRefGetAddress(&bound, ref) != hipErrorInvalidValue;  // not bound yet
  size_t offset = 1;
  HIP_CHECK(hipTexRefSetAddress(&offset, ref, dev, n * sizeof(int2)));
  HIP_CHECK(hipTexRefGetAddress(&bound, ref));
  bad += offset != 0 || bound != (hipDeviceptr_t)dev;
  int2* dout = nullptr;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(int2)));
  LAUNCH_OVER(n, fetch_pairs, dout);
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<int2> got = from_device(dout, n);
  for (int i = 0; i < n; ++i) {
    if (got[i].x != values[i].x || got[i].y != values[i].y) {
      if (bad < 5) std::printf("pairs: element %d: got (%d, %d)\n", i, got[i].x, got[i].y);
      ++bad;
    }
  }
  // Misuse: no memory, memory the runtime did not allocate, no reference.
  float host_memory[4];
  bad += hipBindTexture(nullptr, samples, nullptr, 16) != hipErrorInvalidValue;
  bad += hipBindTexture(nullptr, samples, host_memory, 16) != hipErrorInvalidValue;
  bad += hipUnbindTexture(nullptr) != hipErrorInvalidValue;
  HIP_CHECK(hipUnbindTexture(ref));
  for (void* p : {(void*)dev, (void*)dout}) HIP_CHECK(hipFree(p));
  return bad;
}

int main() {
  int bad = check_linear() + check_pitched() + check_array() + check_driver_api();
  return report("texture_references", bad);
}
