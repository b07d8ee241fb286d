//===- Status.h - errors of the runtime API ---------------------*- C++ -*-===//
//
// Every runtime call returns a Status: a code (the same numbers as the C
// API's gpuos_status) and a message that says what was wrong with which
// argument, e.g. "task 2 ('add4k'): buffer 1 ('y') is null".
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_STATUS_H
#define GPUOS_RUNTIME_STATUS_H

#include <string>
#include <utility>

namespace gpuos::runtime {

enum class ErrorCode : int {
  Ok = 0,
  InvalidArgument = 1, // rejected on the host; nothing reached the GPU
  NoGpu = 2,           // no driver or no device
  Cuda = 3,            // a driver call failed
  Closed = 4,          // the runtime was closed
  Timeout = 5,         // wait() ran out of time; the work is still running
  NotReady = 6,        // poll(): not finished yet
  TaskFailed = 7,      // a task's dispatch returned an error code
  Faulted = 8,         // the resident kernel died (e.g. illegal address)
  BadImage = 9,        // cubin or manifest unusable
  OutOfMemory = 10,    // device memory, the arena or run slots exhausted
  Unsupported = 11,
  DeadlineExceeded = 12, // the submission missed its timeout (it may still
                         // run on the device; its results are not valid)
};

const char *errorCodeName(ErrorCode code);

class [[nodiscard]] Status {
public:
  Status() = default;
  static Status success() { return Status(); }
  static Status error(ErrorCode code, std::string message) {
    Status s;
    s.code_ = code;
    s.message_ = std::move(message);
    return s;
  }
  bool ok() const { return code_ == ErrorCode::Ok; }
  ErrorCode code() const { return code_; }
  const std::string &message() const { return message_; }
  /// "invalid argument: task 2 ..." (empty for success).
  std::string toString() const;

private:
  ErrorCode code_ = ErrorCode::Ok;
  std::string message_;
};

#define GPUOS_RETURN_IF_ERROR(expr)                                            \
  do {                                                                         \
    ::gpuos::runtime::Status _status = (expr);                                 \
    if (!_status.ok())                                                         \
      return _status;                                                          \
  } while (0)

} // namespace gpuos::runtime

#endif // GPUOS_RUNTIME_STATUS_H
