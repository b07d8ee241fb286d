// What does the Python launcher's wait for an idle PyTorch stream cost?
// (python/src/RuntimeModule.cpp, prepareStream: docs/python.md, "Where a
// call's time goes", put 1.8 us of a call there.) Times, on a stream whose
// work has finished, each driver call the launcher makes before a run, and
// the two ways to wait: cuStreamSynchronize alone, and cuStreamQuery first
// (synchronizing only when it answers "not ready"). Both on the legacy
// default stream (0) and on a created stream, as PyTorch's current stream
// is one or the other. Medians of rounds of 2000 calls, ns per call.
//   nvcc -O3 -arch=sm_90 -o /tmp/stream_wait bench/micro/stream_wait.cu -lcuda
//   /tmp/stream_wait
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cuda.h>
#include <vector>

__global__ void touch(int *p) { p[threadIdx.x] += 1; }

template <class F> static double nsPerCall(F &&f) {
  const int calls = 2000, rounds = 15;
  std::vector<double> per;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i)
      f();
    auto t1 = std::chrono::steady_clock::now();
    per.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
  }
  std::nth_element(per.begin(), per.begin() + rounds / 2, per.end());
  return per[rounds / 2];
}

static bool ok(CUresult rc, const char *what) {
  if (rc == CUDA_SUCCESS)
    return true;
  const char *text = "?";
  cuGetErrorString(rc, &text);
  std::printf("stream_wait: %s: %s\n", what, text);
  return false;
}

int main() {
  CUdevice dev;
  CUcontext ctx;
  if (!ok(cuInit(0), "cuInit") || !ok(cuDeviceGet(&dev, 0), "cuDeviceGet") ||
      !ok(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") ||
      !ok(cuCtxSetCurrent(ctx), "cuCtxSetCurrent"))
    return 1;
  CUstream created;
  if (!ok(cuStreamCreate(&created, CU_STREAM_NON_BLOCKING), "cuStreamCreate"))
    return 1;
  int *buf = nullptr;
  if (cudaMalloc(&buf, 1024) != cudaSuccess) {
    std::printf("stream_wait: cudaMalloc of 1 KiB failed\n");
    return 1;
  }

  std::printf("%-34s %12s %12s\n", "ns per call (idle stream)", "legacy (0)", "created");
  struct Case {
    const char *name;
    double ns[2];
  };
  std::vector<Case> cases = {{"cuCtxGetCurrent", {}},
                             {"cuStreamIsCapturing", {}},
                             {"cuStreamSynchronize", {}},
                             {"cuStreamQuery", {}},
                             {"launcher, synchronize", {}},
                             {"launcher, query first", {}},
                             {"query after a finished kernel", {}}};
  CUstream streams[2] = {nullptr, created};
  for (int k = 0; k < 2; ++k) {
    CUstream s = streams[k];
    cuStreamSynchronize(s);
    CUcontext cur;
    CUstreamCaptureStatus cap;
    cases[0].ns[k] = nsPerCall([&] { cuCtxGetCurrent(&cur); });
    cases[1].ns[k] = nsPerCall([&] { cuStreamIsCapturing(s, &cap); });
    cases[2].ns[k] = nsPerCall([&] { cuStreamSynchronize(s); });
    cases[3].ns[k] = nsPerCall([&] { cuStreamQuery(s); });
    cases[4].ns[k] = nsPerCall([&] {
      cuCtxGetCurrent(&cur);
      cuStreamIsCapturing(s, &cap);
      cuStreamSynchronize(s);
    });
    cases[5].ns[k] = nsPerCall([&] {
      cuCtxGetCurrent(&cur);
      cuStreamIsCapturing(s, &cap);
      if (cuStreamQuery(s) == CUDA_ERROR_NOT_READY)
        cuStreamSynchronize(s);
    });
    // The stream's last work finished long ago in the cases above; here a
    // kernel ran and was waited for just before, as in a loop of calls.
    touch<<<1, 32, 0, (cudaStream_t)s>>>(buf);
    cuStreamSynchronize(s);
    cases[6].ns[k] = nsPerCall([&] { cuStreamQuery(s); });
  }
  for (const Case &c : cases)
    std::printf("%-34s %12.0f %12.0f\n", c.name, c.ns[0], c.ns[1]);
  cudaFree(buf);
  cuStreamDestroy(created);
  cuDevicePrimaryCtxRelease(dev);
  return 0;
}
