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

#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace gpuos::runtime;

namespace {

// A host older than the wire versions (it answers version 0) or newer: the
// runtime names the mismatch and ends it; at this build's version the same
// host opens.
TEST(DeviceHostWire, RuntimeRefusesAHostOfAnotherBuild) {
  std::string path = testimage::simDeviceHostPath();
  for (const char *version : {"0", "2"}) {
    std::unique_ptr<Backend> backend;
    Status st = openProcessBackend({path, "--wire-version", version}, backend);
    EXPECT_EQ(st.code(), ErrorCode::Faulted) << st.toString();
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

// The other way round, as an older runtime would meet a newer host: a
// request of another version gets an error naming both versions, in a reply
// that names the host's, and the host leaves.
TEST(DeviceHostWire, HostRefusesARuntimeOfAnotherBuild) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  std::string path = testimage::simDeviceHostPath();
  std::string fd = std::to_string(sv[1]), parent = std::to_string(getpid());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int keep = dup(sv[1]); // without CLOEXEC
    fd = std::to_string(keep);
    execl(path.c_str(), path.c_str(), "--fd", fd.c_str(), "--parent",
          parent.c_str(), (char *)nullptr);
    _exit(127);
  }
  close(sv[1]);
  wire::Request rq{};
  rq.op = wire::Op::Info;
  rq.version = wire::kWireVersion + 6;
  ASSERT_TRUE(wire::sendAll(sv[0], &rq, sizeof(rq)));
  wire::Reply rp{};
  ASSERT_TRUE(wire::recvAll(sv[0], &rp, sizeof(rp)));
  std::string message(rp.message, '\0');
  ASSERT_TRUE(wire::recvAll(sv[0], message.data(), message.size()));
  EXPECT_EQ(rp.version, wire::kWireVersion);
  EXPECT_EQ((ErrorCode)rp.code, ErrorCode::InvalidArgument);
  EXPECT_EQ(rp.payload, 0u);
  EXPECT_EQ(message, "the device host speaks wire version " +
                         std::to_string(wire::kWireVersion) + " and the runtime " +
                         std::to_string(wire::kWireVersion + 6) +
                         ": they come from different builds");
  // It closed its end: nothing more comes, and it exited normally.
  char byte;
  EXPECT_EQ(recv(sv[0], &byte, 1, 0), 0);
  close(sv[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

} // namespace
