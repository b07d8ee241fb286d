//===- TestTasks.cu - task functions of the runtime's test image --------===//
//
// Stand-ins for compiler output (docs/abi.md): gpuos_task_<kind>(args, tile)
// device functions, a gpuos_dispatch switch in manifest order
// (test_image.json), and two stand-alone kernels the benchmark launches
// eagerly for comparison. SimKernels.cpp implements the same kinds on the
// CPU for the simulator; keep the two in step.
//
//===----------------------------------------------------------------------===//

#include <stdint.h>

namespace {

__device__ __forceinline__ uint64_t bufferArg(const unsigned char *args,
                                              unsigned i) {
  return reinterpret_cast<const uint64_t *>(args)[i];
}
__device__ __forceinline__ int64_t dynamicArg(const unsigned char *args,
                                              unsigned numBuffers, unsigned i) {
  return reinterpret_cast<const int64_t *>(args)[numBuffers + i];
}
__device__ __forceinline__ uint64_t globalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

constexpr unsigned kTile = 256; // elements per tile of the 4096-element kinds

} // namespace

/// 0. iota4k: x[i] = 0.5 * i over 4096 f32, tiles of 256.
extern "C" __device__ void gpuos_task_iota4k(const unsigned char *args,
                                             unsigned tile) {
  float *x = reinterpret_cast<float *>(bufferArg(args, 0));
  for (unsigned j = threadIdx.x; j < kTile; j += blockDim.x) {
    unsigned i = tile * kTile + j;
    x[i] = 0.5f * (float)i;
  }
}

/// 1. scale4k: y = 3 x + 1.
extern "C" __device__ void gpuos_task_scale4k(const unsigned char *args,
                                              unsigned tile) {
  const float *x = reinterpret_cast<const float *>(bufferArg(args, 0));
  float *y = reinterpret_cast<float *>(bufferArg(args, 1));
  for (unsigned j = threadIdx.x; j < kTile; j += blockDim.x) {
    unsigned i = tile * kTile + j;
    y[i] = 3.0f * x[i] + 1.0f;
  }
}

/// 2. add4k: z = x + y.
extern "C" __device__ void gpuos_task_add4k(const unsigned char *args,
                                            unsigned tile) {
  const float *x = reinterpret_cast<const float *>(bufferArg(args, 0));
  const float *y = reinterpret_cast<const float *>(bufferArg(args, 1));
  float *z = reinterpret_cast<float *>(bufferArg(args, 2));
  for (unsigned j = threadIdx.x; j < kTile; j += blockDim.x) {
    unsigned i = tile * kTile + j;
    z[i] = x[i] + y[i];
  }
}

/// 3. tiny: t[j] = j over 256 f32, one tile (the latency/throughput task).
extern "C" __device__ void gpuos_task_tiny(const unsigned char *args,
                                           unsigned) {
  float *t = reinterpret_cast<float *>(bufferArg(args, 0));
  for (unsigned j = threadIdx.x; j < kTile; j += blockDim.x)
    t[j] = (float)j;
}

/// 4. count: counts[id] += 1 per tile; dynamic (n, id).
extern "C" __device__ void gpuos_task_count(const unsigned char *args,
                                            unsigned) {
  if (threadIdx.x == 0) {
    unsigned *counts = reinterpret_cast<unsigned *>(bufferArg(args, 0));
    atomicAdd(counts + dynamicArg(args, 1, 1), 1u);
  }
}

/// 5. hits: hits[tile] += 1; one tile per element; dynamic (n).
extern "C" __device__ void gpuos_task_hits(const unsigned char *args,
                                           unsigned tile) {
  if (threadIdx.x == 0) {
    unsigned *hits = reinterpret_cast<unsigned *>(bufferArg(args, 0));
    atomicAdd(hits + tile, 1u);
  }
}

/// 6. spin: each tile spins `ns` nanoseconds, then stamps[tile] = the time
/// it finished (globaltimer); dynamic (n, ns).
extern "C" __device__ void gpuos_task_spin(const unsigned char *args,
                                           unsigned tile) {
  if (threadIdx.x == 0) {
    uint64_t *stamps = reinterpret_cast<uint64_t *>(bufferArg(args, 0));
    uint64_t ns = (uint64_t)dynamicArg(args, 1, 1);
    uint64_t start = globalTimer(), now = start;
    while (now - start < ns)
      now = globalTimer();
    stamps[tile] = now;
  }
  __syncthreads();
}

/// 7. fault: writes through a wild pointer (an illegal address on purpose).
extern "C" __device__ void gpuos_task_fault(const unsigned char *args,
                                            unsigned) {
  if (threadIdx.x == 0) {
    volatile unsigned *wild = reinterpret_cast<volatile unsigned *>(
        bufferArg(args, 0) + (1ull << 46));
    *wild = 1u;
  }
}

/// 9 (v2 only). inject: counts[id] += 7 per tile; dynamic (n, id). The
/// operator a swap injects into a running runtime.
extern "C" __device__ void gpuos_task_inject(const unsigned char *args,
                                             unsigned) {
  if (threadIdx.x == 0) {
    unsigned *counts = reinterpret_cast<unsigned *>(bufferArg(args, 0));
    atomicAdd(counts + dynamicArg(args, 1, 1), 7u);
  }
}

constexpr unsigned kStreamTile = 4096; // elements per tile of the stream kinds

/// 9 (v2: 9). stream: y = 3 x + 1 over n f32, tiles of 4096 (one row of
/// the benchmark suite's bandwidth workload); dynamic (n). One 4-byte load
/// per thread and iteration, as plain generated code does: the
/// memory-bound case that occupancy has to carry.
extern "C" __device__ void gpuos_task_stream(const unsigned char *args,
                                             unsigned tile) {
  const float *x = reinterpret_cast<const float *>(bufferArg(args, 0));
  float *y = reinterpret_cast<float *>(bufferArg(args, 1));
  uint64_t n = (uint64_t)dynamicArg(args, 2, 0);
  uint64_t base = (uint64_t)tile * kStreamTile;
  for (unsigned j = threadIdx.x; j < kStreamTile; j += blockDim.x) {
    uint64_t i = base + j;
    if (i < n)
      y[i] = 3.0f * x[i] + 1.0f;
  }
}

/// 10 (v2: 10). stream4: the same with 16-byte loads, all of a thread's
/// loads issued before its stores (what the compiler's vectorized tiles
/// do); n a multiple of 4.
extern "C" __device__ void gpuos_task_stream4(const unsigned char *args,
                                              unsigned tile) {
  const float4 *__restrict__ x = reinterpret_cast<const float4 *>(bufferArg(args, 0));
  float4 *__restrict__ y = reinterpret_cast<float4 *>(bufferArg(args, 1));
  uint64_t n4 = (uint64_t)dynamicArg(args, 2, 0) / 4;
  uint64_t base = (uint64_t)tile * (kStreamTile / 4);
  constexpr unsigned kPer = 4; // float4 per thread with 256 threads
  float4 v[kPer];
#pragma unroll
  for (unsigned k = 0; k < kPer; ++k) {
    uint64_t i = base + threadIdx.x + k * blockDim.x;
    if (threadIdx.x + k * blockDim.x < kStreamTile / 4 && i < n4)
      v[k] = x[i];
  }
#pragma unroll
  for (unsigned k = 0; k < kPer; ++k) {
    uint64_t i = base + threadIdx.x + k * blockDim.x;
    if (threadIdx.x + k * blockDim.x < kStreamTile / 4 && i < n4)
      y[i] = make_float4(3.0f * v[k].x + 1.0f, 3.0f * v[k].y + 1.0f,
                         3.0f * v[k].z + 1.0f, 3.0f * v[k].w + 1.0f);
  }
  // Block sizes below 256: the rest of the tile.
  for (unsigned j = threadIdx.x + kPer * blockDim.x; j < kStreamTile / 4;
       j += blockDim.x) {
    uint64_t i = base + j;
    if (i < n4) {
      float4 a = x[i];
      y[i] = make_float4(3.0f * a.x + 1.0f, 3.0f * a.y + 1.0f, 3.0f * a.z + 1.0f,
                         3.0f * a.w + 1.0f);
    }
  }
}

/// 11 (v2: 11). compute: y = f(x) over n f32, tiles of 256 (one element
/// per thread), f = 64 elementwise ops (v = 0.5 v + 1, exact in f32, so the
/// simulator computes the same bits); dynamic (n). A small compute tile,
/// well under a microsecond: the fan-out and dependent-task latency case.
extern "C" __device__ void gpuos_task_compute(const unsigned char *args,
                                              unsigned tile) {
  const float *x = reinterpret_cast<const float *>(bufferArg(args, 0));
  float *y = reinterpret_cast<float *>(bufferArg(args, 1));
  uint64_t n = (uint64_t)dynamicArg(args, 2, 0);
  for (unsigned j = threadIdx.x; j < kTile; j += blockDim.x) {
    uint64_t i = (uint64_t)tile * kTile + j;
    if (i < n) {
      float v = x[i];
#pragma unroll 8
      for (unsigned k = 0; k < 64; ++k)
        v = v * 0.5f + 1.0f;
      y[i] = v;
    }
  }
}

#ifndef GPUOS_TEST_IMAGE_V2
/// The image's dispatch switch. Kinds 8 ("missing") and 12
/// ("missing_tiles") are in the manifest but not here, so the device-side
/// unknown-kind path can be tested.
extern "C" __device__ int gpuos_dispatch(unsigned kind,
                                         const unsigned char *args,
                                         unsigned tile) {
  switch (kind) {
  case 0: gpuos_task_iota4k(args, tile); return 0;
  case 1: gpuos_task_scale4k(args, tile); return 0;
  case 2: gpuos_task_add4k(args, tile); return 0;
  case 3: gpuos_task_tiny(args, tile); return 0;
  case 4: gpuos_task_count(args, tile); return 0;
  case 5: gpuos_task_hits(args, tile); return 0;
  case 6: gpuos_task_spin(args, tile); return 0;
  case 7: gpuos_task_fault(args, tile); return 0;
  case 9: gpuos_task_stream(args, tile); return 0;
  case 10: gpuos_task_stream4(args, tile); return 0;
  case 11: gpuos_task_compute(args, tile); return 0;
  default: return 1000 + (int)kind;
  }
}
#else
/// Image v2 (test_image_v2.json): the same kinds in another order, without
/// "missing", with "inject": a swap to it must rebind graphs by kind name.
extern "C" __device__ int gpuos_dispatch(unsigned kind,
                                         const unsigned char *args,
                                         unsigned tile) {
  switch (kind) {
  case 0: gpuos_task_count(args, tile); return 0;
  case 1: gpuos_task_hits(args, tile); return 0;
  case 2: gpuos_task_spin(args, tile); return 0;
  case 3: gpuos_task_tiny(args, tile); return 0;
  case 4: gpuos_task_iota4k(args, tile); return 0;
  case 5: gpuos_task_scale4k(args, tile); return 0;
  case 6: gpuos_task_add4k(args, tile); return 0;
  case 7: gpuos_task_fault(args, tile); return 0;
  case 8: gpuos_task_inject(args, tile); return 0;
  case 9: gpuos_task_stream(args, tile); return 0;
  case 10: gpuos_task_stream4(args, tile); return 0;
  case 11: gpuos_task_compute(args, tile); return 0;
  default: return 2000 + (int)kind;
  }
}
#endif

/// Stand-alone kernels for the benchmark's eager and CUDA-graph baselines.
extern "C" __global__ void gpuos_launch_tiny(const unsigned char *args) {
  gpuos_task_tiny(args, blockIdx.x);
}
extern "C" __global__ void gpuos_empty() {}
/// The stream kinds as ordinary grids (one block per tile): the same task
/// code without the runtime, for the bandwidth comparison.
extern "C" __global__ void gpuos_launch_stream(const unsigned char *args) {
  gpuos_task_stream(args, blockIdx.x);
}
extern "C" __global__ void gpuos_launch_stream4(const unsigned char *args) {
  gpuos_task_stream4(args, blockIdx.x);
}
/// A device copy (16-byte loads, grid-stride): the bandwidth reference.
extern "C" __global__ void gpuos_copy4(const float4 *__restrict__ x,
                                       float4 *__restrict__ y,
                                       unsigned long long n4) {
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
       i < n4; i += stride)
    y[i] = x[i];
}

/// The PCIe floor (PLATFORM-FACTS): one thread waits for the host to write
/// i into mapped memory and answers with a st.release.sys of i.
extern "C" __global__ void gpuos_pingpong(const unsigned *flag, unsigned *ack,
                                          unsigned iterations) {
  if (threadIdx.x != 0 || blockIdx.x != 0)
    return;
  for (unsigned i = 1; i <= iterations; ++i) {
    unsigned v;
    do {
      asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    } while (v != i);
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(ack), "r"(i) : "memory");
  }
}

//===----------------------------------------------------------------------===//
// Latency probe: what the scheduler's primitives cost on this GPU
//===----------------------------------------------------------------------===//

namespace {
__device__ __forceinline__ unsigned probeLd(const unsigned *p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned probeLdAcq(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned probeLdVolatile(const unsigned *p) {
  unsigned v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned probeAtom(unsigned *p) {
  unsigned v;
  asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 0;" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long probeClock() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
}
} // namespace

/// Thread 0 of block 0 times `iters` repetitions of each primitive and
/// writes {cycles, picoseconds} per repetition to out[2k], out[2k+1]:
///  0 dependent ld.relaxed.gpu (L2)     1 dependent atom.add (L2)
///  2 dependent ld.acquire.gpu          3 fence.acq_rel.gpu alone
///  4 st.relaxed.gpu + fence.acq_rel.gpu 5 st.release.gpu
///  6 fence.sc.sys alone                7 st.release.sys to host memory
///  8 st.relaxed.sys + fence.sc.sys     9 dependent ld.volatile of host memory
/// dev[32 i] holds 32 ((i + 1) % 64) (a pointer chase over 64 lines). With
/// more blocks, their thread 0 polls six lines like idle workers until done.
extern "C" __global__ void gpuos_probe(unsigned *dev, unsigned *host,
                                       unsigned long long *out, unsigned iters) {
  unsigned *stop = dev + 60000;
  if (blockIdx.x != 0) {
    if (threadIdx.x == 0) {
      unsigned x = 0;
      while (probeLd(stop) == 0)
        for (unsigned k = 0; k < 6; ++k)
          x += probeLd(dev + 40000 + 32 * k);
      if (x == 0xFFFFFFFFu)
        dev[1] = x;
    }
    return;
  }
  if (threadIdx.x != 0)
    return;
  uint64_t wait = globalTimer();
  while (globalTimer() - wait < 50000) {
  }
  unsigned idx = 0, sink = 0;
  for (int k = 0; k < 10; ++k) {
    unsigned long long c0 = probeClock();
    uint64_t t0 = globalTimer();
    for (unsigned i = 0; i < iters; ++i) {
      switch (k) {
      case 0: idx = probeLd(dev + idx); break;
      case 1: idx = probeAtom(dev + idx); break;
      case 2: idx = probeLdAcq(dev + idx); break;
      case 3: asm volatile("fence.acq_rel.gpu;" ::: "memory"); break;
      case 4:
        asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(dev + 50000 + (i & 31) * 32), "r"(i) : "memory");
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        break;
      case 5:
        asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(dev + 50000 + (i & 31) * 32), "r"(i) : "memory");
        break;
      case 6: asm volatile("fence.sc.sys;" ::: "memory"); break;
      case 7:
        asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(host + (i & 7) * 32), "r"(i) : "memory");
        break;
      case 8:
        asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(host + (i & 7) * 32), "r"(i) : "memory");
        asm volatile("fence.sc.sys;" ::: "memory");
        break;
      case 9: sink += probeLdVolatile(host + 256 + (sink & 1)); break;
      }
    }
    uint64_t t1 = globalTimer();
    unsigned long long c1 = probeClock();
    out[2 * k] = (c1 - c0) / iters;
    out[2 * k + 1] = (t1 - t0) * 1000 / iters;
  }
  out[20] = idx + sink;
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(stop), "r"(1u) : "memory");
}
