//===- UniqueKinds.cpp - one task per kind in a module --------------------===//
//
// The fusion passes run on one graph at a time, so a kind they generate
// can equal a kind another graph was written with. This module pass keeps
// the written kind and renames the generated ones (Passes.td says which).
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

namespace gpuos {
#define GEN_PASS_DEF_GPUOSUNIQUEKINDS
#include "gpuos/Dialect/Gpuos/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;
using namespace gpuos::fusion;

namespace {
struct UniqueKinds : gpuos::impl::GpuosUniqueKindsBase<UniqueKinds> {
  void runOnOperation() override {
    llvm::MapVector<StringRef, SmallVector<TaskOp>> byKind;
    llvm::StringSet<> used;
    getOperation().walk([&](TaskOp task) {
      byKind[task.getKind()].push_back(task);
      used.insert(task.getKind());
    });
    for (auto &[kind, tasks] : byKind) {
      if (tasks.size() < 2)
        continue;
      // The keeper: the first written task, else the first task.
      TaskOp keeper = tasks.front();
      for (TaskOp task : tasks)
        if (!hasGeneratedKind(task)) {
          keeper = task;
          break;
        }
      std::string base = kind.str();
      unsigned suffix = 1;
      for (TaskOp task : tasks) {
        if (task == keeper || !hasGeneratedKind(task))
          continue;
        std::string fresh;
        do
          fresh = base + "_" + std::to_string(suffix++);
        while (used.contains(fresh));
        used.insert(fresh);
        task.setKind(fresh);
      }
    }
  }
};
} // namespace
