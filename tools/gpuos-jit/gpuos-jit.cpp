//===- gpuos-jit.cpp - the gpuos-jit command: cache hits without LLVM -----===//
//
//   gpuos-jit in.mlir [options]      (the options are gpuos-jit-core's)
//
// A cache hit of the compiler takes a fraction of a millisecond, but the
// compiler's process needs ~17 ms to start (libLLVM.so) and more to load
// nvJitLink. This launcher, linked with nothing but libc, serves repeated
// compiles of unchanged input from the source-keyed index of the image cache
// (SourceKey.h) and runs gpuos-jit-core, found next to it, for everything
// else: a miss, --no-cache, an --emit other than image, standard input,
// custom sources, or any option spelling it does not parse (the core then
// decides, by content, exactly as it always did).
//
//===----------------------------------------------------------------------===//

#include "Sha256.h"
#include "SourceKey.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
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
                                  "maxrregcount", "block-size"};
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
            r.relativePaths = true;
        }
      if (!known) // --no-cache, --custom-source, --help, --version, ...
        return false;
    }
  }
  if (r.input.empty())
    return false;
  if (r.output.empty()) {
    // The input's stem, in the working directory (as the core does).
    std::string name = r.input.substr(r.input.find_last_of('/') + 1);
    size_t dot = name.find_last_of('.');
    r.output = dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
  }
  if (r.output.size() > 6 && r.output.compare(r.output.size() - 6, 6, ".cubin") == 0)
    r.output.resize(r.output.size() - 6);
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

bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream os;
  os << in.rdbuf();
  out = os.str();
  return static_cast<bool>(in) || in.eof();
}

/// Writes `data` to `path` through a temporary file and a rename, as the
/// core does (a reader never sees half an image).
bool writeFileAtomically(const std::string &path, const std::string &data) {
  std::string temp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(data.data(), static_cast<std::streamsize>(data.size())))
      return false;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return false;
  }
  return true;
}

std::string selfDirectory() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0)
    return ".";
  std::string path(buf, static_cast<size_t>(n));
  return path.substr(0, path.find_last_of('/'));
}

/// The source key: everything the launcher can see that shapes the image.
/// Files the core used (the runtime library, nvJitLink, libLLVM) are
/// checked through the entry's deps instead.
bool sourceKey(const Request &r, const std::string &core, std::string &key) {
  std::string input;
  sourcekey::FileStamp coreStamp;
  if (!readFile(r.input, input) || !sourcekey::stampOf(core, coreStamp))
    return false;
  launcher::Sha256 h;
  h.update(sourcekey::kHeader);
  h.update("\ncore " + std::to_string(coreStamp.size) + " " +
           std::to_string(coreStamp.mtimeNs) + " " + coreStamp.path + "\n");
  for (const std::string &arg : r.keyArgs)
    h.update("arg " + arg + "\n");
  for (const char *name : {"GPUOS_RUNTIME_LIB", "GPUOS_NVJITLINK", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(name))
      h.update(std::string("env ") + name + "=" + value + "\n");
  if (r.relativePaths) {
    char cwd[4096];
    if (!::getcwd(cwd, sizeof(cwd)))
      return false;
    h.update(std::string("cwd ") + cwd + "\n");
  }
  h.update("input " + std::to_string(input.size()) + "\n");
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
  std::string base = r.cacheDir + "/" + entry.contentHash;
  if (!readFile(base + ".cubin", cubin) || !readFile(base + ".manifest.json", manifest))
    return false;
  if (!writeFileAtomically(r.output + ".cubin", cubin) ||
      !writeFileAtomically(r.output + ".manifest.json", manifest))
    return false;
  contentHash = entry.contentHash;
  return true;
}

/// Runs the core with the same arguments (argv[0] kept, so its messages
/// still say gpuos-jit), plus the source key to record when there is one.
int runCore(const std::string &core, int argc, char **argv, const std::string &key) {
  std::vector<std::string> args(argv, argv + argc);
  if (!key.empty())
    args.push_back(sourcekey::kOption + key);
  std::vector<char *> cargs;
  for (std::string &a : args)
    cargs.push_back(a.data());
  cargs.push_back(nullptr);
  ::execv(core.c_str(), cargs.data());
  std::fprintf(stderr, "gpuos-jit: cannot run %s: %s\n", core.c_str(), std::strerror(errno));
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  auto start = std::chrono::steady_clock::now();
  std::string core = selfDirectory() + "/" + sourcekey::kCoreName;
  Request request;
  std::string key, contentHash;
  if (!parse(argc, argv, request) || !sourceKey(request, core, key))
    return runCore(core, argc, argv, "");
  if (!serve(request, key, contentHash))
    return runCore(core, argc, argv, key);
  if (request.verbose) {
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    std::fprintf(stderr, "cache: hit %s (source key, %.1f ms)\n", contentHash.c_str(), ms);
  }
  return 0;
}
