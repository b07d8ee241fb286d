//===- gpuos-opt.cpp - the gpuos pass driver ------------------------------===//
//
// mlir-opt for gpuos: parses gpuos IR (plus the upstream dialects the
// lowering produces), runs a pass pipeline, prints the result.
//
//===----------------------------------------------------------------------===//

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "gpuos/Conversion/Passes.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"
#include "gpuos/Dialect/Gpuos/Transforms/Pipeline.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<gpuos::GpuosDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  gpuos::registerGpuosPasses();
  gpuos::registerGpuosConversionPasses();
  gpuos::registerGpuosPipeline();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "gpuos pass driver\n", registry));
}
