// One n-lanes matvec tile as gpuos's small-M strategy runs it
// (docs/codegen.md, "Small-M matmul"), for the micro-benchmarks beside it:
// block b computes TN columns of y = x @ W[mat] for W [K, N] row-major,
// thread t owning 4 columns and the K slice t / (TN / 4), U 16-byte weight
// loads issued before their FMAs; shuffles and shared memory sum the slices.
#pragma once
#include <cuda_runtime.h>

// Columns tile * TN ... of y = x @ w over `rows` rows of w (row-major, N
// columns), by the block.
template <int TN, int U>
__device__ void nlanesTile(const float* __restrict__ x, const float* w, float* y, int rows, int N, int tile) {
  constexpr int G = TN / 4;          // column groups
  int t = threadIdx.x, c = t % G, S = blockDim.x / G, ks = t / G;
  int col = tile * TN + c * 4;
  float acc[4] = {0, 0, 0, 0};
  int k = ks;
  for (; k + (U - 1) * S < rows; k += U * S) {
    float4 wv[U]; float xv[U];
#pragma unroll
    for (int u = 0; u < U; ++u) { wv[u] = *(const float4*)(w + (size_t)(k + u * S) * N + col); xv[u] = __ldg(x + k + u * S); }
#pragma unroll
    for (int u = 0; u < U; ++u) { acc[0] += xv[u] * wv[u].x; acc[1] += xv[u] * wv[u].y; acc[2] += xv[u] * wv[u].z; acc[3] += xv[u] * wv[u].w; }
  }
  for (; k < rows; k += S) { float4 wv = *(const float4*)(w + (size_t)k * N + col); float xv = __ldg(x + k);
    acc[0] += xv * wv.x; acc[1] += xv * wv.y; acc[2] += xv * wv.z; acc[3] += xv * wv.w; }
  for (int o = G; o < 32; o *= 2)
    for (int i = 0; i < 4; ++i) acc[i] += __shfl_xor_sync(~0u, acc[i], o);
  __shared__ float part[8][TN];
  int warp = t / 32, lane = t % 32;
  if (lane < G) for (int i = 0; i < 4; ++i) part[warp][lane * 4 + i] = acc[i];
  __syncthreads();
  if (t < TN) { float s = 0; for (int w8 = 0; w8 < 8; ++w8) s += part[w8][t]; y[tile * TN + t] = s; }
}

template <int TN, int U>
__global__ void __launch_bounds__(256) nlanes(const float* __restrict__ x, const float* W, float* y, int K, int N, int mats, size_t matStride) {
  int tilesPerMat = N / TN;
  int mat = blockIdx.x / tilesPerMat, tile = blockIdx.x % tilesPerMat;
  nlanesTile<TN, U>(x, W + mat * matStride, y + mat * N, K, N, tile);
}
