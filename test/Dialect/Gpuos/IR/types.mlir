// RUN: gpuos-opt %s | FileCheck %s
// RUN: gpuos-opt %s | gpuos-opt | FileCheck %s
// RUN: gpuos-opt %s --mlir-print-op-generic | gpuos-opt | FileCheck %s

// Every element type, static and dynamic shapes, rank 0, and strided views
// survive print -> parse -> print; row-major strides canonicalize away.

// CHECK-LABEL: gpuos.graph @element_types
// CHECK-SAME: %f32: !gpuos.tensor<4xf32>
// CHECK-SAME: %f16: !gpuos.tensor<4xf16>
// CHECK-SAME: %bf16: !gpuos.tensor<4xbf16>
// CHECK-SAME: %f64: !gpuos.tensor<4xf64>
// CHECK-SAME: %i64: !gpuos.tensor<4xi64>
// CHECK-SAME: %i32: !gpuos.tensor<4xi32>
// CHECK-SAME: %i8: !gpuos.tensor<4xi8>
// CHECK-SAME: %i1: !gpuos.tensor<4xi1>
gpuos.graph @element_types(%f32 : !gpuos.tensor<4xf32>, %f16 : !gpuos.tensor<4xf16>,
                           %bf16 : !gpuos.tensor<4xbf16>, %f64 : !gpuos.tensor<4xf64>,
                           %i64 : !gpuos.tensor<4xi64>, %i32 : !gpuos.tensor<4xi32>,
                           %i8 : !gpuos.tensor<4xi8>, %i1 : !gpuos.tensor<4xi1>)
    -> (f32_out : !gpuos.tensor<4xf32>, f16_out : !gpuos.tensor<4xf16>,
        bf16_out : !gpuos.tensor<4xbf16>, f64_out : !gpuos.tensor<4xf64>,
        i64_out : !gpuos.tensor<4xi64>, i32_out : !gpuos.tensor<4xi32>,
        i8_out : !gpuos.tensor<4xi8>, i1_out : !gpuos.tensor<4xi1>) {
  gpuos.yield %f32, %f16, %bf16, %f64, %i64, %i32, %i8, %i1
      : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf16>, !gpuos.tensor<4xbf16>,
        !gpuos.tensor<4xf64>, !gpuos.tensor<4xi64>, !gpuos.tensor<4xi32>,
        !gpuos.tensor<4xi8>, !gpuos.tensor<4xi1>
}

// CHECK-LABEL: gpuos.graph @shapes
// CHECK-SAME: %scalar: !gpuos.tensor<f32>
// CHECK-SAME: %dynamic: !gpuos.tensor<?x?x8xf32>
// CHECK-SAME: %transposed: !gpuos.tensor<8x4xf32, strides = [1, 8]>
// CHECK-SAME: %broadcast_row: !gpuos.tensor<4x1024xbf16, strides = [0, 1]>
// CHECK-SAME: %unknown_stride: !gpuos.tensor<?x8xf16, strides = [?, 1]>
// CHECK-SAME: %row_major: !gpuos.tensor<4x8xf32>)
gpuos.graph @shapes(%scalar : !gpuos.tensor<f32>, %dynamic : !gpuos.tensor<?x?x8xf32>,
                    %transposed : !gpuos.tensor<8x4xf32, strides = [1, 8]>,
                    %broadcast_row : !gpuos.tensor<4x1024xbf16, strides = [0, 1]>,
                    %unknown_stride : !gpuos.tensor<?x8xf16, strides = [?, 1]>,
                    %row_major : !gpuos.tensor<4x8xf32, strides = [8, 1]>)
    -> (a : !gpuos.tensor<f32>, b : !gpuos.tensor<?x?x8xf32>,
        c : !gpuos.tensor<8x4xf32, strides = [1, 8]>,
        d : !gpuos.tensor<4x1024xbf16, strides = [0, 1]>,
        e : !gpuos.tensor<?x8xf16, strides = [?, 1]>, f : !gpuos.tensor<4x8xf32>) {
  gpuos.yield %scalar, %dynamic, %transposed, %broadcast_row, %unknown_stride, %row_major
      : !gpuos.tensor<f32>, !gpuos.tensor<?x?x8xf32>, !gpuos.tensor<8x4xf32, strides = [1, 8]>,
        !gpuos.tensor<4x1024xbf16, strides = [0, 1]>, !gpuos.tensor<?x8xf16, strides = [?, 1]>,
        !gpuos.tensor<4x8xf32>
}
