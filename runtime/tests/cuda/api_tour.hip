// The HIP runtime API a typical program uses, on whichever backend serves the process: streams
// and events, async copies and fills, pinned and managed memory, 2-D copies, device variables
// through the symbol API, hipLaunchKernel, host functions and callbacks, kernel attributes and
// occupancy. Every device result is compared with the host's.
#include <hip/hip_runtime.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define HIP_CHECK(call)                                                              \
  do {                                                                               \
    hipError_t err_ = (call);                                                        \
    if (err_ != hipSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, \
                   hipGetErrorString(err_), hipGetErrorName(err_));                  \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

__constant__ float coefficients[4];
__device__ int hits;

template <typename T>
__global__ void polynomial(const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    T v = x[i];
    y[i] = coefficients[0] + v * (coefficients[1] + v * (coefficients[2] + v * coefficients[3]));
    if (v > T(0.5)) atomicAdd(&hits, 1);
  }
}

__global__ void scale_rows(float* m, size_t pitch, int width, int height, float factor) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x < width && y < height) {
    float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(m) + y * pitch);
    row[x] *= factor;
  }
}

__global__ void block_sums(const int* in, int* out, int n) {
  extern __shared__ int partial[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

static std::atomic<int> host_calls{0};

static void host_step(void* data) { host_calls += *static_cast<int*>(data); }

static void stream_done(hipStream_t, hipError_t status, void* data) {
  if (status == hipSuccess) host_calls += *static_cast<int*>(data);
}

int main() {
  int bad = 0;
  int count = 0;
  HIP_CHECK(hipGetDeviceCount(&count));
  hipDeviceProp_t props;
  HIP_CHECK(hipGetDeviceProperties(&props, 0));
  int warp = 0, sms = 0;
  HIP_CHECK(hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, 0));
  HIP_CHECK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, 0));
  std::printf("%d device(s); device 0: %s (%s), warpSize %d, %d compute units\n", count,
              props.name, props.gcnArchName, warp, sms);
  if (warp != props.warpSize || sms != props.multiProcessorCount) {
    std::printf("attributes disagree with the properties\n");
    ++bad;
  }

  // Device variables: __constant__ coefficients in, a __device__ counter out.
  const float c[4] = {1.0f, -2.0f, 0.5f, 0.25f};
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(coefficients), c, sizeof(c)));
  const int zero = 0;
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(hits), &zero, sizeof(zero)));
  void* hits_address = nullptr;
  size_t hits_size = 0;
  HIP_CHECK(hipGetSymbolAddress(&hits_address, HIP_SYMBOL(hits)));
  HIP_CHECK(hipGetSymbolSize(&hits_size, HIP_SYMBOL(hits)));
  if (hits_address == nullptr || hits_size != sizeof(int)) {
    std::printf("symbol address/size wrong: %p %zu\n", hits_address, hits_size);
    ++bad;
  }

  // Pinned input, async copies on a stream, events around the kernel.
  const int n = 1 << 18;
  float* x = nullptr;
  HIP_CHECK(hipHostMalloc(&x, n * sizeof(float), hipHostMallocDefault));
  int expected_hits = 0;
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 1000) / 1000.0f;
    if (x[i] > 0.5f) ++expected_hits;
  }
  float *dx = nullptr, *dy = nullptr;
  HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dy, n * sizeof(float)));
  hipStream_t stream;
  HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  hipEvent_t start, stop;
  HIP_CHECK(hipEventCreate(&start));
  HIP_CHECK(hipEventCreate(&stop));
  HIP_CHECK(hipMemcpyAsync(dx, x, n * sizeof(float), hipMemcpyHostToDevice, stream));
  HIP_CHECK(hipMemsetAsync(dy, 0, n * sizeof(float), stream));
  HIP_CHECK(hipEventRecord(start, stream));
  hipLaunchKernelGGL(polynomial<float>, dim3((n + 255) / 256), dim3(256), 0, stream, dx, dy, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipEventRecord(stop, stream));
  int step = 1, done = 10;
  HIP_CHECK(hipLaunchHostFunc(stream, host_step, &step));
  HIP_CHECK(hipStreamAddCallback(stream, stream_done, &done, 0));
  std::vector<float> y(n);
  HIP_CHECK(hipMemcpyAsync(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  HIP_CHECK(hipEventSynchronize(stop));
  float ms = -1.0f;
  HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    float v = x[i];
    float want = c[0] + v * (c[1] + v * (c[2] + v * c[3]));
    if (y[i] != want) {
      if (wrong < 5) std::printf("polynomial: mismatch at %d: %f != %f\n", i, y[i], want);
      ++wrong;
    }
  }
  bad += wrong;
  int got_hits = -1;
  HIP_CHECK(hipMemcpyFromSymbol(&got_hits, HIP_SYMBOL(hits), sizeof(int)));
  if (got_hits != expected_hits) {
    std::printf("hits: got %d, want %d\n", got_hits, expected_hits);
    ++bad;
  }
  if (host_calls != 11) {
    std::printf("host function and callback: got %d, want 11\n", host_calls.load());
    ++bad;
  }
  if (ms < 0.0f) {
    std::printf("elapsed time %f\n", ms);
    ++bad;
  }

  // hipLaunchKernel with an argument array, dynamic shared memory, on the null stream.
  const int m = 100000, block = 256, blocks = (m + block - 1) / block;
  std::vector<int> in(m);
  for (int i = 0; i < m; ++i) in[i] = (i * 7) % 13 - 6;
  int *din = nullptr, *dout = nullptr;
  HIP_CHECK(hipMalloc(&din, m * sizeof(int)));
  HIP_CHECK(hipMalloc(&dout, blocks * sizeof(int)));
  HIP_CHECK(hipMemcpy(din, in.data(), m * sizeof(int), hipMemcpyHostToDevice));
  int mm = m;
  void* args[] = {&din, &dout, &mm};
  HIP_CHECK(hipLaunchKernel(reinterpret_cast<const void*>(block_sums), dim3(blocks), dim3(block),
                            args, block * sizeof(int), nullptr));
  std::vector<int> sums(blocks);
  HIP_CHECK(hipMemcpy(sums.data(), dout, blocks * sizeof(int), hipMemcpyDeviceToHost));
  for (int b = 0; b < blocks; ++b) {
    int want = 0;
    for (int i = b * block; i < (b + 1) * block && i < m; ++i) want += in[i];
    if (sums[b] != want) {
      if (bad < 5) std::printf("block_sums: block %d: %d != %d\n", b, sums[b], want);
      ++bad;
    }
  }
  hipFuncAttributes attr;
  HIP_CHECK(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(block_sums)));
  int min_grid = 0, best_block = 0, resident = 0;
  HIP_CHECK(hipOccupancyMaxPotentialBlockSize(&min_grid, &best_block, block_sums, 0, 0));
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&resident, block_sums, 256, 1024));
  if (attr.maxThreadsPerBlock <= 0 || best_block <= 0 || min_grid <= 0 || resident <= 0) {
    std::printf("kernel queries: max threads %d, block %d, grid %d, resident %d\n",
                attr.maxThreadsPerBlock, best_block, min_grid, resident);
    ++bad;
  }

  // Managed memory and a pitched 2-D copy round trip.
  const int width = 300, height = 40;
  float* managed = nullptr;
  HIP_CHECK(hipMallocManaged(&managed, width * height * sizeof(float)));
  for (int i = 0; i < width * height; ++i) managed[i] = static_cast<float>(i);
  float* pitched = nullptr;
  size_t pitch = 0;
  HIP_CHECK(hipMallocPitch(reinterpret_cast<void**>(&pitched), &pitch, width * sizeof(float), height));
  HIP_CHECK(hipMemcpy2D(pitched, pitch, managed, width * sizeof(float), width * sizeof(float), height,
                        hipMemcpyDefault));
  hipLaunchKernelGGL(scale_rows, dim3((width + 127) / 128, height), dim3(128), 0, 0, pitched, pitch,
                     width, height, 3.0f);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy2D(managed, width * sizeof(float), pitched, pitch, width * sizeof(float), height,
                        hipMemcpyDefault));
  HIP_CHECK(hipDeviceSynchronize());
  for (int i = 0; i < width * height; ++i) {
    if (managed[i] != 3.0f * i) {
      if (bad < 5) std::printf("2-D: mismatch at %d: %f\n", i, managed[i]);
      ++bad;
    }
  }
  hipPointerAttribute_t pa;
  HIP_CHECK(hipPointerGetAttributes(&pa, dx));
  if (pa.type != hipMemoryTypeDevice) {
    std::printf("pointer attributes: type %d for device memory\n", static_cast<int>(pa.type));
    ++bad;
  }

  HIP_CHECK(hipFree(pitched));
  HIP_CHECK(hipFree(managed));
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  HIP_CHECK(hipHostFree(x));
  HIP_CHECK(hipEventDestroy(start));
  HIP_CHECK(hipEventDestroy(stop));
  HIP_CHECK(hipStreamDestroy(stream));
  if (bad) {
    std::printf("api_tour FAILED: %d problems\n", bad);
    return 1;
  }
  std::printf("api_tour PASSED (kernel %.3f ms)\n", ms);
  return 0;
}
