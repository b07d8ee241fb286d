//===- DeviceHost.cpp - serving a backend to a process backend -----------===//
//
// The device host's side of DeviceHostWire.h: one request at a time, in
// order, each answered before the next is read. It ends when the process
// backend closes its socket (or its process ends, which closes it), and a
// thread ends it when its parent (--parent) is gone while a request is
// still in the driver.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/DeviceHost.h"

#include "DeviceHostWire.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <dirent.h>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

namespace gpuos::runtime {

namespace {

/// Value-initializes nothing: resize() leaves new bytes as they are.
template <typename T> struct DefaultInitAllocator : std::allocator<T> {
  template <typename U> struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U> DefaultInitAllocator(const DefaultInitAllocator<U> &) {}
  template <typename U> void construct(U *p) { ::new (static_cast<void *>(p)) U; }
  template <typename U, typename... Args> void construct(U *p, Args &&...args) {
    ::new (static_cast<void *>(p)) U(std::forward<Args>(args)...);
  }
};

class Server {
public:
  Server(int sock, Backend *backend, Status openError, uint16_t version)
      : sock(sock), backend(backend), openError(std::move(openError)),
        version(version) {}

  ~Server() {
    for (auto &[key, m] : mapped) {
      if (backend)
        backend->unregisterMapped(m.host);
      munmap(m.host, m.bytes);
    }
  }

  /// Serves until the other side is gone.
  void run() {
    for (;;) {
      wire::Request rq{};
      int fd = -1;
      if (!wire::recvWithFd(sock, &rq, sizeof(rq), fd))
        return;
      // A runtime from another build: say so, unread (nothing after its
      // header can be trusted to mean what this build reads), and end.
      // Version 0 answers as the hosts before versions did: unchecked.
      if (version != 0 && rq.version != version) {
        if (fd >= 0)
          close(fd);
        refuse(rq.version);
        return;
      }
      if (rq.payload > wire::kMaxPayload || (rq.op == wire::Op::CopyFromDevice &&
                                       rq.b > wire::kMaxCopy)) {
        // Out of step with the process backend: nothing more can be read.
        std::fprintf(stderr, "gpuos device host: a request of %llu bytes; ending\n",
                     (unsigned long long)std::max<uint64_t>(rq.payload, rq.b));
        return;
      }
      payload.resize(rq.payload);
      bool received = !rq.payload || wire::recvAll(sock, payload.data(), rq.payload);
      wire::Reply rp{};
      rp.version = version;
      out.clear();
      Status st = received ? handle(rq, fd, rp) : Status::success();
      if (fd >= 0)
        close(fd);
      if (!received)
        return;
      if (!st.ok())
        out.clear(); // a failed copy sends no bytes back
      rp.code = (int32_t)st.code();
      rp.message = st.message().size();
      rp.payload = out.size();
      if (!wire::sendAll(sock, &rp, sizeof(rp)) ||
          !wire::sendAll(sock, st.message().data(), st.message().size()) ||
          !wire::sendAll(sock, out.data(), out.size()))
        return;
    }
  }

  /// The error reply to a request of wire version `theirs`.
  void refuse(uint32_t theirs) {
    std::string message = "the device host speaks wire version " +
                          std::to_string(version) + " and the runtime " +
                          std::to_string(theirs) + ": they come from different builds";
    wire::Reply rp{};
    rp.version = version;
    rp.code = (int32_t)ErrorCode::InvalidArgument;
    rp.message = message.size();
    if (wire::sendAll(sock, &rp, sizeof(rp)))
      wire::sendAll(sock, message.data(), message.size());
  }

private:
  struct Mapping {
    void *host;
    size_t bytes;
  };
  int sock;
  Backend *backend;
  Status openError;
  uint16_t version;
  std::map<uint64_t, Mapping> mapped; // by the process backend's key
  std::vector<char> payload;
  /// The reply's payload; grown without zero-filling (a copy from the
  /// device overwrites every byte of it).
  std::vector<char, DefaultInitAllocator<char>> out;

  Status handle(const wire::Request &rq, int fd, wire::Reply &rp) {
    if (!backend)
      return openError;
    switch (rq.op) {
    case wire::Op::Info: {
      const BackendInfo &i = backend->info();
      rp.a = (uint64_t)i.multiprocessors;
      rp.b = (uint64_t)(uint32_t)i.computeMajor << 32 | (uint32_t)i.computeMinor;
      rp.flags = i.simulated ? 1u : 0u;
      out.assign(i.name.begin(), i.name.end());
      return Status::success();
    }
    case wire::Op::AllocDevice:
      return backend->allocDevice(rq.a, rp.a);
    case wire::Op::FreeDevice:
      return backend->freeDevice(rq.a);
    case wire::Op::RegisterMapped: {
      if (fd < 0)
        return Status::error(ErrorCode::InvalidArgument,
                             "device host: RegisterMapped came without memory");
      void *host = mmap(nullptr, rq.a, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (host == MAP_FAILED)
        return Status::error(ErrorCode::OutOfMemory,
                             "device host: mmap of " + std::to_string(rq.a) +
                                 " bytes of shared memory failed: " +
                                 std::strerror(errno));
      Status st = backend->registerMapped(host, rq.a, rp.a);
      if (!st.ok()) {
        munmap(host, rq.a);
        return st;
      }
      mapped[rq.b] = {host, rq.a};
      return Status::success();
    }
    case wire::Op::UnregisterMapped: {
      auto it = mapped.find(rq.b);
      if (it != mapped.end()) {
        backend->unregisterMapped(it->second.host);
        munmap(it->second.host, it->second.bytes);
        mapped.erase(it);
      }
      return Status::success();
    }
    case wire::Op::CopyToDevice:
      return backend->copyToDevice(rq.a, payload.data(), payload.size());
    case wire::Op::CopyFromDevice:
      out.resize(rq.b);
      return backend->copyFromDevice(out.data(), rq.a, rq.b);
    case wire::Op::LoadImage: {
      uint32_t protocol = 0;
      Status st = backend->loadImage(payload, protocol);
      rp.a = protocol;
      return st;
    }
    case wire::Op::CommitImage:
      backend->commitImage();
      return Status::success();
    case wire::Op::DiscardImage:
      backend->discardImage();
      return Status::success();
    case wire::Op::UnloadImage:
      backend->unloadImage();
      return Status::success();
    case wire::Op::BlocksPerSM: {
      int blocks = 0;
      Status st = backend->blocksPerMultiprocessor(
          LaunchShape{(uint32_t)rq.a, (uint32_t)rq.b, (uint32_t)rq.c}, blocks);
      rp.a = (uint64_t)blocks;
      return st;
    }
    case wire::Op::LaunchResident:
      return backend->launchResident(
          rq.a, LaunchShape{(uint32_t)rq.b, (uint32_t)(rq.c >> 32), (uint32_t)rq.c},
          proto::LaunchTicket{(uint32_t)(rq.b >> 32), 0});
    case wire::Op::ResidentStatus: {
      bool running = false;
      Status st = backend->residentStatus(running);
      rp.a = running ? 1 : 0;
      return st;
    }
    case wire::Op::WaitResidentExit:
      return backend->waitResidentExit();
    }
    return Status::error(ErrorCode::InvalidArgument,
                         "device host: unknown request " +
                             std::to_string((uint32_t)rq.op));
  }
};

} // namespace

long parseWholeNumber(const char *text) {
  char *end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && errno == 0 && v >= 0 ? v : -1;
}

/// Every descriptor but stdio and the socket: the host lives as long as
/// its runtime and must not keep the user's pipes or sockets open.
static void closeInheritedFiles(int keep) {
  std::vector<int> fds;
  if (DIR *dir = opendir("/proc/self/fd")) {
    while (dirent *e = readdir(dir))
      if (e->d_name[0] != '.')
        fds.push_back(std::atoi(e->d_name));
    int own = dirfd(dir);
    closedir(dir);
    for (int fd : fds)
      if (fd > 2 && fd != keep && fd != own)
        close(fd);
  }
}

int deviceHostMain(int argc, char **argv, const OpenHostedBackend &open) {
  long sockArg = -1; // a descriptor: an int once checked
  long parent = -1;
  // --wire-version: answer as a host of another build would (tests); 0,
  // as the hosts before wire versions (no check of requests).
  long version = wire::kWireVersion;
  std::vector<std::string> rest;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--fd" && i + 1 < argc)
      sockArg = parseWholeNumber(argv[++i]);
    else if (a == "--parent" && i + 1 < argc)
      parent = parseWholeNumber(argv[++i]);
    else if (a == "--wire-version" && i + 1 < argc)
      version = parseWholeNumber(argv[++i]);
    else
      rest.push_back(a);
  }
  if (version < 0 || version > 0xFFFF) {
    std::fprintf(stderr, "%s: --wire-version takes 0 to 65535\n", argv[0]);
    return 2;
  }
  if (sockArg < 0 || sockArg > INT_MAX || parent < 0) {
    std::fprintf(stderr,
                 "%s: a gpuos runtime starts this process (RuntimeOptions::"
                 "isolateDevice); usage: --fd N --parent PID [backend options]\n",
                 argv[0]);
    return 2;
  }
  int sock = static_cast<int>(sockArg);
  // Its socket's end of a pipe to a process that is gone reports EOF; a
  // signal would end this process before it could release the device.
  std::signal(SIGPIPE, SIG_IGN);
  // Ctrl-C in the terminal is for the process that owns the runtime, which
  // decides what to do with its GPU work.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGQUIT, SIG_IGN);
  closeInheritedFiles(sock);
  // EOF on the socket ends the host when it waits for a request; a parent
  // that dies while the host is inside a driver call is noticed here.
  std::thread([parent] {
    for (;;) {
      if (getppid() != (pid_t)parent)
        _exit(3);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }).detach();
  std::unique_ptr<Backend> backend;
  Status st = open(rest, backend);
  {
    Server server(sock, st.ok() ? backend.get() : nullptr, st, (uint16_t)version);
    server.run();
  } // mappings are released before the backend's context goes
  backend.reset();
  close(sock);
  return 0;
}

} // namespace gpuos::runtime
