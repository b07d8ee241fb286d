//===- LinkInputCheck.h - structure checks before nvJitLink or the driver -*- C++ -*-===//
//
// nvJitLink (CUDA 13.0) and the driver's module loader read an ELF file's
// section and program header tables without checking them against the
// bytes given: a truncated cubin or device object crashes the process
// (SIGSEGV inside libnvJitLink) instead of failing. These checks run first
// and name what is wrong. They check structure only (every table and
// section lies inside the data); what the sections hold is still the
// linker's to judge. Header-only, no dependency.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_LINKINPUTCHECK_H
#define GPUOS_RUNTIME_LINKINPUTCHECK_H

#include "gpuos/runtime/NvJitLinkApi.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace gpuos::linkcheck {

namespace detail {

template <typename T> T read(const unsigned char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T)); // ELF64 little-endian, as the host
  return v;
}

/// True when [offset, offset + count * entry) lies within `size`.
inline bool fits(uint64_t offset, uint64_t count, uint64_t entry, uint64_t size) {
  if (count && entry > (UINT64_MAX - offset) / count)
    return false;
  return offset + count * entry <= size;
}

} // namespace detail

inline bool isElf(const void *data, size_t size) {
  return size >= 4 && std::memcmp(data, "\x7f" "ELF", 4) == 0;
}

/// Why `data` is not a well-formed 64-bit little-endian ELF file, or "".
inline std::string checkElf(const void *data, size_t size) {
  using detail::fits;
  using detail::read;
  const auto *p = static_cast<const unsigned char *>(data);
  if (!isElf(data, size))
    return "not an ELF file (no \\x7fELF magic)";
  if (size < 64)
    return "a truncated ELF file (" + std::to_string(size) +
           " bytes, less than its 64-byte header)";
  if (p[4] != 2 || p[5] != 1)
    return "not a 64-bit little-endian ELF file";
  uint64_t phoff = read<uint64_t>(p + 32), shoff = read<uint64_t>(p + 40);
  uint16_t phentsize = read<uint16_t>(p + 54), phnum = read<uint16_t>(p + 56);
  uint16_t shentsize = read<uint16_t>(p + 58), shnum = read<uint16_t>(p + 60);
  uint16_t shstrndx = read<uint16_t>(p + 62);
  std::string bytes = " (the file has " + std::to_string(size) + " bytes)";
  if (phnum && (phentsize < 56 || !fits(phoff, phnum, phentsize, size)))
    return "its program header table lies past the end of the file" + bytes +
           ": truncated?";
  if (shnum && (shentsize < 64 || !fits(shoff, shnum, shentsize, size)))
    return "its section header table lies past the end of the file" + bytes +
           ": truncated?";
  if (shnum && shstrndx >= shnum)
    return "its section name table index " + std::to_string(shstrndx) +
           " is not one of its " + std::to_string(shnum) + " sections";
  for (uint16_t i = 0; i < shnum; ++i) {
    const unsigned char *sh = p + shoff + (uint64_t)i * shentsize;
    uint32_t type = read<uint32_t>(sh + 4);
    uint64_t offset = read<uint64_t>(sh + 24), bytesIn = read<uint64_t>(sh + 32);
    if (type != 8 /*SHT_NOBITS*/ && type != 0 /*SHT_NULL*/ &&
        !fits(offset, 1, bytesIn, size))
      return "its section " + std::to_string(i) + " lies past the end of the file" +
             bytes + ": truncated?";
  }
  for (uint16_t i = 0; i < phnum; ++i) {
    const unsigned char *ph = p + phoff + (uint64_t)i * phentsize;
    uint64_t offset = read<uint64_t>(ph + 8), filesz = read<uint64_t>(ph + 32);
    if (!fits(offset, 1, filesz, size))
      return "its segment " + std::to_string(i) + " lies past the end of the file" +
             bytes + ": truncated?";
  }
  return "";
}

/// Why `data` is not a well-formed `ar` archive of ELF members, or "".
inline std::string checkArchive(const void *data, size_t size) {
  const auto *p = static_cast<const unsigned char *>(data);
  if (size < 8 || std::memcmp(p, "!<arch>\n", 8) != 0)
    return "not an archive (no !<arch> magic)";
  uint64_t at = 8;
  while (at < size) {
    if (size - at < 60)
      return "a truncated archive (a member header at byte " + std::to_string(at) +
             " is cut off)";
    const unsigned char *h = p + at;
    if (h[58] != '`' || h[59] != '\n')
      return "a damaged archive (the member header at byte " + std::to_string(at) +
             " has no terminator)";
    uint64_t bytes = 0;
    for (int k = 48; k < 58 && h[k] != ' '; ++k) {
      if (h[k] < '0' || h[k] > '9' || bytes > (UINT64_MAX - 9) / 10)
        return "a damaged archive (the member at byte " + std::to_string(at) +
               " has no valid size)";
      bytes = bytes * 10 + (h[k] - '0');
    }
    uint64_t start = at + 60;
    if (bytes > size - start)
      return "a truncated archive (the member at byte " + std::to_string(at) +
             " needs " + std::to_string(bytes) + " bytes, " +
             std::to_string(size - start) + " are left)";
    if (isElf(p + start, bytes)) {
      std::string why = checkElf(p + start, bytes);
      if (!why.empty()) {
        std::string name(reinterpret_cast<const char *>(h), 16);
        name.erase(name.find_last_not_of(' ') + 1);
        return "its member " + name + ": " + why;
      }
    }
    at = start + bytes + (bytes & 1); // members are 2-byte aligned
  }
  return "";
}

/// Why `data` is not a well-formed fatbin (its header and size), or "".
inline std::string checkFatbin(const void *data, size_t size) {
  using detail::read;
  const auto *p = static_cast<const unsigned char *>(data);
  if (size < 16 || read<uint32_t>(p) != 0xBA55ED50u)
    return "not a fatbin (no fatbin magic)";
  uint16_t header = read<uint16_t>(p + 6);
  uint64_t body = read<uint64_t>(p + 8);
  if (header < 16 || !detail::fits(header, 1, body, size))
    return "a truncated fatbin (its header says " + std::to_string(header + body) +
           " bytes, the data has " + std::to_string(size) + ")";
  return "";
}

/// Why `data`, about to be given to nvJitLink or the driver, cannot be what
/// its first bytes say it is, or "": ELF files (cubins, device objects),
/// archives and fatbins are checked; anything else (PTX text) passes.
inline std::string checkStructure(const void *data, size_t size) {
  const auto *p = static_cast<const unsigned char *>(data);
  if (isElf(data, size))
    return checkElf(data, size);
  if (size >= 8 && std::memcmp(p, "!<arch>\n", 8) == 0)
    return checkArchive(data, size);
  if (size >= 4 && detail::read<uint32_t>(p) == 0xBA55ED50u)
    return checkFatbin(data, size);
  return "";
}

/// Why `data` cannot be an nvJitLink input of `kind` (nvjitlink::kInput*),
/// or "": a cubin or object must be ELF, a library an archive, a fatbin a
/// fatbin; PTX is not checked (the PTX compiler reports its own errors).
inline std::string checkLinkInput(int kind, const void *data, size_t size) {
  switch (kind) {
  case nvjitlink::kInputCubin:
  case nvjitlink::kInputObject:
    return checkElf(data, size);
  case nvjitlink::kInputLibrary:
    return checkArchive(data, size);
  case nvjitlink::kInputFatbin:
    return checkFatbin(data, size);
  default:
    return "";
  }
}

} // namespace gpuos::linkcheck

#endif // GPUOS_RUNTIME_LINKINPUTCHECK_H
