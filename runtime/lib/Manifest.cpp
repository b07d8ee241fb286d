//===- Manifest.cpp - reading image manifests -----------------------------===//

#include "gpuos/runtime/Manifest.h"
#include "gpuos/runtime/Json.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

namespace gpuos::runtime {

const char *priorityName(Priority priority) {
  switch (priority) {
  case Priority::Urgent:
    return "urgent";
  case Priority::Normal:
    return "normal";
  case Priority::Background:
    return "background";
  }
  return "?";
}

bool parsePriority(std::string_view name, Priority &out) {
  if (name == "urgent")
    out = Priority::Urgent;
  else if (name == "normal")
    out = Priority::Normal;
  else if (name == "background")
    out = Priority::Background;
  else
    return false;
  return true;
}

int64_t dtypeBytes(std::string_view d) {
  if (d == "i1" || d == "i8" || d == "u8" || d == "si8" || d == "ui8")
    return 1;
  if (d == "f16" || d == "bf16" || d == "i16" || d == "u16")
    return 2;
  if (d == "f32" || d == "i32" || d == "u32" || d == "tf32")
    return 4;
  if (d == "f64" || d == "i64" || d == "u64" || d == "index")
    return 8;
  return 0;
}

bool viewExtentBytes(const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &strides, int64_t elemBytes,
                     uint64_t &bytes) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
    bytes = 0;
    return true;
  }
  uint64_t extent = (uint64_t)elemBytes, step;
  for (size_t d = 0; d < shape.size(); ++d)
    if (__builtin_mul_overflow((uint64_t)(shape[d] - 1), (uint64_t)strides[d], &step) ||
        __builtin_mul_overflow(step, (uint64_t)elemBytes, &step) ||
        __builtin_add_overflow(extent, step, &extent))
      return false;
  bytes = extent;
  return true;
}

size_t ManifestTask::argBlockBytes() const {
  size_t bytes = 8 * (buffers.size() + dynamic.size());
  return (bytes + 15) & ~size_t(15);
}

int ImageManifest::findKind(std::string_view kind) const {
  for (size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].kind == kind)
      return (int)i;
  return -1;
}

std::string ImageManifest::kindList() const {
  std::string list;
  for (const ManifestTask &t : tasks)
    list += (list.empty() ? "" : ", ") + t.kind;
  return list;
}

namespace {

bool isCIdentifier(const std::string &s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum((unsigned char)c) || c == '_'))
      return false;
  return true;
}

/// Builds "manifest: tasks[3] ('add'): buffers[1]: what" messages.
struct Context {
  std::string prefix = "manifest";
  Status fail(const std::string &what) const {
    return Status::error(ErrorCode::BadImage, prefix + ": " + what);
  }
  Context nest(const std::string &part) const {
    Context c;
    c.prefix = prefix + ": " + part;
    return c;
  }
};

Status getString(const Context &cx, const json::Value &obj, const char *key,
                 bool required, std::string &out) {
  const json::Value *v = obj.find(key);
  if (!v || v->isNull()) {
    if (required)
      return cx.fail(std::string("missing '") + key + "'");
    return Status::success();
  }
  if (!v->isString())
    return cx.fail(std::string("'") + key + "' must be a string");
  out = v->asString();
  return Status::success();
}

Status getInt(const Context &cx, const json::Value &obj, const char *key,
              bool required, int64_t &out) {
  const json::Value *v = obj.find(key);
  if (!v || v->isNull()) {
    if (required)
      return cx.fail(std::string("missing '") + key + "'");
    return Status::success();
  }
  if (!v->isInteger())
    return cx.fail(std::string("'") + key + "' must be an integer");
  out = v->asInteger();
  return Status::success();
}

/// An array of integers; with `allowDynamic`, -1, null and "?" mean dynamic.
Status getDims(const Context &cx, const json::Value &obj, const char *key,
               bool allowDynamic, std::vector<int64_t> &out) {
  const json::Value *v = obj.find(key);
  std::string expect = std::string("'") + key + "' must be an array of " +
                       (allowDynamic ? "integers (-1, null or \"?\" where "
                                       "dynamic)"
                                     : "positive integers");
  if (!v || !v->isArray())
    return cx.fail(v ? expect : std::string("missing '") + key + "'");
  out.clear();
  for (const json::Value &item : v->items()) {
    if (allowDynamic && (item.isNull() || (item.isString() && item.asString() == "?") ||
                         (item.isInteger() && item.asInteger() == -1))) {
      out.push_back(kDynamic);
      continue;
    }
    if (!item.isInteger() || item.asInteger() < (allowDynamic ? 0 : 1))
      return cx.fail(expect);
    out.push_back(item.asInteger());
  }
  return Status::success();
}

Status parseBuffer(const Context &cx, const json::Value &v,
                   ManifestBuffer &b) {
  if (!v.isObject())
    return cx.fail("must be an object");
  GPUOS_RETURN_IF_ERROR(getString(cx, v, "name", true, b.name));
  std::string role;
  GPUOS_RETURN_IF_ERROR(getString(cx, v, "role", true, role));
  if (role != "input" && role != "output")
    return cx.fail("'role' must be \"input\" or \"output\", not \"" + role +
                   "\"");
  b.isOutput = role == "output";
  GPUOS_RETURN_IF_ERROR(getString(cx, v, "dtype", true, b.dtype));
  int64_t known = dtypeBytes(b.dtype);
  b.elemBytes = known;
  GPUOS_RETURN_IF_ERROR(getInt(cx, v, "elem_bytes", false, b.elemBytes));
  if (b.elemBytes <= 0)
    return cx.fail("unknown dtype '" + b.dtype + "' and no 'elem_bytes'");
  // Copies and bounds use elem_bytes, the task code the dtype: they agree.
  if (known && b.elemBytes != known)
    return cx.fail("'elem_bytes' is " + std::to_string(b.elemBytes) +
                   " but dtype '" + b.dtype + "' has " + std::to_string(known));
  GPUOS_RETURN_IF_ERROR(getDims(cx, v, "shape", true, b.shape));
  if (v.find("strides")) {
    GPUOS_RETURN_IF_ERROR(getDims(cx, v, "strides", true, b.strides));
  } else {
    // Contiguous row-major; dynamic sizes make dynamic strides.
    b.strides.assign(b.shape.size(), 1);
    for (size_t i = b.shape.size(); i-- > 1;)
      if (b.shape[i] == kDynamic || b.strides[i] == kDynamic)
        b.strides[i - 1] = kDynamic;
      else if (__builtin_mul_overflow(b.shape[i], b.strides[i], &b.strides[i - 1]))
        return cx.fail("'shape' spans more than 2^63 elements");
  }
  if (b.strides.size() != b.shape.size())
    return cx.fail("'strides' has " + std::to_string(b.strides.size()) +
                   " entries for a rank-" + std::to_string(b.shape.size()) +
                   " 'shape'");
  auto isDynamic = [](int64_t d) { return d == kDynamic; };
  bool dynamic = std::any_of(b.shape.begin(), b.shape.end(), isDynamic) ||
                 std::any_of(b.strides.begin(), b.strides.end(), isDynamic);
  uint64_t extent;
  if (!dynamic && !viewExtentBytes(b.shape, b.strides, b.elemBytes, extent))
    return cx.fail("the view spans more than 2^64 bytes");
  GPUOS_RETURN_IF_ERROR(getInt(cx, v, "vector_align", false, b.vectorAlign));
  if (b.vectorAlign < 0 || (b.vectorAlign & (b.vectorAlign - 1)))
    return cx.fail("'vector_align' must be 0 or a power of two");
  return Status::success();
}

Status parseTask(const Context &cx, const json::Value &v, ManifestTask &t) {
  if (!v.isObject())
    return cx.fail("must be an object");
  GPUOS_RETURN_IF_ERROR(getString(cx, v, "kind", true, t.kind));
  Context tcx = cx;
  tcx.prefix += " ('" + t.kind + "')";
  if (!isCIdentifier(t.kind))
    return tcx.fail("'kind' must be a C identifier");
  t.function = "gpuos_task_" + t.kind;
  GPUOS_RETURN_IF_ERROR(getString(tcx, v, "function", false, t.function));
  if (!isCIdentifier(t.function))
    return tcx.fail("'function' must be a C identifier, not \"" + t.function + "\"");
  GPUOS_RETURN_IF_ERROR(getString(tcx, v, "graph", false, t.graph));
  std::string priority = "normal";
  GPUOS_RETURN_IF_ERROR(getString(tcx, v, "priority", false, priority));
  if (!parsePriority(priority, t.priority))
    return tcx.fail("'priority' must be \"urgent\", \"normal\" or "
                    "\"background\", not \"" + priority + "\"");
  GPUOS_RETURN_IF_ERROR(getInt(tcx, v, "deadline_us", false, t.deadlineUs));
  t.blockSize = 256;
  GPUOS_RETURN_IF_ERROR(getInt(tcx, v, "block_size", false, t.blockSize));
  if (t.blockSize < 32 || t.blockSize > 1024 || t.blockSize % 32)
    return tcx.fail("'block_size' must be a multiple of 32 in [32, 1024]");
  GPUOS_RETURN_IF_ERROR(getInt(tcx, v, "shared_bytes", false, t.sharedBytes));
  if (t.sharedBytes < 0 || t.sharedBytes > UINT32_MAX)
    return tcx.fail("'shared_bytes' must be in [0, 2^32)");
  GPUOS_RETURN_IF_ERROR(getDims(tcx, v, "tile", false, t.tile));
  GPUOS_RETURN_IF_ERROR(getInt(tcx, v, "num_tiles", false, t.numTiles));
  // The device counts a task's tiles in 32 bits (Protocol.h).
  if (t.numTiles < 0 || t.numTiles > UINT32_MAX)
    return tcx.fail("'num_tiles' must be in [0, 2^32)");

  const json::Value *buffers = v.find("buffers");
  if (!buffers || !buffers->isArray())
    return tcx.fail("'buffers' must be an array");
  for (size_t i = 0; i < buffers->items().size(); ++i) {
    ManifestBuffer b;
    GPUOS_RETURN_IF_ERROR(parseBuffer(
        tcx.nest("buffers[" + std::to_string(i) + "]"), buffers->items()[i], b));
    t.buffers.push_back(std::move(b));
  }
  // Bindings are by name (createGraphFromManifest): one buffer each.
  for (size_t i = 0; i < t.buffers.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (t.buffers[i].name == t.buffers[j].name)
        return tcx.fail("buffers[" + std::to_string(i) + "]: the name '" +
                        t.buffers[i].name + "' is buffers[" + std::to_string(j) +
                        "]'s too");
  bool seenOutput = false;
  for (const ManifestBuffer &b : t.buffers) {
    if (b.isOutput)
      seenOutput = true;
    else if (seenOutput)
      return tcx.fail("buffer '" + b.name +
                      "' is an input after an output; the ABI lists inputs, "
                      "then outputs");
  }

  if (const json::Value *dynamic = v.find("dynamic")) {
    if (!dynamic->isArray())
      return tcx.fail("'dynamic' must be an array");
    for (const json::Value &d : dynamic->items()) {
      if (d.isString())
        t.dynamic.push_back(d.asString());
      else if (d.isInteger())
        t.dynamic.push_back(std::to_string(d.asInteger()));
      else
        return tcx.fail("'dynamic' entries must be names");
    }
  }
  size_t dynamicDims = 0;
  for (const ManifestBuffer &b : t.buffers)
    for (size_t i = 0; i < b.shape.size(); ++i)
      dynamicDims += (b.shape[i] == kDynamic) + (b.strides[i] == kDynamic);
  if (dynamicDims > t.dynamic.size())
    return tcx.fail("the buffers have " + std::to_string(dynamicDims) +
                    " dynamic sizes and strides but 'dynamic' names only " +
                    std::to_string(t.dynamic.size()));

  const ManifestBuffer *first = nullptr;
  for (const ManifestBuffer &b : t.buffers)
    if (b.isOutput) {
      first = &b;
      break;
    }
  if (first && first->shape.size() != t.tile.size())
    return tcx.fail("'tile' has rank " + std::to_string(t.tile.size()) +
                    " but the first result '" + first->name + "' has rank " +
                    std::to_string(first->shape.size()));
  if (!first && t.numTiles == 0)
    return tcx.fail("a task without results needs 'num_tiles'");

  if (const json::Value *deps = v.find("depends_on")) {
    if (!deps->isArray())
      return tcx.fail("'depends_on' must be an array of task indices");
    for (const json::Value &d : deps->items()) {
      if (!d.isInteger())
        return tcx.fail("'depends_on' must be an array of task indices");
      t.dependsOn.push_back(d.asInteger());
    }
  }
  if (const json::Value *ops = v.find("ops")) {
    if (!ops->isArray())
      return tcx.fail("'ops' must be an array");
    for (size_t i = 0; i < ops->items().size(); ++i) {
      Context ocx = tcx.nest("ops[" + std::to_string(i) + "]");
      const json::Value &o = ops->items()[i];
      if (!o.isObject())
        return ocx.fail("must be an object");
      ManifestOp op;
      GPUOS_RETURN_IF_ERROR(getString(ocx, o, "name", true, op.name));
      GPUOS_RETURN_IF_ERROR(getString(ocx, o, "loc", false, op.loc));
      t.ops.push_back(std::move(op));
    }
  }
  return Status::success();
}

} // namespace

Status parseManifest(std::string_view text, ImageManifest &out) {
  json::Value root;
  std::string error;
  if (!json::parse(text, root, error))
    return Status::error(ErrorCode::BadImage, "manifest: invalid JSON: " + error);
  Context cx;
  if (!root.isObject())
    return cx.fail("the document must be an object");
  ImageManifest m;
  GPUOS_RETURN_IF_ERROR(getInt(cx, root, "abi", true, m.abi));
  if (m.abi != kManifestAbi)
    return cx.fail("ABI version " + std::to_string(m.abi) +
                   " is not supported (this runtime reads version " +
                   std::to_string(kManifestAbi) + ")");
  GPUOS_RETURN_IF_ERROR(getString(cx, root, "arch", false, m.arch));
  GPUOS_RETURN_IF_ERROR(getString(cx, root, "content_hash", false, m.contentHash));
  const json::Value *tasks = root.find("tasks");
  if (!tasks || !tasks->isArray())
    return cx.fail("'tasks' must be an array");
  std::unordered_set<std::string> kinds;
  for (size_t i = 0; i < tasks->items().size(); ++i) {
    ManifestTask t;
    GPUOS_RETURN_IF_ERROR(parseTask(cx.nest("tasks[" + std::to_string(i) + "]"),
                                    tasks->items()[i], t));
    if (!kinds.insert(t.kind).second)
      return cx.fail("tasks[" + std::to_string(i) + "]: kind '" + t.kind +
                     "' appears twice; kinds are unique within an image");
    m.tasks.push_back(std::move(t));
  }
  // depends_on: in range, same graph, no cycles.
  int64_t n = (int64_t)m.tasks.size();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t d : m.tasks[i].dependsOn) {
      std::string where = "tasks[" + std::to_string(i) + "] ('" +
                          m.tasks[i].kind + "')";
      if (d < 0 || d >= n)
        return cx.fail(where + ": depends_on " + std::to_string(d) +
                       " is not a task index (0.." + std::to_string(n - 1) + ")");
      if (d == i)
        return cx.fail(where + ": depends on itself");
      if (m.tasks[d].graph != m.tasks[i].graph)
        return cx.fail(where + ": depends on task " + std::to_string(d) +
                       " of another graph ('" + m.tasks[d].graph + "')");
    }
  // Kahn's algorithm: every task is placed iff there is no cycle.
  std::vector<int64_t> pending(n), order;
  std::vector<std::vector<int64_t>> users(n);
  for (int64_t i = 0; i < n; ++i) {
    pending[i] = (int64_t)m.tasks[i].dependsOn.size();
    for (int64_t d : m.tasks[i].dependsOn)
      users[d].push_back(i);
  }
  for (int64_t i = 0; i < n; ++i)
    if (!pending[i])
      order.push_back(i);
  for (size_t k = 0; k < order.size(); ++k)
    for (int64_t u : users[order[k]])
      if (--pending[u] == 0)
        order.push_back(u);
  for (int64_t i = 0; i < n; ++i)
    if (pending[i])
      return cx.fail("depends_on has a cycle through tasks[" +
                     std::to_string(i) + "] ('" + m.tasks[i].kind + "')");
  out = std::move(m);
  return Status::success();
}

} // namespace gpuos::runtime
