//===- SourceKeyTest.cpp - the gpuos-jit launcher's index and hash --------===//
//
// tools/gpuos-jit: the launcher's SHA-256 against FIPS 180-4 test vectors,
// and the source index entry: what the core writes, the launcher reads
// back, and anything malformed is no entry (the core then runs).
//
//===----------------------------------------------------------------------===//

#include "Sha256.h"
#include "SourceKey.h"

#include <gtest/gtest.h>

using namespace gpuos;

namespace {

std::string sha(const std::string &text) {
  launcher::Sha256 h;
  h.update(text);
  return h.hex();
}

TEST(LauncherSha256, MatchesTheStandardVectors) {
  EXPECT_EQ(sha(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Fed in pieces across block boundaries, the same digest.
  launcher::Sha256 h;
  for (int i = 0; i < 1000; ++i)
    h.update(std::string(1000, 'a'));
  EXPECT_EQ(h.hex(), sha(std::string(1000000, 'a')));
}

TEST(SourceKeyEntry, RoundTrips) {
  sourcekey::Entry e;
  e.contentHash = std::string(64, 'a');
  e.deps.push_back({123, 456789, "/a/runtime.o"});
  e.deps.push_back({1, 2, "/path with spaces/libnvJitLink.so.13"});
  sourcekey::Entry back;
  ASSERT_TRUE(sourcekey::parse(sourcekey::format(e), back));
  EXPECT_EQ(back.contentHash, e.contentHash);
  ASSERT_EQ(back.deps.size(), 2u);
  EXPECT_TRUE(back.deps[0] == e.deps[0]);
  EXPECT_TRUE(back.deps[1] == e.deps[1]);
}

TEST(SourceKeyEntry, RejectsWhatIsNotAnEntry) {
  sourcekey::Entry e;
  std::string hash(64, 'b');
  std::string header = std::string(sourcekey::kHeader) + "\n";
  EXPECT_FALSE(sourcekey::parse("", e));
  EXPECT_FALSE(sourcekey::parse("gpuos-jit source entry 0\nimage " + hash + "\n", e));
  EXPECT_FALSE(sourcekey::parse(header + "image abc\n", e)); // short hash
  EXPECT_FALSE(sourcekey::parse(header, e));                 // no image line
  EXPECT_FALSE(sourcekey::parse(header + "image " + hash + "\ndep 1 2\n", e)); // no path
  EXPECT_FALSE(sourcekey::parse(header + "image " + hash + "\ndep x 2 /p\n", e));
  EXPECT_FALSE(sourcekey::parse(header + "image " + hash + "\nfile 1 2 /p\n", e));
  EXPECT_TRUE(sourcekey::parse(header + "image " + hash + "\n", e));
}

TEST(SourceKeyEntry, StampsOnlyRegularFiles) {
  sourcekey::FileStamp s;
  EXPECT_FALSE(sourcekey::stampOf("", s));
  EXPECT_FALSE(sourcekey::stampOf("/", s));
  EXPECT_FALSE(sourcekey::stampOf("/nonexistent/gpuos", s));
  ASSERT_TRUE(sourcekey::stampOf("/proc/self/exe", s) || sourcekey::stampOf("/bin/sh", s));
  EXPECT_GT(s.size, 0u);
  EXPECT_GT(s.mtimeNs, 0u);
}

} // namespace
