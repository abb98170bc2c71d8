// Raw OpenCL peer of launch_overhead.hip: the same kernel (hipmlir's SPIR-V of that file), the
// same launch shape and the same timing, with no HIP runtime in between.
//
//   launch_raw KERNEL.spv ENTRY_POINT ITERS REPS
//
// Prints `first_launch_s T` (clCreateProgramWithIL + clBuildProgram + clCreateKernel + the first
// launch + clFinish; context and queue are made before), then for REPS rounds of ITERS launches:
// `launch_s_median T` with clSetKernelArg of both arguments before every clEnqueueNDRangeKernel
// (what a launch with arguments costs), and `enqueue_only_s_median T` with arguments set once.
// Launches pass no event (NULL), as a lean OpenCL program would. The queue is in-order without
// profiling, like hipmlir's runtime's. Every launch adds 1 to a counter checked at the end.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

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
  cl_mem counter = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(int), nullptr, &err);
  CHECK(err);
  const int zero = 0;
  CHECK(clEnqueueWriteBuffer(queue, counter, CL_TRUE, 0, sizeof(int), &zero, 0, nullptr, nullptr));
  CHECK(clFinish(queue));

  const size_t global = 64, local = 64;
  const int n = 0;
  auto t0 = std::chrono::steady_clock::now();
  cl_program program = clCreateProgramWithIL(ctx, il.data(), il.size(), &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, "", nullptr, nullptr));
  cl_kernel kernel = clCreateKernel(program, entry, &err);
  CHECK(err);
  CHECK(clSetKernelArg(kernel, 0, sizeof(cl_mem), &counter));
  CHECK(clSetKernelArg(kernel, 1, sizeof(int), &n));
  CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clFinish(queue));
  std::printf("first_launch_s %.9f\n", seconds_since(t0));
  long launched = 1;

  for (long i = 0; i < iters / 10 + 1; ++i) {
    CHECK(clSetKernelArg(kernel, 0, sizeof(cl_mem), &counter));
    CHECK(clSetKernelArg(kernel, 1, sizeof(int), &n));
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  }
  launched += iters / 10 + 1;
  CHECK(clFinish(queue));

  std::vector<double> with_args, enqueue_only;
  for (int r = 0; r < reps; ++r) {
    t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) {
      CHECK(clSetKernelArg(kernel, 0, sizeof(cl_mem), &counter));
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
  CHECK(clEnqueueReadBuffer(queue, counter, CL_TRUE, 0, sizeof(int), &count, 0, nullptr, nullptr));
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseMemObject(counter);
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
