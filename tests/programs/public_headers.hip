// Every public header HIP ships, included together as programs include them, with HIP's numbers
// and layouts pinned (hipDeviceProp_t is HIP 6's 1472 bytes; enum values programs store and
// compare), and what they add used for real: hipExtLaunchKernelGGL with its events, the single
// device's multi-grid group (this_multi_grid), HIP's math constants in device code, the profiling
// markers, and device properties that agree with hipDeviceGetAttribute.
#include <hip/channel_descriptor.h>
#include <hip/device_functions.h>
#include <hip/driver_types.h>
#include <hip/hip_bf16.h>
#include <hip/hip_bfloat16.h>
#include <hip/hip_common.h>
#include <hip/hip_complex.h>
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_deprecated.h>
#include <hip/hip_ext.h>
#include <hip/hip_fp16.h>
#include <hip/hip_fp8.h>
#include <hip/hip_gl_interop.h>
#include <hip/hip_hcc.h>
#include <hip/hip_math_constants.h>
#include <hip/hip_profile.h>
#include <hip/hip_runtime.h>
#include <hip/hip_runtime_api.h>
#include <hip/hip_texture_types.h>
#include <hip/hip_vector_types.h>
#include <hip/hip_version.h>
#include <hip/hiprtc.h>
#include <hip/library_types.h>
#include <hip/math_functions.h>
#include <hip/surface_types.h>
#include <hip/texture_types.h>

#include <cmath>
#include <cstddef>
#include <type_traits>

#include "test_common.h"

namespace cg = cooperative_groups;

// ---- HIP's layouts and numbers ----
static_assert(sizeof(hipDeviceProp_t) == 1472, "HIP 6's hipDeviceProp_t (R0600)");
static_assert(std::is_same<hipDeviceProp_t, hipDeviceProp_tR0600>::value, "one struct");
static_assert(offsetof(hipDeviceProp_t, totalGlobalMem) == 288, "after name, uuid, luid");
static_assert(offsetof(hipDeviceProp_t, gcnArchName) == 1160, "HIP's own fields at the end");
static_assert(sizeof(hipDeviceArch_t) == 4, "17 feature bits");
static_assert(sizeof(hipUUID) == 16 && sizeof(hipIpcMemHandle_t) == HIP_IPC_HANDLE_SIZE, "handles");
static_assert(sizeof(hipGraphNodeParams) == 256, "any node's parameters");
static_assert(sizeof(hipPointerAttribute_t) == 32, "pointer attributes");
static_assert(hipDeviceAttributeWallClockRate == 10017 && hipDeviceAttributeHostNumaId == 92 &&
                  hipDeviceAttributeWarpSize == 87,
              "device attributes");
static_assert(hipErrorGraphExecUpdateFailure == 910 && hipErrorStreamCaptureWrongThread == 908,
              "errors");
static_assert(hipGraphNodeTypeMemcpyToSymbol == 13 && hipGraphNodeTypeCount == 14, "node kinds");
static_assert(hipGraphExecUpdateErrorUnsupportedFunctionChange == 7, "update results");
static_assert(hipStreamCaptureModeRelaxed == 2 && hipStreamCaptureStatusInvalidated == 2,
              "capture");
static_assert(hipMemPoolAttrUsedMemHigh == 8 && hipMemAccessFlagsProtReadWrite == 3, "pools");
static_assert(HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE == 17 && HIP_FUNC_ATTRIBUTE_MAX == 10,
              "driver attributes");
static_assert(hipLimitMallocHeapSize == 2 && hipSharedMemBankSizeEightByte == 2, "config");
static_assert(hipEventReleaseToSystem == 0x80000000u && hipHostRegisterReadOnly == 8 &&
                  hipDeviceLmemResizeToMax == 0x10,
              "flags");
static_assert(hipMemcpyDeviceToDeviceNoCU == 1024 && HIP_AD_FORMAT_FLOAT == 0x20, "memory");
static_assert(HIPRTC_ERROR_LINKING == 100 && HIPRTC_JIT_IR_TO_ISA_OPT_EXT == 10000 &&
                  HIPRTC_JIT_NUM_INPUT_TYPES == 9,
              "hiprtc");
static_assert(HIP_R_16BF == 14 && HIP_R_8F_E5M2_FNUZ == 1001, "library data types");
static_assert(hipJitInputSpirv == 103 && hipJitOptionNumOptions == 29, "JIT");

__global__ void scale_sum(const float* in, float* out, size_t n, double factor) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<float>(in[i] * factor) + HIP_PI_F - static_cast<float>(HIP_PI);
}

// A kernel template, launched by hipExtLaunchKernelGGL with the instance chosen from the arguments.
template <class T>
__global__ void offset_copy(const T* in, T* out, size_t n, T offset) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + offset;
}

// A multi-grid group on one device: one grid of rank 0, ranks as the grid's.
__global__ void multi_grid(unsigned int* out) {
  cg::multi_grid_group g = cg::this_multi_grid();
  cg::thread_group any = g;
  unsigned int r = g.thread_rank();
  g.sync();
  out[4 * r + 0] = g.num_grids();
  out[4 * r + 1] = g.grid_rank() + 10u * (g.is_valid() ? 1u : 0u);
  out[4 * r + 2] = g.size();
  out[4 * r + 3] = any.thread_rank() + 1000u * (any.cg_type() == cg::internal::cg_multi_grid);
}

int main() {
  int bad = 0;
  HIP_BEGIN_MARKER("public_headers", "tests");
  // hipExtLaunchKernelGGL: an int converted to size_t and a float to double, as a launch does,
  // between two events.
  const int n = 1000;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i) * 0.5f;
  float* din = to_device(in);
  float* dout;
  HIP_CHECK(hipMalloc(&dout, sizeof(float) * n));
  hipEvent_t start, stop;
  HIP_CHECK(hipEventCreate(&start));
  HIP_CHECK(hipEventCreate(&stop));
  hipStream_t stream;
  HIP_CHECK(hipStreamCreate(&stream));
  hipExtLaunchKernelGGL(scale_sum, dim3((n + 255) / 256), dim3(256), 0, stream, start, stop, 0,
                        static_cast<const float*>(din), dout, n, 3.0f);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipEventSynchronize(stop));
  float ms = -1.0f;
  HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
  if (!(ms >= 0.0f)) {
    std::printf("elapsed time between the launch's events: %g\n", ms);
    ++bad;
  }
  std::vector<float> got = from_device(dout, n), want(n);
  for (int i = 0; i < n; ++i) {
    want[i] = static_cast<float>(in[i] * 3.0) + HIP_PI_F - static_cast<float>(HIP_PI);
  }
  bad += count_mismatches("hipExtLaunchKernelGGL", got, want);
  hipExtLaunchKernelGGL(offset_copy, dim3((n + 127) / 128), dim3(128), 0, stream, nullptr, stop, 0,
                        static_cast<const float*>(din), dout, static_cast<size_t>(n), 2.5f);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipEventSynchronize(stop));
  got = from_device(dout, n);
  for (int i = 0; i < n; ++i) want[i] = in[i] + 2.5f;
  bad += count_mismatches("hipExtLaunchKernelGGL of a template", got, want);

  // The multi-grid group of a one-block launch.
  const unsigned int threads = 64;
  unsigned int* dmg;
  HIP_CHECK(hipMalloc(&dmg, sizeof(unsigned int) * 4 * threads));
  multi_grid<<<1, threads>>>(dmg);
  HIP_CHECK(hipGetLastError());
  std::vector<unsigned int> mg = from_device(dmg, 4 * threads), mg_want(4 * threads);
  for (unsigned int r = 0; r < threads; ++r) {
    mg_want[4 * r + 0] = 1;
    mg_want[4 * r + 1] = 10;
    mg_want[4 * r + 2] = threads;
    mg_want[4 * r + 3] = r + 1000;
  }
  bad += count_mismatches("this_multi_grid", mg, mg_want);

  // Properties and attributes agree, for fields HIP 6 added.
  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  const struct {
    hipDeviceAttribute_t attribute;
    long long field;
  } pairs[] = {{hipDeviceAttributeMaxBlocksPerMultiProcessor, prop.maxBlocksPerMultiProcessor},
               {hipDeviceAttributeCooperativeLaunch, prop.cooperativeLaunch},
               {hipDeviceAttributeMaxRegistersPerMultiprocessor, prop.regsPerMultiprocessor},
               {hipDeviceAttributeSharedMemPerBlockOptin, static_cast<long long>(prop.sharedMemPerBlockOptin)},
               {hipDeviceAttributeClockInstructionRate, prop.clockInstructionRate},
               {hipDeviceAttributeWarpSize, prop.warpSize},
               {hipDeviceAttributeIsLargeBar, prop.isLargeBar}};
  for (const auto& p : pairs) {
    int value = -1;
    HIP_CHECK(hipDeviceGetAttribute(&value, p.attribute, 0));
    if (value != p.field) {
      std::printf("attribute %d is %d, the property %lld\n", static_cast<int>(p.attribute), value,
                  p.field);
      ++bad;
    }
  }
  if (prop.maxBlocksPerMultiProcessor < 1 || prop.arch.hasWarpShuffle != 1) {
    std::printf("maxBlocksPerMultiProcessor %d, hasWarpShuffle %u\n", prop.maxBlocksPerMultiProcessor,
                prop.arch.hasWarpShuffle);
    ++bad;
  }
  HIP_END_MARKER();
  HIP_CHECK(hipStreamDestroy(stream));
  HIP_CHECK(hipEventDestroy(start));
  HIP_CHECK(hipEventDestroy(stop));
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dmg));
  return report("public_headers", bad);
}
