//===- gpuos-manifest-check.cpp - a manifest through the runtime's parser -===//
//
//   gpuos-manifest-check img.manifest.json
//
// Reads a gpuos-jit manifest with the runtime's own parser
// (gpuos::runtime::parseManifest), so the compiler's output and the
// runtime's reader cannot drift apart unnoticed; prints what the runtime
// understood (kinds in dispatch order, graphs, dependencies, argument block
// sizes) for FileCheck. Exit 1 with the parser's message if it rejects the
// manifest. No GPU and no LLVM needed.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/Manifest.h"
#include "gpuos/runtime/Runtime.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace gpuos::runtime;

int main(int argc, char **argv) {
  const char *usage = "usage: gpuos-manifest-check img.manifest.json\n";
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::fputs(usage, stdout);
    return 0;
  }
  // An option is not a file name ("--help" was read as one).
  if (argc != 2 || (argv[1][0] == '-' && argv[1][1] != '\0')) {
    std::fputs(usage, stderr);
    return 2;
  }
  std::vector<char> text;
  Status st = readFile(argv[1], text);
  ImageManifest manifest;
  if (st.ok())
    st = parseManifest(std::string_view(text.data(), text.size()), manifest);
  if (!st.ok()) {
    std::fprintf(stderr, "gpuos-manifest-check: %s: %s\n", argv[1],
                 st.toString().c_str());
    return 1;
  }
  std::printf("manifest ok: abi %lld, %s, %zu tasks\n", (long long)manifest.abi,
              manifest.arch.c_str(), manifest.tasks.size());
  for (size_t i = 0; i < manifest.tasks.size(); ++i) {
    const ManifestTask &t = manifest.tasks[i];
    std::printf("kind %zu %s graph=%s priority=%s tiles=%lld block=%lld "
                "shared=%lld buffers=%zu args=%zu deps=",
                i, t.kind.c_str(), t.graph.c_str(), priorityName(t.priority),
                (long long)t.numTiles, (long long)t.blockSize,
                (long long)t.sharedBytes, t.buffers.size(), t.argBlockBytes());
    for (size_t d = 0; d < t.dependsOn.size(); ++d)
      std::printf("%s%lld", d ? "," : "", (long long)t.dependsOn[d]);
    std::printf("\n");
  }
  // A failed write (a full disk) is not a successful check.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "gpuos-manifest-check: writing the report failed\n");
    return 1;
  }
  return 0;
}
