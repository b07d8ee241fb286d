//===- Manifest.h - the runtime's view of an image manifest -----*- C++ -*-===//
//
// docs/abi.md "Manifest", as C++ structures, read from the JSON the
// compiler writes. The runtime needs, per task kind: the argument block
// (buffers, then dynamic slots), the tile rule, the launch shape, and the
// graph structure (graph name, priority, depends_on) for graphs built from
// the manifest. Unknown fields are ignored, so the compiler may add more.
//
// Dynamic sizes and strides are written as -1, null or "?" in "shape" and
// "strides"; each takes the next "dynamic" slot, buffer by buffer, sizes
// before strides (docs/abi.md "The argument block").
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_MANIFEST_H
#define GPUOS_RUNTIME_MANIFEST_H

#include "gpuos/runtime/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuos::runtime {

/// Scheduling classes; the device has one ready queue each, urgent first.
enum class Priority : uint32_t { Urgent = 0, Normal = 1, Background = 2 };
const char *priorityName(Priority priority);
bool parsePriority(std::string_view name, Priority &out);

constexpr int64_t kDynamic = -1;

struct ManifestBuffer {
  std::string name;
  bool isOutput = false;
  std::string dtype;
  int64_t elemBytes = 0;
  std::vector<int64_t> shape;   // kDynamic where dynamic
  std::vector<int64_t> strides; // in elements; kDynamic where dynamic
  int64_t vectorAlign = 0;      // bytes; 0 when unconstrained
};

/// One op a task was compiled from (the manifest's optional "ops", in body
/// order): its name and where the compiler's input had it ("file:line:col",
/// empty when unknown). Error messages that name a task name these.
struct ManifestOp {
  std::string name;
  std::string loc;
};

struct ManifestTask {
  std::string kind;
  std::string function;
  std::string graph;
  Priority priority = Priority::Normal;
  int64_t deadlineUs = 0; // 0: none
  int64_t blockSize = 0;
  int64_t sharedBytes = 0;
  std::vector<int64_t> tile;
  int64_t numTiles = 0; // 0 when the manifest leaves it to the runtime
  std::vector<ManifestBuffer> buffers;
  std::vector<std::string> dynamic; // names of the dynamic slots
  std::vector<int64_t> dependsOn;   // indices into ImageManifest::tasks
  std::vector<ManifestOp> ops;      // optional: what the task computes

  size_t argBlockBytes() const;
};

struct ImageManifest {
  int64_t abi = 0;
  std::string arch;
  std::string contentHash;
  std::vector<ManifestTask> tasks; // index == kind id passed to dispatch

  /// Index of `kind`, or -1.
  int findKind(std::string_view kind) const;
  /// "iota4k, scale4k, ..." for error messages.
  std::string kindList() const;
};

/// The supported manifest ABI version (docs/abi.md).
constexpr int64_t kManifestAbi = 0;

/// Bytes per element of a dtype name (f32 -> 4, i1 -> 1), 0 if unknown.
int64_t dtypeBytes(std::string_view dtype);

/// Bytes from a view's element [0, ..., 0] to one past its last element
/// (shape, strides in elements, no dynamic entries; 0 for an empty view);
/// false when that does not fit 64 bits.
bool viewExtentBytes(const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &strides, int64_t elemBytes,
                     uint64_t &bytes);

/// Parses and checks a manifest: required fields, types, buffer roles,
/// consistent ranks, depends_on in range and acyclic, C-identifier kinds
/// unique within the image.
Status parseManifest(std::string_view json, ImageManifest &out);

} // namespace gpuos::runtime

#endif // GPUOS_RUNTIME_MANIFEST_H
