// The rest of the runtime API as programs use it: managed memory attached to streams, the driver
// API's copy nodes in graphs, a kernel's hipFunction_t from its symbol, API names by callback
// ID, launches on every device at once (cooperative and plain, with their synchronization),
// texture objects through the driver API, the largest 1-D linear texture and surface objects;
// with misuse.
// Device results are compared with host references on every element. Run it with
// HIPMLIR_DEVICE=0,0 to have two devices.
#include "test_common.h"

#include <cmath>
#include <cstdint>
#include <cstring>

__global__ void affine(int* p, int a, int b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = a * p[i] + b;
}

// Each thread stores its global index plus `base`.
__global__ void stamp(int* out, int base, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = base + i;
}

__global__ void fetch_float(hipTextureObject_t tex, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(tex, i);
}

__global__ void sample_uchar2(hipTextureObject_t tex, float2* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float2>(tex, x + 0.5f, y + 0.5f);
}

// Writes texel (x, y) of a 2-D int array through a surface object, read as the descriptor it
// is (struct __hip_texture: base, pitches, extent), as a surface write would.
__global__ void write_through_surface(const __hip_texture* d) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < static_cast<int>(d->width) && y < static_cast<int>(d->height)) {
    int* row = reinterpret_cast<int*>(const_cast<unsigned char*>(d->base) + y * d->row_pitch);
    row[x] = y * 1000 + x;
  }
}

namespace {

int blocks(int n) { return (n + 127) / 128; }

// hipStreamAttachMemAsync: managed memory attached to one stream, to every stream, to the host.
int attached_memory() {
  int bad = 0;
  int managed = 0;
  HIP_CHECK(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, 0));
  if (!managed) {
    std::printf("managed memory not supported: hipStreamAttachMemAsync not tried\n");
    return 0;
  }
  constexpr int n = 4096;
  int *single = nullptr, *global = nullptr;
  HIP_CHECK(hipMallocManaged(&single, n * sizeof(int), hipMemAttachHost));
  HIP_CHECK(hipMallocManaged(&global, n * sizeof(int)));
  hipStream_t s;
  HIP_CHECK(hipStreamCreate(&s));
  HIP_CHECK(hipStreamAttachMemAsync(s, single, 0, hipMemAttachSingle));
  HIP_CHECK(hipStreamAttachMemAsync(nullptr, global, n * sizeof(int), hipMemAttachGlobal));
  for (int i = 0; i < n; ++i) single[i] = global[i] = i;
  affine<<<blocks(n), 128, 0, s>>>(single, 3, -1, n);
  affine<<<blocks(n), 128>>>(global, -2, 5, n);
  HIP_CHECK(hipStreamSynchronize(s));
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<int> got_single(single, single + n), got_global(global, global + n), want1(n),
      want2(n);
  for (int i = 0; i < n; ++i) {
    want1[i] = 3 * i - 1;
    want2[i] = -2 * i + 5;
  }
  bad += count_mismatches("attached to one stream", got_single, want1);
  bad += count_mismatches("attached to every stream", got_global, want2);
  HIP_CHECK(hipStreamAttachMemAsync(s, single, 0, hipMemAttachHost));
  HIP_CHECK(hipStreamSynchronize(s));

  // Misuse.
  EXPECT_ERROR(hipStreamAttachMemAsync(s, nullptr, 0, hipMemAttachSingle), hipErrorInvalidValue);
  EXPECT_ERROR(hipStreamAttachMemAsync(s, single, n * sizeof(int) / 2, hipMemAttachSingle),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipStreamAttachMemAsync(s, single + 1, 0, hipMemAttachSingle),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipStreamAttachMemAsync(s, single, 0, hipMemAttachGlobal | hipMemAttachHost),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipStreamAttachMemAsync(nullptr, single, 0, hipMemAttachSingle),
               hipErrorInvalidValue);
  int* plain = nullptr;
  HIP_CHECK(hipMalloc(&plain, 64));
  EXPECT_ERROR(hipStreamAttachMemAsync(s, plain, 0, hipMemAttachSingle), hipErrorInvalidValue);
  HIP_CHECK(hipFree(plain));
  // Pageable memory: a length is needed, where the device reaches pageable memory at all.
  int pageable_access = 0;
  HIP_CHECK(hipDeviceGetAttribute(&pageable_access, hipDeviceAttributePageableMemoryAccess, 0));
  std::vector<int> pageable(1024);
  if (pageable_access) {
    HIP_CHECK(hipStreamAttachMemAsync(s, pageable.data(), 4096, hipMemAttachSingle));
    EXPECT_ERROR(hipStreamAttachMemAsync(s, pageable.data(), 0, hipMemAttachSingle),
                 hipErrorInvalidValue);
  } else {
    EXPECT_ERROR(hipStreamAttachMemAsync(s, pageable.data(), 4096, hipMemAttachSingle),
                 hipErrorInvalidValue);
  }
  HIP_CHECK(hipStreamDestroy(s));
  EXPECT_ERROR(hipStreamAttachMemAsync(s, single, 0, hipMemAttachSingle),
               hipErrorContextIsDestroyed);
  HIP_CHECK(hipFree(single));
  HIP_CHECK(hipFree(global));
  return bad;
}

// A HIP_MEMCPY3D between pitched memory of each kind, all fields given.
HIP_MEMCPY3D describe(hipMemoryType src_type, const void* src, size_t src_pitch,
                      hipMemoryType dst_type, void* dst, size_t dst_pitch, size_t width,
                      size_t height) {
  HIP_MEMCPY3D p;
  std::memset(&p, 0, sizeof p);
  p.srcMemoryType = src_type;
  if (src_type == hipMemoryTypeHost) {
    p.srcHost = src;
  } else {
    p.srcDevice = const_cast<void*>(src);
  }
  p.srcPitch = src_pitch;
  p.dstMemoryType = dst_type;
  if (dst_type == hipMemoryTypeHost) {
    p.dstHost = dst;
  } else {
    p.dstDevice = dst;
  }
  p.dstPitch = dst_pitch;
  p.WidthInBytes = width;
  p.Height = height;
  p.Depth = 1;
  return p;
}

// hipDrvGraphAddMemcpyNode and its parameters: host rows into pitched device memory (at an
// offset) and back, through an array, updated in the graph and in the executable graph.
int driver_copy_nodes() {
  int bad = 0;
  constexpr int w = 48, h = 20;  // ints per row, rows
  const size_t row = w * sizeof(int);
  int* dev = nullptr;
  size_t pitch = 0;
  HIP_CHECK(hipMallocPitch(reinterpret_cast<void**>(&dev), &pitch, row + 64, h));
  hipArray_t array = nullptr;
  HIP_ARRAY_DESCRIPTOR ad{};
  ad.Format = HIP_AD_FORMAT_SIGNED_INT32;
  ad.NumChannels = 1;
  ad.Width = w;
  ad.Height = h;
  HIP_CHECK(hipArrayCreate(&array, &ad));
  std::vector<int> in(w * h), out(w * h, -1);
  for (int i = 0; i < w * h; ++i) in[i] = 7 * i - 3;

  // Host -> device (16 bytes into each row) -> array -> host.
  HIP_MEMCPY3D to_dev = describe(hipMemoryTypeHost, in.data(), row, hipMemoryTypeDevice, dev,
                                 pitch, row, h);
  to_dev.dstXInBytes = 16;
  HIP_MEMCPY3D to_array = describe(hipMemoryTypeDevice, dev, pitch, hipMemoryTypeArray, nullptr,
                                   0, row, h);
  to_array.srcXInBytes = 16;
  to_array.dstArray = array;
  HIP_MEMCPY3D to_host = describe(hipMemoryTypeArray, nullptr, 0, hipMemoryTypeHost, out.data(),
                                  row, row, h);
  to_host.srcArray = array;

  hipGraph_t g;
  HIP_CHECK(hipGraphCreate(&g, 0));
  hipGraphNode_t a, b, c;
  HIP_CHECK(hipDrvGraphAddMemcpyNode(&a, g, nullptr, 0, &to_dev, nullptr));
  HIP_CHECK(hipDrvGraphAddMemcpyNode(&b, g, &a, 1, &to_array, nullptr));
  HIP_CHECK(hipDrvGraphAddMemcpyNode(&c, g, &b, 1, &to_host, nullptr));
  hipGraphNodeType type;
  HIP_CHECK(hipGraphNodeGetType(a, &type));
  EXPECT(type == hipGraphNodeTypeMemcpy);
  HIP_MEMCPY3D back;
  HIP_CHECK(hipDrvGraphMemcpyNodeGetParams(a, &back));
  EXPECT(std::memcmp(&back, &to_dev, sizeof back) == 0);

  hipGraphExec_t e;
  HIP_CHECK(hipGraphInstantiate(&e, g, nullptr, nullptr, 0));
  HIP_CHECK(hipGraphLaunch(e, nullptr));
  HIP_CHECK(hipStreamSynchronize(nullptr));
  bad += count_mismatches("host -> pitched -> array -> host", out, in);

  // A new source in the graph, then another in the executable graph only.
  std::vector<int> in2(w * h), in3(w * h);
  for (int i = 0; i < w * h; ++i) {
    in2[i] = i * i;
    in3[i] = -i;
  }
  HIP_MEMCPY3D from2 = to_dev;
  from2.srcHost = in2.data();
  HIP_CHECK(hipDrvGraphMemcpyNodeSetParams(a, &from2));
  hipGraphExec_t e2;
  HIP_CHECK(hipGraphInstantiate(&e2, g, nullptr, nullptr, 0));
  HIP_CHECK(hipGraphLaunch(e2, nullptr));
  HIP_CHECK(hipStreamSynchronize(nullptr));
  bad += count_mismatches("node parameters set", out, in2);
  HIP_MEMCPY3D from3 = to_dev;
  from3.srcHost = in3.data();
  HIP_CHECK(hipDrvGraphExecMemcpyNodeSetParams(e2, a, &from3, nullptr));
  HIP_CHECK(hipGraphLaunch(e2, nullptr));
  HIP_CHECK(hipStreamSynchronize(nullptr));
  bad += count_mismatches("executable node parameters set", out, in3);
  // The graph's node still has the second source.
  HIP_CHECK(hipDrvGraphMemcpyNodeGetParams(a, &back));
  EXPECT(back.srcHost == in2.data());

  // A node made from pointers shows its memory types in the driver's description.
  hipGraphNode_t linear;
  HIP_CHECK(hipGraphAddMemcpyNode1D(&linear, g, nullptr, 0, dev, in.data(), 64,
                                    hipMemcpyHostToDevice));
  HIP_CHECK(hipDrvGraphMemcpyNodeGetParams(linear, &back));
  EXPECT(back.srcMemoryType == hipMemoryTypeHost && back.srcHost == in.data());
  EXPECT(back.dstMemoryType == hipMemoryTypeDevice && back.dstDevice == dev);
  EXPECT(back.WidthInBytes == 64 && back.Height == 1 && back.Depth == 1);

  // Misuse: null description, a row past the pitch, an empty copy, a node of another kind,
  // another direction in the executable graph.
  EXPECT_ERROR(hipDrvGraphAddMemcpyNode(&a, g, nullptr, 0, nullptr, nullptr),
               hipErrorInvalidValue);
  HIP_MEMCPY3D wide = to_dev;
  wide.WidthInBytes = pitch + 4;
  EXPECT_ERROR(hipDrvGraphAddMemcpyNode(&a, g, nullptr, 0, &wide, nullptr),
               hipErrorInvalidPitchValue);
  HIP_MEMCPY3D empty = to_dev;
  empty.Height = 0;
  EXPECT_ERROR(hipDrvGraphAddMemcpyNode(&a, g, nullptr, 0, &empty, nullptr),
               hipErrorInvalidValue);
  hipGraphNode_t nothing;
  HIP_CHECK(hipGraphAddEmptyNode(&nothing, g, nullptr, 0));
  EXPECT_ERROR(hipDrvGraphMemcpyNodeGetParams(nothing, &back), hipErrorInvalidValue);
  EXPECT_ERROR(hipDrvGraphMemcpyNodeGetParams(a, nullptr), hipErrorInvalidValue);
  HIP_MEMCPY3D device_to_device = describe(hipMemoryTypeDevice, dev, pitch, hipMemoryTypeDevice,
                                           dev, pitch, 16, h);
  if (hipDrvGraphExecMemcpyNodeSetParams(e2, a, &device_to_device, nullptr) == hipSuccess) {
    std::printf("a copy of another direction was accepted by the executable graph\n");
    ++bad;
  }
  (void)hipGetLastError();

  HIP_CHECK(hipGraphExecDestroy(e));
  HIP_CHECK(hipGraphExecDestroy(e2));
  HIP_CHECK(hipGraphDestroy(g));
  HIP_CHECK(hipArrayDestroy(array));
  HIP_CHECK(hipFree(dev));
  return bad;
}

// hipGetFuncBySymbol: the module API launches and queries a kernel of the program.
int function_by_symbol() {
  int bad = 0;
  hipFunction_t f = nullptr, again = nullptr;
  HIP_CHECK(hipGetFuncBySymbol(&f, reinterpret_cast<const void*>(stamp)));
  HIP_CHECK(hipGetFuncBySymbol(&again, reinterpret_cast<const void*>(stamp)));
  EXPECT(f != nullptr && f == again);
  constexpr int n = 1000;
  int* d = nullptr;
  HIP_CHECK(hipMalloc(&d, n * sizeof(int)));
  int base = 41, count = n;
  void* params[] = {&d, &base, &count};
  HIP_CHECK(hipModuleLaunchKernel(f, blocks(n), 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = 41 + i;
  bad += count_mismatches("launched through hipGetFuncBySymbol", from_device(d, n), want);
  int max_threads = 0;
  HIP_CHECK(hipFuncGetAttribute(&max_threads, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
  EXPECT(max_threads >= 128);
  HIP_CHECK(hipFree(d));
  int not_a_kernel = 0;
  EXPECT_ERROR(hipGetFuncBySymbol(&f, &not_a_kernel), hipErrorInvalidDeviceFunction);
  EXPECT_ERROR(hipGetFuncBySymbol(nullptr, reinterpret_cast<const void*>(stamp)),
               hipErrorInvalidValue);
  return bad;
}

int api_names() {
  int bad = 0;
  EXPECT(std::strcmp(hipApiName(108), "hipMalloc") == 0);
  EXPECT(std::strcmp(hipApiName(322), "hipMemCreate") == 0);
  EXPECT(std::strcmp(hipApiName(392), "hipGetFuncBySymbol") == 0);
  EXPECT(std::strcmp(hipApiName(0), "unknown") == 0);
  EXPECT(std::strcmp(hipApiName(1u << 20), "unknown") == 0);
  return bad;
}

// One launch per device, cooperative (one block: the rule of every backend) and plain (many
// blocks), runtime and module forms; the work after the launches on device 0's stream waits for
// every device's kernel (post-sync), and each device's output is checked.
int launches_on_every_device() {
  int bad = 0;
  int devices = 0;
  HIP_CHECK(hipGetDeviceCount(&devices));
  constexpr int n = 4096;
  std::vector<hipStream_t> streams(devices);
  std::vector<int*> out(devices);
  for (int d = 0; d < devices; ++d) {
    HIP_CHECK(hipSetDevice(d));
    HIP_CHECK(hipStreamCreate(&streams[d]));
    HIP_CHECK(hipMalloc(&out[d], n * sizeof(int)));
  }
  HIP_CHECK(hipSetDevice(0));
  int count = n;
  std::vector<int> bases(devices);
  std::vector<std::vector<void*>> args(devices);
  for (int d = 0; d < devices; ++d) {
    bases[d] = 1000 * (d + 1);
    args[d] = {&out[d], &bases[d], &count};
  }
  auto check = [&](const char* what, int threads) {
    // Read every device's output on device 0's stream: ordered after all the launches.
    for (int d = 0; d < devices; ++d) {
      std::vector<int> got(threads), want(threads);
      HIP_CHECK(hipMemcpyAsync(got.data(), out[d], threads * sizeof(int), hipMemcpyDefault,
                               streams[0]));
      HIP_CHECK(hipStreamSynchronize(streams[0]));
      for (int i = 0; i < threads; ++i) want[i] = bases[d] + i;
      bad += count_mismatches(what, got, want);
    }
    for (int d = 0; d < devices; ++d) {
      HIP_CHECK(hipMemsetAsync(out[d], 0, n * sizeof(int), streams[d]));
      HIP_CHECK(hipStreamSynchronize(streams[d]));
    }
  };

  std::vector<hipLaunchParams> list(devices);
  for (int d = 0; d < devices; ++d) {
    list[d].func = reinterpret_cast<void*>(stamp);
    list[d].gridDim = dim3(1);
    list[d].blockDim = dim3(128);
    list[d].args = args[d].data();
    list[d].sharedMem = 0;
    list[d].stream = streams[d];
  }
  HIP_CHECK(hipLaunchCooperativeKernelMultiDevice(list.data(), devices, 0));
  check("cooperative on every device", 128);
  for (auto& l : list) l.gridDim = dim3(n / 128);
  HIP_CHECK(hipExtLaunchMultiKernelMultiDevice(list.data(), devices, 0));
  check("plain on every device", n);
  HIP_CHECK(hipExtLaunchMultiKernelMultiDevice(
      list.data(), devices,
      hipCooperativeLaunchMultiDeviceNoPreSync | hipCooperativeLaunchMultiDeviceNoPostSync));
  for (int d = 0; d < devices; ++d) HIP_CHECK(hipStreamSynchronize(streams[d]));
  check("without synchronization", n);

  hipFunction_t f;
  HIP_CHECK(hipGetFuncBySymbol(&f, reinterpret_cast<const void*>(stamp)));
  std::vector<hipFunctionLaunchParams> flist(devices);
  for (int d = 0; d < devices; ++d) {
    flist[d] = {};
    flist[d].function = f;
    flist[d].gridDimX = flist[d].gridDimY = flist[d].gridDimZ = 1;
    flist[d].blockDimX = 64;
    flist[d].blockDimY = flist[d].blockDimZ = 1;
    flist[d].hStream = streams[d];
    flist[d].kernelParams = args[d].data();
  }
  HIP_CHECK(hipModuleLaunchCooperativeKernelMultiDevice(flist.data(), devices, 0));
  check("module form on every device", 64);

  // Misuse.
  EXPECT_ERROR(hipLaunchCooperativeKernelMultiDevice(nullptr, devices, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipLaunchCooperativeKernelMultiDevice(list.data(), 0, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipExtLaunchMultiKernelMultiDevice(list.data(), devices + 1, 0),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipExtLaunchMultiKernelMultiDevice(list.data(), devices, 999),
               hipErrorInvalidValue);
  EXPECT_ERROR(hipModuleLaunchCooperativeKernelMultiDevice(nullptr, 1, 0), hipErrorInvalidValue);
  if (devices > 1) {
    std::vector<hipLaunchParams> other = list;
    other[1].gridDim = dim3(2);
    EXPECT_ERROR(hipExtLaunchMultiKernelMultiDevice(other.data(), devices, 0),
                 hipErrorInvalidValue);
    other = list;
    other[1].func = reinterpret_cast<void*>(affine);
    EXPECT_ERROR(hipExtLaunchMultiKernelMultiDevice(other.data(), devices, 0),
                 hipErrorInvalidValue);
    other = list;
    other[1].stream = streams[0];
    EXPECT_ERROR(hipExtLaunchMultiKernelMultiDevice(other.data(), devices, 0),
                 hipErrorInvalidValue);
  }
  for (int d = 0; d < devices; ++d) {
    HIP_CHECK(hipSetDevice(d));
    HIP_CHECK(hipFree(out[d]));
    HIP_CHECK(hipStreamDestroy(streams[d]));
  }
  HIP_CHECK(hipSetDevice(0));
  return bad;
}

// Texture objects from the driver API's descriptions: a float array read by tex1Dfetch (with a
// view of its own format), 2-channel 8-bit pitched memory read as normalized floats; the
// descriptions come back as given, and in the runtime's form.
int driver_texture_objects() {
  int bad = 0;
  constexpr int n = 300;
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i) values[i] = 0.5f * i - 20.0f;
  float* linear = to_device(values);

  HIP_RESOURCE_DESC res;
  std::memset(&res, 0, sizeof res);
  res.resType = HIP_RESOURCE_TYPE_LINEAR;
  res.res.linear.devPtr = linear;
  res.res.linear.format = HIP_AD_FORMAT_FLOAT;
  res.res.linear.numChannels = 1;
  res.res.linear.sizeInBytes = n * sizeof(float);
  HIP_TEXTURE_DESC tex;
  std::memset(&tex, 0, sizeof tex);
  tex.filterMode = HIP_TR_FILTER_MODE_POINT;
  tex.flags = HIP_TRSF_READ_AS_INTEGER;
  HIP_RESOURCE_VIEW_DESC view;
  std::memset(&view, 0, sizeof view);
  view.format = HIP_RES_VIEW_FORMAT_FLOAT_1X32;
  view.width = n;
  hipTextureObject_t t1 = 0;
  HIP_CHECK(hipTexObjectCreate(&t1, &res, &tex, &view));
  float* fetched = nullptr;
  HIP_CHECK(hipMalloc(&fetched, n * sizeof(float)));
  fetch_float<<<blocks(n), 128>>>(t1, fetched, n);
  bad += count_mismatches("tex1Dfetch of a driver texture object", from_device(fetched, n),
                          values);

  HIP_RESOURCE_DESC res_back;
  HIP_CHECK(hipTexObjectGetResourceDesc(&res_back, t1));
  EXPECT(res_back.resType == HIP_RESOURCE_TYPE_LINEAR && res_back.res.linear.devPtr == linear &&
         res_back.res.linear.format == HIP_AD_FORMAT_FLOAT &&
         res_back.res.linear.numChannels == 1 &&
         res_back.res.linear.sizeInBytes == n * sizeof(float));
  HIP_TEXTURE_DESC tex_back;
  HIP_CHECK(hipTexObjectGetTextureDesc(&tex_back, t1));
  EXPECT(tex_back.flags == HIP_TRSF_READ_AS_INTEGER && tex_back.filterMode == tex.filterMode);
  HIP_RESOURCE_VIEW_DESC view_back;
  HIP_CHECK(hipTexObjectGetResourceViewDesc(&view_back, t1));
  EXPECT(view_back.format == view.format && view_back.width == view.width);
  // The runtime's queries show the same object in their form.
  hipResourceDesc runtime_res;
  HIP_CHECK(hipGetTextureObjectResourceDesc(&runtime_res, t1));
  EXPECT(runtime_res.resType == hipResourceTypeLinear &&
         runtime_res.res.linear.desc.x == 32 && runtime_res.res.linear.desc.y == 0 &&
         runtime_res.res.linear.desc.f == hipChannelFormatKindFloat);
  hipResourceViewDesc runtime_view;
  HIP_CHECK(hipGetTextureObjectResourceViewDesc(&runtime_view, t1));
  EXPECT(runtime_view.format == hipResViewFormatFloat1 && runtime_view.width == (size_t)n);

  // uchar2 texels in pitched memory, read as normalized floats (no READ_AS_INTEGER).
  constexpr int w = 33, h = 9;
  unsigned char* image = nullptr;
  size_t pitch = 0;
  HIP_CHECK(hipMallocPitch(reinterpret_cast<void**>(&image), &pitch, w * 2, h));
  std::vector<unsigned char> texels(w * h * 2);
  for (int i = 0; i < w * h * 2; ++i) texels[i] = static_cast<unsigned char>((i * 37) & 0xff);
  HIP_CHECK(hipMemcpy2D(image, pitch, texels.data(), w * 2, w * 2, h, hipMemcpyHostToDevice));
  std::memset(&res, 0, sizeof res);
  res.resType = HIP_RESOURCE_TYPE_PITCH2D;
  res.res.pitch2D.devPtr = image;
  res.res.pitch2D.format = HIP_AD_FORMAT_UNSIGNED_INT8;
  res.res.pitch2D.numChannels = 2;
  res.res.pitch2D.width = w;
  res.res.pitch2D.height = h;
  res.res.pitch2D.pitchInBytes = pitch;
  std::memset(&tex, 0, sizeof tex);
  tex.addressMode[0] = tex.addressMode[1] = HIP_TR_ADDRESS_MODE_CLAMP;
  hipTextureObject_t t2 = 0;
  HIP_CHECK(hipTexObjectCreate(&t2, &res, &tex, nullptr));
  float2* sampled = nullptr;
  HIP_CHECK(hipMalloc(&sampled, w * h * sizeof(float2)));
  sample_uchar2<<<dim3(1, h), 64>>>(t2, sampled, w, h);
  std::vector<float2> got(w * h);
  HIP_CHECK(hipMemcpy(got.data(), sampled, got.size() * sizeof(float2), hipMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < w * h; ++i) {
    float x = texels[2 * i] / 255.0f, y = texels[2 * i + 1] / 255.0f;
    if (std::fabs(got[i].x - x) > 1e-6f || std::fabs(got[i].y - y) > 1e-6f) {
      if (wrong++ < 5) std::printf("texel %d: got (%f, %f), want (%f, %f)\n", i, got[i].x,
                                   got[i].y, x, y);
    }
  }
  bad += wrong;
  HIP_CHECK(hipTexObjectGetResourceViewDesc(&view_back, t2));
  EXPECT(view_back.format == HIP_RES_VIEW_FORMAT_NONE && view_back.width == 0);
  hipTextureDesc runtime_tex;
  HIP_CHECK(hipGetTextureObjectTextureDesc(&runtime_tex, t2));
  EXPECT(runtime_tex.readMode == hipReadModeNormalizedFloat &&
         runtime_tex.addressMode[0] == hipAddressModeClamp);

  // Misuse.
  EXPECT_ERROR(hipTexObjectGetResourceDesc(nullptr, t1), hipErrorInvalidValue);
  EXPECT_ERROR(hipTexObjectGetResourceDesc(&res_back, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipTexObjectGetTextureDesc(&tex_back, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipTexObjectGetResourceViewDesc(&view_back, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipGetTextureObjectResourceViewDesc(&runtime_view, 0), hipErrorInvalidValue);
  hipTextureObject_t t3 = 0;
  EXPECT_ERROR(hipTexObjectCreate(&t3, &res, nullptr, nullptr), hipErrorInvalidValue);
  HIP_TEXTURE_DESC odd = tex;
  odd.flags = 0x100;
  EXPECT_ERROR(hipTexObjectCreate(&t3, &res, &odd, nullptr), hipErrorInvalidValue);
  view.format = HIP_RES_VIEW_FORMAT_UINT_1X16;  // reinterpreting uchar2 as ushort
  EXPECT_ERROR(hipTexObjectCreate(&t3, &res, &tex, &view), hipErrorNotSupported);

  HIP_CHECK(hipTexObjectDestroy(t1));
  HIP_CHECK(hipTexObjectDestroy(t2));
  EXPECT_ERROR(hipTexObjectGetTextureDesc(&tex_back, t2), hipErrorInvalidValue);
  HIP_CHECK(hipFree(linear));
  HIP_CHECK(hipFree(fetched));
  HIP_CHECK(hipFree(image));
  HIP_CHECK(hipFree(sampled));
  return bad;
}

int linear_texture_width() {
  int bad = 0;
  size_t floats = 0, float4s = 0;
  hipChannelFormatDesc f1 = hipCreateChannelDesc<float>();
  hipChannelFormatDesc f4 = hipCreateChannelDesc<float4>();
  HIP_CHECK(hipDeviceGetTexture1DLinearMaxWidth(&floats, &f1, 0));
  HIP_CHECK(hipDeviceGetTexture1DLinearMaxWidth(&float4s, &f4, 0));
  EXPECT(floats > 0 && float4s > 0 && float4s <= floats);
  int devices = 0;
  HIP_CHECK(hipGetDeviceCount(&devices));
  EXPECT_ERROR(hipDeviceGetTexture1DLinearMaxWidth(&floats, &f1, devices), hipErrorInvalidDevice);
  EXPECT_ERROR(hipDeviceGetTexture1DLinearMaxWidth(nullptr, &f1, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipDeviceGetTexture1DLinearMaxWidth(&floats, nullptr, 0), hipErrorInvalidValue);
  return bad;
}

// The device's texture and surface limits: reported (textures are read in software on every
// device, so image support is), the arrays at the limits made, and one texel more refused.
int array_limits() {
  int bad = 0;
  int image = 0, t1 = 0, t2w = 0, t2h = 0, s1 = 0, s2 = 0, t3 = 0;
  HIP_CHECK(hipDeviceGetAttribute(&image, hipDeviceAttributeImageSupport, 0));
  HIP_CHECK(hipDeviceGetAttribute(&t1, hipDeviceAttributeMaxTexture1DWidth, 0));
  HIP_CHECK(hipDeviceGetAttribute(&t2w, hipDeviceAttributeMaxTexture2DWidth, 0));
  HIP_CHECK(hipDeviceGetAttribute(&t2h, hipDeviceAttributeMaxTexture2DHeight, 0));
  HIP_CHECK(hipDeviceGetAttribute(&t3, hipDeviceAttributeMaxTexture3DDepth, 0));
  HIP_CHECK(hipDeviceGetAttribute(&s1, hipDeviceAttributeMaxSurface1D, 0));
  HIP_CHECK(hipDeviceGetAttribute(&s2, hipDeviceAttributeMaxSurface2D, 0));
  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  EXPECT(image == 1);
  EXPECT(t1 > 0 && t2w > 0 && t2h > 0 && t3 > 0 && s1 > 0 && s2 > 0);
  EXPECT(prop.maxTexture1D == t1 && prop.maxTexture2D[0] == t2w && prop.maxTexture2D[1] == t2h);
  EXPECT(prop.maxTexture3D[2] == t3 && prop.maxSurface1D == s1 && prop.maxSurface2D[0] == s2);
  hipChannelFormatDesc desc = hipCreateChannelDesc<char>();
  hipArray_t a = nullptr;
  HIP_CHECK(hipMallocArray(&a, &desc, t1, 0));
  HIP_CHECK(hipFreeArray(a));
  HIP_CHECK(hipMallocArray(&a, &desc, s1, 0, hipArraySurfaceLoadStore));
  HIP_CHECK(hipFreeArray(a));
  HIP_CHECK(hipMallocArray(&a, &desc, 16, t2h));
  HIP_CHECK(hipFreeArray(a));
  EXPECT_ERROR(hipMallocArray(&a, &desc, t1 + 1, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMallocArray(&a, &desc, s1 + 1, 0, hipArraySurfaceLoadStore), hipErrorInvalidValue);
  EXPECT_ERROR(hipMallocArray(&a, &desc, t2w + 1, 4), hipErrorInvalidValue);
  EXPECT_ERROR(hipMallocArray(&a, &desc, 4, t2h + 1), hipErrorInvalidValue);
  EXPECT_ERROR(hipMalloc3DArray(&a, &desc, make_hipExtent(4, 4, t3 + 1), 0), hipErrorInvalidValue);
  return bad;
}

// Surface objects over arrays: a kernel writes every texel through one, the host reads the
// array back; misuse as HIP answers it.
int surface_objects() {
  int bad = 0;
  constexpr int w = 70, h = 6;
  hipChannelFormatDesc desc = hipCreateChannelDesc<int>();
  hipArray_t array = nullptr;
  HIP_CHECK(hipMallocArray(&array, &desc, w, h, hipArraySurfaceLoadStore));
  hipResourceDesc res{};
  res.resType = hipResourceTypeArray;
  res.res.array.array = array;
  hipSurfaceObject_t surface = nullptr;
  HIP_CHECK(hipCreateSurfaceObject(&surface, &res));
  EXPECT(surface != nullptr);
  write_through_surface<<<dim3(1, h), 128>>>(reinterpret_cast<const __hip_texture*>(surface));
  std::vector<int> got(w * h), want(w * h);
  HIP_CHECK(hipMemcpy2DFromArray(got.data(), w * sizeof(int), array, 0, 0, w * sizeof(int), h,
                                 hipMemcpyDeviceToHost));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) want[y * w + x] = y * 1000 + x;
  bad += count_mismatches("written through a surface", got, want);

  EXPECT_ERROR(hipCreateSurfaceObject(nullptr, &res), hipErrorInvalidValue);
  EXPECT_ERROR(hipCreateSurfaceObject(&surface, nullptr), hipErrorInvalidValue);
  hipResourceDesc linear = res;
  linear.resType = hipResourceTypeLinear;
  EXPECT_ERROR(hipCreateSurfaceObject(&surface, &linear), hipErrorInvalidValue);
  hipResourceDesc no_array = res;
  no_array.res.array.array = nullptr;
  EXPECT_ERROR(hipCreateSurfaceObject(&surface, &no_array), hipErrorInvalidHandle);
  hipArray_t freed = nullptr;
  HIP_CHECK(hipMallocArray(&freed, &desc, 8, 0, hipArraySurfaceLoadStore));
  HIP_CHECK(hipFreeArray(freed));
  hipResourceDesc stale = res;
  stale.res.array.array = freed;
  EXPECT_ERROR(hipCreateSurfaceObject(&surface, &stale), hipErrorContextIsDestroyed);
  HIP_CHECK(hipDestroySurfaceObject(surface));
  EXPECT_ERROR(hipDestroySurfaceObject(surface), hipErrorInvalidValue);
  HIP_CHECK(hipDestroySurfaceObject(nullptr));
  HIP_CHECK(hipFreeArray(array));
  return bad;
}

}  // namespace

int main() {
  int bad = 0;
  bad += attached_memory();
  bad += driver_copy_nodes();
  bad += function_by_symbol();
  bad += api_names();
  bad += launches_on_every_device();
  bad += driver_texture_objects();
  bad += linear_texture_width();
  bad += surface_objects();
  bad += array_limits();
  return report("api_odds", bad);
}
