// Surface reads and writes in device code: surf1D/2D/3D and their layered forms on a
// hipSurfaceObject_t, in the out-parameter forms ROCm declares (`surf2Dread(&v, s, x, y)`) and
// the value-returning forms CUDA code uses (`surf2Dread<T>(s, x, y)`), each with an optional
// boundary mode.
//
// A surface object is the device address of the same descriptor a texture object points to
// (`struct __hip_texture`, texture_types.h): the array's texels, their pitches and extent. As in
// HIP and CUDA, x is a byte offset into the row (a multiple of sizeof(T), which CUDA requires),
// y, z and the layer are indices, and an access moves a T as it is, with no conversion (T is a
// texel type, or any other of the texel's size). Outside the array:
// - hipBoundaryModeZero (the default: AMD's image instructions read zero and drop the store
//   there): a read gives zero bytes, a write does nothing;
// - hipBoundaryModeClamp: each coordinate is clamped to the array (x to its last T);
// - hipBoundaryModeTrap: the kernel stops, as a failed access ends it on a GPU.
// A cubemap array is a layered array of six faces (six per cubemap of a layered one): the
// cubemap forms address face `face` (of cubemap `layer`) as that layer.
#ifndef HIPMLIR_SURFACE_H
#define HIPMLIR_SURFACE_H
#pragma GCC system_header

#if defined(__HIP_DEVICE_COMPILE__)

// The address of sizeof(T) bytes at byte x of row y of slice (or layer) z, after the boundary
// mode; null where a zero-mode access outside the array reads zero or writes nothing.
template <class T>
__device__ inline unsigned char* __hipmlir_surface_address(hipSurfaceObject_t s, int x, int y,
                                                           int z, int mode) {
  hipTextureObject_t d = reinterpret_cast<hipTextureObject_t>(s);
  long long row_bytes = (long long)d->width * d->channels * d->channel_bytes;
  long long last_x = row_bytes - (long long)sizeof(T);
  bool inside = x >= 0 && x <= last_x && y >= 0 && y < (int)d->height && z >= 0 &&
                z < (int)d->depth;
  if (!inside) {
    if (mode == hipBoundaryModeTrap) __builtin_trap();
    if (mode != hipBoundaryModeClamp) return nullptr;
    x = x < 0 ? 0 : (x > last_x ? (int)last_x : x);
    y = y < 0 ? 0 : (y >= (int)d->height ? (int)d->height - 1 : y);
    z = z < 0 ? 0 : (z >= (int)d->depth ? (int)d->depth - 1 : z);
  }
  // Row y of slice z as a texture read finds it, then x bytes in.
  return const_cast<unsigned char*>(__hipmlir_texel_address(d, 0, y, z)) + x;
}

template <class T>
__device__ inline T __hipmlir_surface_read(hipSurfaceObject_t s, int x, int y, int z, int mode) {
  const unsigned char* p = __hipmlir_surface_address<T>(s, x, y, z, mode);
  return p ? *reinterpret_cast<const T*>(p) : T();
}

template <class T>
__device__ inline void __hipmlir_surface_write(const T& value, hipSurfaceObject_t s, int x, int y,
                                               int z, int mode) {
  unsigned char* p = __hipmlir_surface_address<T>(s, x, y, z, mode);
  if (p) *reinterpret_cast<T*>(p) = value;
}

// ROCm's forms: the value through a pointer.
template <class T>
__device__ inline void surf1Dread(T* data, hipSurfaceObject_t s, int x,
                                  int mode = hipBoundaryModeZero) {
  *data = __hipmlir_surface_read<T>(s, x, 0, 0, mode);
}
template <class T>
__device__ inline void surf2Dread(T* data, hipSurfaceObject_t s, int x, int y,
                                  int mode = hipBoundaryModeZero) {
  *data = __hipmlir_surface_read<T>(s, x, y, 0, mode);
}
template <class T>
__device__ inline void surf3Dread(T* data, hipSurfaceObject_t s, int x, int y, int z,
                                  int mode = hipBoundaryModeZero) {
  *data = __hipmlir_surface_read<T>(s, x, y, z, mode);
}
template <class T>
__device__ inline void surf1DLayeredread(T* data, hipSurfaceObject_t s, int x, int layer,
                                         int mode = hipBoundaryModeZero) {
  *data = __hipmlir_surface_read<T>(s, x, 0, layer, mode);
}
template <class T>
__device__ inline void surf2DLayeredread(T* data, hipSurfaceObject_t s, int x, int y, int layer,
                                         int mode = hipBoundaryModeZero) {
  *data = __hipmlir_surface_read<T>(s, x, y, layer, mode);
}

// CUDA's forms: the value returned.
template <class T>
__device__ inline T surf1Dread(hipSurfaceObject_t s, int x, int mode = hipBoundaryModeZero) {
  return __hipmlir_surface_read<T>(s, x, 0, 0, mode);
}
template <class T>
__device__ inline T surf2Dread(hipSurfaceObject_t s, int x, int y,
                               int mode = hipBoundaryModeZero) {
  return __hipmlir_surface_read<T>(s, x, y, 0, mode);
}
template <class T>
__device__ inline T surf3Dread(hipSurfaceObject_t s, int x, int y, int z,
                               int mode = hipBoundaryModeZero) {
  return __hipmlir_surface_read<T>(s, x, y, z, mode);
}
template <class T>
__device__ inline T surf1DLayeredread(hipSurfaceObject_t s, int x, int layer,
                                      int mode = hipBoundaryModeZero) {
  return __hipmlir_surface_read<T>(s, x, 0, layer, mode);
}
template <class T>
__device__ inline T surf2DLayeredread(hipSurfaceObject_t s, int x, int y, int layer,
                                      int mode = hipBoundaryModeZero) {
  return __hipmlir_surface_read<T>(s, x, y, layer, mode);
}

template <class T>
__device__ inline void surf1Dwrite(T data, hipSurfaceObject_t s, int x,
                                   int mode = hipBoundaryModeZero) {
  __hipmlir_surface_write(data, s, x, 0, 0, mode);
}
template <class T>
__device__ inline void surf2Dwrite(T data, hipSurfaceObject_t s, int x, int y,
                                   int mode = hipBoundaryModeZero) {
  __hipmlir_surface_write(data, s, x, y, 0, mode);
}
template <class T>
__device__ inline void surf3Dwrite(T data, hipSurfaceObject_t s, int x, int y, int z,
                                   int mode = hipBoundaryModeZero) {
  __hipmlir_surface_write(data, s, x, y, z, mode);
}
template <class T>
__device__ inline void surf1DLayeredwrite(T data, hipSurfaceObject_t s, int x, int layer,
                                          int mode = hipBoundaryModeZero) {
  __hipmlir_surface_write(data, s, x, 0, layer, mode);
}
template <class T>
__device__ inline void surf2DLayeredwrite(T data, hipSurfaceObject_t s, int x, int y, int layer,
                                          int mode = hipBoundaryModeZero) {
  __hipmlir_surface_write(data, s, x, y, layer, mode);
}

// Cubemaps: ROCm's forms name the face (and the cubemap of a layered array); CUDA's layered
// form names the layer-face, cubemap * 6 + face.
template <class T>
__device__ inline void surfCubemapread(T* data, hipSurfaceObject_t s, int x, int y, int face,
                                       int mode = hipBoundaryModeZero) {
  *data = __hipmlir_surface_read<T>(s, x, y, face, mode);
}
template <class T>
__device__ inline T surfCubemapread(hipSurfaceObject_t s, int x, int y, int face,
                                    int mode = hipBoundaryModeZero) {
  return __hipmlir_surface_read<T>(s, x, y, face, mode);
}
template <class T>
__device__ inline void surfCubemapwrite(T data, hipSurfaceObject_t s, int x, int y, int face,
                                        int mode = hipBoundaryModeZero) {
  __hipmlir_surface_write(data, s, x, y, face, mode);
}
template <class T>
__device__ inline void surfCubemapLayeredread(T* data, hipSurfaceObject_t s, int x, int y,
                                              int face, int layer) {
  *data = __hipmlir_surface_read<T>(s, x, y, layer * 6 + face, hipBoundaryModeZero);
}
template <class T>
__device__ inline void surfCubemapLayeredread(T* data, hipSurfaceObject_t s, int x, int y,
                                              int layer_face) {
  *data = __hipmlir_surface_read<T>(s, x, y, layer_face, hipBoundaryModeZero);
}
template <class T>
__device__ inline T surfCubemapLayeredread(hipSurfaceObject_t s, int x, int y, int layer_face,
                                           int mode = hipBoundaryModeZero) {
  return __hipmlir_surface_read<T>(s, x, y, layer_face, mode);
}
template <class T>
__device__ inline void surfCubemapLayeredwrite(T data, hipSurfaceObject_t s, int x, int y,
                                               int face, int layer) {
  __hipmlir_surface_write(data, s, x, y, layer * 6 + face, hipBoundaryModeZero);
}
template <class T>
__device__ inline void surfCubemapLayeredwrite(T data, hipSurfaceObject_t s, int x, int y,
                                               int layer_face) {
  __hipmlir_surface_write(data, s, x, y, layer_face, hipBoundaryModeZero);
}

#endif  // __HIP_DEVICE_COMPILE__
#endif  // HIPMLIR_SURFACE_H
