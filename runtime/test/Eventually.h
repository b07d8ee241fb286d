//===- Eventually.h - waiting in tests for what another thread does -*- C++ -*-===//

#ifndef GPUOS_RUNTIME_TEST_EVENTUALLY_H
#define GPUOS_RUNTIME_TEST_EVENTUALLY_H

#include <chrono>
#include <thread>

namespace gpuos::runtime::rttest {

/// Waits up to 30 s for `done` (a callback on another thread, ...): a
/// hang fails the test instead of blocking it.
template <typename Done> bool eventually(Done done) {
  for (int i = 0; i < 30000 && !done(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return done();
}

} // namespace gpuos::runtime::rttest

#endif // GPUOS_RUNTIME_TEST_EVENTUALLY_H
