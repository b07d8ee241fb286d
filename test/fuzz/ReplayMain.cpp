//===- ReplayMain.cpp - run fuzz inputs through the fuzz target -----------===//
//
// gpuos-fuzz-replay [file-or-directory...]
//
// Runs every file given (directories: every regular file in them, sorted,
// non-recursive) through LLVMFuzzerTestOneInput of ParseVerifyFuzzer.cpp.
// Needs no libFuzzer, so it builds with any compiler: it is how CI replays
// the seed corpus and the crash regressions. A finding aborts, as it does
// under the fuzzer.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool collect(llvm::StringRef path, std::vector<std::string> &files) {
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status)) {
    llvm::errs() << "gpuos-fuzz-replay: " << path << ": " << ec.message()
                 << "\n";
    return false;
  }
  if (!llvm::sys::fs::is_directory(status)) {
    files.push_back(path.str());
    return true;
  }
  std::vector<std::string> entries;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::fs::is_regular_file(it->path()))
      entries.push_back(it->path());
  if (ec) {
    llvm::errs() << "gpuos-fuzz-replay: " << path << ": " << ec.message()
                 << "\n";
    return false;
  }
  std::sort(entries.begin(), entries.end());
  files.insert(files.end(), entries.begin(), entries.end());
  return true;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    llvm::errs() << "usage: gpuos-fuzz-replay <file-or-directory>...\n";
    return 2;
  }
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i)
    if (!collect(argv[i], files))
      return 1;
  if (files.empty()) {
    llvm::errs() << "gpuos-fuzz-replay: no inputs found\n";
    return 1;
  }
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      llvm::errs() << "gpuos-fuzz-replay: " << file << ": "
                   << buffer.getError().message() << "\n";
      return 1;
    }
    // Named before running, so a crash report says which input it was.
    llvm::errs() << "running " << file << "\n";
    llvm::StringRef bytes = (*buffer)->getBuffer();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
  }
  llvm::outs() << "gpuos-fuzz-replay: replayed " << files.size()
               << " input(s), no findings\n";
  return 0;
}
