// Kernel launches for hipmlir: `k<<<grid, block, shmem, stream>>>(args)` and
//
//   hipLaunchKernelGGL(kernel, grid, block, sharedMemBytes, stream, args...)
//
// In a source hipmlir compiles, both are what clang makes of `<<<>>>`: the configuration is
// pushed, then the kernel is called like a function; its host stub (the body hipmlir gives the
// kernel in the host compile) pops the configuration and launches itself (configure and
// launch_from_stub below).
//
// As in HIP, each argument is converted to its kernel parameter's type (an int literal passed to a
// size_t parameter, a double literal to a float parameter). The converted values are packed into
// one byte block laid out like a C struct of the parameters (offset_i = align_up(end_{i-1},
// alignof(P_i)); size rounded up to the largest alignment) -- the layout the compiler records in the
// kernel's metadata and the runtime unpacks. std::tuple is never used for this: libstdc++ stores a
// tuple's elements in reverse order.
//
// The runtime finds the kernel by the host stub's address when the program registered it
// (__hipmlirRegisterFunction), else by the kernel expression as spelled: HIPMLIR_STRINGIFY expands
// its argument first, so HIP_KERNEL_NAME(k<int, 4>) arrives as "k<int, 4>".
//
// hipmlir::launch_by_name<Params...>(name, ...) packs the same way for hipLaunchKernelByName (plain
// builds, where the host compiler never sees the kernel's definition).
#ifndef HIPMLIR_LAUNCH_H
#define HIPMLIR_LAUNCH_H
// Written with C++17 features that every C++ mode of clang and GCC takes; a program compiled
// as C++14 gets no warnings about them.
#pragma GCC system_header

#include <stddef.h>

#include "hip_runtime_api.h"
#if defined(__HIP_DEVICE_COMPILE__)
// hipLaunchKernelGGL reads as `<<<>>>` there, which clang checks against
// __hipPushCallConfiguration.
#include "hipmlir_device.h"
#endif

// The host compile packs arguments; hipmlir's device-mode parse only type-checks launches, and
// skips these headers (they cost more than everything else it reads).
#include <type_traits>
#if !defined(__HIP_DEVICE_COMPILE__)
#include <atomic>
#include <cstddef>
#include <cstring>
#include <tuple>
#include <utility>
#include <vector>
#endif

#define HIPMLIR_STRINGIFY_IMPL(...) #__VA_ARGS__
#define HIPMLIR_STRINGIFY(...) HIPMLIR_STRINGIFY_IMPL(__VA_ARGS__)

#if defined(__HIP_DEVICE_COMPILE__)
// The device-side parse reads a launch as HIP defines it, a `<<<>>>` launch: clang chooses the
// kernel (overloads, deduced template arguments) and hipmlir compiles that instance.
#define __HIPMLIR_LAUNCH_GGL(kernelName, grid, block, sharedMemBytes, stream, ...) \
  (kernelName<<<grid, block, sharedMemBytes, stream>>>(__VA_ARGS__), hipSuccess)
#elif defined(__HIPMLIR_KERNEL_STUBS__)
// The host compile of a source hipmlir compiles, where every kernel has a host stub that launches
// itself: the launch `<<<>>>` becomes there (hipmlir's frontend rewrites those). C++ chooses
// among overloads, deduces template arguments and converts the arguments, whatever the kernel
// expression is (a name, a pointer, a parameter, a member). Its value is the launch's result.
#define __HIPMLIR_LAUNCH_GGL(kernelName, grid, block, sharedMemBytes, stream, ...)        \
  (::hipmlir::detail::configure(grid, block, sharedMemBytes, stream), kernelName(__VA_ARGS__), \
   ::hipmlir::detail::stub_launch_result())
#else
// Plain builds (host code compiled by the user's own compiler): the kernel is found by its
// address when a hipmlir-built image registered it, else by its spelled name.
#define hipLaunchKernelGGL(kernelName, ...) \
  ::hipmlir::detail::launch_ggl(HIPMLIR_STRINGIFY(kernelName), kernelName, __VA_ARGS__)
#endif
#ifndef hipLaunchKernelGGL
// The configuration is split into its parts only after the arguments are expanded, so one macro
// may give all four (`hipLaunchKernelGGL(k, CONFIG, args...)` with `#define CONFIG g, b, 0, 0`);
// the kernel's name is parenthesized first, as HIP_KERNEL_NAME(k<A, B>) expands to a comma.
#define hipLaunchKernelGGL(kernelName, ...) __HIPMLIR_LAUNCH_GGL((kernelName), __VA_ARGS__)
#endif

namespace hipmlir {
namespace detail {
// An argument's type as a by-value parameter receives it: decayed, without top-level qualifiers
// (g++'s std::decay keeps __restrict).
template <class T>
struct unrestrict {
  typedef T type;
};
template <class T>
struct unrestrict<T* __restrict> {
  typedef T* type;
};
template <class T>
using by_value_t = typename unrestrict<typename std::decay<T>::type>::type;

#if defined(__HIP_DEVICE_COMPILE__)
// Kernel template instances that only host templates launch: the driver finds them in the host
// object and hipmlir's frontend appends one call of this per instance to the parsed file.
template <class Kernel>
inline void request_kernel_instance(Kernel kernel) {
  static_assert(__is_function(__remove_pointer(Kernel)), "not a kernel");
  (void)kernel;
}
// hiprtc's name expressions: the frontend appends one call of this per expression and reads
// back the kernel, device function or device variable each names (instantiating templates).
template <class Named>
inline void name_expression(Named&&) {}
#else
// Device lambdas written in host code: hipmlir wraps each in device_lambda("(lambda at f:l:c)",
// ...), its closure type as the device compile spells it. The host and device compilers name
// closure types apart (g++ numbers a function's lambdas in one sequence, clang per signature, or
// `$_0` in a function that is not inline), so a launch of a kernel instance for a closure type
// tells the runtime which lambda each closure argument is.
template <class Closure>
inline std::atomic<const char*> closure_id{nullptr};

template <class Closure>
constexpr Closure device_lambda(const char* id, Closure closure) {
  if (!__builtin_is_constant_evaluated()) closure_id<Closure>.store(id, std::memory_order_relaxed);
  return closure;
}

constexpr std::size_t align_up(std::size_t value, std::size_t align) {
  return (value + align - 1) / align * align;
}

// Offsets of N parameters (offset[N] is the end of the last one) and the block size.
template <std::size_t N>
struct ArgLayoutTable {
  std::size_t offset[N + 1];
  std::size_t size;
};

template <class... Params>
constexpr ArgLayoutTable<sizeof...(Params)> compute_arg_layout() {
  const std::size_t sizes[] = {sizeof(Params)..., 0};
  const std::size_t aligns[] = {alignof(Params)..., 1};
  ArgLayoutTable<sizeof...(Params)> table{};
  std::size_t end = 0;
  std::size_t max_align = 1;
  for (std::size_t i = 0; i < sizeof...(Params); ++i) {
    table.offset[i] = align_up(end, aligns[i]);
    end = table.offset[i] + sizes[i];
    if (aligns[i] > max_align) max_align = aligns[i];
  }
  table.offset[sizeof...(Params)] = end;
  table.size = align_up(end, max_align);
  return table;
}

// The packed argument block of a kernel taking Params..., computed at compile time.
template <class... Params>
struct ArgLayout {
  static constexpr ArgLayoutTable<sizeof...(Params)> table = compute_arg_layout<Params...>();
  static constexpr std::size_t size = table.size;
  static constexpr std::size_t offset(std::size_t i) { return table.offset[i]; }
};

// Converts one argument to its parameter type, as a call would, and copies its bytes in.
template <class Param, class Arg>
inline void store_arg(unsigned char* dst, Arg&& arg) {
  static_assert(std::is_convertible<Arg&&, Param>::value,
                "hipLaunchKernelGGL: an argument does not convert to its kernel parameter's type");
  static_assert(std::is_trivially_copyable<Param>::value,
                "hipLaunchKernelGGL: kernel parameters must be trivially copyable");
  const Param value = std::forward<Arg>(arg);
  std::memcpy(dst, &value, sizeof(Param));
}

template <class... Params>
struct ArgPacker {
  template <std::size_t... I, class... Args>
  static void pack(unsigned char* block, std::index_sequence<I...>, Args&&... args) {
    (store_arg<Params>(block + ArgLayout<Params...>::offset(I), std::forward<Args>(args)), ...);
    (void)block;
  }
};

template <class... Params, class... Args>
inline hipError_t launch_typed(const char* spelled_name, void (*kernel)(Params...), dim3 grid,
                               dim3 block, std::size_t shared_mem_bytes, hipStream_t stream,
                               Args&&... args) {
  static_assert(sizeof...(Args) == sizeof...(Params),
                "hipLaunchKernelGGL: the number of kernel arguments differs from the number of "
                "the kernel's parameters");
  if constexpr (sizeof...(Args) == sizeof...(Params)) {
    using Layout = ArgLayout<Params...>;
    unsigned char packed[Layout::size > 0 ? Layout::size : 1] = {};
    ArgPacker<Params...>::pack(packed, std::index_sequence_for<Params...>{},
                               std::forward<Args>(args)...);
    const char* closures[sizeof...(Params) + 1] = {
        closure_id<typename std::remove_cv<Params>::type>.load(std::memory_order_relaxed)...,
        nullptr};
    for (std::size_t i = 0; i < sizeof...(Params); ++i) {
      if (closures[i]) {
        hipError_t found = __hipmlirRegisterClosureStub(reinterpret_cast<const void*>(kernel),
                                                        spelled_name, closures,
                                                        sizeof...(Params));
        if (found != hipSuccess) return found;
        break;
      }
    }
    return __hipmlirLaunchKernelGGL(reinterpret_cast<const void*>(kernel), spelled_name, grid,
                                    block, shared_mem_bytes, stream, packed, Layout::size);
  } else {
    return hipErrorInvalidValue;
  }
}

// As HIP's hipLaunchKernelGGL: the kernel's type is deduced from the kernel expression, or, for a
// kernel template named without template arguments, is a kernel taking the (decayed) argument
// types, which instantiates the template for them.
template <class... Args, class Kernel = void (*)(by_value_t<Args>...)>
inline hipError_t launch_ggl(const char* spelled_name, Kernel kernel, dim3 grid, dim3 block,
                             std::size_t shared_mem_bytes, hipStream_t stream, Args&&... args) {
  return launch_typed(spelled_name, kernel, grid, block, shared_mem_bytes, stream,
                      std::forward<Args>(args)...);
}

// Launches in the sources hipmlir compiles (`k<<<grid, block>>>(args)` and
// `hipLaunchKernelGGL(k, grid, block, shmem, stream, args...)`) become what clang makes of a
// `<<<>>>` launch: `(configure(grid, block), k(args))`. The configuration is pushed, then the
// kernel is called like a function, so overloads, template argument deduction and argument
// conversions are C++'s own. The kernel's host stub (its body, as hipmlir compiles it for the
// host) pops the configuration and launches itself with its parameters. A stack, as HIP's
// __hipPushCallConfiguration keeps: a kernel argument computed by a function that launches
// kernels itself pushes and pops its own configuration in between.
struct CallConfig {
  dim3 grid, block;
  std::size_t shared_mem_bytes;
  hipStream_t stream;
};

inline std::vector<CallConfig>& call_configs() {
  static thread_local std::vector<CallConfig> stack;
  return stack;
}

// What the last stub launch of this thread returned (hipLaunchKernelGGL's value).
inline hipError_t& stub_launch_result() {
  static thread_local hipError_t result = hipSuccess;
  return result;
}

inline void configure(dim3 grid, dim3 block, std::size_t shared_mem_bytes = 0,
                      hipStream_t stream = nullptr) {
  call_configs().push_back({grid, block, shared_mem_bytes, stream});
}

// A kernel called as a plain function: HIP has no such thing (a kernel runs only when launched).
inline void call_without_launch(const char* name) {
  stub_launch_result() =
      __hipmlirLaunchKernelGGL(nullptr, name, dim3(0), dim3(0), 0, nullptr, nullptr, 0);
}

// The body of a kernel's host stub: launches `kernel` (the stub itself) with the configuration
// pushed last and the stub's own parameters.
template <class... Params, class... Args>
inline void launch_from_stub(void (*kernel)(Params...), const char* name, Args&&... args) {
  std::vector<CallConfig>& stack = call_configs();
  if (stack.empty()) {
    call_without_launch(name);
    return;
  }
  CallConfig config = stack.back();
  stack.pop_back();
  stub_launch_result() = launch_typed(name, kernel, config.grid, config.block,
                                      config.shared_mem_bytes, config.stream,
                                      std::forward<Args>(args)...);
}

// The stub of a kernel of internal linkage (`static`, an anonymous namespace): other sources may
// define kernels of its name, so it tells the runtime which source's it is (`unit`) first.
template <class... Params, class... Args>
inline void launch_from_unit_stub(void (*kernel)(Params...), const char* name, const char* unit,
                                  Args&&... args) {
  __hipmlirRegisterUnitStub(reinterpret_cast<const void*>(kernel), name, unit);
  launch_from_stub(kernel, name, std::forward<Args>(args)...);
}

// The stub of a kernel whose parameters hipmlir cannot name (unnamed ones written by a macro):
// every launch fails.
inline void unnamed_parameters_stub(const char* name) {
  if (!call_configs().empty()) call_configs().pop_back();
  call_without_launch(name);
}

// A `<<<>>>` launch written inside a macro whose kernel expression hipmlir cannot move after the
// configuration (it is not spelled where the macro is defined, nor before the macro is used):
// only the macro's `<<<` and `>>>` tokens are rewritten, so that
// `k<<<grid, block, shmem, stream>>>(args)` reads `k | chevron(grid, block, shmem, stream)(args)`.
// The kernel is then a value (a pointer, a parameter, a member, a named instance). The arguments
// are held by reference until the launch, within the same full expression.
template <class... Args>
struct PendingLaunch {
  CallConfig config;
  std::tuple<Args&&...> args;
};

struct ChevronConfig {
  CallConfig config;
  template <class... Args>
  PendingLaunch<Args...> operator()(Args&&... args) const {
    return {config, std::tuple<Args&&...>(std::forward<Args>(args)...)};
  }
};

inline ChevronConfig chevron(dim3 grid, dim3 block, std::size_t shared_mem_bytes = 0,
                             hipStream_t stream = nullptr) {
  return {{grid, block, shared_mem_bytes, stream}};
}

// std::apply's work, written out: the header also serves sources compiled as C++14.
template <class... Params, class Tuple, std::size_t... I>
inline void call_with(void (*kernel)(Params...), Tuple&& args, std::index_sequence<I...>) {
  kernel(std::get<I>(std::move(args))...);
}

template <class... Params, class... Args>
inline void operator|(void (*kernel)(Params...), PendingLaunch<Args...>&& launch) {
  call_configs().push_back(launch.config);
  call_with(kernel, std::move(launch.args), std::index_sequence_for<Args...>{});
}
#endif  // __HIP_DEVICE_COMPILE__

}  // namespace detail

#if !defined(__HIP_DEVICE_COMPILE__)
// Plain builds: host code compiled by the user's own compiler, kernels in a SPIR-V file written by
// `hipmlir k.hip --emit-spirv -o k.spv` that the runtime finds by name (HIPMLIR_MODULE_PATH, else
// the executable's folder). Launches the kernel `name` (its source name, qualified or not, or its
// mangled name) taking Params..., with each argument converted to its parameter's type and
// packed as hipLaunchKernelGGL packs them:
//
//   hipmlir::launch_by_name<const float*, const float*, float*, int>(
//       "vector_add", dim3(blocks), dim3(256), 0, stream, a, b, c, n);
template <class... Params, class... Args>
inline hipError_t launch_by_name(const char* name, dim3 grid, dim3 block,
                                 std::size_t shared_mem_bytes, hipStream_t stream,
                                 Args&&... args) {
  static_assert(sizeof...(Args) == sizeof...(Params),
                "hipmlir::launch_by_name: the number of arguments differs from the number of "
                "parameters given as template arguments");
  if constexpr (sizeof...(Args) == sizeof...(Params)) {
    using Layout = detail::ArgLayout<Params...>;
    unsigned char packed[Layout::size > 0 ? Layout::size : 1] = {};
    detail::ArgPacker<Params...>::pack(packed, std::index_sequence_for<Params...>{},
                                       std::forward<Args>(args)...);
    return hipLaunchKernelByName(name, grid, block, shared_mem_bytes, stream, packed,
                                 Layout::size);
  } else {
    return hipErrorInvalidValue;
  }
}
#endif  // !__HIP_DEVICE_COMPILE__

}  // namespace hipmlir

#endif  // HIPMLIR_LAUNCH_H
