//===- LowerTasksToNVVM.cpp - the gpuos-lower-tasks-to-nvvm pass ----------===//
//
// Creates gpu.module @gpuos_tasks and, per task kind, the task function and
// its test kernel:
//
//   llvm.func @gpuos_task_<kind>(%args: !llvm.ptr, %tile: i32)
//   llvm.func @gpuos_launch_<kind>(%args: !llvm.ptr) attributes {nvvm.kernel}
//       -> call @gpuos_task_<kind>(%args, blockIdx.x)
//
// No nvvm.kernel on the task function: it must stay a `.visible .func` that
// links into the runtime's function table (docs/abi.md).
//
//===----------------------------------------------------------------------===//

#include "FinalizeToLLVM.h"
#include "TaskEmitter.h"
#include "gpuos/Conversion/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/StringMap.h"

namespace gpuos {
#define GEN_PASS_DEF_GPUOSLOWERTASKSTONVVM
#include "gpuos/Conversion/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;

static gpu::GPUModuleOp getOrCreateTaskModule(ModuleOp module) {
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>(kTaskModuleName))
    return existing;
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  return gpu::GPUModuleOp::create(builder, module.getLoc(), kTaskModuleName);
}

/// The test kernel: tile = blockIdx.x.
static void createLauncher(OpBuilder &builder, Location loc,
                           LLVM::LLVMFuncOp task, StringRef name) {
  MLIRContext *context = builder.getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), {ptr});
  auto kernel = LLVM::LLVMFuncOp::create(builder, loc, name, type);
  kernel->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                  UnitAttr::get(context));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(kernel.addEntryBlock(builder));
  Value tile = NVVM::BlockIdXOp::create(builder, loc, builder.getI32Type());
  LLVM::CallOp::create(builder, loc, task,
                       ValueRange{kernel.getArgument(0), tile});
  LLVM::ReturnOp::create(builder, loc, ValueRange{});
}

LogicalResult
gpuos::lowerTasksToNVVM(ModuleOp module, const LowerTasksOptions &options,
                        SmallVectorImpl<TaskCodegenInfo> *infos) {
  SmallVector<TaskOp> tasks;
  module.walk([&](TaskOp task) { tasks.push_back(task); });
  if (tasks.empty())
    return success();

  // docs/abi.md: a kind names one function, unique within an image.
  llvm::StringMap<TaskOp> byKind;
  for (TaskOp task : tasks) {
    auto [it, inserted] = byKind.try_emplace(task.getKind(), task);
    if (!inserted) {
      InFlightDiagnostic diag =
          task.emitOpError() << "kind '" << task.getKind()
                             << "' is already used by another task; kinds "
                                "name device functions and must be unique "
                                "within an image";
      diag.attachNote(it->second.getLoc()) << "the other task";
      return diag;
    }
  }

  gpu::GPUModuleOp gpuModule = getOrCreateTaskModule(module);
  MLIRContext *context = module.getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto taskType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(context), {ptr, IntegerType::get(context, 32)});
  OpBuilder builder = OpBuilder::atBlockEnd(gpuModule.getBody());
  for (TaskOp task : tasks) {
    FailureOr<TaskABI> abi = TaskABI::get(task);
    if (failed(abi))
      return failure();
    auto func =
        LLVM::LLVMFuncOp::create(builder, task.getLoc(), abi->function, taskType);
    // The test kernel calls the very .func the runtime will call through
    // its table, instead of an inlined copy (which would also double the
    // work of ptxas).
    func.setNoInline(true);
    codegen::TaskEmitter emitter(task, *abi, func, options);
    if (failed(emitter.emit())) {
      func.erase();
      return failure();
    }
    createLauncher(builder, task.getLoc(), func, abi->launcher);
    if (infos)
      infos->push_back(emitter.getInfo());
  }
  codegen::simplify(gpuModule);
  if (options.convertToLLVM && failed(codegen::finalizeToLLVM(gpuModule)))
    return gpuModule.emitError("could not convert the task functions to the "
                               "llvm dialect");
  return success();
}

namespace {
struct LowerTasksToNVVMPass
    : public gpuos::impl::GpuosLowerTasksToNVVMBase<LowerTasksToNVVMPass> {
  using Base::Base;
  void runOnOperation() override {
    LowerTasksOptions options;
    options.convertToLLVM = convertToLLVM;
    options.blockSize = blockSize;
    if (failed(lowerTasksToNVVM(getOperation(), options)))
      signalPassFailure();
  }
};
} // namespace
