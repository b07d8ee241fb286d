// Does the device's %globaltimer read as the host's CLOCK_REALTIME? (The
// timeline in bench/suite puts host stamps and device stamps on one axis:
// docs/runtime.md, "Where a many-tile run's time goes".) A ping-pong over
// mapped host memory: the host stamps, raises a flag, and waits for the
// kernel's ack; the kernel stamps %globaltimer when it sees the flag. The
// device stamp minus the host's lies between 0 and the round trip when the
// clocks agree; printed: its spread, the round trip, and the timer's step.
//   nvcc -O2 -arch=sm_90 -o /tmp/clock_sync bench/micro/clock_sync.cu
//   /tmp/clock_sync
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <cuda_runtime.h>
#include <vector>

__device__ uint64_t globalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void pong(volatile uint32_t *flag, volatile uint32_t *ack,
                     volatile uint64_t *stamp, int n) {
  for (int i = 1; i <= n; ++i) {
    while (flag[0] != (uint32_t)i) {
    }
    stamp[i] = globalTimer();
    __threadfence_system();
    ack[0] = i;
  }
}

static uint64_t realtimeNs() {
  timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec * 1000000000ull + t.tv_nsec;
}

int main() {
  const int n = 2000, warm = 100;
  uint32_t *flag, *ack;
  uint64_t *stamp;
  if (cudaHostAlloc(&flag, 64, cudaHostAllocMapped) != cudaSuccess ||
      cudaHostAlloc(&ack, 64, cudaHostAllocMapped) != cudaSuccess ||
      cudaHostAlloc(&stamp, (n + 1) * sizeof(uint64_t), cudaHostAllocMapped) != cudaSuccess) {
    std::printf("clock_sync: no GPU memory\n");
    return 1;
  }
  *flag = *ack = 0;
  pong<<<1, 1>>>(flag, ack, stamp, n);
  std::vector<uint64_t> sent(n + 1), acked(n + 1);
  for (int i = 1; i <= n; ++i) {
    sent[i] = realtimeNs();
    *(volatile uint32_t *)flag = i;
    while (*(volatile uint32_t *)ack != (uint32_t)i) {
    }
    acked[i] = realtimeNs();
  }
  cudaDeviceSynchronize();
  std::vector<double> ahead, trip;
  std::vector<uint64_t> step;
  for (int i = warm; i <= n; ++i) {
    ahead.push_back((double)(int64_t)(stamp[i] - sent[i]) / 1000.0);
    trip.push_back((double)(acked[i] - sent[i]) / 1000.0);
    if (i > warm)
      step.push_back(stamp[i] - stamp[i - 1]);
  }
  std::sort(ahead.begin(), ahead.end());
  std::sort(trip.begin(), trip.end());
  std::sort(step.begin(), step.end());
  std::printf("globaltimer minus the host's stamp before the flag, us: min %.3f p50 %.3f max %.3f\n",
              ahead.front(), ahead[ahead.size() / 2], ahead.back());
  std::printf("ping-pong round trip, us: p50 %.3f min %.3f; stamps apart, ns: min %llu p50 %llu\n",
              trip[trip.size() / 2], trip.front(), (unsigned long long)step.front(),
              (unsigned long long)step[step.size() / 2]);
  return 0;
}
