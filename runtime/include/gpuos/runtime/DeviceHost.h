//===- DeviceHost.h - the device's context in a helper process -*- C++ -*-===//
//
// After an illegal address the CUDA driver keeps the error for the whole
// process: no new context can be created in it (seen on the H200, and what
// CUDA documents). A runtime that must survive a faulting task therefore
// keeps the context in a helper process, the device host, and starts a new
// one after a fault (RuntimeOptions::isolateDevice).
//
// The fast path does not cross the process boundary: the submission ring,
// the completion words and the job records live in shared memory that both
// processes map and the device host registers with the driver, so submit
// and wait touch only memory, as in-process. Everything else a Backend does
// (allocations, copies, module loads, launches, stream queries) is a
// request over a socket to the device host, which runs a real backend.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_DEVICEHOST_H
#define GPUOS_RUNTIME_DEVICEHOST_H

#include "gpuos/runtime/Backend.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpuos::runtime {

/// A backend whose context lives in a device host started with `command`
/// (argv[0] is the executable; "--fd N --parent PID" are appended). Its
/// resetContext ends the device host and starts a new one.
Status openProcessBackend(std::vector<std::string> command,
                          std::unique_ptr<Backend> &out);

/// The gpuos-device-host executable: `configured` (RuntimeOptions::
/// deviceHost) when set, else $GPUOS_DEVICE_HOST, else next to (or in
/// ../bin of) the binary this library is linked into, else next to the
/// running executable. A named one that is not executable is an error.
Status findDeviceHost(const std::string &configured, std::string &path);

/// The device host's main: reads "--fd N --parent PID" (and, for tests,
/// "--wire-version N": answer as a host of that wire version would; 0 as
/// one from before versions, checking no request), leaves the other
/// arguments to `open`, opens the backend and serves requests until the
/// process backend closes the socket. A backend that fails to open is
/// reported in the reply to every request. Returns the exit status.
using OpenHostedBackend =
    std::function<Status(const std::vector<std::string> &args,
                         std::unique_ptr<Backend> &out)>;
int deviceHostMain(int argc, char **argv, const OpenHostedBackend &open);

/// `text` as a non-negative whole number (decimal, all of it), or -1: how
/// a device host reads its numeric arguments.
long parseWholeNumber(const char *text);

} // namespace gpuos::runtime

#endif // GPUOS_RUNTIME_DEVICEHOST_H
