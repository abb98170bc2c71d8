// Pitched 2-D and 3-D copies and memsets between every kind of memory: pageable, pinned
// (hipHostMalloc), registered (hipHostRegister), device (hipMalloc) and managed memory, with odd
// widths, pitches larger than the widths on both sides, rectangles starting at offsets inside
// their allocations and inside arrays, synchronous and on a stream between kernels that write
// the source before and change the destination after. Every byte of every destination
// allocation (the gaps between rows included, which must keep their old bytes) is compared with
// a host model.
#include "pitched_kernels.h"
#include "test_common.h"

#include <cstring>
#include <memory>
#include <string>

namespace {

enum class Kind { Pageable, Pinned, Registered, Device, Managed };

// The kinds the device has (registered and managed memory are not everywhere: hipmlir's SVM
// memory model has no managed memory), and those of them a kernel reaches.
std::vector<Kind> kKinds, kKernelKinds;

void find_kinds() {
  int registers = 0;
  HIP_CHECK(hipDeviceGetAttribute(&registers, hipDeviceAttributeHostRegisterSupported, 0));
  void* probe = nullptr;
  bool managed = hipMallocManaged(&probe, 1) == hipSuccess;
  if (managed) HIP_CHECK(hipFree(probe));
  (void)hipGetLastError();
  for (Kind k : {Kind::Pageable, Kind::Pinned, Kind::Registered, Kind::Device, Kind::Managed}) {
    if ((k == Kind::Registered && !registers) || (k == Kind::Managed && !managed)) continue;
    kKinds.push_back(k);
    if (k != Kind::Pageable) kKernelKinds.push_back(k);
  }
}

const char* name_of(Kind k) {
  switch (k) {
    case Kind::Pageable: return "pageable";
    case Kind::Pinned: return "pinned";
    case Kind::Registered: return "registered";
    case Kind::Device: return "device";
    case Kind::Managed: return "managed";
  }
  return "?";
}

bool on_host(Kind k) { return k == Kind::Pageable || k == Kind::Pinned || k == Kind::Registered; }

hipMemcpyKind direction(Kind dst, Kind src) {
  if (on_host(src)) return on_host(dst) ? hipMemcpyHostToHost : hipMemcpyHostToDevice;
  return on_host(dst) ? hipMemcpyDeviceToHost : hipMemcpyDeviceToDevice;
}

using Bytes = std::vector<unsigned char>;

Bytes pattern(size_t n, unsigned seed) {
  Bytes v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>((i * 2654435761u + seed) >> 13);
  return v;
}

// One allocation of `bytes` of a kind; `host` is the program's address, `device` the one
// kernels use (the same but for registered memory, asked of the runtime).
class Buffer {
 public:
  Buffer(Kind kind, size_t bytes) : kind_(kind), bytes_(bytes) {
    switch (kind) {
      case Kind::Pageable:
      case Kind::Registered:
        storage_.resize(bytes);
        host_ = storage_.data();
        device_ = host_;
        if (kind == Kind::Registered) {
          HIP_CHECK(hipHostRegister(host_, bytes, hipHostRegisterMapped));
          void* d = nullptr;
          HIP_CHECK(hipHostGetDevicePointer(&d, host_, 0));
          device_ = static_cast<char*>(d);
        }
        break;
      case Kind::Pinned:
        HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(&host_), bytes));
        device_ = host_;
        break;
      case Kind::Device:
        HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&host_), bytes));
        device_ = host_;
        break;
      case Kind::Managed:
        HIP_CHECK(hipMallocManaged(reinterpret_cast<void**>(&host_), bytes));
        device_ = host_;
        break;
    }
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    switch (kind_) {
      case Kind::Registered: HIP_CHECK(hipHostUnregister(host_)); break;
      case Kind::Pinned: HIP_CHECK(hipHostFree(host_)); break;
      case Kind::Device:
      case Kind::Managed: HIP_CHECK(hipFree(host_)); break;
      case Kind::Pageable: break;
    }
  }

  // The whole allocation, by one linear copy (not the path under test).
  void write(const Bytes& v) { HIP_CHECK(hipMemcpy(host_, v.data(), bytes_, hipMemcpyDefault)); }
  Bytes read() const {
    Bytes v(bytes_);
    HIP_CHECK(hipMemcpy(v.data(), host_, bytes_, hipMemcpyDefault));
    return v;
  }

  char* host() const { return host_; }
  char* device() const { return device_; }

 private:
  Kind kind_;
  size_t bytes_;
  std::vector<char> storage_;
  char* host_ = nullptr;
  char* device_ = nullptr;
};

// A rectangle of `width` bytes by `height` rows, each side at its offset and pitch.
struct Shape {
  const char* name;
  size_t width, height, spitch, dpitch, soff, doff;
  size_t src_bytes() const { return soff + spitch * (height - 1) + width + 11; }
  size_t dst_bytes() const { return doff + dpitch * (height - 1) + width + 11; }
};

// Odd bytes, then widths and pitches that are whole 2, 4, 8 and 16-byte elements, a rectangle
// whose rows follow each other, and a single row.
const Shape kShapes[] = {
    {"odd bytes", 37, 19, 53, 67, 5, 3},   {"2-byte", 6, 5, 10, 14, 2, 4},
    {"4-byte", 12, 9, 20, 28, 4, 8},       {"8-byte", 24, 7, 40, 56, 8, 16},
    {"16-byte", 4096, 33, 4352, 4608, 0, 256}, {"contiguous", 64, 8, 64, 64, 0, 0},
    {"one row", 300, 1, 512, 512, 1, 2},
};

// The destination after copying the rectangle of `src` into `dst`.
Bytes copied(Bytes dst, const Bytes& src, const Shape& s) {
  for (size_t y = 0; y < s.height; ++y)
    std::memcpy(&dst[s.doff + y * s.dpitch], &src[s.soff + y * s.spitch], s.width);
  return dst;
}

int bad = 0;

void check(const std::string& what, const Bytes& got, const Bytes& want) {
  bad += count_mismatches(what.c_str(), got, want);
}

std::string label(const char* test, const Shape& s, Kind dst, Kind src) {
  return std::string(test) + " " + s.name + " " + name_of(src) + "->" + name_of(dst);
}

// hipMemcpy2D between every pair of kinds, in every shape.
void synchronous_copies() {
  unsigned seed = 1;
  for (const Shape& s : kShapes) {
    for (Kind src_kind : kKinds) {
      for (Kind dst_kind : kKinds) {
        Buffer src(src_kind, s.src_bytes()), dst(dst_kind, s.dst_bytes());
        Bytes src_init = pattern(s.src_bytes(), ++seed), dst_init = pattern(s.dst_bytes(), ++seed);
        src.write(src_init);
        dst.write(dst_init);
        HIP_CHECK(hipMemcpy2D(dst.host() + s.doff, s.dpitch, src.host() + s.soff, s.spitch,
                              s.width, s.height, direction(dst_kind, src_kind)));
        check(label("hipMemcpy2D", s, dst_kind, src_kind), dst.read(),
              copied(dst_init, src_init, s));
      }
    }
  }
}

// The source rectangle stamped by a kernel before the copy and the destination's changed by
// one after it, all on one stream: the copy must see the first and the second must see it.
void copies_between_kernels(hipStream_t stream) {
  unsigned seed = 100;
  for (const Shape& s : kShapes) {
    for (Kind src_kind : kKernelKinds) {
      for (Kind dst_kind : kKernelKinds) {
        Buffer src(src_kind, s.src_bytes()), dst(dst_kind, s.dst_bytes());
        Bytes src_init = pattern(s.src_bytes(), ++seed), dst_init = pattern(s.dst_bytes(), ++seed);
        src.write(src_init);
        dst.write(dst_init);
        launch_rows(stamp<unsigned char>, s.width, s.height, stream, src.device() + s.soff,
                    s.spitch, s.width, s.height, seed);
        HIP_CHECK(hipMemcpy2DAsync(dst.host() + s.doff, s.dpitch, src.host() + s.soff, s.spitch,
                                   s.width, s.height, hipMemcpyDefault, stream));
        launch_rows(add_to<unsigned char>, s.width, s.height, stream, dst.device() + s.doff,
                    s.dpitch, s.width, s.height, static_cast<unsigned char>(3));
        HIP_CHECK(hipStreamSynchronize(stream));
        Bytes want = dst_init;
        for (size_t y = 0; y < s.height; ++y)
          for (size_t x = 0; x < s.width; ++x)
            want[s.doff + y * s.dpitch + x] =
                static_cast<unsigned char>(stamp_value<unsigned char>(x, y, seed) + 3);
        check(label("hipMemcpy2DAsync between kernels", s, dst_kind, src_kind), dst.read(), want);
      }
    }
  }
}

// Pageable memory on a stream: to the device after a kernel that wrote the destination (the
// source may be reused as soon as the call returns), and back after a kernel that wrote the
// source (the bytes are there when the call returns).
void pageable_copies_on_a_stream(hipStream_t stream) {
  unsigned seed = 500;
  for (const Shape& s : kShapes) {
    for (Kind device_kind : kKernelKinds) {
      Buffer host(Kind::Pageable, s.src_bytes()), dev(device_kind, s.dst_bytes());
      Bytes host_init = pattern(s.src_bytes(), ++seed), dev_init = pattern(s.dst_bytes(), ++seed);
      host.write(host_init);
      dev.write(dev_init);
      launch_rows(stamp<unsigned char>, s.width, s.height, stream, dev.device() + s.doff,
                  s.dpitch, s.width, s.height, seed);
      HIP_CHECK(hipMemcpy2DAsync(dev.host() + s.doff, s.dpitch, host.host() + s.soff, s.spitch,
                                 s.width, s.height, hipMemcpyHostToDevice, stream));
      std::memset(host.host(), 0xEE, s.src_bytes());
      launch_rows(add_to<unsigned char>, s.width, s.height, stream, dev.device() + s.doff,
                  s.dpitch, s.width, s.height, static_cast<unsigned char>(5));
      HIP_CHECK(hipStreamSynchronize(stream));
      Bytes want = copied(dev_init, host_init, s);
      for (size_t y = 0; y < s.height; ++y)
        for (size_t x = 0; x < s.width; ++x) want[s.doff + y * s.dpitch + x] += 5;
      check(label("pageable hipMemcpy2DAsync", s, device_kind, Kind::Pageable), dev.read(),
            want);

      // Back: the device rectangle (now at doff, dpitch) into the pageable rows.
      Buffer back(Kind::Pageable, s.src_bytes());
      Bytes back_init = pattern(s.src_bytes(), ++seed);
      back.write(back_init);
      launch_rows(stamp<unsigned char>, s.width, s.height, stream, dev.device() + s.doff,
                  s.dpitch, s.width, s.height, seed);
      HIP_CHECK(hipMemcpy2DAsync(back.host() + s.soff, s.spitch, dev.host() + s.doff, s.dpitch,
                                 s.width, s.height, hipMemcpyDeviceToHost, stream));
      Bytes got(back.host(), back.host() + s.src_bytes());  // no synchronization
      Bytes want_back = back_init;
      for (size_t y = 0; y < s.height; ++y)
        for (size_t x = 0; x < s.width; ++x)
          want_back[s.soff + y * s.spitch + x] = stamp_value<unsigned char>(x, y, seed);
      check(label("pageable hipMemcpy2DAsync", s, Kind::Pageable, device_kind), got, want_back);
    }
  }
}

// A box of `extent` at `pos` of a pitched volume (pitch bytes a row, `rows` rows a slice).
Bytes boxed(Bytes dst, size_t dpitch, size_t drows, hipPos dpos, const Bytes& src, size_t spitch,
            size_t srows, hipPos spos, hipExtent e) {
  for (size_t z = 0; z < e.depth; ++z)
    for (size_t y = 0; y < e.height; ++y)
      std::memcpy(&dst[((dpos.z + z) * drows + dpos.y + y) * dpitch + dpos.x],
                  &src[((spos.z + z) * srows + spos.y + y) * spitch + spos.x], e.width);
  return dst;
}

hipMemcpy3DParms params(hipPitchedPtr dst, hipPos dpos, hipPitchedPtr src, hipPos spos,
                        hipExtent e, hipMemcpyKind kind) {
  hipMemcpy3DParms p{};
  p.dstPtr = dst;
  p.dstPos = dpos;
  p.srcPtr = src;
  p.srcPos = spos;
  p.extent = e;
  p.kind = kind;
  return p;
}

// hipMemcpy3D from a padded pageable box into a volume at a position, from that volume into a
// second one on a stream after a 3-D memset, and out into a pinned box.
void three_dimensional_copies(hipStream_t stream) {
  const hipExtent box = make_hipExtent(13, 7, 3);
  const size_t hpitch = 61, hrows = 13, hslices = 6;
  Bytes host_init = pattern(hpitch * hrows * hslices, 900);
  hipPitchedPtr host = make_hipPitchedPtr(host_init.data(), hpitch, hpitch, hrows);

  hipPitchedPtr vol;
  HIP_CHECK(hipMalloc3D(&vol, make_hipExtent(50, 12, 7)));
  const size_t vol_bytes = vol.pitch * 12 * 7;
  Bytes vol_init = pattern(vol_bytes, 901);
  HIP_CHECK(hipMemcpy(vol.ptr, vol_init.data(), vol_bytes, hipMemcpyHostToDevice));
  const hipPos hpos = make_hipPos(3, 2, 1), vpos = make_hipPos(5, 1, 2);
  hipMemcpy3DParms in = params(vol, vpos, host, hpos, box, hipMemcpyHostToDevice);
  HIP_CHECK(hipMemcpy3D(&in));
  Bytes vol_want = boxed(vol_init, vol.pitch, 12, vpos, host_init, hpitch, hrows, hpos, box);
  Bytes got(vol_bytes);
  HIP_CHECK(hipMemcpy(got.data(), vol.ptr, vol_bytes, hipMemcpyDeviceToHost));
  check("hipMemcpy3D pageable->device", got, vol_want);

  hipPitchedPtr vol2;
  const hipExtent vol2_extent = make_hipExtent(40, 10, 6);
  HIP_CHECK(hipMalloc3D(&vol2, vol2_extent));
  const size_t vol2_bytes = vol2.pitch * 10 * 6;
  const hipPos v2pos = make_hipPos(1, 3, 0);
  HIP_CHECK(hipMemset3DAsync(vol2, 0x33, vol2_extent, stream));
  hipMemcpy3DParms across = params(vol2, v2pos, vol, vpos, box, hipMemcpyDeviceToDevice);
  HIP_CHECK(hipMemcpy3DAsync(&across, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  Bytes vol2_init(vol2_bytes);
  for (size_t z = 0; z < 6; ++z)
    for (size_t y = 0; y < 10; ++y)
      for (size_t x = 0; x < vol2.pitch; ++x)
        vol2_init[(z * 10 + y) * vol2.pitch + x] = x < 40 ? 0x33 : 0;
  got.assign(vol2_bytes, 0);
  HIP_CHECK(hipMemcpy(got.data(), vol2.ptr, vol2_bytes, hipMemcpyDeviceToHost));
  Bytes vol2_want = boxed(vol2_init, vol2.pitch, 10, v2pos, vol_want, vol.pitch, 12, vpos, box);
  // The padding past each row's 40 bytes was never written: compare the rows only.
  for (size_t i = 0; i < vol2_bytes; ++i)
    if (i % vol2.pitch >= 40) got[i] = vol2_want[i] = 0;
  check("hipMemset3DAsync then hipMemcpy3DAsync device->device", got, vol2_want);

  unsigned char* pinned = nullptr;
  const size_t ppitch = 29, prows = 9, pslices = 4, pinned_bytes = ppitch * prows * pslices;
  HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(&pinned), pinned_bytes));
  Bytes pinned_init = pattern(pinned_bytes, 902);
  std::memcpy(pinned, pinned_init.data(), pinned_bytes);
  const hipPos ppos = make_hipPos(7, 1, 1);
  hipMemcpy3DParms out = params(make_hipPitchedPtr(pinned, ppitch, ppitch, prows), ppos, vol2,
                                v2pos, box, hipMemcpyDeviceToHost);
  HIP_CHECK(hipMemcpy3D(&out));
  check("hipMemcpy3D device->pinned", Bytes(pinned, pinned + pinned_bytes),
        boxed(pinned_init, ppitch, prows, ppos, vol2_want, vol2.pitch, 10, v2pos, box));
  HIP_CHECK(hipHostFree(pinned));
  HIP_CHECK(hipFree(vol.ptr));
  HIP_CHECK(hipFree(vol2.ptr));
}

// Rectangles into an array at offsets, from pageable rows and from pitched device memory on a
// stream, and the whole array out into rows wider than its own.
void array_copies(hipStream_t stream) {
  const size_t w = 37, h = 11, e = sizeof(int);
  hipArray_t array = nullptr;
  hipChannelFormatDesc desc = hipCreateChannelDesc<int>();
  HIP_CHECK(hipMallocArray(&array, &desc, w, h));
  Bytes model = pattern(w * e * h, 950);
  HIP_CHECK(hipMemcpy2DToArray(array, 0, 0, model.data(), w * e, w * e, h, hipMemcpyHostToDevice));

  const size_t spitch = 23 * e;
  Bytes rows = pattern(spitch * 9, 951);
  HIP_CHECK(hipMemcpy2DToArray(array, 3 * e, 2, rows.data() + e, spitch, 20 * e, 7,
                               hipMemcpyHostToDevice));
  for (size_t y = 0; y < 7; ++y)
    std::memcpy(&model[(2 + y) * w * e + 3 * e], &rows[e + y * spitch], 20 * e);

  char* pitched = nullptr;
  size_t dpitch = 0;
  HIP_CHECK(hipMallocPitch(reinterpret_cast<void**>(&pitched), &dpitch, 10 * e, 3));
  Bytes dev_rows = pattern(dpitch * 3, 952);
  HIP_CHECK(hipMemcpy(pitched, dev_rows.data(), dpitch * 3, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy2DToArrayAsync(array, 5 * e, 8, pitched, dpitch, 10 * e, 3,
                                    hipMemcpyDeviceToDevice, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  for (size_t y = 0; y < 3; ++y)
    std::memcpy(&model[(8 + y) * w * e + 5 * e], &dev_rows[y * dpitch], 10 * e);

  const size_t opitch = w * e + 12;
  Bytes out_init = pattern(opitch * h, 953), out = out_init;
  HIP_CHECK(hipMemcpy2DFromArray(out.data(), opitch, array, 0, 0, w * e, h,
                                 hipMemcpyDeviceToHost));
  Bytes want = out_init;
  for (size_t y = 0; y < h; ++y) std::memcpy(&want[y * opitch], &model[y * w * e], w * e);
  check("array rectangles at offsets", out, want);
  HIP_CHECK(hipFree(pitched));
  HIP_CHECK(hipFreeArray(array));
}

// hipMemset2D at an offset of pitched memory, hipMemset2DAsync between kernels, hipMemset3D of
// a box, and graph memset nodes of 2- and 4-byte values with pitches.
void memsets(hipStream_t stream) {
  char* p = nullptr;
  size_t pitch = 0;
  const size_t w = 37, h = 19;
  HIP_CHECK(hipMallocPitch(reinterpret_cast<void**>(&p), &pitch, w, h));
  const size_t bytes = pitch * h;
  Bytes init = pattern(bytes, 970);
  HIP_CHECK(hipMemcpy(p, init.data(), bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset2D(p + 3, pitch, 0xC3, 31, 17));
  Bytes want = init;
  for (size_t y = 0; y < 17; ++y) std::memset(&want[3 + y * pitch], 0xC3, 31);
  Bytes got(bytes);
  HIP_CHECK(hipMemcpy(got.data(), p, bytes, hipMemcpyDeviceToHost));
  check("hipMemset2D at an offset", got, want);

  launch_rows(stamp<unsigned char>, w, h, stream, p, pitch, w, h, 7u);
  HIP_CHECK(hipMemset2DAsync(p + pitch + 1, pitch, 0x11, 29, 15, stream));
  launch_rows(add_to<unsigned char>, w, h, stream, p, pitch, w, h, static_cast<unsigned char>(2));
  HIP_CHECK(hipStreamSynchronize(stream));
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x) {
      bool set = y >= 1 && y < 16 && x >= 1 && x < 30;
      want[y * pitch + x] = static_cast<unsigned char>(
          (set ? 0x11 : stamp_value<unsigned char>(x, y, 7)) + 2);
    }
  HIP_CHECK(hipMemcpy(got.data(), p, bytes, hipMemcpyDeviceToHost));
  check("hipMemset2DAsync between kernels", got, want);

  hipPitchedPtr vol;
  HIP_CHECK(hipMalloc3D(&vol, make_hipExtent(45, 9, 5)));
  const size_t vol_bytes = vol.pitch * 9 * 5;
  Bytes vol_init = pattern(vol_bytes, 971);
  HIP_CHECK(hipMemcpy(vol.ptr, vol_init.data(), vol_bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset3D(vol, 0x7E, make_hipExtent(41, 7, 4)));
  Bytes vol_want = vol_init;
  for (size_t z = 0; z < 4; ++z)
    for (size_t y = 0; y < 7; ++y) std::memset(&vol_want[(z * 9 + y) * vol.pitch], 0x7E, 41);
  got.assign(vol_bytes, 0);
  HIP_CHECK(hipMemcpy(got.data(), vol.ptr, vol_bytes, hipMemcpyDeviceToHost));
  check("hipMemset3D of a box", got, vol_want);

  // Memset nodes: (offset, element size, width in elements, rows, pitch): a 2-byte value at a
  // 2-byte offset, 4-byte values in 4- and in 16-byte-aligned rows.
  struct Node {
    size_t off, size, width, height, pitch;
    unsigned value;
  };
  const Node nodes[] = {{2, 2, 7, 5, 34, 0xBEEF}, {4, 4, 9, 6, 48, 0xDEADBEEF},
                        {0, 4, 12, 6, 64, 0x01020304}};
  for (const Node& n : nodes) {
    HIP_CHECK(hipMemcpy(p, init.data(), bytes, hipMemcpyHostToDevice));
    hipGraph_t graph;
    HIP_CHECK(hipGraphCreate(&graph, 0));
    hipMemsetParams m{};
    m.dst = p + n.off;
    m.elementSize = static_cast<unsigned>(n.size);
    m.width = n.width;
    m.height = n.height;
    m.pitch = n.pitch;
    m.value = n.value;
    hipGraphNode_t node;
    HIP_CHECK(hipGraphAddMemsetNode(&node, graph, nullptr, 0, &m));
    hipGraphExec_t exec;
    HIP_CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
    HIP_CHECK(hipGraphLaunch(exec, stream));
    HIP_CHECK(hipStreamSynchronize(stream));
    want = init;
    for (size_t y = 0; y < n.height; ++y)
      for (size_t x = 0; x < n.width; ++x)
        std::memcpy(&want[n.off + y * n.pitch + x * n.size], &n.value, n.size);
    HIP_CHECK(hipMemcpy(got.data(), p, bytes, hipMemcpyDeviceToHost));
    check("memset node of " + std::to_string(n.size) + "-byte values, pitch " +
              std::to_string(n.pitch),
          got, want);
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphDestroy(graph));
  }
  HIP_CHECK(hipFree(vol.ptr));
  HIP_CHECK(hipFree(p));
}

}  // namespace

int main() {
  hipStream_t stream;
  HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  find_kinds();
  synchronous_copies();
  copies_between_kernels(stream);
  pageable_copies_on_a_stream(stream);
  three_dimensional_copies(stream);
  array_copies(stream);
  memsets(stream);
  HIP_CHECK(hipStreamDestroy(stream));
  if (bad != 0) {
    std::printf("pitched_copies FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("pitched_copies PASSED\n");
  return 0;
}
