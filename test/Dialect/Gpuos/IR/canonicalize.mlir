// RUN: gpuos-opt %s --canonicalize | FileCheck %s

// Folders remove no-op views and casts; constants stay constants.

// CHECK-LABEL: gpuos.graph @noop_views
// CHECK-NOT: gpuos.transpose
// CHECK-NOT: gpuos.reshape
// CHECK-NOT: gpuos.cast
// CHECK: %[[E:.+]] = gpuos.exp %x
// CHECK: gpuos.yield %[[E]]
gpuos.graph @noop_views(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4x8xf32>) {
  %t = gpuos.transpose %x [0, 1] : !gpuos.tensor<4x8xf32>
  %r = gpuos.reshape %t to [4, 8] : !gpuos.tensor<4x8xf32>
  %c = gpuos.cast %r : !gpuos.tensor<4x8xf32> to f32
  %y = gpuos.exp %c : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4x8xf32>
}

// A cast to the same element type of a strided view makes it contiguous:
// that is a copy, not a no-op, so it stays.
// CHECK-LABEL: gpuos.graph @materialize
// CHECK: gpuos.cast %x : !gpuos.tensor<8x4xf32, strides = [1, 8]> to f32
gpuos.graph @materialize(%x : !gpuos.tensor<8x4xf32, strides = [1, 8]>) -> (y : !gpuos.tensor<8x4xf32>) {
  %y = gpuos.cast %x : !gpuos.tensor<8x4xf32, strides = [1, 8]> to f32
  gpuos.yield %y : !gpuos.tensor<8x4xf32>
}

// A real transpose and reshape are kept.
// CHECK-LABEL: gpuos.graph @real_views
// CHECK: gpuos.transpose %x [1, 0]
// CHECK: gpuos.reshape %x to [32]
gpuos.graph @real_views(%x : !gpuos.tensor<4x8xf32>)
    -> (t : !gpuos.tensor<8x4xf32, strides = [1, 8]>, r : !gpuos.tensor<32xf32>) {
  %t = gpuos.transpose %x [1, 0] : !gpuos.tensor<4x8xf32>
  %r = gpuos.reshape %x to [32] : !gpuos.tensor<4x8xf32>
  gpuos.yield %t, %r : !gpuos.tensor<8x4xf32, strides = [1, 8]>, !gpuos.tensor<32xf32>
}
