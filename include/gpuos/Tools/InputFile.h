//===- InputFile.h - what the command-line tools refuse to read -*- C++ -*-===//
//
// The tools read whole files into memory. A device such as /dev/zero would
// be read until memory ran out ("LLVM ERROR: out of memory"): inputs named
// by path must be regular files or streams that end (a pipe, /dev/stdin).
// Header-only.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_TOOLS_INPUTFILE_H
#define GPUOS_TOOLS_INPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <string>

namespace gpuos::tools {

/// Why `path` is not a file the tools read, or "" (also for "-" and
/// /dev/stdin, and for a path that does not exist: opening it reports that).
inline std::string unreadableInput(llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (path == "-" || path == "/dev/stdin" || llvm::sys::fs::status(path, status))
    return "";
  switch (status.type()) {
  case llvm::sys::fs::file_type::directory_file:
    return "it is a directory";
  case llvm::sys::fs::file_type::character_file:
  case llvm::sys::fs::file_type::block_file:
    return "it is a device, not a file (it would be read without end)";
  default:
    return "";
  }
}

} // namespace gpuos::tools

#endif // GPUOS_TOOLS_INPUTFILE_H
