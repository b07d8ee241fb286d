// RUN: gpuos-opt %s --split-input-file --verify-diagnostics

// Reductions, normalizations and matmul reject bad axes, element types and shapes.

// mean needs floats.
gpuos.graph @g(%x : !gpuos.tensor<4x8xi32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reduce' needs a floating-point (f64, f32, f16, bf16) operand, got 'i32'}}
  %y = gpuos.reduce mean %x axes [1] : !gpuos.tensor<4x8xi32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// sum is undefined on i1.
gpuos.graph @g(%x : !gpuos.tensor<4x8xi1>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reduce' needs a numeric (float or i8/i32/i64, not i1) operand, got 'i1'}}
  %y = gpuos.reduce sum %x axes [1] : !gpuos.tensor<4x8xi1>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// reduce needs an axis.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reduce' needs at least one axis to reduce}}
  %y = gpuos.reduce sum %x axes [] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// reduce axes are in range.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reduce' axis 2 is out of range [0, 2) for an operand of rank 2}}
  %y = gpuos.reduce max %x axes [2] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// negative axes are not accepted; front-ends normalize them.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reduce' axis -1 is out of range [0, 2) for an operand of rank 2}}
  %y = gpuos.reduce max %x axes [-1] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// reduce axes are distinct.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reduce' lists axis 1 twice}}
  %y = gpuos.reduce min %x axes [1, 1] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// argmax axis is in range.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.argmax' axis 3 is out of range [0, 2) for an operand of rank 2}}
  %y = gpuos.argmax %x axis 3 : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// argmax is undefined on i1.
gpuos.graph @g(%x : !gpuos.tensor<4xi1>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.argmax' needs a numeric (float or i8/i32/i64, not i1) operand, got 'i1'}}
  %y = gpuos.argmax %x axis 0 : !gpuos.tensor<4xi1>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// softmax needs floats.
gpuos.graph @g(%x : !gpuos.tensor<4x8xi32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.softmax' needs a floating-point (f64, f32, f16, bf16) operand, got 'i32'}}
  %y = gpuos.softmax %x axis 1 : !gpuos.tensor<4x8xi32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// softmax axis is in range.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.softmax' axis 2 is out of range [0, 2) for an operand of rank 2}}
  %y = gpuos.softmax %x axis 2 : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// layer_norm needs floats.
gpuos.graph @g(%x : !gpuos.tensor<4x8xi8>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.layer_norm' needs a floating-point (f64, f32, f16, bf16) operand, got 'i8'}}
  %y = gpuos.layer_norm %x eps 1.0e-05 : !gpuos.tensor<4x8xi8>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// layer_norm needs a dimension to normalize.
gpuos.graph @g(%x : !gpuos.tensor<f32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.layer_norm' needs an operand of rank >= 1, got a scalar}}
  %y = gpuos.layer_norm %x eps 1.0e-05 : !gpuos.tensor<f32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// eps is positive.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.layer_norm' eps must be positive, got 0}}
  %y = gpuos.layer_norm %x eps 0.0 : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// weight has the shape of the last dimension.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>, %w : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.layer_norm' weight must have shape 8 (the operand's last dimension), got 4}}
  %y = gpuos.layer_norm %x weight(%w : !gpuos.tensor<4xf32>) eps 1.0e-05 : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// bias shares the operand's element type.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>, %b : !gpuos.tensor<8xf16>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.layer_norm' bias has element type 'f16', the operand has 'f32'}}
  %y = gpuos.layer_norm %x bias(%b : !gpuos.tensor<8xf16>) eps 1.0e-05 : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// rms_norm weight is one-dimensional.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>, %w : !gpuos.tensor<1x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.rms_norm' weight must have shape 8 (the operand's last dimension), got 1x8}}
  %y = gpuos.rms_norm %x weight(%w : !gpuos.tensor<1x8xf32>) eps 1.0e-06 : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// rms_norm eps is positive.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.rms_norm' eps must be positive, got -1}}
  %y = gpuos.rms_norm %x eps -1.0 : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// matmul needs floats.
gpuos.graph @g(%a : !gpuos.tensor<4x8xi32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.matmul' needs a floating-point (f64, f32, f16, bf16) lhs, got 'i32'}}
  %y = gpuos.matmul %a, %a : !gpuos.tensor<4x8xi32>, !gpuos.tensor<4x8xi32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// matmul operands share an element type.
gpuos.graph @g(%a : !gpuos.tensor<4x8xf32>, %b : !gpuos.tensor<8x4xbf16>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.matmul' operands have different element types ('f32' and 'bf16'); insert a gpuos.cast}}
  %y = gpuos.matmul %a, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8x4xbf16>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// matmul needs matrices.
gpuos.graph @g(%a : !gpuos.tensor<8xf32>, %b : !gpuos.tensor<8x4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.matmul' needs operands of rank >= 2, got ranks 1 and 2}}
  %y = gpuos.matmul %a, %b : !gpuos.tensor<8xf32>, !gpuos.tensor<8x4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// matmul contraction sizes agree (after the transpose flags).
gpuos.graph @g(%a : !gpuos.tensor<4x8xf32>, %b : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.matmul' contraction sizes differ: lhs 4x8 gives K = 8, rhs 4x8 gives K = 4}}
  %y = gpuos.matmul %a, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// matmul batch dimensions broadcast.
gpuos.graph @g(%a : !gpuos.tensor<2x4x8xf32>, %b : !gpuos.tensor<3x8x4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.matmul' batch dimensions 2 and 3 do not broadcast}}
  %y = gpuos.matmul %a, %b : !gpuos.tensor<2x4x8xf32>, !gpuos.tensor<3x8x4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// max has no identity: an empty reduced axis gives no value when the result
// has elements.
gpuos.graph @g(%x : !gpuos.tensor<4x0xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reduce' max over axis 1 of size 0 has no value (max has no identity); the result 4 would have elements}}
  %y = gpuos.reduce max %x axes [1] : !gpuos.tensor<4x0xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// Nor has min, among several axes.
gpuos.graph @g(%x : !gpuos.tensor<0x3x5xf32>) -> (y : !gpuos.tensor<3xf32>) {
  // expected-error @+1 {{'gpuos.reduce' min over axis 0 of size 0 has no value (min has no identity); the result 3 would have elements}}
  %y = gpuos.reduce min %x axes [0, 2] : !gpuos.tensor<0x3x5xf32>
  gpuos.yield %y : !gpuos.tensor<3xf32>
}
// -----

// Nor has argmax.
gpuos.graph @g(%x : !gpuos.tensor<2x0xf16>) -> (y : !gpuos.tensor<2x1xi64>) {
  // expected-error @+1 {{'gpuos.argmax' argmax over axis 1 of size 0 has no value (argmax has no identity); the result 2 would have elements}}
  %y = gpuos.argmax %x axis 1 keepdim : !gpuos.tensor<2x0xf16>
  gpuos.yield %y : !gpuos.tensor<2x1xi64>
}
