// The host source hipmlir gives the host compiler: each <<<>>> launch becomes the configuration
// pushed, then the kernel called (its host stub launches itself), with only the `<<<`, `>>>`,
// the callee and the closing `)` touched: comments and conditionals stay where they are.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: hipmlir -c %s -o %t.d/launches.o --offload-arch=spirv64 --save-temps=obj
// The host source keeps this file's comments, CHECK lines among them: they are left out.
// RUN: grep -v '^ *//' %t.d/launches.host.cpp | FileCheck %s

#include <hip/hip_runtime.h>

#define WIDE 1

// The stub renames the parameters (one bears the kernel's name) and names the kernel from the
// global namespace.
// CHECK: __global__ void scale(float* __hipmlir_arg0, int __hipmlir_arg1) { ::hipmlir::detail::launch_from_stub(static_cast<void (*)(::hipmlir::detail::by_value_t<decltype(__hipmlir_arg0)>, ::hipmlir::detail::by_value_t<decltype(__hipmlir_arg1)>)>(&::scale), __func__, __hipmlir_arg0, __hipmlir_arg1); }
__global__ void scale(float* scale, int n) {
  if (threadIdx.x < n) scale[threadIdx.x] *= 2;
}

namespace ns {
// Unnamed parameters are given names.
// CHECK: template <typename T> __global__ void add(T* __hipmlir_arg0, T __hipmlir_arg1, int __hipmlir_arg2) { {{.*}}(&::ns::add<T>), __func__, __hipmlir_arg0, __hipmlir_arg1, __hipmlir_arg2); }
template <typename T> __global__ void add(T*, T, int) {}
}  // namespace ns

// A macro's launch is rewritten in its definition; the kernel, a macro parameter, moves after
// the configuration.
// CHECK: #define LAUNCH(k, n, ...) (::hipmlir::detail::configure(((n) + 63) / 64, 64), k(__VA_ARGS__))
#define LAUNCH(k, n, ...) k<<<((n) + 63) / 64, 64>>>(__VA_ARGS__)
// A macro holding only the configuration: the kernel moves after its use.
// CHECK: #define GRID(n) ::hipmlir::detail::configure(n, 64),
#define GRID(n) <<<n, 64>>>

template <typename... A>
void run(void (*kernel)(A...), A... a) {
  // CHECK: (::hipmlir::detail::configure(1, 64), kernel(a...));
  kernel<<<1, 64>>>(a...);
}

void host(float* p, int n, hipStream_t stream) {
  // CHECK: (::hipmlir::detail::configure(1, /* (threads, per block) */ 64
  // CHECK-NEXT: #if WIDE
  // CHECK-NEXT: , 0, stream
  // CHECK-NEXT: #endif
  // CHECK-NEXT: ), scale(p, n));
  scale<<<1, /* (threads, per block) */ 64
#if WIDE
, 0, stream
#endif
>>>(p, n);
  // CHECK: (::hipmlir::detail::configure(1, 64), ns :: add < float >(p, 1.0f, n));
  ns::add<float><<<1, 64>>>(p, 1.0f, n);
  // CHECK: (::hipmlir::detail::configure(1, 64), :: scale(p, n));
  ::scale<<<1, 64>>>(p, n);
  // CHECK: (::hipmlir::detail::configure(1, 64), ( scale )(p, n));
  (scale)<<<1, 64>>>(p, n);
  void (*k)(float*, int) = &scale;
  // CHECK: (::hipmlir::detail::configure(2, 32), k(p, n));
  k<<<2, 32>>>(p, n);
  // CHECK: LAUNCH(k, n, p, n);
  LAUNCH(k, n, p, n);
  // CHECK: (GRID(4) scale(p, n));
  scale GRID(4)(p, n);
  run(scale, p, n);
  // hipLaunchKernelGGL stays: in the host compile its macro is the same launch.
  // CHECK: hipLaunchKernelGGL(scale, dim3(1), dim3(64), 0, 0, /* (p) */ p, n);
  hipLaunchKernelGGL(scale, dim3(1), dim3(64), 0, 0, /* (p) */ p, n);
}
