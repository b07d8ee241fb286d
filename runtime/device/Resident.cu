//===- Resident.cu - the resident kernel --------------------------------===//
//
// The runtime device library: this file, compiled once with
// `nvcc -rdc=true -arch=sm_90 -c`, is linked by nvJitLink (or nvcc -dlink)
// with an image's task functions and its gpuos_dispatch into one cubin.
//
// gpuos_resident(ctl, ticket) is launched with 1 + W blocks, all co-resident
// (the host checks occupancy): block 0's warp 0 polls the host ring and
// block 0 runs urgent one-tile graphs inline (Poller.h), blocks 1..W run
// tiles (Worker.h). It returns when the poller parks (Park.h); the host
// relaunches it on the next submission. The ticket (Protocol.h) says which
// stream-ordered ring entries this launch may take.
//
//===----------------------------------------------------------------------===//

#include "Poller.h"
#include "Worker.h"
#include "gpuos/runtime/device/Dispatch.h"

using namespace gpuos::dev;

/// The layout version this library was built with (Protocol.h). The host
/// reads it from a loaded image and refuses a mismatch.
extern "C" __device__ const unsigned int gpuos_runtime_protocol =
    kProtocolVersion;

namespace {

struct DeviceWarp {
  __device__ uint32_t lane() const { return threadIdx.x & 31u; }
  __device__ uint32_t width() const { return 32u; }
  /// Number of lanes, from lane 0 up, for which `v` holds.
  __device__ uint32_t leadingTrue(bool v) const {
    uint32_t ballot = __ballot_sync(0xFFFFFFFFu, v);
    return ballot == 0xFFFFFFFFu ? 32u : (uint32_t)(__ffs(~ballot) - 1);
  }
  /// The first lane for which `v` holds, or 32.
  __device__ uint32_t firstTrue(bool v) const {
    uint32_t ballot = __ballot_sync(0xFFFFFFFFu, v);
    return ballot ? (uint32_t)(__ffs(ballot) - 1) : 32u;
  }
  /// The sum of `v` over the lanes below this one.
  __device__ uint32_t exclusiveSum(uint32_t v) const {
    uint32_t sum = v;
    for (uint32_t d = 1; d < 32; d <<= 1) {
      uint32_t below = __shfl_up_sync(0xFFFFFFFFu, sum, d);
      if (lane() >= d)
        sum += below;
    }
    return sum - v;
  }
  /// Lane `src`'s `v`.
  __device__ uint32_t fromLane(uint32_t src, uint32_t v) const {
    return __shfl_sync(0xFFFFFFFFu, v, src);
  }
  __device__ RingEntry shuffle(RingEntry e, uint32_t src) const {
    e.seq = __shfl_sync(0xFFFFFFFFu, e.seq, src);
    e.run = __shfl_sync(0xFFFFFFFFu, e.run, src);
    e.epoch = __shfl_sync(0xFFFFFFFFu, e.epoch, src);
    e.ctl = __shfl_sync(0xFFFFFFFFu, e.ctl, src);
    return e;
  }
  __device__ uint32_t broadcast(uint32_t v) const {
    return __shfl_sync(0xFFFFFFFFu, v, 0);
  }
  __device__ bool all(bool v) const { return __all_sync(0xFFFFFFFFu, v); }
  __device__ void sync() const { __syncwarp(); }
};

struct DeviceBlock {
  __device__ uint32_t tid() const { return threadIdx.x; }
  __device__ void sync() const { __syncthreads(); }
};

struct DeviceDispatch {
  __device__ int operator()(uint32_t kind, const unsigned char *args,
                            uint32_t tile) const {
    return gpuos_dispatch(kind, args, tile);
  }
};

} // namespace

extern "C" __global__ void gpuos_resident(DeviceControl *ctl, LaunchTicket ticket) {
  __shared__ WorkerShared shared;
  __shared__ PollerShared pollerShared;
  if (blockIdx.x == 0) {
    // Touch the version symbol so no linker drops it.
    if (threadIdx.x == 0 && ctl->protocol != gpuos_runtime_protocol)
      __trap();
    pollerMain(ctl, ticket, DeviceWarp{}, DeviceBlock{}, pollerShared, DeviceDispatch{});
    return;
  }
  workerMain(ctl, blockIdx.x, shared, DeviceWarp{}, DeviceBlock{},
             DeviceDispatch{});
}
