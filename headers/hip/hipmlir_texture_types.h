// HIP's arrays, texture objects and 3-D copies: types, constants and host functions (the device
// functions that read textures are in hipmlir_texture.h).
//
// Textures are software on every backend: a hipTextureObject_t is the device address of a
// __hip_texture (below) that hipCreateTextureObject fills; device code reads texels through it
// with the addressing and filtering rules of HIP's texture units. A hipArray_t is a runtime object
// holding pitched device memory with its channel format and extent. Included by
// hip_runtime_api.h; valid C and C++.
#ifndef HIPMLIR_TEXTURE_TYPES_H
#define HIPMLIR_TEXTURE_TYPES_H

#include <stddef.h>

// ---- channel formats ----
typedef enum hipChannelFormatKind {
  hipChannelFormatKindSigned = 0,
  hipChannelFormatKindUnsigned = 1,
  hipChannelFormatKindFloat = 2,
  hipChannelFormatKindNone = 3
} hipChannelFormatKind;

// Bits of each channel (x, y, z, w; unused ones 0) and their kind.
typedef struct hipChannelFormatDesc {
  int x;
  int y;
  int z;
  int w;
  enum hipChannelFormatKind f;
} hipChannelFormatDesc;

// The driver API's element formats (HIP_ARRAY_DESCRIPTOR).
typedef enum hipArray_Format {
  HIP_AD_FORMAT_UNSIGNED_INT8 = 0x01,
  HIP_AD_FORMAT_UNSIGNED_INT16 = 0x02,
  HIP_AD_FORMAT_UNSIGNED_INT32 = 0x03,
  HIP_AD_FORMAT_SIGNED_INT8 = 0x08,
  HIP_AD_FORMAT_SIGNED_INT16 = 0x09,
  HIP_AD_FORMAT_SIGNED_INT32 = 0x0a,
  HIP_AD_FORMAT_HALF = 0x10,
  HIP_AD_FORMAT_FLOAT = 0x20
} hipArray_Format;

// ---- arrays ----
// Opaque: the runtime owns the memory and the description behind a hipArray_t.
struct hipArray;
typedef struct hipArray* hipArray_t;
typedef const struct hipArray* hipArray_const_t;
typedef hipArray_t hiparray;
struct hipMipmappedArray;
typedef struct hipMipmappedArray* hipMipmappedArray_t;
typedef const struct hipMipmappedArray* hipMipmappedArray_const_t;

// hipMallocArray / hipMalloc3DArray flags.
#define hipArrayDefault 0x00
#define hipArrayLayered 0x01
#define hipArraySurfaceLoadStore 0x02
#define hipArrayCubemap 0x04
#define hipArrayTextureGather 0x08

// ---- 3-D copies ----
typedef struct hipPos {
  size_t x;  // elements of the object: bytes for pointers, texels for arrays
  size_t y;
  size_t z;
} hipPos;
static inline hipPos make_hipPos(size_t x, size_t y, size_t z) {
  hipPos p = {x, y, z};
  return p;
}

// One 3-D copy: a source (an array or a pitched pointer) at a position, a destination likewise,
// and the extent (in texels when an array takes part, else in bytes).
typedef struct hipMemcpy3DParms {
  hipArray_t srcArray;
  hipPos srcPos;
  hipPitchedPtr srcPtr;
  hipArray_t dstArray;
  hipPos dstPos;
  hipPitchedPtr dstPtr;
  hipExtent extent;
  hipMemcpyKind kind;
} hipMemcpy3DParms;

// ---- texture objects ----
#define hipTextureType1D 0x01
#define hipTextureType2D 0x02
#define hipTextureType3D 0x03
#define hipTextureTypeCubemap 0x0C
#define hipTextureType1DLayered 0xF1
#define hipTextureType2DLayered 0xF2
#define hipTextureTypeCubemapLayered 0xFC

enum hipTextureAddressMode {
  hipAddressModeWrap = 0,
  hipAddressModeClamp = 1,
  hipAddressModeMirror = 2,
  hipAddressModeBorder = 3
};
enum hipTextureFilterMode { hipFilterModePoint = 0, hipFilterModeLinear = 1 };
enum hipTextureReadMode { hipReadModeElementType = 0, hipReadModeNormalizedFloat = 1 };

typedef struct hipTextureDesc {
  enum hipTextureAddressMode addressMode[3];  // x, y, z
  enum hipTextureFilterMode filterMode;
  enum hipTextureReadMode readMode;
  int sRGB;  // not supported (hipCreateTextureObject refuses it)
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;  // ignored: no anisotropic filtering
  enum hipTextureFilterMode mipmapFilterMode;  // ignored: no mipmaps
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
} hipTextureDesc;

typedef enum hipResourceType {
  hipResourceTypeArray = 0x00,
  hipResourceTypeMipmappedArray = 0x01,
  hipResourceTypeLinear = 0x02,
  hipResourceTypePitch2D = 0x03
} hipResourceType;

typedef struct hipResourceDesc {
  enum hipResourceType resType;
  union {
    struct {
      hipArray_t array;
    } array;
    struct {
      hipMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void* devPtr;
      struct hipChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void* devPtr;
      struct hipChannelFormatDesc desc;
      size_t width;  // texels
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
  } res;
} hipResourceDesc;

typedef enum hipResourceViewFormat { hipResViewFormatNone = 0x00 } hipResourceViewFormat;
typedef struct hipResourceViewDesc {
  enum hipResourceViewFormat format;  // only hipResViewFormatNone (the resource's own format)
  size_t width;
  size_t height;
  size_t depth;
  unsigned int firstMipmapLevel;
  unsigned int lastMipmapLevel;
  unsigned int firstLayer;
  unsigned int lastLayer;
} hipResourceViewDesc;

// What a texture object points to, in device memory. hipmlir's own layout (the runtime's
// `texture::Descriptor` matches it field for field): the texels' address and shape, their
// format, and the sampler state of the hipTextureDesc.
struct __hip_texture {
  const unsigned char* base;      // texel (0, 0, 0)
  unsigned long long row_pitch;   // bytes from one row to the next
  unsigned long long slice_pitch; // bytes from one slice (or layer) to the next
  unsigned int width;             // texels; 1 for a dimension the resource lacks
  unsigned int height;
  unsigned int depth;             // slices of a 3-D resource, layers of a layered one
  unsigned int channels;          // 1 to 4
  unsigned int channel_bytes;     // 1, 2 or 4, the same for every channel
  unsigned int kind;              // hipChannelFormatKind
  unsigned int linear;            // 1: a hipResourceTypeLinear buffer (tex1Dfetch)
  unsigned int address_mode[3];   // hipTextureAddressMode of x, y, z
  unsigned int filter_mode;       // hipTextureFilterMode
  unsigned int read_mode;         // hipTextureReadMode
  unsigned int normalized_coords;
  float border_color[4];
};
typedef struct __hip_texture* hipTextureObject_t;

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

#ifdef __cplusplus
}  // extern "C"

// hipCreateChannelDesc<T>(): the format of a texel of type T (scalars and 1-, 2- and 4-lane
// vectors of 8-, 16- and 32-bit integers and floats).
template <class T>
struct __hipmlir_channel_of;
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
HIPMLIR_CHANNEL(long, hipChannelFormatKindSigned)
HIPMLIR_CHANNEL(unsigned long, hipChannelFormatKindUnsigned)
HIPMLIR_CHANNEL(float, hipChannelFormatKindFloat)
#undef HIPMLIR_CHANNEL

template <class T>
static inline hipChannelFormatDesc hipCreateChannelDesc() {
  // Vector types: the lanes of their element; scalars: one channel.
  typedef __hipmlir_channel_of<decltype(T{}.x)> scalar_of_vector;
  constexpr int lanes = (int)(sizeof(T) / sizeof(T{}.x));
  constexpr int b = scalar_of_vector::bits;
  return hipCreateChannelDesc(b, lanes > 1 ? b : 0, lanes > 2 ? b : 0, lanes > 3 ? b : 0,
                              scalar_of_vector::kind);
}
#define HIPMLIR_SCALAR_CHANNEL_DESC(T)                                                    \
  template <>                                                                             \
  inline hipChannelFormatDesc hipCreateChannelDesc<T>() {                                 \
    return hipCreateChannelDesc(__hipmlir_channel_of<T>::bits, 0, 0, 0,                   \
                                __hipmlir_channel_of<T>::kind);                           \
  }
HIPMLIR_SCALAR_CHANNEL_DESC(char)
HIPMLIR_SCALAR_CHANNEL_DESC(signed char)
HIPMLIR_SCALAR_CHANNEL_DESC(unsigned char)
HIPMLIR_SCALAR_CHANNEL_DESC(short)
HIPMLIR_SCALAR_CHANNEL_DESC(unsigned short)
HIPMLIR_SCALAR_CHANNEL_DESC(int)
HIPMLIR_SCALAR_CHANNEL_DESC(unsigned int)
HIPMLIR_SCALAR_CHANNEL_DESC(long)
HIPMLIR_SCALAR_CHANNEL_DESC(unsigned long)
HIPMLIR_SCALAR_CHANNEL_DESC(float)
#undef HIPMLIR_SCALAR_CHANNEL_DESC

#endif

#endif  // HIPMLIR_TEXTURE_TYPES_H
