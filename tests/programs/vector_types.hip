// HIP's vector types in kernels and on the host: float4 arrays (AoS), make_* functions,
// element-wise operators with vectors and scalars, int2 and double2; and the block votes
// __syncthreads_count/_and/_or.
#include "test_common.h"

#include <cmath>
#include <type_traits>

__global__ void particles(const float4* pos, const float4* vel, float4* out, double2* energy,
                          int2* cells, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i];
  float4 v = vel[i];
  float4 next = p + v * dt;
  next.w = p.w;
  out[i] = next;
  double speed2 = (double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z;
  energy[i] = make_double2(0.5 * p.w * speed2, speed2);
  int2 cell = make_int2((int)floorf(next.x), (int)floorf(next.y));
  cell += make_int2(1, 1);
  cells[i] = cell * 2;
}

__global__ void votes(const int* values, int* out) {
  int v = values[blockIdx.x * blockDim.x + threadIdx.x];
  int count = __syncthreads_count(v > 50);
  int all = __syncthreads_and(v >= 0);
  int any = __syncthreads_or(v == 77);
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x] = count;
    out[3 * blockIdx.x + 1] = all;
    out[3 * blockIdx.x + 2] = any;
  }
}

// ROCm's name for the vector types, as generic code writes it: HIP_vector_type<T, 2> is T's
// two-lane vector type.
static_assert(std::is_same<HIP_vector_type<float, 4>, float4>::value, "HIP_vector_type<float, 4>");
static_assert(std::is_same<HIP_vector_type<unsigned char, 1>, uchar1>::value, "uchar1");
template <typename T>
__global__ void swap_lanes(HIP_vector_type<T, 2>* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    HIP_vector_type<T, 2> p = v[i];
    v[i].x = p.y;
    v[i].y = p.x + static_cast<T>(i);
  }
}

int main() {
  static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4 layout");
  static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3 layout");
  static_assert(sizeof(double2) == 16 && alignof(int2) == 8, "double2/int2 layout");
  const int n = 1000;
  std::vector<float4> pos(n), vel(n);
  for (int i = 0; i < n; ++i) {
    pos[i] = make_float4(i * 0.5f, -i * 0.25f, 1.0f, 1.0f + i % 3);
    vel[i] = make_float4(0.5f, i % 5 - 2.0f, -1.0f, 0.0f);
  }
  const float dt = 0.25f;
  std::vector<float4> want(n);
  std::vector<double2> want_energy(n);
  std::vector<int2> want_cells(n);
  for (int i = 0; i < n; ++i) {
    float4 next = pos[i] + vel[i] * dt;
    next.w = pos[i].w;
    want[i] = next;
    double speed2 = (double)vel[i].x * vel[i].x + (double)vel[i].y * vel[i].y +
                    (double)vel[i].z * vel[i].z;
    want_energy[i] = make_double2(0.5 * pos[i].w * speed2, speed2);
    int2 cell = make_int2((int)std::floor(next.x), (int)std::floor(next.y));
    cell += make_int2(1, 1);
    want_cells[i] = cell * 2;
  }
  float4* d_pos = to_device(pos);
  float4* d_vel = to_device(vel);
  float4* d_out = nullptr;
  double2* d_energy = nullptr;
  int2* d_cells = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(float4)));
  HIP_CHECK(hipMalloc(&d_energy, n * sizeof(double2)));
  HIP_CHECK(hipMalloc(&d_cells, n * sizeof(int2)));
  particles<<<(n + 127) / 128, 128>>>(d_pos, d_vel, d_out, d_energy, d_cells, dt, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float4> got = from_device(d_out, n);
  std::vector<double2> got_energy = from_device(d_energy, n);
  std::vector<int2> got_cells = from_device(d_cells, n);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    bool same = got[i].x == want[i].x && got[i].y == want[i].y && got[i].z == want[i].z &&
                got[i].w == want[i].w && got_energy[i].x == want_energy[i].x &&
                got_energy[i].y == want_energy[i].y && got_cells[i].x == want_cells[i].x &&
                got_cells[i].y == want_cells[i].y;
    if (!same) {
      if (bad < 5) std::printf("particle %d differs\n", i);
      ++bad;
    }
  }

  const int blocks = 8, block = 64;
  std::vector<int> values(blocks * block);
  for (int i = 0; i < blocks * block; ++i) values[i] = (i * 37) % 101 - (i / block == 3 ? 1 : 0);
  std::vector<int> want_votes(3 * blocks, 0);
  for (int b = 0; b < blocks; ++b) {
    int count = 0, all = 1, any = 0;
    for (int t = 0; t < block; ++t) {
      int v = values[b * block + t];
      count += v > 50;
      all &= v >= 0;
      any |= v == 77;
    }
    want_votes[3 * b] = count;
    want_votes[3 * b + 1] = all;
    want_votes[3 * b + 2] = any;
  }
  int* d_values = to_device(values);
  int* d_votes = nullptr;
  HIP_CHECK(hipMalloc(&d_votes, 3 * blocks * sizeof(int)));
  votes<<<blocks, block>>>(d_values, d_votes);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("block votes", from_device(d_votes, 3 * blocks), want_votes);

  HIP_CHECK(hipFree(d_pos));
  HIP_CHECK(hipFree(d_vel));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_energy));
  HIP_CHECK(hipFree(d_cells));
  HIP_CHECK(hipFree(d_values));
  HIP_CHECK(hipFree(d_votes));
  {
    const int m = 300;
    std::vector<int2> pairs(m);
    for (int i = 0; i < m; ++i) pairs[i] = make_int2(i, 3 * i + 1);
    int2* d_pairs = nullptr;
    HIP_CHECK(hipMalloc(&d_pairs, m * sizeof(int2)));
    HIP_CHECK(hipMemcpy(d_pairs, pairs.data(), m * sizeof(int2), hipMemcpyHostToDevice));
    swap_lanes<int><<<(m + 127) / 128, 128>>>(d_pairs, m);
    HIP_CHECK(hipGetLastError());
    std::vector<int2> got(m);
    HIP_CHECK(hipMemcpy(got.data(), d_pairs, m * sizeof(int2), hipMemcpyDeviceToHost));
    HIP_CHECK(hipFree(d_pairs));
    std::vector<int> got_flat, want_flat;
    for (int i = 0; i < m; ++i) {
      got_flat.insert(got_flat.end(), {got[i].x, got[i].y});
      want_flat.insert(want_flat.end(), {3 * i + 1, i + i});
    }
    bad += count_mismatches("HIP_vector_type lanes", got_flat, want_flat);
  }
  return report("vector_types", bad);
}
