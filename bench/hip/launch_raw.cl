// The kernel of launch_overhead.hip in OpenCL C, for launch_raw's `buffer` mode: its counter is a
// `global int*`, which a cl_mem argument sets. hipmlir's SPIR-V of launch_overhead.hip takes the
// counter's address as a 64-bit integer, which a cl_mem cannot be.
kernel void tiny_kernel(global int* counter, int n) {
  if (get_global_id(0) == (size_t)n) {
    counter[0] += 1;
  }
}
