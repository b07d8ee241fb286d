//===- DriverTest.cpp - loading libcuda at run time -----------------------===//

#include "gpuos/runtime/Driver.h"

#include "gtest/gtest.h"

using namespace gpuos::runtime;

// A missing driver library is reported as "no GPU" with the path and the
// loader's reason, not as a crash or a failed process start.
TEST(Driver, MissingLibraryIsNoGpu) {
  DriverStatus status = loadDriverFrom("/nonexistent/libcuda.so.1");
  EXPECT_FALSE(status.available());
  EXPECT_NE(status.error.find("no GPU: cannot load the CUDA driver"),
            std::string::npos);
  EXPECT_NE(status.error.find("/nonexistent/libcuda.so.1"), std::string::npos);
  SystemInfo info = querySystem(status);
  EXPECT_TRUE(info.devices.empty());
  EXPECT_EQ(info.error, status.error);
}

// A library without the driver's entry points is rejected by name.
TEST(Driver, WrongLibraryNamesTheMissingSymbol) {
  DriverStatus status = loadDriverFrom("libm.so.6");
  EXPECT_FALSE(status.available());
  EXPECT_NE(status.error.find("the driver library lacks cuInit"),
            std::string::npos);
}

// On a GPU machine the real driver reports devices; elsewhere this is a
// visible skip.
TEST(Driver, RealDriverListsDevices) {
  const DriverStatus &status = loadDriver();
  if (!status.available())
    GTEST_SKIP() << status.error;
  SystemInfo info = querySystem(status);
  ASSERT_FALSE(info.devices.empty()) << info.error;
  EXPECT_GT(info.driverVersion, 0);
  EXPECT_GT(info.devices[0].multiprocessors, 0);
  EXPECT_GE(info.devices[0].computeMajor, 7);
}
