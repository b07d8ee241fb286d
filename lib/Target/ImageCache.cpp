//===- ImageCache.cpp - compiled images on disk, by content hash ----------===//

#include "gpuos/Target/ImageCache.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace gpuos;

std::string gpuos::sha256Hex(llvm::StringRef text) {
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(text));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

std::string ImageCache::defaultDirectory() {
  llvm::SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    path = xdg;
  } else if (const char *home = std::getenv("HOME"); home && *home) {
    path = home;
    llvm::sys::path::append(path, ".cache");
  } else {
    path = ".cache";
  }
  llvm::sys::path::append(path, "gpuos");
  return path.str().str();
}

std::string ImageCache::path(llvm::StringRef key, llvm::StringRef suffix) const {
  llvm::SmallString<256> result(dir);
  llvm::sys::path::append(result, key + suffix);
  return result.str().str();
}

bool ImageCache::contains(llvm::StringRef key) const {
  return llvm::sys::fs::is_regular_file(path(key, ".cubin")) &&
         llvm::sys::fs::is_regular_file(path(key, ".manifest.json"));
}

llvm::Error gpuos::writeFileAtomically(llvm::StringRef path,
                                       llvm::StringRef data) {
  llvm::SmallString<256> temp;
  int fd;
  llvm::SmallString<256> model(path);
  model += ".tmp-%%%%%%";
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp))
    return llvm::createStringError(ec, "cannot write next to '" + path +
                                           "': " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << data;
    os.close();
    if (os.has_error()) {
      llvm::sys::fs::remove(temp);
      return llvm::createStringError(os.error(), "cannot write '" + temp + "'");
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return llvm::createStringError(ec, "cannot write '" + path +
                                           "': " + ec.message());
  }
  return llvm::Error::success();
}

llvm::Error ImageCache::fetch(llvm::StringRef key, llvm::StringRef cubinPath,
                              llvm::StringRef manifestPath) const {
  for (auto [from, to] : {std::pair(path(key, ".cubin"), cubinPath),
                          std::pair(path(key, ".manifest.json"), manifestPath)}) {
    auto buffer = llvm::MemoryBuffer::getFile(from, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return llvm::createStringError(buffer.getError(),
                                     "cannot read cache entry '" + from + "'");
    if (llvm::Error error = writeFileAtomically(to, (*buffer)->getBuffer()))
      return error;
  }
  return llvm::Error::success();
}

llvm::Error ImageCache::load(llvm::StringRef key, std::vector<char> &cubin,
                             std::string &manifest) const {
  for (bool isCubin : {true, false}) {
    std::string from = path(key, isCubin ? ".cubin" : ".manifest.json");
    auto buffer = llvm::MemoryBuffer::getFile(from, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return llvm::createStringError(buffer.getError(),
                                     "cannot read cache entry '" + from + "'");
    llvm::StringRef data = (*buffer)->getBuffer();
    if (isCubin)
      cubin.assign(data.begin(), data.end());
    else
      manifest = data.str();
  }
  return llvm::Error::success();
}

llvm::Error ImageCache::store(llvm::StringRef key, llvm::ArrayRef<char> cubin,
                              llvm::StringRef manifest) const {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(ec, "cannot create cache directory '" + dir +
                                           "': " + ec.message());
  // The manifest last: an entry counts once both files exist.
  if (llvm::Error error = writeFileAtomically(
          path(key, ".cubin"), llvm::StringRef(cubin.data(), cubin.size())))
    return error;
  return writeFileAtomically(path(key, ".manifest.json"), manifest);
}
