// Decode's matvec phases as plain kernels, tiles of tn columns over K
// slices (gpuos-split-k's batched form: slice s of the tile sums rows
// s * K / S ... of its columns; the slices' sums are written as partials
// [S][N], their sum left to the next task as in gpuos). For a fixed tile
// count, are wider tiles with more slices faster? Each tile then reads
// rows of 4 x tn contiguous bytes (64 B at tn 16, 256 B at tn 64) instead
// of more, shorter rows. Weights rotated over 12 sets (50 MB for the
// output projection's shape, about the L2's size; 138-200 MB for the
// others), so L2 holds little of them; event-timed around each launch (its ~2-4 us included), so compare
// rows, not absolute figures. Results: docs/results/benchmarks-h200.md,
// "The seventeenth slice".
//   nvcc -O3 -arch=sm_90 -o /tmp/matvec_split bench/micro/matvec_split.cu && /tmp/matvec_split
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#include "nlanes_tile.cuh"
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

// Block b: matrix b / (S * N / TN), slice (b / (N / TN)) % S, tile b % (N / TN):
// the n-lanes tile of nlanes_tile.cuh over its slice's rows.
template <int TN, int U>
__global__ void __launch_bounds__(256) splitTile(const float* __restrict__ x, const float* W, float* y,
                                                 int K, int N, int S, size_t matStride) {
  int tiles = N / TN;
  int mat = blockIdx.x / (tiles * S), slice = (blockIdx.x / tiles) % S, tile = blockIdx.x % tiles;
  int rows = K / S, first = slice * rows;
  nlanesTile<TN, U>(x + first, W + mat * matStride + (size_t)first * N, y + (mat * S + slice) * N, rows, N, tile);
}
typedef void (*Kern)(const float*, const float*, float*, int, int, int, size_t);

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("%s, %d SMs\n", p.name, p.multiProcessorCount);
  struct Shape { const char* name; int K, N, mats; };
  Shape shapes[] = {{"qkv 3x[1024x1024]", 1024, 1024, 3}, {"o [1024x1024]", 1024, 1024, 1},
                    {"gate/up 2x[1024x2816]", 1024, 2816, 2}, {"down [2816x1024]", 2816, 1024, 1},
                    {"logits [1024x4096]", 1024, 4096, 1}};
  const int SETS = 12;
  size_t maxElems = (size_t)3 * 1024 * 4096;
  float *W, *x, *y;
  CK(cudaMalloc(&W, SETS * maxElems * 4)); CK(cudaMalloc(&x, 4 * 4096 * SETS)); CK(cudaMalloc(&y, 4 * 64 * 4096 * 4));
  std::vector<float> h(SETS * maxElems);
  for (size_t i = 0; i < h.size(); ++i) h[i] = (float)((i * 2654435761u) % 1000) / 1000.f - 0.5f;
  CK(cudaMemcpy(W, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(x, h.data(), 4 * 4096 * SETS, cudaMemcpyHostToDevice));
  struct V { int tn; Kern k; };
  V vs[] = {{16, splitTile<16, 4>}, {32, splitTile<32, 4>}, {64, splitTile<64, 4>}, {128, splitTile<128, 4>}};
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (auto &s : shapes) {
    size_t matStride = (size_t)s.K * s.N; double bytes = (double)matStride * s.mats * 4;
    printf("\n%-24s %6.1f MB  (tn, slices, tiles, us median, TB/s)\n", s.name, bytes / 1e6);
    for (auto &v : vs)
      for (int S : {1, 2, 4, 8, 16}) {
        int tiles = s.N / v.tn * S * s.mats;
        if (s.K % S || s.K / S < 64 || tiles < 64 || tiles > 528) continue;
        std::vector<float> ts;
        for (int r = 0; r < 60; ++r) {
          int set = r % SETS;
          const float *w = W + set * maxElems;
          CK(cudaEventRecord(a));
          v.k<<<tiles, 256>>>(x + set * 4096, w, y, s.K, s.N, S, matStride);
          CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
          float ms; CK(cudaEventElapsedTime(&ms, a, b));
          if (r >= 10) ts.push_back(ms * 1000);
        }
        std::sort(ts.begin(), ts.end()); float med = ts[ts.size() / 2];
        printf("  tn %3d  S %2d  %4d tiles  %7.2f us  %5.2f TB/s\n", v.tn, S, tiles, med, bytes / (med * 1e-6) / 1e12);
      }
  }
  CK(cudaGetLastError());
  return 0;
}
