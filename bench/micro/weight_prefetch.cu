// Does prefetching the next phases' weights into L2 shorten a decode step?
// Sixteen matvec phases (4 layers of q/k/v, o, gate/up, down, 205 MB of
// f32 weights, two sets so L2 does not hold them) run back to back on one
// stream as plain kernels (gpuos's n-lanes tiles of 16 columns); with a
// look-ahead of d phases, a second stream issues cp.async.bulk.prefetch.L2
// of phase i + d's weights when phase i starts. Prints the median time of
// the sixteen phases per look-ahead. Results: docs/results/benchmarks-h200.md,
// "The fifteenth slice" (every look-ahead was slower).
//   nvcc -O3 -arch=sm_90 -o /tmp/weight_prefetch bench/micro/weight_prefetch.cu
//   /tmp/weight_prefetch
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>
#include "nlanes_tile.cuh"
#define CK(x) do{cudaError_t e=(x); if(e){printf("%s:%d %s\n",__FILE__,__LINE__,cudaGetErrorString(e)); exit(1);} }while(0)

__global__ void prefetchL2(const char* p, size_t bytes, int chunk) {
  size_t n = (bytes + chunk - 1) / chunk;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    size_t off = i * chunk; unsigned sz = (unsigned)min((size_t)chunk, bytes - off);
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(p + off), "r"(sz) : "memory");
  }
}
struct Phase { int K, N, mats; size_t off; };
int main() {
  std::vector<Phase> ph;
  size_t off = 0;
  for (int l = 0; l < 4; ++l) {
    Phase p[] = {{1024, 1024, 3, 0}, {1024, 1024, 1, 0}, {1024, 2816, 2, 0}, {2816, 1024, 1, 0}};
    for (auto q : p) { q.off = off; off += (size_t)q.K * q.N * q.mats; ph.push_back(q); }
  }
  size_t perSet = off; const int SETS = 2;
  printf("%zu phases, %.1f MB per set\n", ph.size(), perSet * 4 / 1e6);
  float *W, *x, *y; CK(cudaMalloc(&W, SETS * perSet * 4)); CK(cudaMalloc(&x, 4 * 8192)); CK(cudaMalloc(&y, 4 * 8192 * 4));
  CK(cudaMemset(W, 0, SETS * perSet * 4)); CK(cudaMemset(x, 0, 4 * 8192));
  cudaStream_t a, b; CK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking)); CK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<cudaEvent_t> start(ph.size()); for (auto& ev : start) CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  auto launch = [&](const float* w, const Phase& p) {
    int blocks = p.N / 16 * p.mats;
    nlanes<16, 4><<<blocks, 256, 0, a>>>(x, w + p.off, y, p.K, p.N, p.mats, (size_t)p.K * p.N);
  };
  for (int ahead = 0; ahead <= 3; ++ahead) for (int pfBlocks : {16, 64}) {
    if (ahead == 0 && pfBlocks != 16) continue;
    std::vector<float> ts;
    for (int r = 0; r < 40; ++r) {
      const float* w = W + (r % SETS) * perSet;
      CK(cudaEventRecord(e0, a));
      for (size_t i = 0; i < ph.size(); ++i) {
        if (ahead) {
          // when phase i starts, prefetch phase i+ahead (phases 0..ahead-1 at the start)
          CK(cudaEventRecord(start[i], a)); CK(cudaStreamWaitEvent(b, start[i]));
          size_t lo = i == 0 ? 0 : i + ahead, hi = std::min(ph.size(), i + ahead + 1);
          for (size_t j = lo; j < hi; ++j) {
            const Phase& p = ph[j];
            prefetchL2<<<pfBlocks, 32, 0, b>>>((const char*)(w + p.off), (size_t)p.K * p.N * p.mats * 4, 32768);
          }
        }
        launch(w, ph[i]);
      }
      CK(cudaEventRecord(e1, a)); CK(cudaEventSynchronize(e1)); CK(cudaStreamSynchronize(b));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r >= 5) ts.push_back(ms * 1000);
    }
    std::sort(ts.begin(), ts.end());
    printf("look-ahead %d phase(s), prefetch blocks %3d: %7.1f us median (%7.1f min) for 16 phases\n", ahead, pfBlocks, ts[ts.size() / 2], ts[0]);
  }
  CK(cudaGetLastError());
  return 0;
}
