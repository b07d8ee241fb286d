// What thread 0 of a worker block pays for global loads at a tile boundary
// while other blocks on its SM stream memory (the runtime's bandwidth
// case: docs/runtime.md, "Streaming tiles through the worker loop").
//
// Two blocks per SM, as the resident kernel runs: block 2k streams (a
// 16-byte copy over a large buffer, eight vectors in flight per thread),
// block 2k+1's thread 0 times, in SM
// cycles: one dependent ld.relaxed.gpu; eight independent ones (eight
// lines) used together; one 16-byte vector load; one warp-wide coalesced
// load of a 128-byte line (lanes 0-7, 16 bytes each); a cp.async.cg of 16
// bytes into shared memory and its wait; issuing three stores. Then the
// same without streaming.
//   nvcc -O3 -arch=sm_90 -o /tmp/loaded_latency bench/micro/loaded_latency.cu
//   /tmp/loaded_latency
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

constexpr int kCases = 6, kRounds = 200;

__device__ __forceinline__ uint32_t ldRelaxed(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ uint4 ldRelaxed4(const uint4 *p) {
  uint4 v;
  asm volatile("ld.relaxed.gpu.global.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p) : "memory");
  return v;
}

__global__ void probe(const uint4 *__restrict__ src, uint4 *__restrict__ dst,
                      size_t n, const uint32_t *flags, volatile int *stop,
                      unsigned long long *out, int streaming) {
  __shared__ uint4 landing[8];
  int block = blockIdx.x;
  if ((block & 1) == 0) {
    if (!streaming) return;
    // Streamer, as a generated elementwise tile does it: each thread
    // loads eight 16-byte vectors of a 32 KB tile, then stores them; tiles
    // grid-strided, over and over until told to stop.
    constexpr int kVec = 8;
    size_t tile = (size_t)blockDim.x * kVec, tiles = n / tile;
    while (!*stop)
      for (size_t t = block / 2; t < tiles && !*stop; t += gridDim.x / 2) {
        uint4 v[kVec];
#pragma unroll
        for (int k = 0; k < kVec; ++k)
          v[k] = src[t * tile + k * blockDim.x + threadIdx.x];
#pragma unroll
        for (int k = 0; k < kVec; ++k)
          dst[t * tile + k * blockDim.x + threadIdx.x] = v[k];
      }
    return;
  }
  int prober = block / 2;
  unsigned long long *rec = out + (size_t)prober * kCases;
  uint32_t acc = 0;
  for (int c = 0; c < kCases; ++c) {
    unsigned long long sum = 0;
    for (int r = 0; r < kRounds; ++r) {
      __syncwarp();
      long long t0 = clock64();
      if (c == 0 && threadIdx.x == 0) {
        acc += ldRelaxed(flags + 32 * (r & 7));
      } else if (c == 1 && threadIdx.x == 0) {
        uint32_t v[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] = ldRelaxed(flags + 32 * k);
#pragma unroll
        for (int k = 0; k < 8; ++k) acc += v[k];
      } else if (c == 2 && threadIdx.x == 0) {
        uint4 v = ldRelaxed4(reinterpret_cast<const uint4 *>(flags));
        acc += v.x + v.w;
      } else if (c == 3 && threadIdx.x < 32) {
        uint4 v = ldRelaxed4(reinterpret_cast<const uint4 *>(flags) + (threadIdx.x & 7));
        acc += __shfl_sync(0xffffffffu, v.x, 7);
      } else if (c == 4 && threadIdx.x == 0) {
        uint32_t d = (uint32_t)__cvta_generic_to_shared(&landing[r & 7]);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n\t"
                     "cp.async.commit_group;\n\t"
                     "cp.async.wait_all;" ::"r"(d), "l"(flags) : "memory");
        acc += landing[r & 7].x;
      } else if (c == 5 && threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < 3; ++k)
          asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(flags + 512 + 32 * k + prober),
                       "r"(r) : "memory");
      }
      long long t1 = clock64();
      sum += (unsigned long long)(t1 - t0);
      // Some distance between rounds, as tiles put between boundaries.
      long long w = clock64();
      while (clock64() - w < 2000) {}
    }
    if (threadIdx.x == 0) rec[c] = sum / kRounds;
  }
  // The streamers stop when every prober is done.
  if (threadIdx.x == 0 && atomicAdd((int *)stop + 1, 1) + 1 == (int)gridDim.x / 2)
    *stop = 1;
  if (acc == 0xFFFFFFFFu) out[0] = acc; // keeps the loads
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  size_t n = (size_t)1 << 26; // 1 GiB of uint4 each way
  uint4 *src, *dst; uint32_t *flags; int *stop; unsigned long long *out;
  CHECK(cudaMalloc(&src, n * 16)); CHECK(cudaMalloc(&dst, n * 16));
  CHECK(cudaMalloc(&flags, 4096)); CHECK(cudaMemset(flags, 0, 4096));
  CHECK(cudaMalloc(&stop, 8)); CHECK(cudaMalloc(&out, sms * kCases * 8));
  const char *names[kCases] = {"1 ld.relaxed.gpu", "8 independent ld.relaxed.gpu",
                               "1 ld.relaxed.gpu.v4 (16 B)", "warp-wide 128 B line",
                               "cp.async.cg 16 B + wait", "3 st.relaxed.gpu (issue)"};
  std::printf("%-32s %12s %12s\n", "thread 0's access (median over SMs)", "idle SM", "streaming SM");
  std::vector<unsigned long long> res[2];
  for (int streaming = 0; streaming < 2; ++streaming) {
    CHECK(cudaMemset(stop, 0, 8));
    probe<<<2 * sms, 256>>>(src, dst, n, flags, stop, out, streaming);
    CHECK(cudaDeviceSynchronize());
    res[streaming].resize(sms * kCases);
    CHECK(cudaMemcpy(res[streaming].data(), out, sms * kCases * 8, cudaMemcpyDeviceToHost));
  }
  for (int c = 0; c < kCases; ++c) {
    unsigned long long med[2];
    for (int s = 0; s < 2; ++s) {
      std::vector<unsigned long long> v;
      for (int b = 0; b < sms; ++b) v.push_back(res[s][b * kCases + c]);
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      med[s] = v[v.size() / 2];
    }
    std::printf("%-32s %12llu %12llu\n", names[c], med[0], med[1]);
  }
  return 0;
}
