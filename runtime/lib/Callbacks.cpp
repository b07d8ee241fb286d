//===- Callbacks.cpp - completion callbacks (Runtime::onComplete) ---------===//
//
// A submission's callbacks wait in `callbacks` (by serial) until the host
// sees it finish (finishRun, or the watchdog declaring a missed deadline:
// Impl::finished), then in `readyCallbacks`. One notifier thread, started
// by the first onComplete, calls the ready ones without the lock and, while
// some are pending, does what a waiter would: reaps completions and, every
// kSettleCheckInterval, checks the kernel (faults, deadlines). It spins
// (yielding) while completions came recently and naps 20 us between
// rounds after that, so a burst is delivered within microseconds and an
// idle wait does not hold a core.
//
//===----------------------------------------------------------------------===//

#include "RuntimeImpl.h"

namespace gpuos::runtime {

namespace {
/// How long after the last delivery the notifier keeps spinning.
constexpr std::chrono::microseconds kSpinAfterActivity{500};
constexpr std::chrono::microseconds kNap{20};
} // namespace

void Runtime::Impl::notifierLoop() {
  std::unique_lock<std::mutex> lock(mutex);
  Clock::time_point lastActivity = Clock::now();
  for (;;) {
    if (!callbacks.empty() && !closed) {
      reapAll();
      Clock::time_point now = Clock::now();
      if (now >= nextSettleCheck) {
        nextSettleCheck = now + kSettleCheckInterval;
        (void)checkResident(); // a fault or deadline finishes submissions
      }
    }
    if (!readyCallbacks.empty()) {
      std::vector<std::pair<PendingCallback, Status>> ready;
      ready.swap(readyCallbacks);
      lock.unlock();
      for (auto &[cb, status] : ready) {
        try {
          cb.fn(cb.submission, status);
        } catch (...) {
          // Documented: dropped. The notifier must outlive a bad callback.
        }
      }
      lock.lock();
      lastActivity = Clock::now();
      continue;
    }
    if (notifierStop)
      return;
    if (callbacks.empty() || closed) {
      notifierWake.wait(lock);
      continue;
    }
    bool recent = Clock::now() - lastActivity < kSpinAfterActivity;
    lock.unlock();
    if (recent)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(kNap);
    lock.lock();
  }
}

void Runtime::Impl::stopNotifier() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    // Whatever never finished is told so (close() has already drained
    // what it could).
    Status st = fault.ok()
                    ? Status::error(ErrorCode::Closed,
                                    "the runtime was closed before the "
                                    "submission finished")
                    : fault;
    for (auto &[serial, cb] : callbacks)
      readyCallbacks.push_back({std::move(cb), st});
    callbacks.clear();
    notifierStop = true;
  }
  notifierWake.notify_one();
  if (notifier.joinable()) {
    if (notifier.get_id() == std::this_thread::get_id())
      notifier.detach(); // close() from a callback: it ends after returning
    else
      notifier.join();
  }
}

Status Runtime::onComplete(Submission s, CompletionCallback callback) {
  if (!callback)
    return Status::error(ErrorCode::InvalidArgument,
                         "onComplete: the callback is empty");
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  if (m.closed)
    return Status::error(ErrorCode::Closed, "the runtime is closed");
  uint32_t index;
  uint16_t epoch;
  bool done = false;
  Status result;
  GPUOS_RETURN_IF_ERROR(m.lookup(s, index, epoch, done, result));
  Impl::PendingCallback cb{s, std::move(callback)};
  if (done)
    m.readyCallbacks.push_back({std::move(cb), result});
  else
    m.callbacks.emplace(s.id >> 24, std::move(cb));
  if (!m.notifier.joinable())
    m.notifier = std::thread([&m] { m.notifierLoop(); });
  m.notifierWake.notify_one();
  return Status::success();
}

} // namespace gpuos::runtime
