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
