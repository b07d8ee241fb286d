// Would a gang member that prefetches its next matvec tile's weight slice
// into L2 before it waits for that task's inputs shorten a decode step?
// One persistent kernel (two 256-thread blocks per SM, like gpuos's
// workers) runs decode's phases in order as a gang does (docs/runtime.md,
// "Gangs"): block b takes tiles j with j % blocks == b of each phase,
// waits until every tile of the phase before is done (a counter per phase,
// release/acquire), runs its tiles and counts them. The matvec phases are
// the n-lanes tiles of nlanes_tile.cuh over their K slices (the shapes and
// tile counts of decode's pipeline: q/k/v 192 tiles of 16 columns, o and
// down 2 K slices of 64 tiles, gate/up 2 x 88 of 32 columns, logits 256);
// the other phases (scores, softmax + P x V, norms, argmax) are tiles that
// spin for about as long as decode's timeline shows them running. With
// a prefetch mode, a block asks for its next matvec tile's weight rows
// (prefetch.global.L2, its evict_last form, a bulk L2 prefetch per row, or
// loads whose values nobody reads) just before it waits for that phase's
// inputs; other modes load more of the weight per K step (4, 8, 16). Two weight
// sets (445 MB) alternate so L2 does not hold last call's weights; the
// L2-hot modes point every phase at the same weights, as a bound. The
// argument scales the spinning phases (0: matvec phases and hops only).
// Results: docs/results/benchmarks-h200.md, "The eighteenth slice" (every
// way of asking early was slower; the L2-hot bound is 20-25% below).
//   nvcc -O3 -arch=sm_90 -o /tmp/gang_prefetch bench/micro/gang_prefetch.cu && /tmp/gang_prefetch [spin scale]
#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#include "nlanes_tile.cuh"
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

struct Phase {
  int tiles;        // tiles of the phase
  int K, N, mats;   // matvec shape (mats == 0: a spinning phase)
  int tn, slices;   // columns per tile, K slices
  int spinNs;       // spinning phases: ns per tile
  size_t off;       // first weight element of the phase in a set
};

__device__ void spin(int ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < (unsigned long long)ns);
}

// Tile j of a matvec phase: its matrix, K slice and column block.
struct TileAt { int mat, slice, col; };
__device__ TileAt tileAt(const Phase& p, int j) {
  int cols = p.N / p.tn;
  return {j / (cols * p.slices), (j / cols) % p.slices, j % cols};
}

template <int TN, int U>
__device__ void runTile(const Phase& p, const float* w, const float* x, float* y, int j) {
  TileAt a = tileAt(p, j);
  int rows = p.K / p.slices, first = a.slice * rows;
  const float* wm = w + p.off + (size_t)a.mat * p.K * p.N + (size_t)first * p.N;
  nlanesTile<TN, U>(x + first, wm, y + (size_t)(a.mat * p.slices + a.slice) * p.N, rows, p.N, a.col);
}

// How a block asks for its next tile's weight slice ahead of time.
enum Ask { kNone, kPrefetchL2, kPrefetchEvictLast, kBulkPrefetch, kTouchLoads };

__device__ void prefetchTile(const Phase& p, const float* w, int j, int ask) {
  TileAt a = tileAt(p, j);
  int rows = p.K / p.slices, first = a.slice * rows, rowBytes = p.tn * 4;
  const char* base = (const char*)(w + p.off + (size_t)a.mat * p.K * p.N + (size_t)first * p.N + a.col * p.tn);
  if (ask == kBulkPrefetch) {  // one bulk request per weight row
    for (int r = threadIdx.x; r < rows; r += blockDim.x)
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(base + (size_t)r * p.N * 4), "r"(rowBytes) : "memory");
    return;
  }
  int perRow = rowBytes / 16;  // 16-byte pieces
  float sink = 0;
  for (int i = threadIdx.x; i < rows * perRow; i += blockDim.x) {
    const char* addr = base + (size_t)(i / perRow) * p.N * 4 + (i % perRow) * 16;
    if (ask == kTouchLoads) {  // real loads, summed so that they are not removed: the lines come to L2
      float4 v = __ldcg((const float4*)addr);
      sink += v.x + v.y + v.z + v.w;
    } else if ((i % perRow) * 16 % 128 == 0 || i % perRow == 0) {
      if (ask == kPrefetchL2) asm volatile("prefetch.global.L2 [%0];" ::"l"(addr));
      else asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(addr));
    }
  }
  if (sink == 1234.5f) asm volatile("trap;");  // never: keeps the loads
}

template <int U>
__global__ void __launch_bounds__(256, 2)
gang(const Phase* phases, int nPhases, const float* w, const float* x, float* y, unsigned* done, int ask, int hot) {
  __shared__ Phase p;
  int blocks = gridDim.x;
  for (int k = 0; k < nPhases; ++k) {
    if (threadIdx.x == 0) { p = phases[k]; if (hot) p.off = 0; }
    __syncthreads();
    bool mine = (int)blockIdx.x < p.tiles;
    if (mine) {
      if (ask && p.mats)
        for (int j = blockIdx.x; j < p.tiles; j += blocks) prefetchTile(p, w, j, ask);
      if (threadIdx.x == 0 && k > 0) {
        unsigned need = phases[k - 1].tiles, v;
        do asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(done + k - 1)); while (v < need);
      }
      __syncthreads();
      int n = 0;
      for (int j = blockIdx.x; j < p.tiles; j += blocks, ++n) {
        if (!p.mats) { if (threadIdx.x == 0) spin(p.spinNs); }
        else if (p.tn == 16) runTile<16, U>(p, w, x, y, j);
        else runTile<32, U>(p, w, x, y, j);
        __syncthreads();
      }
      if (threadIdx.x == 0) { __threadfence(); atomicAdd(done + k, n); }
    }
    __syncthreads();
  }
}

int main(int argc, char** argv) {
  double spinScale = argc > 1 ? atof(argv[1]) : 1.0;  // scales the spinning phases
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  int blocks = 2 * prop.multiProcessorCount;
  std::vector<Phase> ph;
  size_t off = 0;
  auto matvec = [&](int K, int N, int mats, int tn, int slices) {
    ph.push_back({N / tn * slices * mats, K, N, mats, tn, slices, 0, off});
    off += (size_t)K * N * mats;
  };
  auto spinning = [&](int tiles, int ns) { ph.push_back({tiles, 0, 0, 0, 0, 0, (int)(ns * spinScale), 0}); };
  for (int l = 0; l < 4; ++l) {
    matvec(1024, 1024, 3, 16, 1);   // q, k, v
    spinning(8, 2000);              // scores
    spinning(8, 3500);              // softmax + P x V
    matvec(1024, 1024, 1, 16, 2);   // o
    spinning(1, 1500);              // add + norm
    matvec(1024, 2816, 2, 32, 1);   // gate, up
    matvec(2816, 1024, 1, 16, 2);   // down
    spinning(1, 1500);              // add + norm
  }
  matvec(1024, 4096, 1, 16, 1);     // logits
  spinning(1, 2000);                // argmax
  size_t perSet = off;
  printf("%s, %d blocks, %zu phases, %.1f MB of weights a set\n", prop.name, blocks, ph.size(), perSet * 4 / 1e6);
  const int SETS = 2;
  float *W, *x, *y; unsigned* done; Phase* dph;
  CK(cudaMalloc(&W, SETS * perSet * 4)); CK(cudaMalloc(&x, 4 * 4096)); CK(cudaMalloc(&y, 4 * 8 * 4096));
  CK(cudaMalloc(&done, 4 * ph.size())); CK(cudaMalloc(&dph, sizeof(Phase) * ph.size()));
  CK(cudaMemcpy(dph, ph.data(), sizeof(Phase) * ph.size(), cudaMemcpyHostToDevice));
  CK(cudaMemset(W, 0, SETS * perSet * 4)); CK(cudaMemset(x, 0, 4 * 4096));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  struct Mode { const char* name; int ask, sets, hot, unroll; };
  Mode modes[] = {{"no prefetch", kNone, SETS, 0, 4},
                  {"prefetch.global.L2", kPrefetchL2, SETS, 0, 4},
                  {"prefetch.global.L2::evict_last", kPrefetchEvictLast, SETS, 0, 4},
                  {"cp.async.bulk.prefetch.L2", kBulkPrefetch, SETS, 0, 4},
                  {"loads nobody reads", kTouchLoads, SETS, 0, 4},
                  {"every phase one region (L2-hot)", kNone, 1, 1, 4},
                  {"8 loads in flight", kNone, SETS, 0, 8}, {"8 loads, L2-hot", kNone, 1, 1, 8},
                  {"16 loads in flight", kNone, SETS, 0, 16}, {"16 loads, L2-hot", kNone, 1, 1, 16}};
  printf("%-34s %10s %10s\n", "mode", "p50 us", "p10 us");
  for (int round = 0; round < 2; ++round)
    for (auto& m : modes) {
      std::vector<float> ts;
      for (int r = 0; r < 200; ++r) {
        const float* w = W + (r % m.sets) * perSet;
        CK(cudaMemsetAsync(done, 0, 4 * ph.size()));
        CK(cudaEventRecord(a));
        auto kernel = m.unroll == 16 ? gang<16> : m.unroll == 8 ? gang<8> : gang<4>;
        kernel<<<blocks, 256>>>(dph, (int)ph.size(), w, x, y, done, m.ask, m.hot);
        CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
        float ms; CK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 20) ts.push_back(ms * 1000);
      }
      std::sort(ts.begin(), ts.end());
      printf("%-34s %10.1f %10.1f\n", m.name, ts[ts.size() / 2], ts[ts.size() / 10]);
    }
  CK(cudaGetLastError());
  return 0;
}
