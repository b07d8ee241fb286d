//===- Platform.h - memory-order primitives of the resident kernel -*- C++ -*-===//
//
// Every load, store, atomic and fence that the scheduler uses to talk to
// another thread goes through this file, named by its memory-model meaning.
// Under nvcc's device pass they are single PTX instructions; compiled for
// the host (the CPU simulator, runtime/lib/SimBackend.cpp) they are GCC
// __atomic builtins with the same orders, so ThreadSanitizer can check the
// synchronization of the very same scheduler code.
//
// Scopes. `Gpu` operations synchronize threads of this GPU (device memory);
// `Sys` operations reach the host through pinned, mapped memory. The host
// is never the target of an atomic read-modify-write (PLATFORM-FACTS 4):
// the device only *stores* to host memory and only *loads* the ring.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_DEVICE_PLATFORM_H
#define GPUOS_DEVICE_PLATFORM_H

#include "gpuos/runtime/Protocol.h"

#include <stdint.h>

#include <sched.h>
#include <time.h>

#if defined(__CUDACC__)
#define GPUOS_DEV __host__ __device__ __forceinline__
#define GPUOS_DEV_OUTLINE __host__ __device__ __noinline__
#else
#define GPUOS_DEV inline
#define GPUOS_DEV_OUTLINE inline
#if defined(__x86_64__)
#include <immintrin.h>
#define GPUOS_HOST_PAUSE() _mm_pause()
#endif
#endif
#ifndef GPUOS_HOST_PAUSE
#define GPUOS_HOST_PAUSE() ((void)0)
#endif

namespace gpuos::dev {

using namespace gpuos::runtime::proto;

//===----------------------------------------------------------------------===//
// GPU scope (device memory)
//===----------------------------------------------------------------------===//

GPUOS_DEV uint32_t ldRelaxed(const uint32_t *p) {
#if defined(__CUDA_ARCH__)
  uint32_t v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
#else
  return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

GPUOS_DEV uint64_t ldRelaxed(const uint64_t *p) {
#if defined(__CUDA_ARCH__)
  uint64_t v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
#else
  return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

/// Acquire: later loads see what the releasing thread saw (on the GPU this
/// also invalidates the SM's L1, so plain loads after it are fresh).
GPUOS_DEV uint32_t ldAcquire(const uint32_t *p) {
#if defined(__CUDA_ARCH__)
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
#else
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

GPUOS_DEV void stRelaxed(uint32_t *p, uint32_t v) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#else
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

GPUOS_DEV void stRelaxed(uint64_t *p, uint64_t v) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
#else
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

/// Release: everything this thread wrote or observed before is visible to
/// whoever acquires the value.
GPUOS_DEV void stRelease(uint32_t *p, uint32_t v) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#else
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}

/// How a 32-bit counter update orders memory (atomicAdd32).
enum class AddOrder { Relaxed, Acquire, AcqRel };

/// atom.<order>.gpu.global.add.u32. On the host (the simulator) every
/// ordered form is acq_rel: ThreadSanitizer ignores standalone fences, so
/// the atomics carry the order themselves (as ldObserve and
/// atomicAddOrdered do).
template <AddOrder Order>
GPUOS_DEV uint32_t atomicAdd32(uint32_t *p, uint32_t v) {
#if defined(__CUDA_ARCH__)
  uint32_t old;
  if constexpr (Order == AddOrder::Relaxed)
    asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], %2;"
                 : "=r"(old) : "l"(p), "r"(v) : "memory");
  else if constexpr (Order == AddOrder::Acquire)
    asm volatile("atom.acquire.gpu.global.add.u32 %0, [%1], %2;"
                 : "=r"(old) : "l"(p), "r"(v) : "memory");
  else
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;"
                 : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
#else
  return __atomic_fetch_add(p, v, Order == AddOrder::Relaxed ? __ATOMIC_RELAXED
                                                             : __ATOMIC_ACQ_REL);
#endif
}

/// Relaxed read-modify-writes: they order nothing by themselves; the
/// scheduler pairs them with fenceGpu() where it needs release/acquire.
GPUOS_DEV uint32_t atomicAddRelaxed(uint32_t *p, uint32_t v) {
  return atomicAdd32<AddOrder::Relaxed>(p, v);
}

GPUOS_DEV uint64_t atomicAddRelaxed(uint64_t *p, uint64_t v) {
#if defined(__CUDA_ARCH__)
  uint64_t old;
  asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], %2;"
               : "=l"(old) : "l"(p), "l"(v) : "memory");
  return old;
#else
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

GPUOS_DEV uint32_t atomicCasRelaxed(uint32_t *p, uint32_t expected,
                                    uint32_t desired) {
#if defined(__CUDA_ARCH__)
  uint32_t old;
  asm volatile("atom.relaxed.gpu.global.cas.b32 %0, [%1], %2, %3;"
               : "=r"(old) : "l"(p), "r"(expected), "r"(desired) : "memory");
  return old;
#else
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED,
                              __ATOMIC_RELAXED);
  return expected;
#endif
}

GPUOS_DEV uint32_t atomicOrRelaxed(uint32_t *p, uint32_t v) {
#if defined(__CUDA_ARCH__)
  uint32_t old;
  asm volatile("atom.relaxed.gpu.global.or.b32 %0, [%1], %2;"
               : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
#else
  return __atomic_fetch_or(p, v, __ATOMIC_RELAXED);
#endif
}

/// fence.acq_rel.gpu: with a relaxed atomic after it, a release; after a
/// relaxed atomic, an acquire. Cumulative: it also orders writes this
/// thread observed, including its block's writes made visible by a barrier.
GPUOS_DEV void fenceGpu() {
#if defined(__CUDA_ARCH__)
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
  __atomic_thread_fence(__ATOMIC_ACQ_REL);
#endif
}

/// The halves of the PTX "release pattern" (fence; strong store) and
/// "acquire pattern" (strong load or RMW; fence). On the GPU these are
/// relaxed operations and the caller places fenceGpu() next to them, which
/// lets one fence cover a batch. On the host they carry the order
/// themselves, because ThreadSanitizer does not model standalone fences: it
/// then checks that every such pair really synchronizes.
GPUOS_DEV void stPublish(uint32_t *p, uint32_t v) { // after fenceGpu()
#if defined(__CUDA_ARCH__)
  stRelaxed(p, v);
#else
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}

GPUOS_DEV uint32_t ldObserve(const uint32_t *p) { // before fenceGpu()
#if defined(__CUDA_ARCH__)
  return ldRelaxed(p);
#else
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

/// A counter update that is part of a release/acquire chain (dependency
/// and completion counters): fenceGpu() before it releases, after it
/// acquires.
GPUOS_DEV uint32_t atomicAddOrdered(uint32_t *p, uint32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicAddRelaxed(p, v);
#else
  return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);
#endif
}

/// A counter update that acquires by itself (after fenceGpu() released):
/// whoever sees the count it waits for has the other updaters' writes,
/// with no fence after it. On the H200 an acquire on the access costs less
/// than a fence after a relaxed one (docs/runtime.md, "Acquire on the
/// access").
GPUOS_DEV uint32_t atomicAddAcquire(uint32_t *p, uint32_t v) {
  return atomicAdd32<AddOrder::Acquire>(p, v);
}

/// Release and acquire in the update itself: the tiles' writes go with it,
/// and the last updater has everyone's. A later relaxed release still
/// needs fenceGpu() first (the acquired writes are not released by this).
GPUOS_DEV uint32_t atomicAddAcqRel(uint32_t *p, uint32_t v) {
  return atomicAdd32<AddOrder::AcqRel>(p, v);
}

//===----------------------------------------------------------------------===//
// System scope (pinned host memory, mapped)
//===----------------------------------------------------------------------===//

/// Orders this thread's earlier stores before its later loads as seen by the
/// host: the store-then-load half of the park handshake (Dekker).
GPUOS_DEV void fenceSysSc() {
#if defined(__CUDA_ARCH__)
  asm volatile("fence.sc.sys;" ::: "memory");
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

GPUOS_DEV void stRelaxedSys(uint32_t *p, uint32_t v) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#else
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

GPUOS_DEV void stRelaxedSys(uint64_t *p, uint64_t v) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
#else
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

/// st.release.sys: the completion signal. All writes of the graph (made
/// visible to this thread through the counters' acquire chain) reach the
/// system before the host can see this value. A plain store: no PCIe atomic.
GPUOS_DEV void stReleaseSys(uint32_t *p, uint32_t v) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#else
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}

/// One ring entry in one 16-byte load over PCIe (one request, so the entry
/// is read as a unit; the check byte rejects anything else), with acquire
/// semantics: it pairs with the host's release of the entry, so the data
/// the host wrote before it is visible to this thread's later loads. An
/// acquire load instead of a volatile load and `fence.acq_rel.sys` after
/// it: the fence cost the round trip ~0.55 us, the acquire load ~0.
/// `gpuScope` (RuntimeOptions::ringAcquireGpuScope) acquires at GPU scope.
/// On the host the simulator reads seq with acquire first, like any
/// consumer would.
GPUOS_DEV RingEntry ldRingEntry(const RingEntry *p, bool gpuScope) {
  RingEntry e;
#if defined(__CUDA_ARCH__)
  if (gpuScope)
    asm volatile("ld.acquire.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(e.seq), "=r"(e.run), "=r"(e.epoch), "=r"(e.ctl)
                 : "l"(p) : "memory");
  else
    asm volatile("ld.acquire.sys.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(e.seq), "=r"(e.run), "=r"(e.epoch), "=r"(e.ctl)
                 : "l"(p) : "memory");
#else
  (void)gpuScope;
  e.seq = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
  e.run = __atomic_load_n(&p->run, __ATOMIC_RELAXED);
  e.epoch = __atomic_load_n(&p->epoch, __ATOMIC_RELAXED);
  e.ctl = __atomic_load_n(&p->ctl, __ATOMIC_RELAXED);
#endif
  return e;
}

//===----------------------------------------------------------------------===//
// Plain accesses to immutable or already-synchronized data
//===----------------------------------------------------------------------===//

/// Loads of data that is immutable while in use (task descriptors, run
/// rows, root templates) or that an acquire already ordered (a queue slot's
/// payload). `.cg` reads L2, so a descriptor the host re-uploaded while the
/// kernel ran is never served from a stale L1 line.
template <typename T> GPUOS_DEV T ldcg(const T *p) {
#if defined(__CUDA_ARCH__)
  return __ldcg(p);
#else
  return *p;
#endif
}

GPUOS_DEV TaskDesc ldcgTask(const TaskDesc *p) {
#if defined(__CUDA_ARCH__)
  const uint4 *v = reinterpret_cast<const uint4 *>(p);
  uint4 a = __ldcg(v), b = __ldcg(v + 1);
  TaskDesc d;
  d.args = (uint64_t)a.x | (uint64_t)a.y << 32, d.kind = a.z, d.numTiles = a.w;
  d.numDeps = b.x, d.numSucc = b.y, d.succOffset = b.z, d.index = b.w;
  return d;
#else
  return *p;
#endif
}

/// Starts copying a task descriptor into `dst` (the block's shared memory
/// on the GPU) without waiting for it: `cp.async.cg` reads L2 like ldcgTask
/// and writes shared memory without a register, so nothing stalls until
/// waitTaskPrefetch(). The descriptor is immutable while in use. A copy
/// started for an earlier job that nobody waited for (its task did not
/// finish on this worker) is waited for first: async copies land in no
/// fixed order, so the older one could otherwise overwrite the newer
/// (compute-sanitizer racecheck reported it as a WAW hazard). The
/// simulator copies at once.
GPUOS_DEV void prefetchTask(TaskDesc *dst, const TaskDesc *src) {
#if defined(__CUDA_ARCH__)
  uint32_t d = (uint32_t)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.wait_all;\n\t"
               "cp.async.cg.shared.global [%0], [%1], 16;\n\t"
               "cp.async.cg.shared.global [%2], [%3], 16;\n\t"
               "cp.async.commit_group;" ::"r"(d),
               "l"(src), "r"(d + 16), "l"(reinterpret_cast<const char *>(src) + 16)
               : "memory");
#else
  *dst = *src;
#endif
}

/// The copies prefetchTask started have landed (this thread's view).
GPUOS_DEV void waitTaskPrefetch() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

/// Payload of a queue slot (all of it but seq).
GPUOS_DEV void readPayload(const QueueEntry *s, QueueEntry &out) {
#if defined(__CUDA_ARCH__)
  const uint4 *v = reinterpret_cast<const uint4 *>(s);
  uint4 a = __ldcg(v), b = __ldcg(v + 1), c = __ldcg(v + 2), d = __ldcg(v + 3);
  out.seq = a.x, out.tile = a.y, out.numTiles = a.z, out.kind = a.w;
  out.args = (uint64_t)b.x | (uint64_t)b.y << 32, out.task = b.z, out.run = b.w;
  out.counters = (uint64_t)c.x | (uint64_t)c.y << 32;
  out.epoch = (uint16_t)c.z, out.rangeExtra = (uint16_t)(c.z >> 16);
  out.numSucc = c.w;
  out.graph = (uint64_t)d.x | (uint64_t)d.y << 32, out.succOffset = d.z,
  out.numTasks = d.w;
#else
  out = *s; // nobody writes the slot while we own it
#endif
}

GPUOS_DEV void writePayload(QueueEntry *s, const QueueEntry &e) {
#if defined(__CUDA_ARCH__)
  uint4 *v = reinterpret_cast<uint4 *>(s);
  s->tile = e.tile, s->numTiles = e.numTiles, s->kind = e.kind;
  v[1] = make_uint4((uint32_t)e.args, (uint32_t)(e.args >> 32), e.task, e.run);
  v[2] = make_uint4((uint32_t)e.counters, (uint32_t)(e.counters >> 32),
                    (uint32_t)e.epoch | (uint32_t)e.rangeExtra << 16, e.numSucc);
  v[3] = make_uint4((uint32_t)e.graph, (uint32_t)(e.graph >> 32), e.succOffset,
                    e.numTasks);
#else
  s->tile = e.tile, s->numTiles = e.numTiles, s->kind = e.kind;
  s->args = e.args, s->task = e.task, s->run = e.run;
  s->counters = e.counters, s->epoch = e.epoch, s->numSucc = e.numSucc;
  s->rangeExtra = e.rangeExtra;
  s->graph = e.graph, s->succOffset = e.succOffset, s->numTasks = e.numTasks;
#endif
}

/// A block's job record in host memory: one 16-byte posted store over PCIe
/// (no fence, nothing waits for it); the host reads it only to name a tile
/// after a fault or a missed deadline, so a slightly late value is fine.
GPUOS_DEV void stJobRecord(JobRecord *p, uint32_t run, uint32_t epochKind,
                           uint32_t task, uint32_t tile) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p),
               "r"(run), "r"(epochKind), "r"(task), "r"(tile)
               : "memory");
#else
  __atomic_store_n(&p->epochKind, epochKind, __ATOMIC_RELAXED);
  __atomic_store_n(&p->task, task, __ATOMIC_RELAXED);
  __atomic_store_n(&p->tile, tile, __ATOMIC_RELAXED);
  __atomic_store_n(&p->run, run, __ATOMIC_RELAXED);
#endif
}

//===----------------------------------------------------------------------===//
// Time and spinning
//===----------------------------------------------------------------------===//

GPUOS_DEV uint64_t nowNs() {
#if defined(__CUDA_ARCH__)
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

/// The SM's cycle counter (statistics only; the simulator uses ns).
GPUOS_DEV uint64_t cycles() {
#if defined(__CUDA_ARCH__)
  return (uint64_t)clock64();
#else
  return nowNs();
#endif
}

/// The multiprocessor this block runs on (the simulator: `fallback`).
GPUOS_DEV uint32_t smId(uint32_t fallback) {
#if defined(__CUDA_ARCH__)
  (void)fallback;
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
#else
  return fallback;
#endif
}

/// One turn of a spin loop. On the GPU a no-op (the next poll is an L2
/// round trip anyway). In the simulator, yield the core, and every 16th
/// turn sleep 20 us: with more spinning threads than cores (CI has two),
/// yielding alone can leave the thread that has to act without a core for
/// a whole scheduler slice.
GPUOS_DEV void spinPause() {
#if !defined(__CUDA_ARCH__)
  static thread_local uint32_t turns = 0;
  GPUOS_HOST_PAUSE();
  if ((++turns & 15) == 0) {
    timespec nap = {0, 20000};
    nanosleep(&nap, nullptr);
  } else {
    sched_yield();
  }
#endif
}

/// An idle worker's nap between polls, to take load off the L2 lines that
/// every idle worker reads (0: none).
GPUOS_DEV void idleNap(uint32_t ns) {
#if defined(__CUDA_ARCH__)
  if (ns)
    __nanosleep(ns);
#else
  (void)ns;
  spinPause();
#endif
}

} // namespace gpuos::dev

#endif // GPUOS_DEVICE_PLATFORM_H
