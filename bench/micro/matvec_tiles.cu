// Decode's matvec phases as plain kernels: y[1, N] = x[1, K] @ W, one
// 256-thread block per tile, as gpuos's small-M strategy splits them
// (docs/codegen.md, "Small-M matmul"): n-lanes (W [K, N], tiles of tn
// columns, U 16-byte loads in flight per thread) and k-lanes (W [N, K]),
// on the shapes of the suite's decode (q/k/v, gate/up, down), weights
// rotated over 12 sets so L2 does not hold them. Then the same kernels with
// their weights L2-hot, or after an L2 prefetch of them by another kernel.
// Event-timed around each launch (a launch's own ~2-4 us included), so
// compare rows, not absolute figures. Results: docs/results/benchmarks-h200.md,
// "The fifteenth slice".
//   nvcc -O3 -arch=sm_90 -o /tmp/matvec_tiles bench/micro/matvec_tiles.cu
//   /tmp/matvec_tiles          (all; "/tmp/matvec_tiles one": q/k/v only, for ncu)
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>
#include "nlanes_tile.cuh"
#define CK(x) do{cudaError_t e=(x); if(e){printf("%s:%d %s\n",__FILE__,__LINE__,cudaGetErrorString(e)); exit(1);} }while(0)

// k-lanes: W[N,K] (rows contiguous in K), a warp per column pass.
template <int TN, int U>
__global__ void __launch_bounds__(256) klanes(const float* __restrict__ x, const float* W, float* y, int K, int N, int mats, size_t matStride) {
  int tilesPerMat = N / TN;
  int mat = blockIdx.x / tilesPerMat, tile = blockIdx.x % tilesPerMat;
  const float* w = W + mat * matStride;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int cc = warp; cc < TN; cc += 8) {
    int n = tile * TN + cc;
    const float* row = w + (size_t)n * K;
    float acc = 0;
    int k = lane * 4;
    for (; k + (U - 1) * 128 < K; k += U * 128) {
      float4 wv[U], xv[U];
#pragma unroll
      for (int u = 0; u < U; ++u) { wv[u] = *(const float4*)(row + k + u * 128); xv[u] = __ldg((const float4*)(x + k + u * 128)); }
#pragma unroll
      for (int u = 0; u < U; ++u) acc += xv[u].x * wv[u].x + xv[u].y * wv[u].y + xv[u].z * wv[u].z + xv[u].w * wv[u].w;
    }
    for (; k < K; k += 128) { float4 wv = *(const float4*)(row + k); float4 xv = __ldg((const float4*)(x + k));
      acc += xv.x * wv.x + xv.y * wv.y + xv.z * wv.z + xv.w * wv.w; }
    for (int o = 16; o; o /= 2) acc += __shfl_xor_sync(~0u, acc, o);
    if (lane == 0) y[mat * N + n] = acc;
  }
}

__global__ void prefetchL2(const char* p, size_t bytes, int chunk) {
  size_t n = (bytes + chunk - 1) / chunk;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    size_t off = i * chunk; unsigned sz = (unsigned)min((size_t)chunk, bytes - off);
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(p + off), "r"(sz) : "memory");
  }
}
__global__ void prefetchLine(const char* p, size_t bytes) {
  for (size_t off = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * 128; off < bytes; off += (size_t)gridDim.x * blockDim.x * 128)
    asm volatile("prefetch.global.L2 [%0];" :: "l"(p + off));
}
typedef void (*Kern)(const float*, const float*, float*, int, int, int, size_t);

int main(int argc, char** argv) {
  bool one = argc > 1;
  int dev = 0; cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, dev));
  printf("%s, %d SMs, L2 %d MB\n", p.name, p.multiProcessorCount, p.l2CacheSize >> 20);
  struct Shape { const char* name; int K, N, mats; };
  Shape shapes[] = {{"qkv 3x[1024x1024]", 1024, 1024, 3}, {"gate/up 2x[1024x2816]", 1024, 2816, 2}, {"down [2816x1024]", 2816, 1024, 1}};
  const int SETS = 12;
  size_t maxElems = (size_t)3 * 1024 * 2816;
  float *W, *x, *y; CK(cudaMalloc(&W, SETS * maxElems * 4)); CK(cudaMalloc(&x, 4 * 4096 * SETS)); CK(cudaMalloc(&y, 4 * 8192 * 4));
  std::vector<float> h(SETS * maxElems); for (size_t i = 0; i < h.size(); ++i) h[i] = (float)((i * 2654435761u) % 1000) / 1000.f - 0.5f;
  CK(cudaMemcpy(W, h.data(), h.size() * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(x, h.data(), 4 * 4096 * SETS, cudaMemcpyHostToDevice));
  struct V { const char* name; Kern k; int tn; bool kl; };
  V vs[] = {{"n-lanes tn16 U4 (gpuos now)", nlanes<16, 4>, 16, false}, {"n-lanes tn16 U8", nlanes<16, 8>, 16, false}, {"n-lanes tn16 U16", nlanes<16, 16>, 16, false},
            {"n-lanes tn8 U8", nlanes<8, 8>, 8, false}, {"n-lanes tn32 U4", nlanes<32, 4>, 32, false}, {"n-lanes tn32 U8", nlanes<32, 8>, 32, false},
            {"n-lanes tn64 U8", nlanes<64, 8>, 64, false},
            {"k-lanes tn16 U2", klanes<16, 2>, 16, true}, {"k-lanes tn16 U4", klanes<16, 4>, 16, true}, {"k-lanes tn8 U4", klanes<8, 4>, 8, true}, {"k-lanes tn8 U8", klanes<8, 8>, 8, true}, {"k-lanes tn4 U8", klanes<4, 8>, 4, true}};
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (auto& s : shapes) {
    if (one && s.K != 1024) continue;
    size_t matStride = (size_t)s.K * s.N; double bytes = (double)matStride * s.mats * 4;
    printf("\n%-24s %6.1f MB  (tiles, us median, TB/s, GB/s per tile-block)\n", s.name, bytes / 1e6);
    for (auto& v : vs) {
      if (one && v.k != nlanes<16, 4> && v.k != nlanes<16, 16> && v.k != klanes<16, 4>) continue;
      int blocks = s.N / v.tn * s.mats;
      std::vector<float> ts;
      for (int r = 0; r < 60; ++r) {
        int set = r % SETS;
        const float* w = W + set * maxElems;
        CK(cudaEventRecord(a));
        v.k<<<blocks, 256>>>(x + set * 4096, w, y, s.K, s.N, s.mats, matStride);
        CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
        float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (r >= 10) ts.push_back(ms * 1000);
      }
      std::sort(ts.begin(), ts.end()); float med = ts[ts.size() / 2];
      double perTile = (double)s.K * v.tn * 4 / (med * 1e-6) / 1e9;
      printf("  %-28s %5d tiles %7.2f us %5.2f TB/s  %5.1f GB/s/tile\n", v.name, blocks, med, bytes / (med * 1e-6) / 1e12, perTile);
    }
  }

  if (one) return 0;
  // L2 experiments on the gpuos-now kernel and k-lanes tn16 U4.
  for (auto& s : shapes) {
    size_t matStride = (size_t)s.K * s.N; double bytes = (double)matStride * s.mats * 4;
    printf("\n%-24s L2 experiments\n", s.name);
    for (int vi : {0, 8}) {
      V& v = vs[vi]; int blocks = s.N / v.tn * s.mats;
      for (int mode = 0; mode < 6; ++mode) {
        std::vector<float> tk, tp;
        for (int r = 0; r < 60; ++r) {
          int set = mode == 0 ? 0 : r % SETS;
          const float* w = W + set * maxElems;
          cudaEvent_t c; CK(cudaEventCreate(&c));
          CK(cudaEventRecord(c));
          if (mode == 2) prefetchL2<<<16, 32>>>((const char*)w, bytes, 65536);
          if (mode == 3) prefetchL2<<<132, 32>>>((const char*)w, bytes, 65536);
          if (mode == 4) prefetchL2<<<132, 32>>>((const char*)w, bytes, 16384);
          if (mode == 5) prefetchLine<<<132, 256>>>((const char*)w, bytes);
          CK(cudaEventRecord(a));
          v.k<<<blocks, 256>>>(x + set * 4096, w, y, s.K, s.N, s.mats, matStride);
          CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
          float ms, mp; CK(cudaEventElapsedTime(&ms, a, b)); CK(cudaEventElapsedTime(&mp, c, a)); CK(cudaEventDestroy(c));
          if (r >= 10) { tk.push_back(ms * 1000); tp.push_back(mp * 1000); }
        }
        std::sort(tk.begin(), tk.end()); std::sort(tp.begin(), tp.end());
        const char* names[] = {"L2-hot (same set)", "cold (rotated)", "after bulk prefetch 16 blk 64K", "after bulk prefetch 132 blk 64K", "after bulk prefetch 132 blk 16K", "after line prefetch 132x256"};
        printf("  %-28s %-34s kernel %7.2f us  prefetch %7.2f us (%.2f TB/s)\n", v.name, names[mode], tk[tk.size()/2], tp[tp.size()/2], mode >= 2 ? bytes / (tp[tp.size()/2] * 1e-6) / 1e12 : 0.0);
      }
    }
  }
  CK(cudaGetLastError());
  return 0;
}
