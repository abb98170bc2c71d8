// HIP's texture types: texture kinds, addressing, filtering and read modes, the texture object
// description (hipTextureDesc), the legacy texture reference's description, and the texture
// object handle. Valid C and C++; hip_runtime_api.h includes it.
//
// Textures are software on every backend: a hipTextureObject_t is the device address of a
// __hip_texture (below) that hipCreateTextureObject fills; device code reads texels through it
// with the addressing and filtering rules of HIP's texture units (hipmlir_texture.h).
#ifndef HIPMLIR_TEXTURE_TYPES_H_PUBLIC
#define HIPMLIR_TEXTURE_TYPES_H_PUBLIC

#include "driver_types.h"

#define hipTextureType1D 0x01
#define hipTextureType2D 0x02
#define hipTextureType3D 0x03
#define hipTextureTypeCubemap 0x0C
#define hipTextureType1DLayered 0xF1
#define hipTextureType2DLayered 0xF2
#define hipTextureTypeCubemapLayered 0xFC

// The sizes (in 32-bit words) of AMD's image, sampler and texture object descriptors, as HIP
// spells them (informational here: hipmlir's texture objects are __hip_texture below).
#define HIP_IMAGE_OBJECT_SIZE_DWORD 12
#define HIP_SAMPLER_OBJECT_SIZE_DWORD 8
#define HIP_SAMPLER_OBJECT_OFFSET_DWORD HIP_IMAGE_OBJECT_SIZE_DWORD
#define HIP_TEXTURE_OBJECT_SIZE_DWORD (HIP_IMAGE_OBJECT_SIZE_DWORD + HIP_SAMPLER_OBJECT_SIZE_DWORD)

// HIP_TEXTURE_DESC flags and hipTexRefSetFormat's override.
#define HIP_TRSA_OVERRIDE_FORMAT 0x01
#define HIP_TRSF_READ_AS_INTEGER 0x01
#define HIP_TRSF_NORMALIZED_COORDINATES 0x02
#define HIP_TRSF_SRGB 0x10

typedef enum hipTextureAddressMode {
  hipAddressModeWrap = 0,
  hipAddressModeClamp = 1,
  hipAddressModeMirror = 2,
  hipAddressModeBorder = 3
} hipTextureAddressMode;

typedef enum hipTextureFilterMode {
  hipFilterModePoint = 0,
  hipFilterModeLinear = 1
} hipTextureFilterMode;

typedef enum hipTextureReadMode {
  hipReadModeElementType = 0,
  hipReadModeNormalizedFloat = 1
} hipTextureReadMode;

typedef struct hipTextureDesc {
  enum hipTextureAddressMode addressMode[3];  // x, y, z
  enum hipTextureFilterMode filterMode;
  enum hipTextureReadMode readMode;
  int sRGB;  // r, g, b of 8-bit unsigned channels read as normalized floats are sRGB
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;  // ignored: no anisotropic filtering
  enum hipTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
} hipTextureDesc;

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
  unsigned int srgb;              // 1: 8-bit unsigned channels read as normalized floats hold
                                  // sRGB-encoded r, g, b, converted to linear when read
  unsigned int levels;            // a mipmapped resource's levels, whose descriptors follow
                                  // this one (level i at this + 1 + i); 0 otherwise
  unsigned int mipmap_filter_mode;  // hipTextureFilterMode between levels
  float mipmap_level_bias;
  float min_mipmap_level_clamp;
  float max_mipmap_level_clamp;
};
typedef struct __hip_texture* hipTextureObject_t;

// The legacy texture reference's state (hipTexRef*, hipBindTexture*). hipmlir does not compile
// texture references in device code; the type is here for the host API's signatures.
typedef struct textureReference {
  int normalized;
  enum hipTextureReadMode readMode;
  enum hipTextureFilterMode filterMode;
  enum hipTextureAddressMode addressMode[3];
  struct hipChannelFormatDesc channelDesc;
  int sRGB;
  unsigned int maxAnisotropy;
  enum hipTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  hipTextureObject_t textureObject;
  int numChannels;
  enum hipArray_Format format;
} textureReference;
typedef textureReference* hipTexRef;

#endif  // HIPMLIR_TEXTURE_TYPES_H_PUBLIC
