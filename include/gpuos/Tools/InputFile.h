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

/// MLIR's parser recurses once per nesting level of brackets, and a few
/// thousand levels overflow the stack (a crash, not an error).
constexpr unsigned kMaxNesting = 512;

/// Where `text` (MLIR assembly) first nests brackets ( [ { < deeper than
/// kMaxNesting, as "line:col", or "" when it does not. Strings and `//`
/// comments are skipped; `->` is not a bracket.
inline std::string tooDeepAt(llvm::StringRef text) {
  unsigned depth = 0, line = 1, col = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    ++col;
    if (c == '\n') {
      ++line;
      col = 0;
    } else if (c == '"') { // a string: up to the unescaped quote
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i, ++col)
        if (text[i] == '\\')
          ++i, ++col;
      ++col;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxNesting)
        return std::to_string(line) + ":" + std::to_string(col);
    } else if ((c == ')' || c == ']' || c == '}' ||
                (c == '>' && (i == 0 || text[i - 1] != '-'))) &&
               depth) {
      --depth;
    }
  }
  return "";
}

/// "path:line:col: error: ..." when `text` nests too deep (tooDeepAt), or "".
inline std::string tooDeepError(llvm::StringRef path, llvm::StringRef text) {
  std::string at = tooDeepAt(text);
  if (at.empty())
    return "";
  return path.str() + ":" + at + ": error: brackets nest deeper than " +
         std::to_string(kMaxNesting) + " levels; the parser would run out of stack";
}

} // namespace gpuos::tools

#endif // GPUOS_TOOLS_INPUTFILE_H
