//===- PtxPrototypeTest.cpp - custom-op prototypes read from PTX ---------===//
//
// gpuos-jit compares the prototype the tasks' PTX declares for a custom op
// with the one the user's PTX defines (nvJitLink links a mismatch). These
// are the forms NVRTC and the NVPTX backend write.
//
//===----------------------------------------------------------------------===//

#include "gpuos/Target/Nvrtc.h"

#include <gtest/gtest.h>

using namespace gpuos;

namespace {

TEST(PtxPrototype, DeclarationAndDefinitionAgreeWithoutParameterNames) {
  const char *declared = ".version 8.6\n"
                         ".extern .func  (.param .b32 func_retval0) f\n(\n"
                         "\t.param .b32 f_param_0,\n\t.param .b64 f_param_1\n)\n;\n";
  const char *defined = "// generated\n"
                        ".visible .func  (.param .b32 func_retval0) f(\n"
                        "\t.param .b32 f_param_0,\n\t.param .b64 f_param_1\n)\n{\n}\n";
  EXPECT_EQ(ptxFunctionPrototype(declared, "f"), "(.param .b32) f(.param .b32, .param .b64)");
  EXPECT_EQ(ptxFunctionPrototype(declared, "f"), ptxFunctionPrototype(defined, "f"));
}

TEST(PtxPrototype, WidthAndCountDiffer) {
  const char *one = ".visible .func  (.param .b32 func_retval0) f(\n\t.param .b32 a\n)\n";
  const char *wide = ".visible .func  (.param .b64 func_retval0) f(\n\t.param .b64 a\n)\n";
  const char *two = ".visible .func  (.param .b32 func_retval0) f(\n\t.param .b32 a,\n"
                    "\t.param .b32 b\n)\n";
  EXPECT_NE(ptxFunctionPrototype(one, "f"), ptxFunctionPrototype(wide, "f"));
  EXPECT_NE(ptxFunctionPrototype(one, "f"), ptxFunctionPrototype(two, "f"));
}

TEST(PtxPrototype, AggregatesNoResultAndOtherNames) {
  const char *ptx = ".visible .func g(\n\t.param .align 8 .b8 g_param_0[16]\n)\n"
                    ".visible .func  (.param .b32 func_retval0) gg(\n\t.param .b32 x\n)\n";
  EXPECT_EQ(ptxFunctionPrototype(ptx, "g"), "() g(.param .align 8 .b8 [16])");
  EXPECT_EQ(ptxFunctionPrototype(ptx, "gg"), "(.param .b32) gg(.param .b32)");
  EXPECT_EQ(ptxFunctionPrototype(ptx, "h"), std::nullopt);
  // A call site is not a declaration.
  EXPECT_EQ(ptxFunctionPrototype("\tcall.uni (retval0), h, (param0);\n", "h"), std::nullopt);
}

} // namespace
