//===- DeviceHostWire.h - requests between a process backend and its host ===//
//
// A process backend (ProcessBackend.cpp) and its device host
// (DeviceHost.cpp) talk over one stream socket: a fixed request header,
// then `payload` bytes; a fixed reply header, then `message` bytes (the
// error's text) and `payload` bytes. RegisterMapped carries the shared
// memory's file descriptor as SCM_RIGHTS with its header. Every request
// and reply names kWireVersion: a device host from another build
// (GPUOS_DEVICE_HOST, RuntimeOptions::deviceHost) is refused by name
// instead of being misread (an older host replies version 0).
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_DEVICEHOSTWIRE_H
#define GPUOS_RUNTIME_DEVICEHOSTWIRE_H

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>

namespace gpuos::runtime::wire {

/// Bumped whenever a request, a reply or an op's meaning changes.
constexpr uint16_t kWireVersion = 1;

enum class Op : uint32_t {
  Info = 1,         // -> a: multiprocessors, b: major << 32 | minor,
                    //    flags: simulated; payload: the device's name
  AllocDevice,      // a: bytes -> a: address
  FreeDevice,       // a: address
  RegisterMapped,   // a: bytes, b: the caller's key, fd -> a: address
  UnregisterMapped, // b: the caller's key
  CopyToDevice,     // a: address; payload: the bytes
  CopyFromDevice,   // a: address, b: bytes -> payload: the bytes
  LoadImage,        // payload: the cubin -> a: protocol
  CommitImage,
  DiscardImage,
  UnloadImage,
  BlocksPerSM,      // a: blocks, b: threads, c: shared bytes -> a: blocks
  LaunchResident,   // a: control, b: ticket.released << 32 | blocks,
                    // c: threads << 32 | shared bytes
  ResidentStatus,   // -> a: running
  WaitResidentExit,
};

struct Request {
  Op op;
  uint32_t version; // kWireVersion (the process backend sets it)
  uint64_t a, b, c;
  uint64_t payload;
};

struct Reply {
  int32_t code; // ErrorCode; 0: success
  uint16_t flags;
  uint16_t version; // the device host's kWireVersion
  uint64_t a, b;
  uint64_t message;
  uint64_t payload;
};

// What tells two builds apart must stay where every build reads it: the
// versions at these offsets of 40-byte headers, little-endian (a host from
// before versions sends a 32-bit `flags` of 0 or 1 there, read as version 0).
static_assert(sizeof(Request) == 40 && offsetof(Request, version) == 4,
              "Request's layout up to `version` never changes");
static_assert(sizeof(Reply) == 40 && offsetof(Reply, version) == 6,
              "Reply's layout up to `version` never changes");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the device host wire assumes a little-endian host"
#endif

/// Copies larger than this go in several requests, so neither side holds
/// more than this in flight.
constexpr size_t kMaxCopy = 16u << 20;
/// The most a request or reply carries (a cubin, a copy piece): larger
/// sizes in a header mean the two sides are out of step.
constexpr uint64_t kMaxPayload = 1ull << 30;

/// Whole-buffer send/receive; false when the other side is gone. Each
/// step is non-blocking, and a step that would block waits for `event` at
/// most `limitMs` (-1: forever): the runtime's side must not wait forever
/// on a host that stopped, so no progress in that time gives false with
/// `timedOut` set.
template <typename Transfer>
inline bool transferWithin(int fd, short event, char *p, size_t bytes, int limitMs,
                           bool &timedOut, Transfer transfer) {
  timedOut = false;
  while (bytes) {
    ssize_t n = transfer(p, bytes);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd ready{fd, event, 0};
      int r;
      while ((r = ::poll(&ready, 1, limitMs)) < 0 && errno == EINTR) {
      }
      if (r == 0)
        timedOut = true;
      if (r <= 0)
        return false;
      continue;
    }
    if (n <= 0)
      return false;
    p += n;
    bytes -= (size_t)n;
  }
  return true;
}

inline bool sendAllWithin(int fd, const void *data, size_t bytes, int limitMs,
                          bool &timedOut) {
  return transferWithin(fd, POLLOUT, const_cast<char *>(static_cast<const char *>(data)),
                        bytes, limitMs, timedOut, [fd](char *p, size_t n) {
                          return ::send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
                        });
}

inline bool recvAllWithin(int fd, void *data, size_t bytes, int limitMs, bool &timedOut) {
  return transferWithin(fd, POLLIN, static_cast<char *>(data), bytes, limitMs, timedOut,
                        [fd](char *p, size_t n) { return ::recv(fd, p, n, MSG_DONTWAIT); });
}

inline bool sendAll(int fd, const void *data, size_t bytes) {
  bool timedOut;
  return sendAllWithin(fd, data, bytes, -1, timedOut);
}

inline bool recvAll(int fd, void *data, size_t bytes) {
  bool timedOut;
  return recvAllWithin(fd, data, bytes, -1, timedOut);
}

/// Sends `header` with `fd` attached (SCM_RIGHTS).
inline bool sendWithFd(int sock, const void *header, size_t bytes, int fd) {
  char control[CMSG_SPACE(sizeof(int))] = {};
  iovec iov{const_cast<void *>(header), bytes};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  for (;;) {
    ssize_t n = ::sendmsg(sock, &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    // The descriptor went with the first byte; send the rest plainly.
    return sendAll(sock, static_cast<const char *>(header) + n, bytes - (size_t)n);
  }
}

/// Receives `bytes` of a header and the descriptor sent with it, if any
/// (`fd` = -1 when none came).
inline bool recvWithFd(int sock, void *header, size_t bytes, int &fd) {
  fd = -1;
  char *p = static_cast<char *>(header);
  while (bytes) {
    char control[CMSG_SPACE(sizeof(int))] = {};
    iovec iov{p, bytes};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    ssize_t n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
    p += n;
    bytes -= (size_t)n;
  }
  return true;
}

} // namespace gpuos::runtime::wire

#endif // GPUOS_RUNTIME_DEVICEHOSTWIRE_H
