//===- TestHooks.h - widen host-side race windows in tests ------*- C++ -*-===//
//
// Knobs for tests only, zero otherwise: each widens a window in which a
// host thread preempted at the wrong moment meets the device's progress.
// Real hosts open those windows rarely (a vCPU stolen for microseconds);
// the tests open them every time.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_LIB_TESTHOOKS_H
#define GPUOS_RUNTIME_LIB_TESTHOOKS_H

#include <atomic>
#include <cstdint>

namespace gpuos::runtime::testhooks {

/// Microseconds the host waits after storing a ring entry, before it reads
/// the park phase (RuntimeImpl.h, ensureRunning): the poller may consume
/// the entry and park meanwhile.
inline std::atomic<uint32_t> delayAfterRingStoreUs{0};

/// Microseconds the host waits after launching the resident kernel
/// (RuntimeImpl.h, relaunch): the poller then reads the entries posted so
/// far before any later one, e.g. an urgent singleton alone, which it runs
/// inline.
inline std::atomic<uint32_t> delayAfterLaunchUs{0};

/// Times the host found the kernel parked after it had consumed the entry
/// just posted (and so did not relaunch it): tests check that they reached
/// that branch. Counted always; it is rare outside tests.
inline std::atomic<uint64_t> parkedAfterConsuming{0};

/// Milliseconds a device host process has to start its reply to a request
/// (ProcessBackend.cpp; 0: the default, two minutes). Tests shorten it.
inline std::atomic<uint32_t> deviceHostReplyMs{0};

/// Milliseconds a post waits for room in a full submission ring before it
/// gives up (RuntimeImpl.h, postEntry; 0: the default, 60 s). Tests
/// shorten it.
inline std::atomic<uint32_t> ringFullTimeoutMs{0};

/// Sets a knob for a scope and puts it back to 0 (its default) after.
template <typename T> class Scoped {
public:
  Scoped(std::atomic<T> &knob, T value) : knob(knob) { knob = value; }
  ~Scoped() { knob = 0; }
  Scoped(const Scoped &) = delete;
  Scoped &operator=(const Scoped &) = delete;

private:
  std::atomic<T> &knob;
};

} // namespace gpuos::runtime::testhooks

#endif // GPUOS_RUNTIME_LIB_TESTHOOKS_H
