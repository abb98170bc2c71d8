// Raw OpenCL peer of launch_overhead.hip: the same kernel (hipmlir's SPIR-V of that file), the
// same launch shape and the same timing, with no HIP runtime in between.
//
//   launch_raw KERNEL.spv ENTRY_POINT ITERS REPS [buffer|usm]
//
// Prints `first_launch_s T` (clCreateProgramWithIL + clBuildProgram + clCreateKernel + the first
// launch + clFinish; context and queue are made before), then for REPS rounds of ITERS launches:
// `launch_s_median T` with clSetKernelArg of both arguments before every clEnqueueNDRangeKernel
// (what a launch with arguments costs), and `enqueue_only_s_median T` with arguments set once.
// Launches pass no event (NULL), as a lean OpenCL program would. The queue is in-order without
// profiling, like hipmlir's runtime's. Every launch adds 1 to a counter checked at the end.
// The counter is an OpenCL buffer (`buffer`, the default), set by clSetKernelArg of the cl_mem on
// a kernel taking a `global int*` (launch_raw.cl's SPIR-V); or, with `usm`, an Intel unified
// shared memory device allocation whose address is set by clSetKernelArg of its 8 bytes on a
// kernel taking it as an integer (hipmlir's SPIR-V of launch_overhead.hip), the kernel allowed
// indirect device access: the memory kind and the way hipmlir's runtime passes it, so the two
// sides differ only by what hipmlir adds.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define CHECK(call)                                         \
  do {                                                      \
    cl_int err_ = (call);                                   \
    if (err_ != CL_SUCCESS) {                               \
      std::printf("error %s failed: %d\n", #call, err_);    \
      return 1;                                             \
    }                                                       \
  } while (0)

static double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// The first device that takes SPIR-V and has 64-bit addresses, as hipmlir's runtime chooses.
static cl_device_id pick_device() {
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return nullptr;
  std::vector<cl_platform_id> platforms(np);
  clGetPlatformIDs(np, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> devices(nd);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devices.data(), nullptr);
    for (cl_device_id d : devices) {
      char il[1024] = {0};
      cl_uint bits = 0;
      clGetDeviceInfo(d, CL_DEVICE_IL_VERSION, sizeof(il) - 1, il, nullptr);
      clGetDeviceInfo(d, CL_DEVICE_ADDRESS_BITS, sizeof(bits), &bits, nullptr);
      if (std::strstr(il, "SPIR-V") && bits == 64) return d;
    }
  }
  return nullptr;
}

typedef void* (*DeviceMemAllocINTEL)(cl_context, cl_device_id, const cl_ulong*, size_t, cl_uint,
                                      cl_int*);
typedef cl_int (*MemFreeINTEL)(cl_context, void*);
typedef cl_int (*EnqueueMemcpyINTEL)(cl_command_queue, cl_bool, void*, const void*, size_t, cl_uint,
                                     const cl_event*, cl_event*);

// The counter the kernel adds to: a buffer, or a USM device allocation.
struct Counter {
  cl_mem buffer = nullptr;
  void* usm = nullptr;
  DeviceMemAllocINTEL alloc = nullptr;
  MemFreeINTEL free = nullptr;
  EnqueueMemcpyINTEL memcpy = nullptr;

  cl_int set_arg(cl_kernel kernel) const {
    return usm ? clSetKernelArg(kernel, 0, sizeof(usm), &usm)
               : clSetKernelArg(kernel, 0, sizeof(cl_mem), &buffer);
  }
  cl_int write(cl_command_queue q, const int* value) const {
    return usm ? memcpy(q, CL_TRUE, usm, value, sizeof(int), 0, nullptr, nullptr)
               : clEnqueueWriteBuffer(q, buffer, CL_TRUE, 0, sizeof(int), value, 0, nullptr, nullptr);
  }
  cl_int read(cl_command_queue q, int* value) const {
    return usm ? memcpy(q, CL_TRUE, value, usm, sizeof(int), 0, nullptr, nullptr)
               : clEnqueueReadBuffer(q, buffer, CL_TRUE, 0, sizeof(int), value, 0, nullptr, nullptr);
  }
};

int main(int argc, char** argv) {
  if (argc < 3) {
    std::printf("error usage: launch_raw KERNEL.spv ENTRY_POINT [ITERS [REPS]]\n");
    return 2;
  }
  const char* entry = argv[2];
  const long iters = argc > 3 ? std::atol(argv[3]) : 10000;
  const int reps = argc > 4 ? std::atoi(argv[4]) : 5;
  std::ifstream file(argv[1], std::ios::binary);
  std::vector<char> il((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (il.empty()) {
    std::printf("error cannot read %s\n", argv[1]);
    return 1;
  }

  cl_device_id device = pick_device();
  if (!device) {
    std::printf("error no OpenCL device takes SPIR-V with 64-bit addresses\n");
    return 1;
  }
  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  CHECK(err);
  cl_command_queue queue = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
  CHECK(err);
  Counter counter;
  if (argc > 5 && std::strcmp(argv[5], "usm") == 0) {
    cl_platform_id platform = nullptr;
    CHECK(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof(platform), &platform, nullptr));
    auto fn = [&](const char* name) { return clGetExtensionFunctionAddressForPlatform(platform, name); };
    counter.alloc = reinterpret_cast<DeviceMemAllocINTEL>(fn("clDeviceMemAllocINTEL"));
    counter.free = reinterpret_cast<MemFreeINTEL>(fn("clMemFreeINTEL"));
    counter.memcpy = reinterpret_cast<EnqueueMemcpyINTEL>(fn("clEnqueueMemcpyINTEL"));
    if (!counter.alloc || !counter.free || !counter.memcpy) {
      std::printf("error the device has no cl_intel_unified_shared_memory\n");
      return 1;
    }
    counter.usm = counter.alloc(ctx, device, nullptr, sizeof(int), sizeof(int), &err);
    CHECK(err);
  } else {
    counter.buffer = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(int), nullptr, &err);
    CHECK(err);
  }
  const int zero = 0;
  CHECK(counter.write(queue, &zero));
  CHECK(clFinish(queue));

  const size_t global = 64, local = 64;
  const int n = 0;
  auto t0 = std::chrono::steady_clock::now();
  cl_program program = clCreateProgramWithIL(ctx, il.data(), il.size(), &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, "", nullptr, nullptr));
  cl_kernel kernel = clCreateKernel(program, entry, &err);
  CHECK(err);
  if (counter.usm) {
    // The kernel reaches the allocation through an integer argument, as hipmlir's runtime sets.
    const cl_bool enable = CL_TRUE;
    CHECK(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
                              sizeof(enable), &enable));
  }
  CHECK(counter.set_arg(kernel));
  CHECK(clSetKernelArg(kernel, 1, sizeof(int), &n));
  CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clFinish(queue));
  std::printf("first_launch_s %.9f\n", seconds_since(t0));
  long launched = 1;

  for (long i = 0; i < iters / 10 + 1; ++i) {
    CHECK(counter.set_arg(kernel));
    CHECK(clSetKernelArg(kernel, 1, sizeof(int), &n));
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  }
  launched += iters / 10 + 1;
  CHECK(clFinish(queue));

  std::vector<double> with_args, enqueue_only;
  for (int r = 0; r < reps; ++r) {
    t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) {
      CHECK(counter.set_arg(kernel));
      CHECK(clSetKernelArg(kernel, 1, sizeof(int), &n));
      CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    }
    CHECK(clFinish(queue));
    with_args.push_back(seconds_since(t0) / static_cast<double>(iters));
    launched += iters;

    t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) {
      CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    }
    CHECK(clFinish(queue));
    enqueue_only.push_back(seconds_since(t0) / static_cast<double>(iters));
    launched += iters;
  }

  int count = 0;
  CHECK(counter.read(queue, &count));
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  if (counter.usm) counter.free(ctx, counter.usm);
  if (counter.buffer) clReleaseMemObject(counter.buffer);
  clReleaseCommandQueue(queue);
  clReleaseContext(ctx);
  if (count != launched) {
    std::printf("error counter is %d after %ld launches\n", count, launched);
    return 1;
  }
  std::printf("launch_s_median %.9e\n", median(with_args));
  std::printf("enqueue_only_s_median %.9e\n", median(enqueue_only));
  std::printf("check ok\n");
  return 0;
}
