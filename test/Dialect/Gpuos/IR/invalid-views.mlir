// RUN: gpuos-opt %s --split-input-file --verify-diagnostics

// View ops and concat reject bad axes, bounds, and layouts that would need a copy.

// broadcast cannot drop dimensions.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.broadcast' target rank 1 is below the operand rank 2}}
  %y = gpuos.broadcast %x to [8] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// broadcast stretches only size-1 dimensions.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.broadcast' cannot broadcast operand shape 4x8 to 4x16: dimension 1 has size 8, not 1 or 16}}
  %y = gpuos.broadcast %x to [4, 16] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// broadcast target sizes are non-negative.
gpuos.graph @g(%x : !gpuos.tensor<8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.broadcast' target dimension 0 has negative size -2}}
  %y = gpuos.broadcast %x to [-2, 8] : !gpuos.tensor<8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// reshape keeps the element count.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reshape' cannot reshape 4x8 (32 elements) to 5x7 (35 elements)}}
  %y = gpuos.reshape %x to [5, 7] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// reshape of a strided view would need a copy.
gpuos.graph @g(%x : !gpuos.tensor<8x4xf32, strides = [1, 8]>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reshape' needs an operand laid out in row-major order, got strides [1, 8]; a reshape of a strided view would need a copy}}
  %y = gpuos.reshape %x to [32] : !gpuos.tensor<8x4xf32, strides = [1, 8]>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// A stride behind a dynamic size may be anything at run time: not provably
// row-major, so refused.
gpuos.graph @g(%x : !gpuos.tensor<4x?xf32, strides = [?, 1]>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reshape' needs an operand laid out in row-major order, got strides [?, 1]; a reshape of a strided view would need a copy}}
  %y = gpuos.reshape %x to [?] : !gpuos.tensor<4x?xf32, strides = [?, 1]>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// Row-major apart from a size-1 dimension's stride is not enough when the
// other strides are not row-major either (a gap between rows).
gpuos.graph @g(%x : !gpuos.tensor<4x1x8xf32, strides = [9, 3, 1]>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reshape' needs an operand laid out in row-major order, got strides [9, 3, 1]; a reshape of a strided view would need a copy}}
  %y = gpuos.reshape %x to [32] : !gpuos.tensor<4x1x8xf32, strides = [9, 3, 1]>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// reshape target sizes are non-negative.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reshape' target dimension 0 has negative size -4}}
  %y = gpuos.reshape %x to [-4, -8] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// transpose permutes every axis.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.transpose' permutation has 1 entries for an operand of rank 2}}
  %y = gpuos.transpose %x [0] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// transpose axes are in range.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.transpose' axis 2 is out of range [0, 2) for an operand of rank 2}}
  %y = gpuos.transpose %x [0, 2] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// transpose axes are distinct.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.transpose' permutation repeats axis 1}}
  %y = gpuos.transpose %x [1, 1] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// slice gives one start, size and step per dimension.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.slice' needs one start, size and step per dimension of its rank-2 operand; got 1, 2 and 2}}
  %y = gpuos.slice %x starts [0] sizes [4, 8] steps [1, 1] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// slice steps are positive.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.slice' dimension 1 needs start >= 0, size >= 1 and step >= 1; got start 0, size 2, step 0}}
  %y = gpuos.slice %x starts [0, 0] sizes [4, 2] steps [1, 0] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// slice starts are non-negative.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.slice' dimension 0 needs start >= 0, size >= 1 and step >= 1; got start -1, size 2, step 1}}
  %y = gpuos.slice %x starts [-1, 0] sizes [2, 2] steps [1, 1] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// slice stays inside the operand.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.slice' dimension 1 reads index 8, past its size 8}}
  %y = gpuos.slice %x starts [0, 2] sizes [4, 4] steps [1, 2] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// concat axis is in range.
gpuos.graph @g(%a : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.concat' axis 2 is out of range [0, 2) for an operand of rank 2}}
  %y = gpuos.concat %a, %a axis 2 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// concat operands share an element type.
gpuos.graph @g(%a : !gpuos.tensor<4x8xf32>, %b : !gpuos.tensor<4x8xf16>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.concat' operand 1 has element type 'f16', operand 0 has 'f32'}}
  %y = gpuos.concat %a, %b axis 0 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf16>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// concat operands share a rank.
gpuos.graph @g(%a : !gpuos.tensor<4x8xf32>, %b : !gpuos.tensor<8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.concat' operand 1 has rank 1, operand 0 has rank 2}}
  %y = gpuos.concat %a, %b axis 0 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// concat operands differ only along the axis.
gpuos.graph @g(%a : !gpuos.tensor<4x8xf32>, %b : !gpuos.tensor<4x2xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.concat' operand 1 has shape 4x2, which differs from operand 0's 4x8 at dimension 1 (only the concat axis 0 may differ)}}
  %y = gpuos.concat %a, %b axis 0 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x2xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
// -----

// concat needs an operand (only the generic form can spell none).
gpuos.graph @g() -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+2 {{'gpuos.concat' needs at least one operand}}
  // expected-error @+1 {{'gpuos.concat' op failed to infer returned types}}
  %y = "gpuos.concat"() <{axis = 0 : i64}> : () -> !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

// A dynamic broadcast size must be the operand's own dynamic size.
gpuos.graph @g(%x : !gpuos.tensor<3xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.broadcast' target dimension 0 is dynamic but its size cannot come from the operand (operand size 3); give a static size}}
  %y = gpuos.broadcast %x to [?] : !gpuos.tensor<3xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.broadcast' target dimension 0 is dynamic but its size cannot come from the operand (a new dimension); give a static size}}
  %y = gpuos.broadcast %x to [?, 4] : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

// reshape infers at most one dynamic size, like numpy's -1.
gpuos.graph @g(%x : !gpuos.tensor<?xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reshape' target ?x? has more than one dynamic dimension}}
  %y = gpuos.reshape %x to [?, ?] : !gpuos.tensor<?xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

// With a static operand the `?` is known: the static sizes must divide the
// element count (32 is not a multiple of 3).
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<3xf32>) {
  // expected-error @+1 {{'gpuos.reshape' cannot reshape 4x8 (32 elements) to 3x?: 32 is not a multiple of 3, the product of the static sizes}}
  %a = gpuos.reshape %x to [3, ?] : !gpuos.tensor<4x8xf32>
  %y = gpuos.reduce sum %a axes [1] : !gpuos.tensor<3x?xf32>
  gpuos.yield %y : !gpuos.tensor<3xf32>
}

// -----

// A static size of 0 leaves no elements for any `?`.
gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<0x?xf32>) {
  // expected-error @+1 {{'gpuos.reshape' cannot reshape 4x8 (32 elements) to 0x? (0 elements for any size of ?)}}
  %y = gpuos.reshape %x to [0, ?] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<0x?xf32>
}

// -----

// Sizes and strides that overflow int64 are errors, not wrapped values.
gpuos.graph @g(%x : !gpuos.tensor<?xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reshape' target 4611686018427387904x4 has more elements than int64 counts}}
  %y = gpuos.reshape %x to [4611686018427387904, 4] : !gpuos.tensor<?xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @g(%x : !gpuos.tensor<4611686018427387904x4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.reshape' operand 4611686018427387904x4 has more elements than int64 counts}}
  %y = gpuos.reshape %x to [?] : !gpuos.tensor<4611686018427387904x4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @g(%x : !gpuos.tensor<?xf32, strides = [4611686018427387904]>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.slice' dimension 0 stride 4611686018427387904 times step 4 overflows int64}}
  %y = gpuos.slice %x starts [0] sizes [1] steps [4] : !gpuos.tensor<?xf32, strides = [4611686018427387904]>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @g(%x : !gpuos.tensor<?xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.slice' dimension 0 reads past index 9223372036854775807}}
  %y = gpuos.slice %x starts [0] sizes [4611686018427387904] steps [4] : !gpuos.tensor<?xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @g(%a : !gpuos.tensor<9223372036854775807xf32>, %b : !gpuos.tensor<1xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.concat' result dimension 0 overflows int64}}
  %y = gpuos.concat %a, %b axis 0 : !gpuos.tensor<9223372036854775807xf32>, !gpuos.tensor<1xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
