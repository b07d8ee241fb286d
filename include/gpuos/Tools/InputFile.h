//===- InputFile.h - what the command-line tools refuse to read -*- C++ -*-===//
//
// The tools read whole files into memory. A device (/dev/zero) would be
// read until memory ran out ("LLVM ERROR: out of memory"), and a FIFO
// blocks forever: inputs named by path must be regular files. Header-only.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_TOOLS_INPUTFILE_H
#define GPUOS_TOOLS_INPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <string>

namespace gpuos::tools {

/// Why `path` is not a file the tools read, or "" (also for "-", stdin, and
/// for a path that does not exist: opening it reports that).
inline std::string unreadableInput(llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (path == "-" || llvm::sys::fs::status(path, status))
    return "";
  if (llvm::sys::fs::is_directory(status))
    return "it is a directory";
  if (!llvm::sys::fs::is_regular_file(status))
    return "not a regular file (a device or a pipe would be read without end)";
  return "";
}

} // namespace gpuos::tools

#endif // GPUOS_TOOLS_INPUTFILE_H
