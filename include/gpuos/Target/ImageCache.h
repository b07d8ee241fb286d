//===- ImageCache.h - compiled images on disk, by content hash --*- C++ -*-===//
//
// An unchanged graph never links twice: images are stored under their
// content hash (<dir>/<hash>.cubin and <dir>/<hash>.manifest.json) and a
// hit copies them instead of compiling.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_TARGET_IMAGECACHE_H
#define GPUOS_TARGET_IMAGECACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace gpuos {

/// Hex SHA-256 of `text`.
std::string sha256Hex(llvm::StringRef text);

class ImageCache {
public:
  /// $XDG_CACHE_HOME/gpuos, else ~/.cache/gpuos.
  static std::string defaultDirectory();
  explicit ImageCache(std::string directory) : dir(std::move(directory)) {}

  /// True when both files of `key` are present.
  bool contains(llvm::StringRef key) const;
  /// Copies the cached image of `key` to `cubinPath` and `manifestPath`.
  llvm::Error fetch(llvm::StringRef key, llvm::StringRef cubinPath,
                    llvm::StringRef manifestPath) const;
  /// Reads the cached image of `key` into memory.
  llvm::Error load(llvm::StringRef key, std::vector<char> &cubin,
                   std::string &manifest) const;
  /// Stores an image; files appear atomically (written, then renamed), so
  /// concurrent compilers never read half an entry.
  llvm::Error store(llvm::StringRef key, llvm::ArrayRef<char> cubin,
                    llvm::StringRef manifest) const;
  const std::string &directory() const { return dir; }

private:
  std::string path(llvm::StringRef key, llvm::StringRef suffix) const;
  std::string dir;
};

/// Writes `data` to `path` through a temporary file and a rename.
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef data);

} // namespace gpuos

#endif // GPUOS_TARGET_IMAGECACHE_H
