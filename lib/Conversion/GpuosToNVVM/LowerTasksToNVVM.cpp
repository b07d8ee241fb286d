//===- LowerTasksToNVVM.cpp - the gpuos-lower-tasks-to-nvvm pass ----------===//
//
// Creates gpu.module @gpuos_tasks and, per task kind, the task function and
// its test kernel:
//
//   llvm.func @gpuos_task_<kind>(%args: !llvm.ptr, %tile: i32)
//   llvm.func @gpuos_launch_<kind>(%args: !llvm.ptr) attributes {nvvm.kernel}
//       -> call @gpuos_task_<kind>(%args, blockIdx.x)
//
// and, once per image, the switch the runtime's resident kernel calls:
//
//   llvm.func @gpuos_dispatch(%kind: i32, %args: !llvm.ptr, %tile: i32) -> i32
//       -> kind i (its index in the manifest): call @gpuos_task_<kind i>,
//          return 0; any other kind: return 1000 + kind
//
// No nvvm.kernel on the task functions or the switch: they must stay
// `.visible .func`s that nvJitLink links with the runtime's relocatable
// device library (docs/abi.md).
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

/// gpuos_dispatch: kind i calls the function of imageTaskOrder()[i]
/// directly. `kind` is the same in every thread of the block, so every
/// thread returns the same value, as the ABI requires.
static void createDispatch(OpBuilder &builder, Location loc,
                           ArrayRef<LLVM::LLVMFuncOp> functions) {
  MLIRContext *context = builder.getContext();
  Type i32 = builder.getI32Type();
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto type = LLVM::LLVMFunctionType::get(i32, {i32, ptr, i32});
  auto dispatch =
      LLVM::LLVMFuncOp::create(builder, loc, kDispatchFunctionName, type);
  OpBuilder::InsertionGuard guard(builder);
  Block *entry = dispatch.addEntryBlock(builder);
  Value kind = entry->getArgument(0), args = entry->getArgument(1),
        tile = entry->getArgument(2);
  Region &body = dispatch.getBody();
  // An unknown kind: 1000 + kind, as the runtime's own test image does, so
  // the runtime's error names the kind.
  Block *unknown = builder.createBlock(&body, body.end());
  Value base = LLVM::ConstantOp::create(builder, loc, i32, 1000);
  LLVM::ReturnOp::create(builder, loc,
                         ValueRange{LLVM::AddOp::create(builder, loc, base, kind)});
  SmallVector<int32_t> cases;
  SmallVector<Block *> targets;
  for (auto [index, function] : llvm::enumerate(functions)) {
    Block *block = builder.createBlock(&body, body.end());
    LLVM::CallOp::create(builder, loc, function, ValueRange{args, tile});
    Value zero = LLVM::ConstantOp::create(builder, loc, i32, 0);
    LLVM::ReturnOp::create(builder, loc, ValueRange{zero});
    cases.push_back(int32_t(index));
    targets.push_back(block);
  }
  builder.setInsertionPointToEnd(entry);
  SmallVector<ValueRange> noOperands(cases.size(), ValueRange{});
  LLVM::SwitchOp::create(builder, loc, kind, unknown, ValueRange{}, cases,
                         targets, noOperands);
}

LogicalResult
gpuos::lowerTasksToNVVM(ModuleOp module, const LowerTasksOptions &options,
                        SmallVectorImpl<TaskCodegenInfo> *infos) {
  // The unroll and lane choices divide by it; a warp is the unit of work.
  if (options.blockSize < 32 || options.blockSize > 1024 ||
      options.blockSize % 32 != 0)
    return module.emitError() << "block size " << options.blockSize
                              << " is not a multiple of 32 from 32 to 1024 "
                                 "(option block-size)";
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
  llvm::DenseMap<Operation *, LLVM::LLVMFuncOp> functionOf;
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
    functionOf[task] = func;
    if (infos)
      infos->push_back(emitter.getInfo());
  }
  if (options.emitDispatch) {
    SmallVector<LLVM::LLVMFuncOp> ordered;
    for (TaskOp task : imageTaskOrder(module))
      ordered.push_back(functionOf.lookup(task));
    createDispatch(builder, module.getLoc(), ordered);
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
    options.backgroundEvictFirst = backgroundEvictFirst;
    if (failed(lowerTasksToNVVM(getOperation(), options)))
      signalPassFailure();
  }
};
} // namespace
