// Element-wise max of pairs of halves, lane by lane, chosen by the sign of their difference (the
// algorithm of half2_max.hip): each lane's sign spread over its 16 bits selects b's bits where
// a - b < 0 and a's elsewhere. OpenCL C has no __byte_perm: the two lane masks are merged with a
// mask and a shift, which is what the byte permutation does.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

__kernel void half2_max(__global const half2* a, __global const half2* b, __global half2* c,
                        int n) {
  int i = get_global_id(0);
  if (i < n) {
    half2 va = a[i];
    half2 vb = b[i];
    uint bits_d = as_uint(va - vb);
    uint low = (uint)((int)(bits_d << 16) >> 31);
    uint high = (uint)((int)bits_d >> 31);
    uint m = (low & 0xffffu) | (high << 16);
    c[i] = as_half2((as_uint(va) & ~m) | (as_uint(vb) & m));
  }
}
