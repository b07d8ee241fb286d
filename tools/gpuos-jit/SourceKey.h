//===- SourceKey.h - gpuos-jit's source-keyed cache index ------*- C++ -*-===//
//
// The image cache is keyed by content: the canonical IR and everything that
// shapes the image (lib/JIT/Compiler.cpp). Computing that key needs the
// compiler, whose start-up (libLLVM.so, nvJitLink) is most of a cache hit.
// So gpuos-jit is a small launcher: it hashes what it can see without the
// compiler (the input's bytes and name, the options, the compiler binary, a few
// environment variables) into a source key, and looks it up in
// <cache>/sources/<key>, an entry gpuos-jit-core wrote after a compile:
//
//   gpuos-jit source entry 1
//   image <content hash>
//   dep <size> <mtime ns> <path>     (files the image depends on)
//
// A hit copies <cache>/<content hash>.cubin and the source's own manifest,
// <cache>/source-manifests/<key>.json (its ops' locations name this input;
// the content-keyed manifest may name another file of the same content),
// to the output when every dep still has its size and time; anything else (no
// entry, a changed dep, an option the launcher does not parse) runs
// gpuos-jit-core, which decides by content as before. Header-only and
// without LLVM: both programs include it.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_TOOLS_GPUOS_JIT_SOURCEKEY_H
#define GPUOS_TOOLS_GPUOS_JIT_SOURCEKEY_H

#include <cstdint>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace gpuos::sourcekey {

constexpr const char *kHeader = "gpuos-jit source entry 1";
constexpr const char *kSubdir = "sources";
/// <cache>/source-manifests/<key>.json: the manifest made for that source.
constexpr const char *kManifestSubdir = "source-manifests";
/// The option gpuos-jit-core takes from the launcher: record the entry
/// (--source-key=<key>:<SHA-256 of the input the key was made from>).
constexpr const char *kOption = "--source-key=";
constexpr const char *kCoreName = "gpuos-jit-core";

struct FileStamp {
  uint64_t size = 0, mtimeNs = 0;
  std::string path;
  bool operator==(const FileStamp &o) const {
    return size == o.size && mtimeNs == o.mtimeNs && path == o.path;
  }
  bool operator!=(const FileStamp &o) const { return !(*this == o); }
};

/// The file's size and modification time, or false.
inline bool stampOf(const std::string &path, FileStamp &out) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return false;
  out.path = path;
  out.size = static_cast<uint64_t>(st.st_size);
  out.mtimeNs = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull +
                static_cast<uint64_t>(st.st_mtim.tv_nsec);
  return true;
}

struct Entry {
  std::string contentHash;
  std::vector<FileStamp> deps;
};

inline std::string format(const Entry &e) {
  std::ostringstream os;
  os << kHeader << "\nimage " << e.contentHash << "\n";
  for (const FileStamp &d : e.deps)
    os << "dep " << d.size << " " << d.mtimeNs << " " << d.path << "\n";
  return os.str();
}

/// False for anything but a well-formed entry.
inline bool parse(const std::string &text, Entry &out) {
  std::istringstream is(text);
  std::string line;
  if (!std::getline(is, line) || line != kHeader)
    return false;
  if (!std::getline(is, line) || line.rfind("image ", 0) != 0 || line.size() != 6 + 64)
    return false;
  out.contentHash = line.substr(6);
  while (std::getline(is, line)) {
    std::istringstream fields(line);
    std::string tag;
    FileStamp d;
    if (!(fields >> tag >> d.size >> d.mtimeNs) || tag != "dep")
      return false;
    fields.get(); // the space before the path (paths may hold spaces)
    std::getline(fields, d.path);
    if (d.path.empty())
      return false;
    out.deps.push_back(std::move(d));
  }
  return true;
}

} // namespace gpuos::sourcekey

#endif // GPUOS_TOOLS_GPUOS_JIT_SOURCEKEY_H
