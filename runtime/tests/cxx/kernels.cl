// Device side of launch_test.cpp, written in OpenCL C (built to SPIR-V by clang-22) with kernel
// names that are the Itanium-mangled names of the C++ host declarations, as hipmlir's are.

// void saxpy(float a, const float* x, float* y, size_t n, char tag, double bias, short s)
__kernel void _Z5saxpyfPKfPfmcds(float a, __global const float* x, __global float* y, ulong n,
                                 char tag, double bias, short s) {
  size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i] + (float)bias + tag + s;
}

// template <class T, int K> void scale(T* p, int n), instantiated as scale<int, 4>
__kernel void _Z5scaleIiLi4EEvPT_i(__global int* p, int n) {
  size_t i = get_global_id(0);
  if (i < n) p[i] *= 4;
}

// void twice(float* p, int n) and void twice(int* p, int n): overloads
__kernel void _Z5twicePfi(__global float* p, int n) {
  size_t i = get_global_id(0);
  if (i < n) p[i] *= 2.0f;
}
__kernel void _Z5twicePii(__global int* p, int n) {
  size_t i = get_global_id(0);
  if (i < n) p[i] += p[i];
}

// void mixed(char c, double d, short s, int* out, long l)
__kernel void _Z5mixedcdsPil(char c, double d, short s, __global int* out, long l) {
  int i = (int)get_global_id(0);
  out[i] = (int)c + (int)(d * 1000.0) + (int)s * 10 + (int)(l / 10) + i * 100000;
}

// void ping()
__kernel void _Z4pingv(void) {}

// Device variables (see launch_test.cpp): __constant__ float coeffs[4] = {...};
// __device__ int counter = 7; namespace ns { __device__ double scale = 2.0; }
global float coeffs[4] = {0.5f, 1.5f, 2.5f, 3.5f};
global int counter = 7;
global double _ZN2ns5scaleE = 2.0;
__kernel void __hipmlir_address_of_coeffs(__global ulong* out) { out[0] = (ulong)&coeffs; }
__kernel void __hipmlir_address_of_counter(__global ulong* out) { out[0] = (ulong)&counter; }
__kernel void __hipmlir_address_of__ZN2ns5scaleE(__global ulong* out) {
  out[0] = (ulong)&_ZN2ns5scaleE;
}

// void apply(float* out): out[i] = coeffs[i] * ns::scale + counter
__kernel void _Z5applyPf(__global float* out) {
  size_t i = get_global_id(0);
  out[i] = coeffs[i] * (float)_ZN2ns5scaleE + counter;
}
