//===- ParseVerifyFuzzer.cpp - libFuzzer target: parse + verify gpuos IR --===//
//
// Feeds arbitrary bytes to the MLIR parser with the gpuos dialect loaded.
// Malformed input must only ever produce diagnostics; the harness aborts on
// anything else a well-formed dialect promises:
//
//   * input that parses and verifies must print, re-parse and re-verify, in
//     the custom and in the generic form, and the custom form must be a
//     fixpoint (print(parse(print(m))) == print(m));
//   * `gpuos-topological-sort` must succeed on every verified module (the
//     verifier rejects the cycles it cannot order) and leave it valid.
//
// Crashes, sanitizer reports and assertion failures surface on their own.
// The same source builds the libFuzzer binary (gpuos-fuzz-parse) and the
// corpus replay driver (gpuos-fuzz-replay, see ReplayMain.cpp).
//
//===----------------------------------------------------------------------===//

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"
#include "gpuos/Dialect/Gpuos/Transforms/Pipeline.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

using namespace mlir;

namespace {

bool envFlag(const char *name) {
  const char *value = std::getenv(name);
  return value && *value == '1';
}

const bool verbose = envFlag("GPUOS_FUZZ_VERBOSE");

/// The latest diagnostic, for the report of a finding.
std::string lastDiagnostic;

/// The registry is built once; every input gets a fresh context from it, so
/// types and attributes uniqued for one input never accumulate (a shared
/// context grows without bound over millions of inputs and makes findings
/// depend on the inputs run before them). See docs/fuzzing.md for the
/// measurement behind this choice.
const DialectRegistry &getRegistry() {
  static const DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    r->insert<gpuos::GpuosDialect>();
    return r;
  }();
  return *registry;
}

std::unique_ptr<MLIRContext> makeContext() {
  auto context = std::make_unique<MLIRContext>(getRegistry(),
                                               MLIRContext::Threading::DISABLED);
  context->allowUnregisteredDialects(false);
  context->loadDialect<gpuos::GpuosDialect>();
  // Swallow diagnostics, but render them: formatting the arguments (types,
  // attributes, the generic form of the failing op) runs printers on
  // half-built IR, which is worth covering.
  // GPUOS_FUZZ_VERBOSE=1 prints them (to see why a corpus entry fails).
  context->getDiagEngine().registerHandler([](Diagnostic &diag) {
    std::string text = diag.str();
    for (Diagnostic &note : diag.getNotes())
      text += "\n  note: " + note.str();
    if (verbose)
      llvm::errs() << "diagnostic: " << text << "\n";
    lastDiagnostic = std::move(text);
    return success();
  });
  return context;
}

[[noreturn]] void fail(const char *what, llvm::StringRef input,
                       llvm::StringRef detail = {}) {
  llvm::errs() << "gpuos-fuzz: " << what << "\n--- input ---\n"
               << input << "\n";
  if (!detail.empty())
    llvm::errs() << "--- detail ---\n" << detail << "\n";
  if (!lastDiagnostic.empty())
    llvm::errs() << "--- last diagnostic ---\n" << lastDiagnostic << "\n";
  llvm::errs().flush();
  std::abort();
}

std::string print(Operation *op, bool generic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  // The op verified; printing must not depend on re-verifying it.
  flags.assumeVerified();
  op->print(os, flags);
  return text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The parser needs a NUL-terminated buffer.
  std::string input(reinterpret_cast<const char *>(data), size);
  lastDiagnostic.clear();

  // GPUOS_FUZZ_SHARED_CONTEXT=1 reuses one context for every input instead
  // (faster, but it grows; kept to re-measure the trade-off).
  static const bool shared = envFlag("GPUOS_FUZZ_SHARED_CONTEXT");
  static MLIRContext *sharedContext = shared ? makeContext().release() : nullptr;
  std::unique_ptr<MLIRContext> owned = shared ? nullptr : makeContext();
  MLIRContext *context = shared ? sharedContext : owned.get();
  // Parse without the built-in verification so the verifier runs below, as
  // its own step, on everything that parsed.
  ParserConfig config(context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(input, config);
  if (!module)
    return 0;
  if (failed(verify(*module)))
    return 0;
  if (verbose)
    llvm::errs() << "gpuos-fuzz: input parsed and verified\n";

  // Round trip: custom form, then generic form. The printed text is parsed
  // in a context of its own, as a separate tool would: in the same context,
  // resource blobs already defined by the input would be renamed (blob ->
  // blob_1) and the fixpoint check would trip over that.
  std::unique_ptr<MLIRContext> roundTripContext = makeContext();
  ParserConfig verifying(roundTripContext.get(), /*verifyAfterParse=*/true);
  std::string custom = print(*module, /*generic=*/false);
  OwningOpRef<ModuleOp> reparsed = parseSourceString<ModuleOp>(custom, verifying);
  if (!reparsed)
    fail("printed custom form of a verified module does not parse/verify",
         input, custom);
  std::string again = print(*reparsed, /*generic=*/false);
  if (again != custom)
    fail("custom form is not a print/parse fixpoint", input,
         custom + "\n--- printed after re-parse ---\n" + again);

  std::string generic = print(*module, /*generic=*/true);
  if (!parseSourceString<ModuleOp>(generic, verifying))
    fail("printed generic form of a verified module does not parse/verify",
         input, generic);

  // The verifier guarantees every graph body can be ordered; the pass
  // manager re-verifies the module after the pass.
  PassManager pm(context);
  pm.addNestedPass<gpuos::GraphOp>(gpuos::createGpuosTopologicalSort());
  if (failed(pm.run(*module)))
    fail("gpuos-topological-sort failed on a verified module", input, custom);

  // The whole fusion pipeline may reject what it cannot handle, but only
  // with diagnostics: a crash here is a finding.
  PassManager pipeline(context);
  gpuos::buildGpuosPipeline(pipeline);
  (void)pipeline.run(*module);
  return 0;
}
