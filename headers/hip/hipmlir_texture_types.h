// HIP's arrays, mipmapped arrays, texture and surface objects: the host functions (types are in
// driver_types.h, texture_types.h and surface_types.h; the device functions that read textures
// are in hipmlir_texture.h). Included by hip_runtime_api.h; valid C and C++.
#ifndef HIPMLIR_TEXTURE_TYPES_H
#define HIPMLIR_TEXTURE_TYPES_H

#include "driver_types.h"
#include "surface_types.h"
#include "texture_types.h"

#ifdef __cplusplus
extern "C" {
#endif

hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w, hipChannelFormatKind f);

hipError_t hipMallocArray(hipArray_t* array, const hipChannelFormatDesc* desc, size_t width,
                          size_t height HIPMLIR_DEFAULT(0),
                          unsigned int flags HIPMLIR_DEFAULT(hipArrayDefault));
hipError_t hipMalloc3DArray(hipArray_t* array, const struct hipChannelFormatDesc* desc,
                            struct hipExtent extent, unsigned int flags);
hipError_t hipFreeArray(hipArray_t array);
hipError_t hipArrayGetInfo(hipChannelFormatDesc* desc, hipExtent* extent, unsigned int* flags,
                           hipArray_t array);
hipError_t hipGetChannelDesc(hipChannelFormatDesc* desc, hipArray_const_t array);

hipError_t hipMemcpy2DToArray(hipArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                              size_t spitch, size_t width, size_t height, hipMemcpyKind kind);
hipError_t hipMemcpy2DToArrayAsync(hipArray_t dst, size_t wOffset, size_t hOffset,
                                   const void* src, size_t spitch, size_t width, size_t height,
                                   hipMemcpyKind kind, hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipMemcpy2DFromArray(void* dst, size_t dpitch, hipArray_const_t src, size_t wOffset,
                                size_t hOffset, size_t width, size_t height, hipMemcpyKind kind);
hipError_t hipMemcpy2DFromArrayAsync(void* dst, size_t dpitch, hipArray_const_t src,
                                     size_t wOffset, size_t hOffset, size_t width, size_t height,
                                     hipMemcpyKind kind, hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipMemcpyToArray(hipArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                            size_t count, hipMemcpyKind kind);
hipError_t hipMemcpyFromArray(void* dst, hipArray_const_t src, size_t wOffset, size_t hOffset,
                              size_t count, hipMemcpyKind kind);
hipError_t hipMemcpy3D(const struct hipMemcpy3DParms* p);
hipError_t hipMemcpy3DAsync(const struct hipMemcpy3DParms* p,
                            hipStream_t stream HIPMLIR_DEFAULT(0));

hipError_t hipCreateTextureObject(hipTextureObject_t* pTexObject, const hipResourceDesc* pResDesc,
                                  const hipTextureDesc* pTexDesc,
                                  const struct hipResourceViewDesc* pResViewDesc);
hipError_t hipDestroyTextureObject(hipTextureObject_t textureObject);
hipError_t hipGetTextureObjectResourceDesc(hipResourceDesc* pResDesc,
                                           hipTextureObject_t textureObject);
hipError_t hipGetTextureObjectTextureDesc(hipTextureDesc* pTexDesc,
                                          hipTextureObject_t textureObject);
hipError_t hipGetTextureObjectResourceViewDesc(struct hipResourceViewDesc* pResViewDesc,
                                               hipTextureObject_t textureObject);

// ---- arrays through the driver API ----
hipError_t hipArrayCreate(hipArray_t* pHandle, const HIP_ARRAY_DESCRIPTOR* pAllocateArray);
hipError_t hipArray3DCreate(hipArray_t* array, const HIP_ARRAY3D_DESCRIPTOR* pAllocateArray);
hipError_t hipArrayDestroy(hipArray_t array);
hipError_t hipArrayGetDescriptor(HIP_ARRAY_DESCRIPTOR* pArrayDescriptor, hipArray_t array);
hipError_t hipArray3DGetDescriptor(HIP_ARRAY3D_DESCRIPTOR* pArrayDescriptor, hipArray_t array);
// Copies between arrays and host or device memory; offsets and counts in bytes.
hipError_t hipMemcpyHtoA(hipArray_t dstArray, size_t dstOffset, const void* srcHost, size_t count);
hipError_t hipMemcpyAtoH(void* dst, hipArray_t srcArray, size_t srcOffset, size_t count);
hipError_t hipMemcpyHtoAAsync(hipArray_t dstArray, size_t dstOffset, const void* srcHost,
                              size_t ByteCount, hipStream_t stream);
hipError_t hipMemcpyAtoHAsync(void* dstHost, hipArray_t srcArray, size_t srcOffset,
                              size_t ByteCount, hipStream_t stream);
hipError_t hipMemcpyAtoD(hipDeviceptr_t dstDevice, hipArray_t srcArray, size_t srcOffset,
                         size_t ByteCount);
hipError_t hipMemcpyDtoA(hipArray_t dstArray, size_t dstOffset, hipDeviceptr_t srcDevice,
                         size_t ByteCount);
hipError_t hipMemcpyAtoA(hipArray_t dstArray, size_t dstOffset, hipArray_t srcArray,
                         size_t srcOffset, size_t ByteCount);
hipError_t hipMemcpy2DArrayToArray(hipArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                   hipArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                   size_t width, size_t height, hipMemcpyKind kind);
hipError_t hipMemcpyParam2D(const hip_Memcpy2D* pCopy);
hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D* pCopy, hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipDrvMemcpy2DUnaligned(const hip_Memcpy2D* pCopy);
hipError_t hipDrvMemcpy3D(const HIP_MEMCPY3D* pCopy);
hipError_t hipDrvMemcpy3DAsync(const HIP_MEMCPY3D* pCopy, hipStream_t stream);

// ---- mipmapped arrays ----
hipError_t hipMallocMipmappedArray(hipMipmappedArray_t* mipmappedArray,
                                   const struct hipChannelFormatDesc* desc,
                                   struct hipExtent extent, unsigned int numLevels,
                                   unsigned int flags HIPMLIR_DEFAULT(0));
hipError_t hipFreeMipmappedArray(hipMipmappedArray_t mipmappedArray);
hipError_t hipGetMipmappedArrayLevel(hipArray_t* levelArray,
                                     hipMipmappedArray_const_t mipmappedArray,
                                     unsigned int level);
hipError_t hipMipmappedArrayCreate(hipMipmappedArray_t* pHandle,
                                   HIP_ARRAY3D_DESCRIPTOR* pMipmappedArrayDesc,
                                   unsigned int numMipmapLevels);
hipError_t hipMipmappedArrayDestroy(hipMipmappedArray_t hMipmappedArray);
hipError_t hipMipmappedArrayGetLevel(hipArray_t* pLevelArray, hipMipmappedArray_t hMipMappedArray,
                                     unsigned int level);

// ---- texture objects through the driver API ----
hipError_t hipTexObjectCreate(hipTextureObject_t* pTexObject, const HIP_RESOURCE_DESC* pResDesc,
                              const HIP_TEXTURE_DESC* pTexDesc,
                              const HIP_RESOURCE_VIEW_DESC* pResViewDesc);
hipError_t hipTexObjectDestroy(hipTextureObject_t texObject);
hipError_t hipTexObjectGetResourceDesc(HIP_RESOURCE_DESC* pResDesc, hipTextureObject_t texObject);
hipError_t hipTexObjectGetResourceViewDesc(HIP_RESOURCE_VIEW_DESC* pResViewDesc,
                                           hipTextureObject_t texObject);
hipError_t hipTexObjectGetTextureDesc(HIP_TEXTURE_DESC* pTexDesc, hipTextureObject_t texObject);
hipError_t hipDeviceGetTexture1DLinearMaxWidth(size_t* maxWidthInElements,
                                               const hipChannelFormatDesc* fmtDesc, int device);

// ---- surface objects ----
hipError_t hipCreateSurfaceObject(hipSurfaceObject_t* pSurfObject, const hipResourceDesc* pResDesc);
hipError_t hipDestroySurfaceObject(hipSurfaceObject_t surfaceObject);

// ---- legacy texture references (deprecated by HIP) ----
hipError_t hipGetTextureReference(const textureReference** texref, const void* symbol);
hipError_t hipBindTexture(size_t* offset, const textureReference* tex, const void* devPtr,
                          const hipChannelFormatDesc* desc, size_t size HIPMLIR_DEFAULT(0xFFFFFFFFu));
hipError_t hipBindTexture2D(size_t* offset, const textureReference* tex, const void* devPtr,
                            const hipChannelFormatDesc* desc, size_t width, size_t height,
                            size_t pitch);
hipError_t hipBindTextureToArray(const textureReference* tex, hipArray_const_t array,
                                 const hipChannelFormatDesc* desc);
hipError_t hipBindTextureToMipmappedArray(const textureReference* tex,
                                          hipMipmappedArray_const_t mipmappedArray,
                                          const hipChannelFormatDesc* desc);
hipError_t hipGetTextureAlignmentOffset(size_t* offset, const textureReference* texref);
hipError_t hipUnbindTexture(const textureReference* tex);
hipError_t hipTexRefGetAddress(hipDeviceptr_t* dev_ptr, const textureReference* texRef);
hipError_t hipTexRefGetAddressMode(enum hipTextureAddressMode* pam, const textureReference* texRef,
                                   int dim);
hipError_t hipTexRefGetArray(hipArray_t* pArray, const textureReference* texRef);
hipError_t hipTexRefGetBorderColor(float* pBorderColor, const textureReference* texRef);
hipError_t hipTexRefGetFilterMode(enum hipTextureFilterMode* pfm, const textureReference* texRef);
hipError_t hipTexRefGetFlags(unsigned int* pFlags, const textureReference* texRef);
hipError_t hipTexRefGetFormat(hipArray_Format* pFormat, int* pNumChannels,
                              const textureReference* texRef);
hipError_t hipTexRefGetMaxAnisotropy(int* pmaxAnsio, const textureReference* texRef);
hipError_t hipTexRefGetMipMappedArray(hipMipmappedArray_t* pArray, const textureReference* texRef);
hipError_t hipTexRefGetMipmapFilterMode(enum hipTextureFilterMode* pfm,
                                        const textureReference* texRef);
hipError_t hipTexRefGetMipmapLevelBias(float* pbias, const textureReference* texRef);
hipError_t hipTexRefGetMipmapLevelClamp(float* pminMipmapLevelClamp, float* pmaxMipmapLevelClamp,
                                        const textureReference* texRef);
hipError_t hipTexRefSetAddress(size_t* ByteOffset, textureReference* texRef, hipDeviceptr_t dptr,
                               size_t bytes);
hipError_t hipTexRefSetAddress2D(textureReference* texRef, const HIP_ARRAY_DESCRIPTOR* desc,
                                 hipDeviceptr_t dptr, size_t Pitch);
hipError_t hipTexRefSetAddressMode(textureReference* texRef, int dim,
                                   enum hipTextureAddressMode am);
hipError_t hipTexRefSetArray(textureReference* tex, hipArray_const_t array, unsigned int flags);
hipError_t hipTexRefSetBorderColor(textureReference* texRef, float* pBorderColor);
hipError_t hipTexRefSetFilterMode(textureReference* texRef, enum hipTextureFilterMode fm);
hipError_t hipTexRefSetFlags(textureReference* texRef, unsigned int Flags);
hipError_t hipTexRefSetFormat(textureReference* texRef, hipArray_Format fmt,
                              int NumPackedComponents);
hipError_t hipTexRefSetMaxAnisotropy(textureReference* texRef, unsigned int maxAniso);
hipError_t hipTexRefSetMipmapFilterMode(textureReference* texRef, enum hipTextureFilterMode fm);
hipError_t hipTexRefSetMipmapLevelBias(textureReference* texRef, float bias);
hipError_t hipTexRefSetMipmapLevelClamp(textureReference* texRef, float minMipMapLevelClamp,
                                        float maxMipMapLevelClamp);
hipError_t hipTexRefSetMipmappedArray(textureReference* texRef,
                                      struct hipMipmappedArray* mipmappedArray,
                                      unsigned int Flags);
hipError_t hipModuleGetTexRef(textureReference** texRef, hipModule_t hmod, const char* name);

#ifdef __cplusplus
}  // extern "C"

// hipCreateChannelDesc<T>(): the format of a texel of type T: 8-, 16- and 32-bit integers and
// floats, alone or as the lanes of a vector type; any other type has no format
// (hipChannelFormatKindNone, no bits), as in ROCm, where long has one only where it is 32 bits
// (not LP64: textures have no 64-bit channels).
template <class T>
struct __hipmlir_channel_of {
  static constexpr int bits = 0;
  static constexpr hipChannelFormatKind kind = hipChannelFormatKindNone;
};
#define HIPMLIR_CHANNEL(T, KIND)                                                   \
  template <>                                                                      \
  struct __hipmlir_channel_of<T> {                                                 \
    static constexpr int bits = 8 * (int)sizeof(T);                                \
    static constexpr hipChannelFormatKind kind = KIND;                             \
  };
HIPMLIR_CHANNEL(char, hipChannelFormatKindSigned)
HIPMLIR_CHANNEL(signed char, hipChannelFormatKindSigned)
HIPMLIR_CHANNEL(unsigned char, hipChannelFormatKindUnsigned)
HIPMLIR_CHANNEL(short, hipChannelFormatKindSigned)
HIPMLIR_CHANNEL(unsigned short, hipChannelFormatKindUnsigned)
HIPMLIR_CHANNEL(int, hipChannelFormatKindSigned)
HIPMLIR_CHANNEL(unsigned int, hipChannelFormatKindUnsigned)
#if !defined(__LP64__)
HIPMLIR_CHANNEL(long, hipChannelFormatKindSigned)
HIPMLIR_CHANNEL(unsigned long, hipChannelFormatKindUnsigned)
#endif
HIPMLIR_CHANNEL(float, hipChannelFormatKindFloat)
#undef HIPMLIR_CHANNEL

template <class T, unsigned int Rank>
struct HIP_vector_type;
template <class T>
struct __hipmlir_channel_desc {
  static hipChannelFormatDesc get() {
    return hipCreateChannelDesc(__hipmlir_channel_of<T>::bits, 0, 0, 0,
                                __hipmlir_channel_of<T>::kind);
  }
};
template <class T, unsigned int Lanes>
struct __hipmlir_channel_desc<HIP_vector_type<T, Lanes>> {
  static hipChannelFormatDesc get() {
    const int b = __hipmlir_channel_of<T>::bits;
    return hipCreateChannelDesc(b, Lanes > 1 ? b : 0, Lanes > 2 ? b : 0, Lanes > 3 ? b : 0,
                                __hipmlir_channel_of<T>::kind);
  }
};
template <class T>
static inline hipChannelFormatDesc hipCreateChannelDesc() {
  return __hipmlir_channel_desc<T>::get();
}

// A legacy texture reference (deprecated by HIP, removed from CUDA 12, still in older code): a
// global `texture<T, dim, mode> tex;` that device code reads as tex1Dfetch(tex, i), tex2D(tex,
// x, y), ... (hipmlir_texture.h) once the host has bound it to memory (hipBindTexture...). As in
// clang, the type makes such a variable a device variable (device_builtin_texture_type, which
// only the device parse takes); the host's object is its shadow, whose fields say how to sample.
// Binding creates a texture object from them and stores the whole reference into the device's
// copy, whose textureObject the reads use.
#if defined(__HIP_DEVICE_COMPILE__)
#define HIPMLIR_TEXTURE_REFERENCE_TYPE __attribute__((device_builtin_texture_type))
#else
#define HIPMLIR_TEXTURE_REFERENCE_TYPE
#endif
static inline void __hipmlir_texture_reference_init(textureReference& r, int norm,
                                                    enum hipTextureReadMode mode,
                                                    enum hipTextureFilterMode filter,
                                                    enum hipTextureAddressMode address,
                                                    struct hipChannelFormatDesc desc) {
  memset(&r, 0, sizeof r);
  r.normalized = norm;
  r.readMode = mode;
  r.filterMode = filter;
  r.addressMode[0] = r.addressMode[1] = r.addressMode[2] = address;
  r.channelDesc = desc;
  r.mipmapFilterMode = hipFilterModePoint;
}
template <class T, int texType = hipTextureType1D,
          enum hipTextureReadMode mode = hipReadModeElementType>
struct HIPMLIR_TEXTURE_REFERENCE_TYPE texture : public textureReference {
  texture(int norm = 0, enum hipTextureFilterMode fMode = hipFilterModePoint,
          enum hipTextureAddressMode aMode = hipAddressModeClamp) {
    __hipmlir_texture_reference_init(*this, norm, mode, fMode, aMode, hipCreateChannelDesc<T>());
  }
  texture(int norm, enum hipTextureFilterMode fMode, enum hipTextureAddressMode aMode,
          struct hipChannelFormatDesc desc) {
    __hipmlir_texture_reference_init(*this, norm, mode, fMode, aMode, desc);
  }
};
#undef HIPMLIR_TEXTURE_REFERENCE_TYPE

// The C++ forms of binding a texture reference, as ROCm declares them: the reference by
// reference or pointer, the format its own channelDesc unless given.
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTexture(size_t* offset, const struct texture<T, dim, readMode>& tex,
                                        const void* devPtr, size_t size = 0xFFFFFFFFu) {
  return hipBindTexture(offset, &tex, devPtr, &tex.channelDesc, size);
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTexture(size_t* offset, const struct texture<T, dim, readMode>& tex,
                                        const void* devPtr, const struct hipChannelFormatDesc& desc,
                                        size_t size = 0xFFFFFFFFu) {
  return hipBindTexture(offset, &tex, devPtr, &desc, size);
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTexture2D(size_t* offset,
                                          const struct texture<T, dim, readMode>& tex,
                                          const void* devPtr, size_t width, size_t height,
                                          size_t pitch) {
  return hipBindTexture2D(offset, &tex, devPtr, &tex.channelDesc, width, height, pitch);
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTexture2D(size_t* offset,
                                          const struct texture<T, dim, readMode>& tex,
                                          const void* devPtr,
                                          const struct hipChannelFormatDesc& desc, size_t width,
                                          size_t height, size_t pitch) {
  return hipBindTexture2D(offset, &tex, devPtr, &desc, width, height, pitch);
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTextureToArray(const struct texture<T, dim, readMode>& tex,
                                               hipArray_const_t array) {
  struct hipChannelFormatDesc desc;
  hipError_t e = hipGetChannelDesc(&desc, array);
  return e != hipSuccess ? e : hipBindTextureToArray(&tex, array, &desc);
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTextureToArray(const struct texture<T, dim, readMode>& tex,
                                               hipArray_const_t array,
                                               const struct hipChannelFormatDesc& desc) {
  return hipBindTextureToArray(&tex, array, &desc);
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTextureToMipmappedArray(
    const struct texture<T, dim, readMode>& tex, hipMipmappedArray_const_t mipmappedArray) {
  return hipBindTextureToMipmappedArray(&tex, mipmappedArray, &tex.channelDesc);
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTextureToMipmappedArray(
    const struct texture<T, dim, readMode>& tex, hipMipmappedArray_const_t mipmappedArray,
    const struct hipChannelFormatDesc& desc) {
  return hipBindTextureToMipmappedArray(&tex, mipmappedArray, &desc);
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipUnbindTexture(const struct texture<T, dim, readMode>& tex) {
  return hipUnbindTexture(&tex);
}

#endif

#endif  // HIPMLIR_TEXTURE_TYPES_H
