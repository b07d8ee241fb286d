//===- LinkInputCheckTest.cpp - structure checks before nvJitLink --------===//
//
// nvJitLink and the driver's loader crash on ELF files whose tables point
// past the data (a truncated cubin or device object). The checks must pass
// well-formed files and refuse every truncation with the reason.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/LinkInputCheck.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>

using namespace gpuos;

namespace {

template <typename T> void put(std::string &s, size_t at, T v) {
  std::memcpy(&s[at], &v, sizeof(T));
}

/// A minimal ELF64 file: header, 16 bytes of section data, then a section
/// header table of three entries (null, .shstrtab, a NOBITS .bss whose
/// size is not in the file).
std::string tinyElf() {
  std::string s(64 + 16 + 3 * 64, '\0');
  std::memcpy(&s[0], "\x7f" "ELF", 4);
  s[4] = 2; // 64-bit
  s[5] = 1; // little-endian
  s[6] = 1;
  put<uint64_t>(s, 40, 80);  // e_shoff
  put<uint16_t>(s, 52, 64);  // e_ehsize
  put<uint16_t>(s, 58, 64);  // e_shentsize
  put<uint16_t>(s, 60, 3);   // e_shnum
  put<uint16_t>(s, 62, 1);   // e_shstrndx
  std::memcpy(&s[64], "\0.shstrtab\0.bss\0", 16);
  size_t strtab = 80 + 64, bss = 80 + 128;
  put<uint32_t>(s, strtab + 4, 3);     // SHT_STRTAB
  put<uint64_t>(s, strtab + 24, 64);   // sh_offset
  put<uint64_t>(s, strtab + 32, 16);   // sh_size
  put<uint32_t>(s, bss + 4, 8);        // SHT_NOBITS
  put<uint64_t>(s, bss + 24, 1 << 20); // not in the file: fine
  put<uint64_t>(s, bss + 32, 1 << 20);
  return s;
}

std::string member(const std::string &name, const std::string &data) {
  char header[61];
  std::snprintf(header, sizeof(header), "%-16s%-12s%-6s%-6s%-8s%-10zu`\n",
                name.c_str(), "0", "0", "0", "644", data.size());
  std::string m(header, 60);
  m += data;
  if (data.size() & 1)
    m += '\n';
  return m;
}

} // namespace

TEST(LinkInputCheck, WellFormedFilesPass) {
  std::string elf = tinyElf();
  EXPECT_EQ(linkcheck::checkElf(elf.data(), elf.size()), "");
  std::string ar = "!<arch>\n" + member("/", "") + member("a.o/", elf) +
                   member("b.o/", elf + "x");
  EXPECT_EQ(linkcheck::checkArchive(ar.data(), ar.size()), "");
  std::string ptx = ".version 8.0\n.target sm_90\n";
  EXPECT_EQ(linkcheck::checkStructure(ptx.data(), ptx.size()), "");
  EXPECT_EQ(linkcheck::checkLinkInput(nvjitlink::kInputPtx, ptx.data(), ptx.size()), "");
  EXPECT_EQ(linkcheck::checkLinkInput(nvjitlink::kInputObject, elf.data(), elf.size()), "");
}

TEST(LinkInputCheck, EveryTruncationIsRefused) {
  std::string elf = tinyElf();
  for (size_t n = 0; n < elf.size(); ++n)
    EXPECT_NE(linkcheck::checkElf(elf.data(), n), "") << n << " bytes";
  EXPECT_EQ(linkcheck::checkElf(elf.data(), 100),
            "its section header table lies past the end of the file (the file "
            "has 100 bytes): truncated?");
  std::string ar = "!<arch>\n" + member("a.o/", elf);
  for (size_t n = 9; n < ar.size(); ++n)
    EXPECT_NE(linkcheck::checkArchive(ar.data(), n), "") << n << " bytes";
}

TEST(LinkInputCheck, TablesAndSectionsMustLieInside) {
  std::string elf = tinyElf();
  std::string bad = elf;
  put<uint64_t>(bad, 80 + 64 + 24, elf.size() - 8); // .shstrtab past the end
  EXPECT_EQ(linkcheck::checkElf(bad.data(), bad.size()),
            "its section 1 lies past the end of the file (the file has 272 "
            "bytes): truncated?");
  bad = elf;
  put<uint64_t>(bad, 80 + 64 + 32, UINT64_MAX); // offset + size wraps
  EXPECT_NE(linkcheck::checkElf(bad.data(), bad.size()), "");
  bad = elf;
  put<uint16_t>(bad, 62, 7);
  EXPECT_EQ(linkcheck::checkElf(bad.data(), bad.size()),
            "its section name table index 7 is not one of its 3 sections");
  bad = elf;
  bad[4] = 1;
  EXPECT_EQ(linkcheck::checkElf(bad.data(), bad.size()),
            "not a 64-bit little-endian ELF file");
  std::string ar = "!<arch>\n" + member("half.o/", elf.substr(0, 120));
  EXPECT_EQ(linkcheck::checkArchive(ar.data(), ar.size()),
            "its member half.o/: its section header table lies past the end of "
            "the file (the file has 120 bytes): truncated?");
  EXPECT_EQ(linkcheck::checkLinkInput(nvjitlink::kInputCubin, "garbage", 7),
            "not an ELF file (no \\x7fELF magic)");
  EXPECT_EQ(linkcheck::checkLinkInput(nvjitlink::kInputLibrary, "garbage", 7),
            "not an archive (no !<arch> magic)");
}

TEST(LinkInputCheck, FatbinSizesMustFit) {
  std::string fat(16 + 32, '\0');
  put<uint32_t>(fat, 0, 0xBA55ED50u);
  put<uint16_t>(fat, 4, 1);
  put<uint16_t>(fat, 6, 16);
  put<uint64_t>(fat, 8, 32);
  EXPECT_EQ(linkcheck::checkFatbin(fat.data(), fat.size()), "");
  EXPECT_EQ(linkcheck::checkStructure(fat.data(), 40),
            "a truncated fatbin (its header says 48 bytes, the data has 40)");
}
