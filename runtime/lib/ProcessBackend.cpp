//===- ProcessBackend.cpp - a backend whose context is in another process ===//
//
// The runtime's side of DeviceHost.h. Mapped memory is a memfd that both
// processes map (the device host registers its mapping with the driver),
// so the ring, completion words and job records need no request. Every
// other Backend call is one request and its reply, under one lock.
//
// When the device host dies (a signal, an exit) or stops answering, every
// request fails with Faulted naming what happened to it, which the runtime
// treats as a fault of the resident kernel: it recovers through
// resetContext, which ends the device host and starts a fresh one.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/DeviceHost.h"

#include "DeviceHostWire.h"
#include "TestHooks.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <dlfcn.h>
#include <atomic>
#include <map>
#include <poll.h>
#include <mutex>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace gpuos::runtime {

namespace {

class ProcessBackend final : public Backend {
public:
  explicit ProcessBackend(std::vector<std::string> command)
      : command(std::move(command)) {}

  ~ProcessBackend() override {
    if (getpid() != owner) {
      // A fork's copy: the device host and its memory are the parent's.
      if (sock >= 0)
        close(sock);
      return;
    }
    unmapAll();
    // Closing the socket ends the device host, which releases its context.
    stop(std::chrono::seconds(5));
  }

  /// Starts the device host and asks what it serves (within
  /// kStartTimeout: an executable that is not a device host never answers).
  Status start() {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
      return Status::error(ErrorCode::Cuda, std::string("socketpair: ") +
                                                std::strerror(errno));
    std::vector<std::string> args = command;
    args.insert(args.end(), {"--fd", "3", "--parent", std::to_string(getpid())});
    std::vector<char *> argv;
    for (std::string &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // dup2 onto 3 clears close-on-exec there (also when sv[1] is 3).
    posix_spawn_file_actions_adddup2(&actions, sv[1], 3);
    pid_t child = 0;
    int rc = posix_spawn(&child, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(sv[1]);
    if (rc != 0) {
      close(sv[0]);
      return Status::error(ErrorCode::NoGpu, "cannot start the device host " +
                                                 command[0] + ": " +
                                                 std::strerror(rc));
    }
    {
      std::lock_guard<std::mutex> lock(channel);
      pid.store(child);
      sock = sv[0];
      lostReason.clear();
      gone.store(false, std::memory_order_release);
      owner = getpid();
    }
    wire::Reply rp{};
    std::vector<char> name;
    bool answered = true;
    Status st = call({wire::Op::Info, 0, 0, 0, 0, 0}, nullptr, rp, &name, -1, nullptr,
                     0, &answered);
    if (!answered) {
      stop(std::chrono::milliseconds(0));
      return Status::error(ErrorCode::NoGpu,
                           "the device host " + command[0] + " did not answer within " +
                               std::to_string(kStartTimeout.count() / 1000) +
                               " s (is it gpuos-device-host?)");
    }
    if (!st.ok())
      return st;
    std::lock_guard<std::mutex> lock(channel);
    if (info_.name.empty()) // fixed for the runtime's life: read unlocked
      info_.name = std::string(name.begin(), name.end()) + " (in a device host process)";
    info_.multiprocessors = (int)rp.a;
    info_.computeMajor = (int)(rp.b >> 32);
    info_.computeMinor = (int)(uint32_t)rp.b;
    info_.simulated = rp.flags & 1u;
    info_.hostProcess = (int)child;
    return Status::success();
  }

  const BackendInfo &info() const override { return info_; }
  Status makeCurrent() override { return Status::success(); }

  Status allocDevice(size_t bytes, uint64_t &addr) override {
    wire::Reply rp{};
    GPUOS_RETURN_IF_ERROR(call({wire::Op::AllocDevice, 0, bytes, 0, 0, 0}, nullptr, rp));
    addr = rp.a;
    return Status::success();
  }

  Status freeDevice(uint64_t addr) override {
    wire::Reply rp{};
    return call({wire::Op::FreeDevice, 0, addr, 0, 0, 0}, nullptr, rp);
  }

  Status allocMapped(size_t bytes, void *&host, uint64_t &addr) override {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t rounded = (bytes + page - 1) / page * page;
    int fd = memfd_create("gpuos-mapped", MFD_CLOEXEC);
    if (fd < 0)
      return Status::error(ErrorCode::OutOfMemory,
                           std::string("memfd_create: ") + std::strerror(errno));
    void *p = MAP_FAILED;
    if (ftruncate(fd, (off_t)rounded) == 0)
      p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      close(fd);
      return Status::error(ErrorCode::OutOfMemory,
                           "shared memory for the device host: " +
                               std::string(std::strerror(errno)));
    }
    // As CUDA does with pinned memory: a fork does not inherit it (its
    // child would write the parent's ring).
    madvise(p, rounded, MADV_DONTFORK);
    wire::Reply rp{};
    Status st = call({wire::Op::RegisterMapped, 0, rounded, (uint64_t)p, 0, 0},
                     nullptr, rp, nullptr, fd);
    close(fd);
    if (!st.ok()) {
      munmap(p, rounded);
      return st;
    }
    std::lock_guard<std::mutex> lock(segmentsMutex);
    segments[p] = rounded;
    host = p;
    addr = rp.a;
    return Status::success();
  }

  void freeMapped(void *host) override {
    wire::Reply rp{};
    (void)call({wire::Op::UnregisterMapped, 0, 0, (uint64_t)host, 0, 0}, nullptr, rp);
    std::lock_guard<std::mutex> lock(segmentsMutex);
    auto it = segments.find(host);
    if (it != segments.end()) {
      munmap(host, it->second);
      segments.erase(it);
    }
  }

  Status copyToDevice(uint64_t dst, const void *src, size_t bytes) override {
    const char *from = static_cast<const char *>(src);
    for (size_t done = 0; done < bytes;) {
      size_t n = std::min(bytes - done, wire::kMaxCopy);
      wire::Reply rp{};
      GPUOS_RETURN_IF_ERROR(call({wire::Op::CopyToDevice, 0, dst + done, 0, 0, n},
                                 from + done, rp));
      done += n;
    }
    return Status::success();
  }

  Status copyFromDevice(void *dst, uint64_t src, size_t bytes) override {
    char *to = static_cast<char *>(dst);
    for (size_t done = 0; done < bytes;) {
      size_t n = std::min(bytes - done, wire::kMaxCopy);
      wire::Reply rp{};
      GPUOS_RETURN_IF_ERROR(call({wire::Op::CopyFromDevice, 0, src + done, n, 0, 0},
                                 nullptr, rp, nullptr, -1, to + done, n));
      done += n;
    }
    return Status::success();
  }

  Status loadImage(const std::vector<char> &cubin, uint32_t &protocol) override {
    wire::Reply rp{};
    GPUOS_RETURN_IF_ERROR(call({wire::Op::LoadImage, 0, 0, 0, 0, cubin.size()},
                               cubin.data(), rp));
    protocol = (uint32_t)rp.a;
    return Status::success();
  }
  void commitImage() override { simple(wire::Op::CommitImage); }
  void discardImage() override { simple(wire::Op::DiscardImage); }
  void unloadImage() override { simple(wire::Op::UnloadImage); }

  Status blocksPerMultiprocessor(const LaunchShape &shape, int &blocks) override {
    wire::Reply rp{};
    GPUOS_RETURN_IF_ERROR(call(
        {wire::Op::BlocksPerSM, 0, shape.blocks, shape.threads, shape.sharedBytes, 0},
        nullptr, rp));
    blocks = (int)rp.a;
    return Status::success();
  }

  /// Ends the device host (with its context, whatever the driver thinks
  /// of it, and any tile still running) and starts a fresh one, after
  /// giving the old one kExitWait to leave the device (a new context may
  /// not fit beside it, e.g. in exclusive-process mode).
  Status resetContext() override {
    unmapAll();
    stop(std::chrono::milliseconds(0), kExitWait);
    return start();
  }

  void abandon() override { stop(std::chrono::milliseconds(0)); }

  Status launchResident(uint64_t control, const LaunchShape &shape,
                        proto::LaunchTicket ticket) override {
    wire::Reply rp{};
    // No stream-ordered submissions here, so parkWhenIdle is never set.
    return call({wire::Op::LaunchResident, 0, control,
                 (uint64_t)ticket.released << 32 | shape.blocks,
                 (uint64_t)shape.threads << 32 | shape.sharedBytes, 0},
                nullptr, rp);
  }

  Status residentStatus(bool &running) override {
    wire::Reply rp{};
    GPUOS_RETURN_IF_ERROR(call({wire::Op::ResidentStatus, 0, 0, 0, 0, 0}, nullptr, rp));
    running = rp.a != 0;
    return Status::success();
  }

  bool contextLost(std::string &why) override {
    if (!gone.load(std::memory_order_acquire)) // every API call: no lock
      return false;
    std::lock_guard<std::mutex> lock(channel);
    why = lostReason.empty() ? "the device host is not running" : lostReason;
    return true;
  }

  Status waitResidentExit() override {
    wire::Reply rp{};
    return call({wire::Op::WaitResidentExit, 0, 0, 0, 0, 0}, nullptr, rp);
  }

private:
  static constexpr std::chrono::milliseconds kStartTimeout{60'000};
  static constexpr std::chrono::milliseconds kReplyTimeout{120'000};
  static constexpr std::chrono::milliseconds kExitWait{2'000};
  std::vector<std::string> command;
  BackendInfo info_;
  std::mutex channel; // one request at a time
  // Killing needs no lock: a request blocked on a dead socket must not
  // hold up the kill that unblocks it.
  std::atomic<pid_t> pid{0};
  pid_t owner = 0; // the process that started the device host
  int sock = -1;
  std::string lostReason; // why the device host is gone
  /// Set when the host was lost in a call (not ended by stop()); cleared by
  /// a start. Read without `channel` by contextLost.
  std::atomic<bool> gone{false};
  std::mutex segmentsMutex;
  std::map<void *, size_t> segments; // shared memory: address -> bytes

  void simple(wire::Op op) {
    wire::Reply rp{};
    (void)call({op, 0, 0, 0, 0, 0}, nullptr, rp);
  }

  /// One request and its reply. The reply's payload goes to `into`
  /// (exactly `intoBytes`) or into `payloadOut`.
  /// With `answered`, the reply must start within kStartTimeout (else
  /// *answered = false and nothing more is read).
  Status call(wire::Request rq, const void *payload, wire::Reply &rp,
              std::vector<char> *payloadOut = nullptr, int fd = -1,
              void *into = nullptr, size_t intoBytes = 0, bool *answered = nullptr) {
    std::lock_guard<std::mutex> lock(channel);
    if (getpid() != owner)
      return Status::error(ErrorCode::Faulted,
                           "this runtime's device host belongs to process " +
                               std::to_string(owner) +
                               "; a forked process cannot use it");
    if (sock < 0)
      return lost();
    rq.version = wire::kWireVersion;
    // A host that stops answering (stopped, wedged in a driver call) must
    // not hold every runtime call: past the deadline it is ended, and the
    // runtime recovers as from its death. That holds for a payload it
    // stops taking (a copy larger than the socket's buffer) and a reply it
    // stops sending, not only for the wait for its reply.
    uint32_t hook = testhooks::deviceHostReplyMs.load(std::memory_order_relaxed);
    int stallMs = (int)(hook ? hook : kReplyTimeout.count());
    bool timedOut = false;
    auto stalled = [&](const char *what, uint64_t bytes) {
      return hostGone("did not " + std::string(what) + " " + std::to_string(bytes) +
                      " bytes within " + std::to_string(stallMs) + " ms");
    };
    bool sent = fd >= 0 ? wire::sendWithFd(sock, &rq, sizeof(rq), fd)
                        : wire::sendAll(sock, &rq, sizeof(rq));
    if (sent && rq.payload &&
        !wire::sendAllWithin(sock, payload, rq.payload, stallMs, timedOut))
      return timedOut ? stalled("take a request's", rq.payload) : hostGone();
    if (sent) {
      int limitMs = answered ? (int)kStartTimeout.count() : stallMs;
      pollfd ready{sock, POLLIN, 0};
      int n;
      while ((n = ::poll(&ready, 1, limitMs)) < 0 && errno == EINTR) {
      }
      if (n == 0 && answered) {
        *answered = false;
        return lost();
      }
      if (n == 0)
        return hostGone("did not answer a request within " + std::to_string(limitMs) +
                        " ms");
    }
    if (!sent || !wire::recvAll(sock, &rp, sizeof(rp)))
      return hostGone();
    if (rp.version != wire::kWireVersion)
      return hostGone("speaks wire version " + std::to_string(rp.version) +
                          " and this runtime " + std::to_string(wire::kWireVersion) +
                          ": it comes from another build",
                      ErrorCode::InvalidArgument);
    if (rp.message > wire::kMaxPayload || rp.payload > wire::kMaxPayload)
      return hostGone("sent a reply of more than " +
                      std::to_string(wire::kMaxPayload) + " bytes");
    std::string message(rp.message, '\0');
    if (rp.message && !wire::recvAll(sock, message.data(), rp.message))
      return hostGone();
    if (into && rp.payload == intoBytes) {
      if (!wire::recvAllWithin(sock, into, intoBytes, stallMs, timedOut))
        return timedOut ? stalled("send a reply's", intoBytes) : hostGone();
    } else if (into && !rp.code) {
      return hostGone("answered a request for " + std::to_string(intoBytes) +
                      " bytes with " + std::to_string(rp.payload));
    } else if (rp.payload) {
      std::vector<char> scratch;
      std::vector<char> &to = payloadOut ? *payloadOut : scratch;
      to.resize(rp.payload);
      if (!wire::recvAllWithin(sock, to.data(), rp.payload, stallMs, timedOut))
        return timedOut ? stalled("send a reply's", rp.payload) : hostGone();
    }
    if (rp.code)
      return Status::error((ErrorCode)rp.code, message);
    return Status::success();
  }

  /// The socket broke: the device host died or closed it. Says how, or,
  /// with `outOfStep`, what it sent that this side cannot read on from
  /// (then it is ended here).
  /// (A host of another build is an InvalidArgument, like a missing one.)
  Status hostGone(const std::string &outOfStep = "",
                  ErrorCode code = ErrorCode::Faulted) {
    close(sock);
    sock = -1;
    gone.store(true, std::memory_order_release);
    if (!outOfStep.empty()) {
      pid_t child = pid.exchange(0);
      int status = 0;
      if (child > 0) // EOF on its socket ends it; else it is killed
        reap(child, std::chrono::milliseconds(200), status);
      lostReason = "the device host process (" + command[0] + ") " + outOfStep +
                   "; it was ended";
      return Status::error(code, lostReason);
    }
    // It is exiting; give it a moment to be reaped with its real status.
    int status = 0;
    std::string how;
    // Taken before the reap, so that no stop() signals the pid once reaped.
    pid_t child = pid.exchange(0);
    if (child > 0 && reap(child, std::chrono::milliseconds(200), status))
      how = WIFSIGNALED(status)
                ? "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                      strsignal(WTERMSIG(status)) + ")"
                : "exited with status " + std::to_string(WEXITSTATUS(status));
    else
      how = "closed its socket and was ended";
    lostReason = "the device host process (" + command[0] + ") " + how;
    return lost();
  }

  Status lost() const {
    return Status::error(ErrorCode::Faulted,
                         lostReason.empty() ? "the device host is not running"
                                            : lostReason);
  }

  /// Ends the device host: closes its socket, waits up to `grace` for it to
  /// leave on its own, then kills it and waits up to `afterKill` for it to
  /// be gone. With no grace it is killed first, so that a request blocked
  /// on it (holding `channel`) returns.
  void stop(std::chrono::milliseconds grace,
            std::chrono::milliseconds afterKill = std::chrono::milliseconds(0)) {
    pid_t child = pid.load();
    if (grace.count() == 0 && child > 0)
      kill(child, SIGKILL);
    std::lock_guard<std::mutex> lock(channel);
    if (sock >= 0)
      close(sock);
    sock = -1;
    child = pid.exchange(0);
    int status = 0;
    if (child > 0)
      reap(child, grace, status, afterKill);
    lostReason = "the device host was ended";
  }

  /// Waits up to `grace` for `child` to exit (true, with its status), then
  /// kills it and waits up to `afterKill` more. A killed process whose
  /// kernel is still on the GPU may take as long as the kernel to go (the
  /// driver's teardown waits for it), so past that a thread reaps it
  /// whenever it goes, and nothing here blocks on it.
  static bool reap(pid_t child, std::chrono::milliseconds grace, int &status,
                   std::chrono::milliseconds afterKill = std::chrono::milliseconds(0)) {
    auto until = std::chrono::steady_clock::now() + grace;
    bool killed = false;
    for (;;) {
      pid_t done = waitpid(child, &status, WNOHANG);
      if (done == child)
        return !killed;
      if (done < 0)
        return false; // not ours to wait for (reaped elsewhere): leave it
      if (std::chrono::steady_clock::now() >= until) {
        if (killed)
          break;
        kill(child, SIGKILL);
        killed = true;
        until = std::chrono::steady_clock::now() + afterKill;
        continue;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::thread([child] {
      int ignored = 0;
      waitpid(child, &ignored, 0);
    }).detach();
    return false;
  }

  void unmapAll() {
    std::lock_guard<std::mutex> lock(segmentsMutex);
    for (auto &[p, bytes] : segments)
      munmap(p, bytes);
    segments.clear();
  }
};

bool executable(const std::string &path) { return access(path.c_str(), X_OK) == 0; }

std::string directoryOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

} // namespace

Status openProcessBackend(std::vector<std::string> command,
                          std::unique_ptr<Backend> &out) {
  if (command.empty())
    return Status::error(ErrorCode::InvalidArgument, "no device host command");
  auto backend = std::make_unique<ProcessBackend>(std::move(command));
  GPUOS_RETURN_IF_ERROR(backend->start());
  out = std::move(backend);
  return Status::success();
}

Status findDeviceHost(const std::string &configured, std::string &path) {
  const char *name = "gpuos-device-host";
  if (!configured.empty()) {
    path = configured;
    if (executable(path))
      return Status::success();
    return Status::error(ErrorCode::InvalidArgument,
                         "RuntimeOptions::deviceHost " + path + " is not an executable");
  }
  if (const char *env = std::getenv("GPUOS_DEVICE_HOST"); env && *env) {
    path = env;
    if (executable(path))
      return Status::success();
    return Status::error(ErrorCode::InvalidArgument,
                         "GPUOS_DEVICE_HOST=" + path + " is not an executable");
  }
  std::vector<std::string> dirs;
  Dl_info self{};
  if (dladdr(reinterpret_cast<void *>(&openProcessBackend), &self) && self.dli_fname) {
    std::string dir = directoryOf(self.dli_fname);
    dirs.push_back(dir);
    dirs.push_back(dir + "/../bin");
  }
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    exe[n] = '\0';
    dirs.push_back(directoryOf(exe));
  }
  std::string looked;
  for (const std::string &dir : dirs) {
    path = dir + "/" + name;
    if (executable(path))
      return Status::success();
    looked += (looked.empty() ? "" : ", ") + dir;
  }
  return Status::error(ErrorCode::NoGpu,
                       std::string(name) + " was not found (looked in " + looked +
                           "); set GPUOS_DEVICE_HOST or RuntimeOptions::deviceHost");
}

} // namespace gpuos::runtime
