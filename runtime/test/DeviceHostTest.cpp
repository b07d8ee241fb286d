//===- DeviceHostTest.cpp - the process backend's wire, across builds -----===//
//
// A device host and a runtime from different builds (GPUOS_DEVICE_HOST or
// RuntimeOptions::deviceHost naming another build's binary) must refuse
// each other by name instead of misreading requests. Uses the simulator's
// device host (gpuos-sim-device-host), whose --wire-version makes it answer
// as another build would; no GPU needed.
//
//===----------------------------------------------------------------------===//

#include "DeviceHostWire.h"
#include "TestImage.h"

#include "gpuos/runtime/DeviceHost.h"
#include "gtest/gtest.h"

#include <csignal>
#include <fcntl.h>
#include <string>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace gpuos::runtime;

namespace {

// A host from before wire versions (version 0: it answers every request,
// stamped 0) or of a later one (version 2: it also refuses ours): the
// runtime names the mismatch and ends it; at this build's version the same
// host opens.
TEST(DeviceHostWire, RuntimeRefusesAHostOfAnotherBuild) {
  std::string path = testimage::simDeviceHostPath();
  for (const char *version : {"0", "2"}) {
    std::unique_ptr<Backend> backend;
    Status st = openProcessBackend({path, "--wire-version", version}, backend);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument) << st.toString();
    EXPECT_EQ(st.message(), "the device host process (" + path +
                                ") speaks wire version " + version +
                                " and this runtime " +
                                std::to_string(wire::kWireVersion) +
                                ": it comes from another build; it was ended");
    EXPECT_EQ(backend, nullptr);
  }
  std::unique_ptr<Backend> backend;
  Status st = openProcessBackend({path}, backend);
  ASSERT_TRUE(st.ok()) << st.toString();
  EXPECT_TRUE(backend->info().simulated);
  EXPECT_GT(backend->info().hostProcess, 0);
}

/// A device host started on one end of a socket pair, ended (and reaped)
/// with the test whatever it asserts; reads on the socket time out.
struct RawHost {
  int sock = -1;
  pid_t child = -1;
  RawHost() {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
      return;
    fcntl(sv[0], F_SETFD, FD_CLOEXEC);
    timeval limit{10, 0};
    setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
    std::string path = testimage::simDeviceHostPath();
    std::string fd = std::to_string(sv[1]), parent = std::to_string(getpid());
    child = fork();
    if (child == 0) { // nothing that allocates before exec
      execl(path.c_str(), path.c_str(), "--fd", fd.c_str(), "--parent", parent.c_str(),
            (char *)nullptr);
      _exit(127);
    }
    close(sv[1]);
    sock = sv[0];
  }
  ~RawHost() {
    if (sock >= 0)
      close(sock);
    if (child > 0) {
      kill(child, SIGKILL);
      waitpid(child, nullptr, 0);
    }
  }
};

// The other way round, as an older runtime would meet a newer host: a
// request of another version gets an error naming both versions, in a reply
// that names the host's, and the host leaves.
TEST(DeviceHostWire, HostRefusesARuntimeOfAnotherBuild) {
  RawHost host;
  ASSERT_GE(host.sock, 0);
  ASSERT_GT(host.child, 0);
  wire::Request rq{};
  rq.op = wire::Op::Info;
  rq.version = wire::kWireVersion + 6;
  ASSERT_TRUE(wire::sendAll(host.sock, &rq, sizeof(rq)));
  wire::Reply rp{};
  ASSERT_TRUE(wire::recvAll(host.sock, &rp, sizeof(rp)));
  std::string message(rp.message, '\0');
  ASSERT_TRUE(wire::recvAll(host.sock, message.data(), message.size()));
  EXPECT_EQ(rp.version, wire::kWireVersion);
  EXPECT_EQ((ErrorCode)rp.code, ErrorCode::InvalidArgument);
  EXPECT_EQ(rp.payload, 0u);
  EXPECT_EQ(message, "the device host speaks wire version " +
                         std::to_string(wire::kWireVersion) + " and the runtime " +
                         std::to_string(wire::kWireVersion + 6) +
                         ": they come from different builds");
  // It closed its end: nothing more comes (not a timeout), and it exited
  // normally.
  char byte;
  EXPECT_EQ(recv(host.sock, &byte, 1, 0), 0);
  int status = 0;
  ASSERT_EQ(waitpid(host.child, &status, 0), host.child);
  host.child = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

} // namespace

// A device host's numeric arguments (--fd, --parent, --wire-version,
// gpuos-device-host's --device): all of the text, decimal, non-negative.
TEST(DeviceHostArgs, WholeNumbers) {
  EXPECT_EQ(parseWholeNumber("0"), 0);
  EXPECT_EQ(parseWholeNumber("42"), 42);
  EXPECT_EQ(parseWholeNumber(""), -1);
  EXPECT_EQ(parseWholeNumber("4x"), -1);
  EXPECT_EQ(parseWholeNumber("-3"), -1);
  EXPECT_EQ(parseWholeNumber("99999999999999999999999"), -1);
}

// A descriptor beyond int is refused (it used to be truncated: 4294967299
// became 3), with the usage message, before anything is opened. In a child
// process: a host that went on would close the test's descriptors.
TEST(DeviceHostArgs, DescriptorBeyondIntIsRefused) {
  const char *argv[] = {"host", "--fd", "4294967299", "--parent", "1"};
  auto host = [&] {
    int rc = deviceHostMain(5, const_cast<char **>(argv),
                            [](const std::vector<std::string> &, std::unique_ptr<Backend> &) {
                              std::fprintf(stderr, "opened a backend\n");
                              return Status::success();
                            });
    std::exit(rc);
  };
  EXPECT_EXIT(host(), ::testing::ExitedWithCode(2), "usage: --fd N --parent PID");
}
