//===- Callbacks.cpp - completion callbacks (Runtime::onComplete) ---------===//
//
// A submission's callbacks wait in `callbacks` (by serial) until the host
// sees it finish (finishRun, or the watchdog declaring a missed deadline:
// Impl::finished), then in `readyCallbacks`. One notifier thread, started
// by the first onComplete, calls the ready ones without the lock and, while
// some are pending, does what a waiter would: watches their completion
// words without the lock, and takes it to reap when one changed and, every
// kSettleCheckInterval, to check the kernel (faults, deadlines; a fault
// that is not recovered goes to every pending callback, as wait returns
// it). Between looks it yields while completions came recently and naps
// 20 us after that, so a burst is delivered within microseconds and an
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
  std::vector<std::pair<uint32_t, uint16_t>> watched;
  for (;;) {
    if (!callbacks.empty() && !closed) {
      reapAll();
      Clock::time_point now = Clock::now();
      if (now >= nextSettleCheck && !quiesced) {
        // (Not while quiesced: a swap's module load holds the backend, and
        // the driver query would hold the lock, and every submit, behind it.)
        nextSettleCheck = now + kSettleCheckInterval;
        (void)checkResident(); // a fault or deadline finishes submissions
      }
      if (!fault.ok()) {
        // Not recovered: what wait returns at once, the callbacks get.
        for (auto &[serial, cb] : callbacks)
          readyCallbacks.push_back({std::move(cb), fault});
        callbacks.clear();
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
    // Watch the pending runs' completion words without the lock (as wait
    // does) until one changes or the kernel check is due; the lock is taken
    // again only then, so submit and wait on other threads do not queue
    // behind the notifier.
    watched.clear();
    for (const auto &[serial, cb] : callbacks)
      watched.push_back({cb.index, cb.epoch});
    Clock::time_point due = std::max(nextSettleCheck, Clock::now() + kNap);
    lock.unlock();
    for (bool seen = false; !seen && Clock::now() < due;) {
      whileMapped([&] {
        uint32_t status;
        for (const auto &[index, epoch] : watched)
          if (completedWord(index, epoch, status)) {
            seen = true;
            return;
          }
      });
      if (seen)
        break;
      if (Clock::now() - lastActivity < kSpinAfterActivity)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(kNap);
    }
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
  // From a callback (close() there), the notifier ends after it returns,
  // and ~Impl joins it.
  if (notifier.joinable() && notifier.get_id() != std::this_thread::get_id())
    notifier.join();
}

Status Runtime::onComplete(Submission s, CompletionCallback callback) {
  if (!callback)
    return Status::error(ErrorCode::InvalidArgument,
                         "onComplete: the callback is empty");
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  if (m.closed)
    return Status::error(ErrorCode::Closed, "the runtime is closed");
  uint32_t index = 0;
  uint16_t epoch = 0;
  bool done = false;
  Status result;
  GPUOS_RETURN_IF_ERROR(m.lookup(s, index, epoch, done, result));
  Impl::PendingCallback cb{s, std::move(callback), index, epoch};
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
