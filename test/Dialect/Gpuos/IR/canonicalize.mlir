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

// A reshape of a reshape is one reshape of the source; back to the
// source's own shape it is the source.
// CHECK-LABEL: gpuos.graph @reshape_chain
// CHECK-NEXT: %[[R:.+]] = gpuos.reshape %x to [512] : !gpuos.tensor<8x64xf32>
// CHECK-NEXT: gpuos.yield %[[R]], %x
gpuos.graph @reshape_chain(%x : !gpuos.tensor<8x64xf32>)
    -> (r : !gpuos.tensor<512xf32>, s : !gpuos.tensor<8x64xf32>) {
  %a = gpuos.reshape %x to [16, 32] : !gpuos.tensor<8x64xf32>
  %b = gpuos.reshape %a to [512] : !gpuos.tensor<16x32xf32>
  %c = gpuos.reshape %a to [8, 64] : !gpuos.tensor<16x32xf32>
  gpuos.yield %b, %c : !gpuos.tensor<512xf32>, !gpuos.tensor<8x64xf32>
}

// Through a `?` the source's count can rule out the last shape (512 is no
// multiple of 7): one reshape would not verify, so the chain stays for
// the run-time error.
// CHECK-LABEL: gpuos.graph @reshape_chain_kept
// CHECK: %[[A:.+]] = gpuos.reshape %x to [?]
// CHECK: gpuos.reshape %[[A]] to [7, ?]
gpuos.graph @reshape_chain_kept(%x : !gpuos.tensor<8x64xf32>) -> (o : !gpuos.tensor<7x?xf32>) {
  %0 = gpuos.reshape %x to [?] : !gpuos.tensor<8x64xf32>
  %1 = gpuos.reshape %0 to [7, ?] : !gpuos.tensor<?xf32>
  gpuos.yield %1 : !gpuos.tensor<7x?xf32>
}
