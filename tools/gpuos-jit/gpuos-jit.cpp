//===- gpuos-jit.cpp - the gpuos-jit command: cache hits without LLVM -----===//
//
//   gpuos-jit in.mlir [options]      (the options are gpuos-jit-core's)
//
// A cache hit of the compiler takes a fraction of a millisecond, but the
// compiler's process needs ~17 ms to start (libLLVM.so) and more to load
// nvJitLink. This launcher, without LLVM, serves repeated compiles of
// unchanged input from the source-keyed index of the image cache
// (SourceKey.h) and runs gpuos-jit-core, found next to it, for everything
// else: a miss, --no-cache, an --emit other than image, an input that is not
// a regular file (standard input, a pipe), custom sources, response files,
// or any option spelling it does not parse (the core then decides, by
// content, exactly as it always did).
//
//===----------------------------------------------------------------------===//

#include "Sha256.h"
#include "SourceKey.h"
#include "gpuos/runtime/LinkInputCheck.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace gpuos;

namespace {

struct Request {
  std::string input, output, cacheDir;
  std::vector<std::string> keyArgs; // options that shape the image
  bool verbose = false;
  bool relativePaths = false; // a path option relative to the cwd
};

bool startsWith(const std::string &s, const char *prefix) {
  return s.rfind(prefix, 0) == 0;
}

/// The value of `--name=value` or `-name=value`, or false.
bool valueOf(const std::string &arg, const char *name, std::string &value) {
  for (const char *dashes : {"--", "-"}) {
    std::string prefix = std::string(dashes) + name + "=";
    if (startsWith(arg, prefix.c_str())) {
      value = arg.substr(prefix.size());
      return true;
    }
  }
  return false;
}

/// True when the launcher understands every argument and the request can be
/// served from the cache; false sends it to the core unchanged.
bool parse(int argc, char **argv, Request &r) {
  static const char *shaping[] = {"arch", "runtime-lib", "cuda-path", "nvjitlink",
                                  "maxrregcount", "block-size", "occupancy",
                                  "background-l2"};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (arg == "-v") {
      r.verbose = true;
    } else if (arg == "-o" && i + 1 < argc) {
      r.output = argv[++i];
    } else if (valueOf(arg, "o", value)) {
      r.output = value;
    } else if (valueOf(arg, "cache-dir", value)) {
      r.cacheDir = value;
    } else if (valueOf(arg, "emit", value)) {
      if (value != "image")
        return false;
    } else if (arg.size() == 3 && startsWith(arg, "-O") && arg[2] >= '0' && arg[2] <= '3') {
      r.keyArgs.push_back(arg);
    } else if (arg == "--no-overlap" || arg == "-no-overlap") {
      // Timing only; the image is the same.
    } else if (!arg.empty() && arg[0] == '@') {
      return false; // a response file: the core expands it
    } else if (!arg.empty() && arg[0] != '-') {
      if (!r.input.empty())
        return false;
      r.input = arg;
    } else {
      bool known = false;
      for (const char *name : shaping)
        if (valueOf(arg, name, value)) {
          known = true;
          r.keyArgs.push_back(std::string(name) + "=" + value);
          bool isPath = std::strcmp(name, "runtime-lib") == 0 ||
                        std::strcmp(name, "cuda-path") == 0 ||
                        std::strcmp(name, "nvjitlink") == 0;
          if (isPath && !value.empty() && value[0] != '/' && value != "none")
            r.relativePaths = true; // resolved against the working directory
        }
      if (!known) // --no-cache, --custom-source, --help, --version, ...
        return false;
    }
  }
  struct stat st;
  if (r.input.empty() || ::stat(r.input.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return false; // reading a pipe here would leave nothing for the core
  if (r.output.empty()) {
    // llvm::sys::path::stem of the input, in the working directory, as the
    // core names it: up to the last dot ("" for ".mlir"), "." and ".." whole.
    std::string name = r.input.substr(r.input.find_last_of('/') + 1);
    size_t dot = name.find_last_of('.');
    r.output = name == "." || name == ".." || dot == std::string::npos
                   ? name
                   : name.substr(0, dot);
  }
  if (r.output.size() >= 6 && r.output.compare(r.output.size() - 6, 6, ".cubin") == 0)
    r.output.resize(r.output.size() - 6);
  // A directory as the output stem: the core refuses it with a message.
  struct stat dir;
  if ((!r.output.empty() && r.output.back() == '/') ||
      (::stat(r.output.c_str(), &dir) == 0 && S_ISDIR(dir.st_mode)))
    return false;
  // An output that is the input itself (x.cubin as the source): the core
  // refuses it with a message; a hit here would overwrite the source.
  for (const char *suffix : {".cubin", ".manifest.json"}) {
    struct stat out;
    if (::stat((r.output + suffix).c_str(), &out) == 0 && out.st_dev == st.st_dev &&
        out.st_ino == st.st_ino)
      return false;
  }
  if (r.cacheDir.empty()) {
    // ImageCache::defaultDirectory().
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
      r.cacheDir = xdg;
    else if (const char *home = std::getenv("HOME"); home && *home)
      r.cacheDir = std::string(home) + "/.cache";
    else
      r.cacheDir = ".cache";
    r.cacheDir += "/gpuos";
  }
  return true;
}

/// The whole file, or false on any error.
bool readFile(const std::string &path, std::string &out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  out.clear();
  char buf[1 << 16];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0)
    out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return n == 0;
}

/// Writes `data` to `path` through a new temporary file beside it and a
/// rename, as the core does (a reader never sees half an image); every
/// step checked, the temporary file removed on failure.
bool writeFileAtomically(const std::string &path, const std::string &data) {
  std::string temp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0)
    return false;
  bool ok = ::fchmod(fd, 0644) == 0;
  for (size_t done = 0; ok && done < data.size();) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    ok = n > 0;
    done += ok ? static_cast<size_t>(n) : 0;
  }
  ok = ::close(fd) == 0 && ok;
  ok = ok && std::rename(temp.c_str(), path.c_str()) == 0;
  if (!ok)
    ::unlink(temp.c_str());
  return ok;
}

/// The directory of this program (where gpuos-jit-core is), or "".
std::string selfDirectory() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0)
    return "";
  std::string path(buf, static_cast<size_t>(n));
  return path.substr(0, path.find_last_of('/'));
}

/// The source key: everything the launcher can see that shapes the image,
/// and the SHA-256 of the input alone (the core checks that it parsed the
/// same bytes before it records the key). Files the core used (the runtime
/// library, nvJitLink, libLLVM, libdevice) are checked through the entry's
/// deps instead.
bool sourceKey(const Request &r, const std::string &core, std::string &key,
               std::string &inputSha) {
  std::string input;
  sourcekey::FileStamp coreStamp;
  if (!readFile(r.input, input) || !sourcekey::stampOf(core, coreStamp))
    return false;
  launcher::Sha256 inputHash;
  inputHash.update(input);
  inputSha = inputHash.hex();
  launcher::Sha256 h;
  h.update(sourcekey::kHeader);
  h.update("\ncore " + std::to_string(coreStamp.size) + " " +
           std::to_string(coreStamp.mtimeNs) + " " + coreStamp.path + "\n");
  for (const std::string &arg : r.keyArgs)
    h.update("arg " + arg + "\n");
  // What decides which files the core opens; a relative path among them
  // depends on the working directory too.
  bool relative = r.relativePaths;
  for (const char *name : {"GPUOS_RUNTIME_LIB", "GPUOS_RUNTIME_THROUGHPUT_LIB",
                           "GPUOS_NVJITLINK", "CUDA_HOME", "CUDA_PATH",
                           "CUDA_ROOT", "LD_LIBRARY_PATH"})
    if (const char *value = std::getenv(name)) {
      h.update(std::string("env ") + name + "=" + value + "\n");
      relative = relative || (*value && *value != '/');
    }
  if (relative) {
    char cwd[4096];
    if (!::getcwd(cwd, sizeof(cwd)))
      return false;
    h.update(std::string("cwd ") + cwd + "\n");
  }
  // The input's name as given: the image's manifest names it in the ops'
  // locations of a text without explicit ones.
  h.update("input " + r.input + " " + std::to_string(input.size()) + "\n");
  h.update(input);
  key = h.hex();
  return true;
}

/// Serves the request from the cache; false on any miss.
bool serve(const Request &r, const std::string &key, std::string &contentHash) {
  std::string text;
  sourcekey::Entry entry;
  if (!readFile(r.cacheDir + "/" + sourcekey::kSubdir + "/" + key, text) ||
      !sourcekey::parse(text, entry))
    return false;
  for (const sourcekey::FileStamp &dep : entry.deps) {
    sourcekey::FileStamp now;
    if (!sourcekey::stampOf(dep.path, now) || !(now == dep))
      return false;
  }
  std::string cubin, manifest;
  if (!readFile(r.cacheDir + "/" + entry.contentHash + ".cubin", cubin) ||
      !readFile(r.cacheDir + "/" + sourcekey::kManifestSubdir + "/" + key + ".json",
                manifest))
    return false;
  // A damaged cubin (truncated) is a miss: the core compiles and rewrites it.
  if (!gpuos::linkcheck::checkElf(cubin.data(), cubin.size()).empty())
    return false;
  if (!writeFileAtomically(r.output + ".cubin", cubin) ||
      !writeFileAtomically(r.output + ".manifest.json", manifest))
    return false;
  contentHash = entry.contentHash;
  return true;
}

/// Runs the core with the same arguments (argv[0] kept, so its messages
/// still say gpuos-jit), plus the source key to record when there is one.
int runCore(const std::string &core, int argc, char **argv, const std::string &key,
            const std::string &inputSha) {
  std::vector<std::string> args(argv, argv + argc);
  if (!key.empty())
    args.push_back(sourcekey::kOption + key + ":" + inputSha);
  std::vector<char *> cargs;
  for (std::string &a : args)
    cargs.push_back(a.data());
  cargs.push_back(nullptr);
  ::execv(core.c_str(), cargs.data());
  std::fprintf(stderr, "gpuos-jit: cannot run %s: %s\n", core.c_str(), std::strerror(errno));
  return 127;
}

} // namespace

int main(int argc, char **argv) {
  auto start = std::chrono::steady_clock::now();
  std::string self = selfDirectory();
  if (self.empty()) {
    std::fprintf(stderr, "gpuos-jit: cannot find %s: /proc/self/exe is not readable\n",
                 sourcekey::kCoreName);
    return 127;
  }
  std::string core = self + "/" + sourcekey::kCoreName;
  Request request;
  std::string key, inputSha, contentHash;
  if (!parse(argc, argv, request) || !sourceKey(request, core, key, inputSha))
    return runCore(core, argc, argv, "", "");
  if (!serve(request, key, contentHash))
    return runCore(core, argc, argv, key, inputSha);
  if (request.verbose) {
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    std::fprintf(stderr, "cache: hit %s (source key, %.1f ms)\n", contentHash.c_str(), ms);
  }
  return 0;
}
