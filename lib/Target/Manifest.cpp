//===- Manifest.cpp - the JSON description of an image --------------------===//

#include "gpuos/Target/Manifest.h"
#include "gpuos/Conversion/TaskABI.h"
#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace gpuos;

LogicalResult gpuos::checkPartitioned(ModuleOp module) {
  WalkResult walk = module.walk([&](GraphOp graph) {
    for (Operation &op : graph.getBodyBlock().without_terminator())
      if (!isa<TaskOp>(op)) {
        op.emitOpError() << "is outside a gpuos.task in graph @"
                         << graph.getSymName()
                         << "; an image holds task functions only, so "
                            "partition the graph into tasks first";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

static std::string dtypeName(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return name;
}

/// Graph input and output names where a buffer is one, else a name shared
/// by the task producing an intermediate and the tasks reading it.
static std::string bufferName(GraphOp graph, Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    if (arg.getOwner() == &graph.getBodyBlock())
      return cast<StringAttr>(graph.getInputNames()[arg.getArgNumber()])
          .getValue()
          .str();
  auto yield = cast<YieldOp>(graph.getBodyBlock().getTerminator());
  for (auto [index, output] : llvm::enumerate(yield.getValues()))
    if (output == value)
      return cast<StringAttr>(graph.getOutputNames()[index]).getValue().str();
  auto result = cast<OpResult>(value);
  auto task = cast<TaskOp>(result.getOwner());
  return ("tmp_" + task.getKind() + "_" + Twine(result.getResultNumber())).str();
}

/// "file:line:col" of the first file location inside `loc` (through
/// fused, named and call-site locations), or "" when it has none.
static std::string sourceLocation(Location loc) {
  auto file = loc->findInstanceOf<FileLineColRange>();
  if (!file)
    return "";
  std::string where = (file.getFilename().getValue() + ":" +
                       Twine(file.getStartLine()) + ":" +
                       Twine(file.getStartColumn()))
                          .str();
  // JSON strings are UTF-8; a file name need not be.
  return llvm::json::isUTF8(where) ? where : llvm::json::fixUTF8(where);
}

/// The manifest's "ops" of a task: the compute ops of its body in order
/// (views and constants too when there is nothing else), each with its
/// source location, so a runtime error about the task can name them.
static void writeOps(llvm::json::OStream &json, TaskOp task) {
  auto cheap = [](Operation &op) {
    return op.hasTrait<gpuos::OpTrait::View>() || isa<ConstantOp>(op);
  };
  Block &body = task.getBodyBlock();
  bool computes = llvm::any_of(body.without_terminator(),
                               [&](Operation &op) { return !cheap(op); });
  json.attributeArray("ops", [&] {
    for (Operation &op : body.without_terminator()) {
      if (computes && cheap(op))
        continue;
      json.object([&] {
        json.attribute("name", op.getName().getStringRef());
        std::string where = sourceLocation(op.getLoc());
        if (where.empty())
          json.attribute("loc", nullptr);
        else
          json.attribute("loc", where);
      });
    }
  });
}

static void writeDims(llvm::json::OStream &json, StringRef key,
                      ArrayRef<int64_t> dims) {
  json.attributeArray(key, [&] {
    for (int64_t dim : dims)
      json.value(dim);
  });
}

FailureOr<std::string>
gpuos::buildManifest(ModuleOp module, ArrayRef<TaskCodegenInfo> infos,
                     const ManifestOptions &options) {
  if (failed(checkPartitioned(module)))
    return failure();
  llvm::StringMap<const TaskCodegenInfo *> infoByKind;
  for (const TaskCodegenInfo &info : infos)
    infoByKind[info.kind] = &info;

  // Global task order first: depends_on refers to it, and gpuos_dispatch
  // numbers kinds by it.
  SmallVector<std::pair<GraphOp, TaskOp>> order;
  llvm::DenseMap<Operation *, int64_t> position;
  for (TaskOp task : imageTaskOrder(module)) {
    position[task] = order.size();
    order.push_back({task->getParentOfType<GraphOp>(), task});
  }

  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, /*IndentSize=*/2);
  bool ok = true;
  json.object([&] {
    json.attribute("abi", kImageAbiVersion);
    json.attribute("arch", options.arch);
    json.attribute("content_hash", options.contentHash);
    json.attribute("dispatch", kDispatchFunctionName);
    // The runtime's relocatable device library linked into the image (the
    // resident kernel), or null for an image of task functions and test
    // kernels only.
    if (options.runtimeLibrary.empty())
      json.attribute("runtime", nullptr);
    else
      json.attributeObject("runtime", [&] {
        json.attribute("library", options.runtimeLibrary);
        json.attribute("sha256", options.runtimeHash);
      });
    json.attributeArray("tasks", [&] {
      for (auto [graph, task] : order) {
        FailureOr<TaskABI> abi = TaskABI::get(task);
        const TaskCodegenInfo *info = infoByKind.lookup(task.getKind());
        if (failed(abi) || !info) {
          ok = false;
          continue;
        }
        PriorityAttr priority = task.getPriorityAttr();
        if (!priority)
          priority = graph.getPriorityAttr();
        json.object([&] {
          json.attribute("kind", abi->kind);
          json.attribute("function", abi->function);
          json.attribute("launcher", abi->launcher);
          json.attribute("graph", graph.getSymName());
          json.attribute("priority",
                         priority ? stringifyPriorityClass(priority.getLevel())
                                  : StringRef("normal"));
          if (priority && priority.getDeadlineUs())
            json.attribute("deadline_us", *priority.getDeadlineUs());
          else
            json.attribute("deadline_us", nullptr);
          json.attribute("block_size", info->blockSize);
          json.attribute("shared_bytes", info->sharedBytes);
          writeDims(json, "tile", abi->tile);
          json.attribute("num_tiles", abi->numTiles);
          json.attribute("lanes", int64_t(info->lanes));
          json.attribute("strategy", info->strategy);
          json.attributeArray("buffers", [&] {
            SmallVector<Value> values(task.getInputs());
            llvm::append_range(values, task.getResults());
            for (auto [index, value] : llvm::enumerate(values)) {
              auto type = cast<StridedTensorType>(value.getType());
              json.object([&] {
                json.attribute("name", bufferName(graph, value));
                json.attribute("role",
                               index < abi->numInputs ? "input" : "output");
                json.attribute("dtype", dtypeName(type.getElementType()));
                writeDims(json, "shape", type.getShape());
                writeDims(json, "strides", type.getEffectiveStrides());
                json.attribute("elem_bytes",
                               int64_t(elementStorageBytes(type.getElementType())));
                // What the fast path wants, not what the function needs:
                // it checks the vectorized buffers' alignment at entry and
                // runs a scalar copy otherwise, so any element-aligned
                // address is correct. (`vector_align`, which the runtime
                // enforces, is for functions without that check.)
                bool vector = index < info->vectorBuffers.size() &&
                              info->vectorBuffers[index];
                json.attribute("fast_align", vector ? 16 : 0);
              });
            }
          });
          json.attributeArray("dynamic", [] {});
          json.attributeArray("depends_on", [&] {
            SmallVector<int64_t> deps;
            for (Value input : task.getInputs())
              if (Operation *producer = input.getDefiningOp())
                if (position.count(producer))
                  deps.push_back(position[producer]);
            llvm::sort(deps);
            deps.erase(llvm::unique(deps), deps.end());
            for (int64_t dep : deps)
              json.value(dep);
          });
          writeOps(json, task);
        });
      }
    });
  });
  os << "\n";
  if (!ok)
    return failure();
  return text;
}

FailureOr<std::string> gpuos::rebuildManifest(ModuleOp module,
                                              StringRef cached) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(cached);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return failure();
  }
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Array *tasks = root ? root->getArray("tasks") : nullptr;
  if (!tasks)
    return failure();
  // A string field into `out`; false when it is missing.
  auto readString = [](const llvm::json::Object &object, StringRef key,
                       std::string &out) {
    std::optional<StringRef> value = object.getString(key);
    if (value)
      out = value->str();
    return value.has_value();
  };
  ManifestOptions options;
  if (!readString(*root, "arch", options.arch) ||
      !readString(*root, "content_hash", options.contentHash))
    return failure();
  const llvm::json::Object *runtime = root->getObject("runtime");
  if (runtime && (!readString(*runtime, "library", options.runtimeLibrary) ||
                  !readString(*runtime, "sha256", options.runtimeHash)))
    return failure();
  // What codegen reported per kind, as the cached manifest recorded it.
  SmallVector<TaskCodegenInfo> infos;
  for (const llvm::json::Value &value : *tasks) {
    const llvm::json::Object *task = value.getAsObject();
    if (!task)
      return failure();
    TaskCodegenInfo info;
    std::optional<int64_t> block = task->getInteger("block_size");
    std::optional<int64_t> shared = task->getInteger("shared_bytes");
    std::optional<int64_t> lanes = task->getInteger("lanes");
    const llvm::json::Array *buffers = task->getArray("buffers");
    if (!readString(*task, "kind", info.kind) ||
        !readString(*task, "strategy", info.strategy) || !block || !shared ||
        !lanes || !buffers)
      return failure();
    info.blockSize = *block;
    info.sharedBytes = *shared;
    info.lanes = unsigned(*lanes);
    for (const llvm::json::Value &buffer : *buffers) {
      const llvm::json::Object *b = buffer.getAsObject();
      std::optional<int64_t> align = b ? b->getInteger("fast_align") : std::nullopt;
      if (!align)
        return failure();
      info.vectorBuffers.push_back(*align != 0);
    }
    infos.push_back(std::move(info));
  }
  return buildManifest(module, infos, options);
}
