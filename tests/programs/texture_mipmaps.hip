// Mipmapped textures: a mipmapped array of 2-D float levels (each level's texels distinct) read
// through a texture object with tex2DLod (nearest level and linear blends between levels, the
// level of detail biased and clamped) and tex2DGrad (the level from the gradients), through a
// layered one with tex1DLayeredLod, and through a texture reference bound with
// hipBindTextureToMipmappedArray; every result compared with a host model that samples each
// level as a texture unit does.
#include "test_common.h"
#include "include/texture_reference.h"

#include <cmath>
#include <cstring>

texture<float, hipTextureType2D, hipReadModeElementType> mipmapped_ref;

struct Probe {
  float x, y, level;
  float2 dx, dy;
};

__global__ void read_lod(hipTextureObject_t t, const Probe* at, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLod<float>(t, at[i].x, at[i].y, at[i].level);
}

__global__ void read_grad(hipTextureObject_t t, const Probe* at, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DGrad<float>(t, at[i].x, at[i].y, at[i].dx, at[i].dy);
}

__global__ void read_reference(const Probe* at, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLod(mipmapped_ref, at[i].x, at[i].y, at[i].level);
}

__global__ void read_layered(hipTextureObject_t t, const Probe* at, float2* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1DLayeredLod<float2>(t, at[i].x, (int)at[i].y, at[i].level);
}

// The host model of a mipmapped texture: one HostTexture per level and the level choice.
struct HostMipmap {
  std::vector<HostTexture> levels;
  bool linear_between = false;
  float bias = 0.0f, min_clamp = 0.0f, max_clamp = 0.0f;

  float clamp_lod(float lod) const {
    lod = std::fmin(std::fmax(lod + bias, min_clamp), max_clamp);
    return std::fmin(std::fmax(lod, 0.0f), (float)levels.size() - 1.0f);
  }
  HostTexel sample(int dims, float x, float y, int layer, float lod) const {
    lod = clamp_lod(lod);
    if (!linear_between) {
      int level = (int)(std::ceil(lod + 0.5f) - 1.0f);
      return levels[level].sample(dims, x, y, 0.0f, layer);
    }
    float whole = std::floor(lod), f = lod - whole;
    HostTexel a = levels[(int)whole].sample(dims, x, y, 0.0f, layer);
    if (f == 0.0f) return a;
    HostTexel b = levels[(int)whole + 1].sample(dims, x, y, 0.0f, layer);
    for (int c = 0; c < 4; ++c) a.f[c] = (1.0f - f) * a.f[c] + f * b.f[c];
    return a;
  }
  // The level of detail of 2-D gradients at normalized coordinates.
  float grad_lod(float2 dx, float2 dy) const {
    float w = (float)levels[0].width, h = (float)levels[0].height;
    float a = std::sqrt(dx.x * w * dx.x * w + dx.y * h * dx.y * h);
    float b = std::sqrt(dy.x * w * dy.x * w + dy.y * h * dy.y * h);
    return std::log2(std::fmax(a, b));
  }
};

static std::vector<float> run(void (*kernel)(hipTextureObject_t, const Probe*, float*, int),
                              hipTextureObject_t t, const std::vector<Probe>& probes) {
  int n = (int)probes.size();
  Probe* d_at = to_device(probes);
  float* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
  kernel<<<(n + 63) / 64, 64>>>(t, d_at, d_out, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> out = from_device(d_out, n);
  HIP_CHECK(hipFree(d_at));
  HIP_CHECK(hipFree(d_out));
  return out;
}

int main() {
  const int w = 16, h = 8, levels = 4;
  int bad = 0;
  hipChannelFormatDesc desc = hipCreateChannelDesc<float>();
  hipMipmappedArray_t mipmap = nullptr;
  HIP_CHECK(hipMallocMipmappedArray(&mipmap, &desc, make_hipExtent(w, h, 0), levels));
  HostMipmap model;
  for (int l = 0; l < levels; ++l) {
    hipArray_t level = nullptr;
    HIP_CHECK(hipGetMipmappedArrayLevel(&level, mipmap, l));
    HostTexture t;
    t.width = std::max(w >> l, 1);
    t.height = std::max(h >> l, 1);
    t.normalized_coords = true;
    t.mode[0] = hipAddressModeWrap;
    t.mode[1] = hipAddressModeClamp;
    std::vector<float> texels(t.width * t.height);
    for (size_t i = 0; i < texels.size(); ++i) texels[i] = 1000.0f * l + (float)(i * 7 % 31);
    t.data.resize(texels.size() * 4);
    std::memcpy(t.data.data(), texels.data(), t.data.size());
    HIP_CHECK(hipMemcpy2DToArray(level, 0, 0, texels.data(), t.width * 4, t.width * 4, t.height,
                                 hipMemcpyHostToDevice));
    model.levels.push_back(t);
  }

  std::vector<Probe> probes;
  for (int i = 0; i < 240; ++i) {
    Probe p;
    p.x = -0.5f + 2.0f * ((i * 37) % 97) / 97.0f;
    p.y = ((i * 11) % 53) / 53.0f;
    p.level = -1.0f + 5.5f * ((i * 13) % 60) / 60.0f;
    float scale = std::exp2(p.level) / w;
    p.dx = make_float2(scale, 0.25f * scale);
    p.dy = make_float2(0.0f, 0.5f * scale * w / h);
    probes.push_back(p);
  }

  hipResourceDesc res;
  std::memset(&res, 0, sizeof res);
  res.resType = hipResourceTypeMipmappedArray;
  res.res.mipmap.mipmap = mipmap;
  for (int linear = 0; linear < 2; ++linear) {
    for (int filter = 0; filter < 2; ++filter) {
      for (HostTexture& t : model.levels) t.linear_filter = filter == 1;
      model.linear_between = linear == 1;
      model.bias = linear ? 0.25f : 0.0f;
      model.min_clamp = 0.5f * linear;
      model.max_clamp = 3.0f;
      hipTextureDesc td = model.levels[0].desc();
      td.mipmapFilterMode = linear ? hipFilterModeLinear : hipFilterModePoint;
      td.mipmapLevelBias = model.bias;
      td.minMipmapLevelClamp = model.min_clamp;
      td.maxMipmapLevelClamp = model.max_clamp;
      hipTextureObject_t t = nullptr;
      HIP_CHECK(hipCreateTextureObject(&t, &res, &td, nullptr));
      std::vector<float> want_lod, want_grad;
      for (const Probe& p : probes) {
        want_lod.push_back(model.sample(2, p.x, p.y, 0, p.level).f[0]);
        want_grad.push_back(model.sample(2, p.x, p.y, 0, model.grad_lod(p.dx, p.dy)).f[0]);
      }
      bad += count_far("tex2DLod", run(read_lod, t, probes), want_lod, 1e-5f);
      bad += count_far("tex2DGrad", run(read_grad, t, probes), want_grad, 1e-4f);
      HIP_CHECK(hipDestroyTextureObject(t));
    }
  }

  // A texture reference bound to the mipmapped array: its own sampler state, a nearest level.
  mipmapped_ref.normalized = 1;
  mipmapped_ref.addressMode[0] = hipAddressModeWrap;
  mipmapped_ref.maxMipmapLevelClamp = 3.0f;
  HIP_CHECK(hipBindTextureToMipmappedArray(mipmapped_ref, mipmap));
  for (HostTexture& t : model.levels) t.linear_filter = false;
  model.linear_between = false;
  model.bias = model.min_clamp = 0.0f;
  std::vector<float> want_ref;
  for (const Probe& p : probes) want_ref.push_back(model.sample(2, p.x, p.y, 0, p.level).f[0]);
  {
    int n = (int)probes.size();
    Probe* d_at = to_device(probes);
    float* d_out = nullptr;
    HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
    read_reference<<<(n + 63) / 64, 64>>>(d_at, d_out, n);
    HIP_CHECK(hipGetLastError());
    bad += count_far("tex2DLod on a reference", from_device(d_out, n), want_ref, 0.0f);
    HIP_CHECK(hipFree(d_at));
    HIP_CHECK(hipFree(d_out));
  }
  HIP_CHECK(hipUnbindTexture(mipmapped_ref));
  HIP_CHECK(hipFreeMipmappedArray(mipmap));

  // A layered mipmapped array of float2: each level keeps its layers.
  {
    const int lw = 32, layers = 3, llevels = 3;
    hipChannelFormatDesc d2 = hipCreateChannelDesc<float2>();
    hipMipmappedArray_t layered = nullptr;
    HIP_CHECK(hipMallocMipmappedArray(&layered, &d2, make_hipExtent(lw, 0, layers), llevels,
                                      hipArrayLayered));
    HostMipmap lm;
    for (int l = 0; l < llevels; ++l) {
      hipArray_t level = nullptr;
      HIP_CHECK(hipGetMipmappedArrayLevel(&level, layered, l));
      HostTexture t;
      t.width = lw >> l;
      t.depth = layers;
      t.channels = 2;
      std::vector<float> texels(t.width * layers * 2);
      for (size_t i = 0; i < texels.size(); ++i) texels[i] = 100.0f * l + 0.5f * i;
      t.data.resize(texels.size() * 4);
      std::memcpy(t.data.data(), texels.data(), t.data.size());
      hipMemcpy3DParms copy;
      std::memset(&copy, 0, sizeof copy);
      copy.srcPtr = make_hipPitchedPtr(texels.data(), t.width * 8, t.width, 1);
      copy.dstArray = level;
      copy.extent = make_hipExtent(t.width, 1, layers);
      copy.kind = hipMemcpyHostToDevice;
      HIP_CHECK(hipMemcpy3D(&copy));
      lm.levels.push_back(t);
    }
    lm.max_clamp = 2.0f;
    hipResourceDesc lres;
    std::memset(&lres, 0, sizeof lres);
    lres.resType = hipResourceTypeMipmappedArray;
    lres.res.mipmap.mipmap = layered;
    hipTextureDesc td = lm.levels[0].desc();
    td.maxMipmapLevelClamp = lm.max_clamp;
    hipTextureObject_t t = nullptr;
    HIP_CHECK(hipCreateTextureObject(&t, &lres, &td, nullptr));
    std::vector<Probe> lp;
    for (int i = 0; i < 90; ++i) {
      Probe p = {};
      p.x = (float)((i * 7) % 40) - 4.0f;
      p.y = (float)(i % layers);
      p.level = 0.75f * (i % 4);
      lp.push_back(p);
    }
    int n = (int)lp.size();
    Probe* d_at = to_device(lp);
    float2* d_out = nullptr;
    HIP_CHECK(hipMalloc(&d_out, n * sizeof(float2)));
    read_layered<<<(n + 63) / 64, 64>>>(t, d_at, d_out, n);
    HIP_CHECK(hipGetLastError());
    std::vector<float2> got = from_device(d_out, n);
    std::vector<float> got_lanes, want_lanes;
    for (int i = 0; i < n; ++i) {
      HostTexel e = lm.sample(1, lp[i].x, 0.0f, (int)lp[i].y, lp[i].level);
      got_lanes.insert(got_lanes.end(), {got[i].x, got[i].y});
      want_lanes.insert(want_lanes.end(), {e.f[0], e.f[1]});
    }
    bad += count_far("tex1DLayeredLod", got_lanes, want_lanes, 0.0f);
    HIP_CHECK(hipDestroyTextureObject(t));
    HIP_CHECK(hipFree(d_at));
    HIP_CHECK(hipFree(d_out));
    HIP_CHECK(hipFreeMipmappedArray(layered));
  }
  return report("texture_mipmaps", bad);
}
