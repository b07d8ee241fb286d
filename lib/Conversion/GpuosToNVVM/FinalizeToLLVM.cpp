//===- FinalizeToLLVM.cpp - arith/scf/cf to the llvm dialect --------------===//
//
// The task emitter writes structured control flow (scf) and arith; this
// turns the gpu.module into pure llvm + nvvm, which the NVVM target
// translates to LLVM IR.
//
//===----------------------------------------------------------------------===//

#include "FinalizeToLLVM.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

void gpuos::codegen::simplify(gpu::GPUModuleOp module) {
  // The emitter folds as it builds but leaves dead index arithmetic and
  // repeated constants behind; canonicalize + CSE keep the IR readable.
  MLIRContext *context = module.getContext();
  RewritePatternSet patterns(context);
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
  (void)applyPatternsGreedily(module, std::move(patterns));
  IRRewriter rewriter(context);
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, module);
}

LogicalResult gpuos::codegen::finalizeToLLVM(gpu::GPUModuleOp module) {
  MLIRContext *context = module.getContext();
  {
    RewritePatternSet patterns(context);
    populateSCFToControlFlowConversionPatterns(patterns);
    ConversionTarget target(*context);
    target.addIllegalDialect<scf::SCFDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return failure();
  }
  LowerToLLVMOptions options(context);
  options.overrideIndexBitwidth(64);
  LLVMTypeConverter converter(context, options);
  RewritePatternSet patterns(context);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  LLVMConversionTarget target(*context);
  target.addLegalDialect<NVVM::NVVMDialect>();
  target.addLegalOp<gpu::GPUModuleOp>();
  return applyPartialConversion(module, target, std::move(patterns));
}
