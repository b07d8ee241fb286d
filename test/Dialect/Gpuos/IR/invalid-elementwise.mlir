// RUN: gpuos-opt %s --split-input-file --verify-diagnostics

// Elementwise ops reject wrong element types and shapes that do not broadcast.

// Transcendental ops need floats.
gpuos.graph @g(%x : !gpuos.tensor<4xi32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.exp' needs floating-point (f64, f32, f16, bf16) operands, got 'i32'}}
  %y = gpuos.exp %x : !gpuos.tensor<4xi32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// Arithmetic is undefined on i1.
gpuos.graph @g(%x : !gpuos.tensor<4xi1>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.neg' needs numeric (float or i8/i32/i64, not i1) operands, got 'i1'}}
  %y = gpuos.neg %x : !gpuos.tensor<4xi1>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// Binary arithmetic on i1 is rejected.
gpuos.graph @g(%x : !gpuos.tensor<4xi1>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.add' needs numeric (float or i8/i32/i64, not i1) operands, got 'i1'}}
  %y = gpuos.add %x, %x : !gpuos.tensor<4xi1>, !gpuos.tensor<4xi1>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// pow needs floats.
gpuos.graph @g(%x : !gpuos.tensor<4xi32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.pow' needs floating-point (f64, f32, f16, bf16) operands, got 'i32'}}
  %y = gpuos.pow %x, %x : !gpuos.tensor<4xi32>, !gpuos.tensor<4xi32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// Operands of one op share an element type.
gpuos.graph @g(%a : !gpuos.tensor<4xf32>, %b : !gpuos.tensor<4xf16>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.add' operands have different element types ('f32' and 'f16'); insert a gpuos.cast}}
  %y = gpuos.add %a, %b : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf16>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// Shapes that do not broadcast are rejected with both shapes and the axis.
gpuos.graph @g(%a : !gpuos.tensor<4x3xf32>, %b : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.mul' cannot broadcast operand shapes 4x3 and 4: size 3 vs 4 at result axis 1}}
  %y = gpuos.mul %a, %b : !gpuos.tensor<4x3xf32>, !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// Comparisons need comparable (numeric) operands.
gpuos.graph @g(%a : !gpuos.tensor<4xi1>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.cmp' needs numeric (float or i8/i32/i64, not i1) operands, got 'i1'}}
  %y = gpuos.cmp eq, %a, %a : !gpuos.tensor<4xi1>, !gpuos.tensor<4xi1>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// Comparison operands broadcast too.
gpuos.graph @g(%a : !gpuos.tensor<2x4xf32>, %b : !gpuos.tensor<3x4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.cmp' cannot broadcast operand shapes 2x4 and 3x4: size 2 vs 3 at result axis 0}}
  %y = gpuos.cmp lt, %a, %b : !gpuos.tensor<2x4xf32>, !gpuos.tensor<3x4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// select needs an i1 condition.
gpuos.graph @g(%c : !gpuos.tensor<4xf32>, %a : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.select' needs an i1 condition, got 'f32'}}
  %y = gpuos.select %c, %a, %a : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// select's branches share an element type.
gpuos.graph @g(%c : !gpuos.tensor<4xi1>, %a : !gpuos.tensor<4xf32>, %b : !gpuos.tensor<4xi32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.select' operands have different element types ('f32' and 'i32'); insert a gpuos.cast}}
  %y = gpuos.select %c, %a, %b : !gpuos.tensor<4xi1>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xi32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// select broadcasts all three operands.
gpuos.graph @g(%c : !gpuos.tensor<3xi1>, %a : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.select' cannot broadcast operand shapes 3 and 4: size 3 vs 4 at result axis 0}}
  %y = gpuos.select %c, %a, %a : !gpuos.tensor<3xi1>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// cast targets gpuos element types only.
gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.cast' cannot cast to 'i16'; gpuos tensors hold f32, f16, bf16, f64, i64, i32, i8 or i1}}
  %y = gpuos.cast %x : !gpuos.tensor<4xf32> to i16
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// Constants hold gpuos element types only.
gpuos.graph @g() -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.constant' has unsupported element type 'i16'}}
  %y = gpuos.constant dense<1> : tensor<4xi16>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

// Inference runs while parsing, before operand types verify: a forward
// reference of a non-tensor type gets a diagnostic, not a bad cast.
gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.neg' operand #0 must be a !gpuos.tensor, got 'i3'}}
  %y = gpuos.neg %z : i3
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.transpose' operand #0 must be a !gpuos.tensor, got 'f32'}}
  %y = gpuos.transpose %z [0] : f32
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.matmul' operand #1 must be a !gpuos.tensor, got 'index'}}
  %y = gpuos.matmul %x, %z : !gpuos.tensor<4xf32>, index
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

// A custom op needs an input (the custom form cannot even spell none).
gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+2 {{'gpuos.custom' @f needs at least one input}}
  // expected-error @+1 {{'gpuos.custom' op failed to infer returned types}}
  %y = "gpuos.custom"() <{callee = @f, dtype = f32}> : () -> !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

// Custom ops take and return f32, f16, bf16, f64, i32 or i64 (the device
// ABI of narrower integers is not one NVRTC and NVPTX agree on).
gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xi8>) {
  // expected-error @+1 {{'gpuos.custom' @f cannot return 'i8'; custom ops take and return f32, f16, bf16, f64, i32 or i64}}
  %y = gpuos.custom @f(%x) : !gpuos.tensor<4xf32> -> i8
  gpuos.yield %y : !gpuos.tensor<4xi8>
}

// -----

// The callee is linked by name: a C identifier (the NVPTX printer aborted
// on "not a name"; "llvm.x" was renamed silently), and not a name of the
// generated code (gpuos_dispatch gave LLVM verifier dumps).
gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.custom' @"not a name": the callee must be a C identifier}}
  %y = gpuos.custom @"not a name"(%x) : !gpuos.tensor<4xf32> -> f32
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.custom' @"llvm.nvvm.read.ptx.sreg.tid.x": the callee must be a C identifier}}
  %y = gpuos.custom @llvm.nvvm.read.ptx.sreg.tid.x(%x) : !gpuos.tensor<4xf32> -> f32
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.custom' @gpuos_dispatch: names starting with 'gpuos_' are reserved for generated and library code}}
  %y = gpuos.custom @gpuos_dispatch(%x) : !gpuos.tensor<4xf32> -> f32
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @g(%x : !gpuos.tensor<4xi1>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.custom' @f input #0 has 'i1'; custom ops take and return f32, f16, bf16, f64, i32 or i64}}
  %y = gpuos.custom @f(%x) : !gpuos.tensor<4xi1> -> f32
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

// Inputs broadcast like any elementwise op's.
gpuos.graph @g(%x : !gpuos.tensor<4x3xf32>, %s : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4x3xf32>) {
  // expected-error @+1 {{'gpuos.custom' cannot broadcast operand shapes 4x3 and 4}}
  %y = gpuos.custom @f(%x, %s) : !gpuos.tensor<4x3xf32>, !gpuos.tensor<4xf32> -> f32
  gpuos.yield %y : !gpuos.tensor<4x3xf32>
}
