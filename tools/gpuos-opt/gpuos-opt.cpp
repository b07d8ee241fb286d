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
#include "gpuos/Tools/InputFile.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"

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
  // The options registered so far are libLLVM's own, every backend's
  // (--amdgpu-..., --x86-...: 450 lines of --help), not this tool's
  // interface: hidden from --help, still accepted and listed by
  // --help-hidden. MLIR's options and the passes are registered below.
  for (auto &entry : llvm::cl::getRegisteredOptions())
    if (llvm::is_contained(entry.second->Categories,
                           &llvm::cl::getGeneralCategory()))
      entry.second->setHiddenFlag(llvm::cl::Hidden);
  auto [input, output] =
      mlir::registerAndParseCLIOptions(argc, argv, "gpuos pass driver\n", registry);
  if (std::string why = gpuos::tools::unreadableInput(input); !why.empty()) {
    llvm::errs() << "gpuos-opt: error: cannot read '" << input << "': " << why
                 << "\n";
    return 1;
  }
  if (input != "-" && input != "/dev/stdin")
    if (auto text = llvm::MemoryBuffer::getFile(input, /*IsText=*/true))
      if (std::string deep = gpuos::tools::tooDeepError(input, (*text)->getBuffer());
          !deep.empty()) {
        llvm::errs() << deep << "\n";
        return 1;
      }
  // A write that fails (a full disk) ends MlirOptMain in report_fatal_error
  // ("LLVM ERROR: IO failure on output stream", no file named): name it.
  static std::string outputName;
  outputName = output == "-" ? std::string("standard output") : "'" + output + "'";
  llvm::install_fatal_error_handler([](void *, const char *reason, bool) {
    if (llvm::StringRef(reason).starts_with("IO failure on output stream"))
      llvm::errs() << "gpuos-opt: error: cannot write " << outputName << ": "
                   << reason << "\n";
    else
      llvm::errs() << "LLVM ERROR: " << reason << "\n";
  });
  // The input is mapped and the output truncated on open: writing over the
  // input killed the process (SIGBUS) and left the input empty.
  if (input != "-" && output != "-" && llvm::sys::fs::equivalent(input, output)) {
    llvm::errs() << "gpuos-opt: error: the output '" << output
                 << "' is the input file; write to another file\n";
    return 1;
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
