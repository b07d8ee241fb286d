// RUN: gpuos-opt %s | FileCheck %s
// RUN: gpuos-opt %s | gpuos-opt | FileCheck %s
// RUN: gpuos-opt %s --mlir-print-op-generic | gpuos-opt | FileCheck %s

// Every gpuos op survives print -> parse -> print, in the custom and the
// generic form, and infers the result type the CHECK lines spell out.

// CHECK-LABEL: gpuos.graph @unary
gpuos.graph @unary(%x : !gpuos.tensor<4x8xf32>, %i : !gpuos.tensor<4x8xi32>)
    -> (y : !gpuos.tensor<4x8xf32>, j : !gpuos.tensor<4x8xi32>) {
  // CHECK: %[[NEG:.+]] = gpuos.neg %x : !gpuos.tensor<4x8xf32>
  // CHECK: %[[ABS:.+]] = gpuos.abs %[[NEG]] : !gpuos.tensor<4x8xf32>
  // CHECK: %[[RELU:.+]] = gpuos.relu %[[ABS]] : !gpuos.tensor<4x8xf32>
  // CHECK: %[[EXP:.+]] = gpuos.exp %[[RELU]] : !gpuos.tensor<4x8xf32>
  // CHECK: %[[LOG:.+]] = gpuos.log %[[EXP]] : !gpuos.tensor<4x8xf32>
  // CHECK: %[[SQRT:.+]] = gpuos.sqrt %[[LOG]] : !gpuos.tensor<4x8xf32>
  // CHECK: %[[RSQRT:.+]] = gpuos.rsqrt %[[SQRT]] : !gpuos.tensor<4x8xf32>
  // CHECK: %[[TANH:.+]] = gpuos.tanh %[[RSQRT]] : !gpuos.tensor<4x8xf32>
  // CHECK: %[[SIG:.+]] = gpuos.sigmoid %[[TANH]] : !gpuos.tensor<4x8xf32>
  // CHECK: %[[GELU:.+]] = gpuos.gelu %[[SIG]] : !gpuos.tensor<4x8xf32>
  // CHECK: %[[SILU:.+]] = gpuos.silu %[[GELU]] : !gpuos.tensor<4x8xf32>
  // CHECK: %[[ERF:.+]] = gpuos.erf %[[SILU]] : !gpuos.tensor<4x8xf32>
  // CHECK: %[[INEG:.+]] = gpuos.neg %i : !gpuos.tensor<4x8xi32>
  // CHECK: %[[IABS:.+]] = gpuos.abs %[[INEG]] : !gpuos.tensor<4x8xi32>
  // CHECK: %[[IRELU:.+]] = gpuos.relu %[[IABS]] : !gpuos.tensor<4x8xi32>
  // CHECK: gpuos.yield %[[ERF]], %[[IRELU]]
  %0 = gpuos.neg %x : !gpuos.tensor<4x8xf32>
  %1 = gpuos.abs %0 : !gpuos.tensor<4x8xf32>
  %2 = gpuos.relu %1 : !gpuos.tensor<4x8xf32>
  %3 = gpuos.exp %2 : !gpuos.tensor<4x8xf32>
  %4 = gpuos.log %3 : !gpuos.tensor<4x8xf32>
  %5 = gpuos.sqrt %4 : !gpuos.tensor<4x8xf32>
  %6 = gpuos.rsqrt %5 : !gpuos.tensor<4x8xf32>
  %7 = gpuos.tanh %6 : !gpuos.tensor<4x8xf32>
  %8 = gpuos.sigmoid %7 : !gpuos.tensor<4x8xf32>
  %9 = gpuos.gelu %8 : !gpuos.tensor<4x8xf32>
  %10 = gpuos.silu %9 : !gpuos.tensor<4x8xf32>
  %11 = gpuos.erf %10 : !gpuos.tensor<4x8xf32>
  %12 = gpuos.neg %i : !gpuos.tensor<4x8xi32>
  %13 = gpuos.abs %12 : !gpuos.tensor<4x8xi32>
  %14 = gpuos.relu %13 : !gpuos.tensor<4x8xi32>
  gpuos.yield %11, %14 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xi32>
}

// A unary op on a strided view yields a contiguous result.
// CHECK-LABEL: gpuos.graph @unary_on_view
// CHECK: gpuos.exp %x : !gpuos.tensor<8x4xf32, strides = [1, 8]>
gpuos.graph @unary_on_view(%x : !gpuos.tensor<8x4xf32, strides = [1, 8]>)
    -> (y : !gpuos.tensor<8x4xf32>) {
  %y = gpuos.exp %x : !gpuos.tensor<8x4xf32, strides = [1, 8]>
  gpuos.yield %y : !gpuos.tensor<8x4xf32>
}

// CHECK-LABEL: gpuos.graph @casts
// CHECK: gpuos.cast %x : !gpuos.tensor<4xf32> to f16
// CHECK: gpuos.cast %{{.+}} : !gpuos.tensor<4xf16> to bf16
// CHECK: gpuos.cast %{{.+}} : !gpuos.tensor<4xbf16> to i8
// CHECK: gpuos.cast %{{.+}} : !gpuos.tensor<4xi8> to i1
// CHECK: gpuos.cast %{{.+}} : !gpuos.tensor<4xi1> to f64
gpuos.graph @casts(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf64>) {
  %0 = gpuos.cast %x : !gpuos.tensor<4xf32> to f16
  %1 = gpuos.cast %0 : !gpuos.tensor<4xf16> to bf16
  %2 = gpuos.cast %1 : !gpuos.tensor<4xbf16> to i8
  %3 = gpuos.cast %2 : !gpuos.tensor<4xi8> to i1
  %4 = gpuos.cast %3 : !gpuos.tensor<4xi1> to f64
  gpuos.yield %4 : !gpuos.tensor<4xf64>
}

// Binary ops broadcast with numpy rules.
// CHECK-LABEL: gpuos.graph @binary
// CHECK: %[[ADD:.+]] = gpuos.add %a, %row : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
// CHECK: %[[SUB:.+]] = gpuos.sub %[[ADD]], %col : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x1xf32>
// CHECK: %[[MUL:.+]] = gpuos.mul %[[SUB]], %s : !gpuos.tensor<4x8xf32>, !gpuos.tensor<f32>
// CHECK: %[[DIV:.+]] = gpuos.div %[[MUL]], %row : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
// CHECK: %[[MAX:.+]] = gpuos.max %[[DIV]], %a : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
// CHECK: %[[MIN:.+]] = gpuos.min %[[MAX]], %a : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
// CHECK: %[[POW:.+]] = gpuos.pow %[[MIN]], %s : !gpuos.tensor<4x8xf32>, !gpuos.tensor<f32>
// CHECK: %[[OUTER:.+]] = gpuos.add %col, %row : !gpuos.tensor<4x1xf32>, !gpuos.tensor<8xf32>
// CHECK: gpuos.yield %[[POW]], %[[OUTER]]
gpuos.graph @binary(%a : !gpuos.tensor<4x8xf32>, %row : !gpuos.tensor<8xf32>,
                    %col : !gpuos.tensor<4x1xf32>, %s : !gpuos.tensor<f32>)
    -> (y : !gpuos.tensor<4x8xf32>, outer : !gpuos.tensor<4x8xf32>) {
  %0 = gpuos.add %a, %row : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  %1 = gpuos.sub %0, %col : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x1xf32>
  %2 = gpuos.mul %1, %s : !gpuos.tensor<4x8xf32>, !gpuos.tensor<f32>
  %3 = gpuos.div %2, %row : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  %4 = gpuos.max %3, %a : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  %5 = gpuos.min %4, %a : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  %6 = gpuos.pow %5, %s : !gpuos.tensor<4x8xf32>, !gpuos.tensor<f32>
  %outer = gpuos.add %col, %row : !gpuos.tensor<4x1xf32>, !gpuos.tensor<8xf32>
  gpuos.yield %6, %outer : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
}

// Dynamic dims broadcast against static ones and stay dynamic against 1.
// CHECK-LABEL: gpuos.graph @binary_dynamic
// CHECK-SAME: -> (y : !gpuos.tensor<?x8xf16>)
gpuos.graph @binary_dynamic(%a : !gpuos.tensor<?x8xf16>, %b : !gpuos.tensor<1x8xf16>)
    -> (y : !gpuos.tensor<?x8xf16>) {
  %y = gpuos.mul %a, %b : !gpuos.tensor<?x8xf16>, !gpuos.tensor<1x8xf16>
  gpuos.yield %y : !gpuos.tensor<?x8xf16>
}

// CHECK-LABEL: gpuos.graph @compare_select
// CHECK: gpuos.cmp eq, %a, %b
// CHECK: gpuos.cmp ne, %a, %b
// CHECK: gpuos.cmp lt, %a, %b
// CHECK: gpuos.cmp le, %a, %b
// CHECK: gpuos.cmp gt, %a, %b
// CHECK: %[[GE:.+]] = gpuos.cmp ge, %a, %b : !gpuos.tensor<4x8xbf16>, !gpuos.tensor<8xbf16>
// CHECK: gpuos.select %[[GE]], %a, %b : !gpuos.tensor<4x8xi1>, !gpuos.tensor<4x8xbf16>, !gpuos.tensor<8xbf16>
gpuos.graph @compare_select(%a : !gpuos.tensor<4x8xbf16>, %b : !gpuos.tensor<8xbf16>)
    -> (eq : !gpuos.tensor<4x8xi1>, ne : !gpuos.tensor<4x8xi1>, lt : !gpuos.tensor<4x8xi1>,
        le : !gpuos.tensor<4x8xi1>, gt : !gpuos.tensor<4x8xi1>, y : !gpuos.tensor<4x8xbf16>) {
  %eq = gpuos.cmp eq, %a, %b : !gpuos.tensor<4x8xbf16>, !gpuos.tensor<8xbf16>
  %ne = gpuos.cmp ne, %a, %b : !gpuos.tensor<4x8xbf16>, !gpuos.tensor<8xbf16>
  %lt = gpuos.cmp lt, %a, %b : !gpuos.tensor<4x8xbf16>, !gpuos.tensor<8xbf16>
  %le = gpuos.cmp le, %a, %b : !gpuos.tensor<4x8xbf16>, !gpuos.tensor<8xbf16>
  %gt = gpuos.cmp gt, %a, %b : !gpuos.tensor<4x8xbf16>, !gpuos.tensor<8xbf16>
  %ge = gpuos.cmp ge, %a, %b : !gpuos.tensor<4x8xbf16>, !gpuos.tensor<8xbf16>
  %y = gpuos.select %ge, %a, %b : !gpuos.tensor<4x8xi1>, !gpuos.tensor<4x8xbf16>, !gpuos.tensor<8xbf16>
  gpuos.yield %eq, %ne, %lt, %le, %gt, %y
      : !gpuos.tensor<4x8xi1>, !gpuos.tensor<4x8xi1>, !gpuos.tensor<4x8xi1>,
        !gpuos.tensor<4x8xi1>, !gpuos.tensor<4x8xi1>, !gpuos.tensor<4x8xbf16>
}

// CHECK-LABEL: gpuos.graph @constants
// CHECK: gpuos.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK: gpuos.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
gpuos.graph @constants(%x : !gpuos.tensor<4x8xf32>, %i : !gpuos.tensor<4xi32>)
    -> (y : !gpuos.tensor<4x8xf32>, j : !gpuos.tensor<4xi32>) {
  %one = gpuos.constant dense<1.0> : tensor<4x8xf32>
  %y = gpuos.add %x, %one : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  %c = gpuos.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %j = gpuos.mul %i, %c : !gpuos.tensor<4xi32>, !gpuos.tensor<4xi32>
  gpuos.yield %y, %j : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4xi32>
}

// View ops change shape and strides only; the yields spell the inferred
// view types, so a wrong stride computation fails to verify.
// CHECK-LABEL: gpuos.graph @views
// CHECK: gpuos.broadcast %row to [4, 1024] : !gpuos.tensor<1024xf32>
// CHECK: gpuos.broadcast %col to [2, 4, 3] : !gpuos.tensor<4x1xf32>
// CHECK: gpuos.transpose %m [1, 0] : !gpuos.tensor<4x8xf32>
// CHECK: gpuos.transpose %t [2, 0, 1] : !gpuos.tensor<2x3x4xf32>
// CHECK: gpuos.slice %m starts [0, 2] sizes [4, 3] steps [1, 2] : !gpuos.tensor<4x8xf32>
// CHECK: gpuos.reshape %flat to [32, 64] : !gpuos.tensor<2048xf32>
// CHECK: gpuos.reshape %dyn to [?, 4] : !gpuos.tensor<?xf32>
gpuos.graph @views(%row : !gpuos.tensor<1024xf32>, %col : !gpuos.tensor<4x1xf32>,
                   %m : !gpuos.tensor<4x8xf32>, %t : !gpuos.tensor<2x3x4xf32>,
                   %flat : !gpuos.tensor<2048xf32>, %dyn : !gpuos.tensor<?xf32>)
    -> (b1 : !gpuos.tensor<4x1024xf32, strides = [0, 1]>,
        b2 : !gpuos.tensor<2x4x3xf32, strides = [0, 1, 0]>,
        t1 : !gpuos.tensor<8x4xf32, strides = [1, 8]>,
        t2 : !gpuos.tensor<4x2x3xf32, strides = [1, 12, 4]>,
        s : !gpuos.tensor<4x3xf32, strides = [8, 2]>,
        r : !gpuos.tensor<32x64xf32>, rd : !gpuos.tensor<?x4xf32>) {
  %b1 = gpuos.broadcast %row to [4, 1024] : !gpuos.tensor<1024xf32>
  %b2 = gpuos.broadcast %col to [2, 4, 3] : !gpuos.tensor<4x1xf32>
  %t1 = gpuos.transpose %m [1, 0] : !gpuos.tensor<4x8xf32>
  %t2 = gpuos.transpose %t [2, 0, 1] : !gpuos.tensor<2x3x4xf32>
  %s = gpuos.slice %m starts [0, 2] sizes [4, 3] steps [1, 2] : !gpuos.tensor<4x8xf32>
  %r = gpuos.reshape %flat to [32, 64] : !gpuos.tensor<2048xf32>
  %rd = gpuos.reshape %dyn to [?, 4] : !gpuos.tensor<?xf32>
  gpuos.yield %b1, %b2, %t1, %t2, %s, %r, %rd
      : !gpuos.tensor<4x1024xf32, strides = [0, 1]>, !gpuos.tensor<2x4x3xf32, strides = [0, 1, 0]>,
        !gpuos.tensor<8x4xf32, strides = [1, 8]>, !gpuos.tensor<4x2x3xf32, strides = [1, 12, 4]>,
        !gpuos.tensor<4x3xf32, strides = [8, 2]>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<?x4xf32>
}

// A reshape takes any operand whose elements lie in row-major order: the
// strides of size-1 dimensions never move the address (a dynamic size
// before them is no obstacle), and an empty tensor has no layout.
// CHECK-LABEL: gpuos.graph @reshape_row_major_order
// CHECK: gpuos.reshape %u to [256] : !gpuos.tensor<8x1x32xf32, strides = [32, 5, 1]>
// CHECK: gpuos.reshape %d to [?] : !gpuos.tensor<?x1x4xf32, strides = [4, 9, 1]>
// CHECK: gpuos.reshape %e to [4, 0] : !gpuos.tensor<0x4xf32, strides = [1, 7]>
gpuos.graph @reshape_row_major_order(%u : !gpuos.tensor<8x1x32xf32, strides = [32, 5, 1]>,
                                     %d : !gpuos.tensor<?x1x4xf32, strides = [4, 9, 1]>,
                                     %e : !gpuos.tensor<0x4xf32, strides = [1, 7]>)
    -> (a : !gpuos.tensor<256xf32>, b : !gpuos.tensor<?xf32>, c : !gpuos.tensor<4x0xf32>) {
  %a = gpuos.reshape %u to [256] : !gpuos.tensor<8x1x32xf32, strides = [32, 5, 1]>
  %b = gpuos.reshape %d to [?] : !gpuos.tensor<?x1x4xf32, strides = [4, 9, 1]>
  %c = gpuos.reshape %e to [4, 0] : !gpuos.tensor<0x4xf32, strides = [1, 7]>
  gpuos.yield %a, %b, %c : !gpuos.tensor<256xf32>, !gpuos.tensor<?xf32>, !gpuos.tensor<4x0xf32>
}

// Views compose: a slice of a transpose scales the permuted strides, and a
// transpose back to row-major order is contiguous again.
// CHECK-LABEL: gpuos.graph @views_compose
// CHECK-SAME: -> (y : !gpuos.tensor<2x4xf32, strides = [3, 8]>, z : !gpuos.tensor<4x8xf32>)
gpuos.graph @views_compose(%m : !gpuos.tensor<4x8xf32>)
    -> (y : !gpuos.tensor<2x4xf32, strides = [3, 8]>, z : !gpuos.tensor<4x8xf32>) {
  %t = gpuos.transpose %m [1, 0] : !gpuos.tensor<4x8xf32>
  %y = gpuos.slice %t starts [1, 0] sizes [2, 4] steps [3, 1] : !gpuos.tensor<8x4xf32, strides = [1, 8]>
  %z = gpuos.transpose %t [1, 0] : !gpuos.tensor<8x4xf32, strides = [1, 8]>
  gpuos.yield %y, %z : !gpuos.tensor<2x4xf32, strides = [3, 8]>, !gpuos.tensor<4x8xf32>
}

// CHECK-LABEL: gpuos.graph @concat
// CHECK: gpuos.concat %a, %b, %c axis 1 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x2xf32>, !gpuos.tensor<4x?xf32>
// CHECK: gpuos.concat %a, %a axis 0 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
gpuos.graph @concat(%a : !gpuos.tensor<4x8xf32>, %b : !gpuos.tensor<4x2xf32>, %c : !gpuos.tensor<4x?xf32>)
    -> (y : !gpuos.tensor<4x?xf32>, z : !gpuos.tensor<8x8xf32>) {
  %y = gpuos.concat %a, %b, %c axis 1 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x2xf32>, !gpuos.tensor<4x?xf32>
  %z = gpuos.concat %a, %a axis 0 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  gpuos.yield %y, %z : !gpuos.tensor<4x?xf32>, !gpuos.tensor<8x8xf32>
}

// CHECK-LABEL: gpuos.graph @reductions
// CHECK: gpuos.reduce sum %x axes [1] keepdim : !gpuos.tensor<4x8x16xf32>
// CHECK: gpuos.reduce mean %x axes [2, 0] : !gpuos.tensor<4x8x16xf32>
// CHECK: gpuos.reduce max %x axes [0, 1, 2] : !gpuos.tensor<4x8x16xf32>
// CHECK: gpuos.reduce min %i axes [0] : !gpuos.tensor<4x8xi64>
// CHECK: gpuos.argmax %x axis 2 : !gpuos.tensor<4x8x16xf32>
// CHECK: gpuos.argmax %x axis 0 keepdim : !gpuos.tensor<4x8x16xf32>
gpuos.graph @reductions(%x : !gpuos.tensor<4x8x16xf32>, %i : !gpuos.tensor<4x8xi64>)
    -> (sum : !gpuos.tensor<4x1x16xf32>, mean : !gpuos.tensor<8xf32>, max : !gpuos.tensor<f32>,
        min : !gpuos.tensor<8xi64>, arg : !gpuos.tensor<4x8xi64>, argk : !gpuos.tensor<1x8x16xi64>) {
  %sum = gpuos.reduce sum %x axes [1] keepdim : !gpuos.tensor<4x8x16xf32>
  %mean = gpuos.reduce mean %x axes [2, 0] : !gpuos.tensor<4x8x16xf32>
  %max = gpuos.reduce max %x axes [0, 1, 2] : !gpuos.tensor<4x8x16xf32>
  %min = gpuos.reduce min %i axes [0] : !gpuos.tensor<4x8xi64>
  %arg = gpuos.argmax %x axis 2 : !gpuos.tensor<4x8x16xf32>
  %argk = gpuos.argmax %x axis 0 keepdim : !gpuos.tensor<4x8x16xf32>
  gpuos.yield %sum, %mean, %max, %min, %arg, %argk
      : !gpuos.tensor<4x1x16xf32>, !gpuos.tensor<8xf32>, !gpuos.tensor<f32>,
        !gpuos.tensor<8xi64>, !gpuos.tensor<4x8xi64>, !gpuos.tensor<1x8x16xi64>
}

// Empty reduced axes: sum and mean have an identity; max and argmax are
// valid when their result is empty too (another axis of size 0).
// CHECK-LABEL: gpuos.graph @empty_reductions
// CHECK: gpuos.reduce sum %x axes [1] : !gpuos.tensor<4x0xf32>
// CHECK: gpuos.reduce max %z axes [1] : !gpuos.tensor<0x0xf32>
// CHECK: gpuos.argmax %z axis 0 : !gpuos.tensor<0x0xf32>
gpuos.graph @empty_reductions(%x : !gpuos.tensor<4x0xf32>, %z : !gpuos.tensor<0x0xf32>)
    -> (s : !gpuos.tensor<4xf32>, m : !gpuos.tensor<0xf32>, a : !gpuos.tensor<0xi64>) {
  %s = gpuos.reduce sum %x axes [1] : !gpuos.tensor<4x0xf32>
  %m = gpuos.reduce max %z axes [1] : !gpuos.tensor<0x0xf32>
  %a = gpuos.argmax %z axis 0 : !gpuos.tensor<0x0xf32>
  gpuos.yield %s, %m, %a : !gpuos.tensor<4xf32>, !gpuos.tensor<0xf32>, !gpuos.tensor<0xi64>
}

// CHECK-LABEL: gpuos.graph @norms
// CHECK: gpuos.softmax %x axis 1 : !gpuos.tensor<4x64xf16>
// CHECK: gpuos.layer_norm %x weight(%w : !gpuos.tensor<64xf16>) bias(%b : !gpuos.tensor<64xf16>) eps 1.000000e-05 : !gpuos.tensor<4x64xf16>
// CHECK: gpuos.layer_norm %x eps 1.000000e-05 : !gpuos.tensor<4x64xf16>
// CHECK: gpuos.layer_norm %x bias(%b : !gpuos.tensor<64xf16>) eps 1.000000e-05 : !gpuos.tensor<4x64xf16>
// CHECK: gpuos.rms_norm %x weight(%w : !gpuos.tensor<64xf16>) eps 1.000000e-03 : !gpuos.tensor<4x64xf16>
// CHECK: gpuos.rms_norm %x eps 1.000000e-03 : !gpuos.tensor<4x64xf16>
gpuos.graph @norms(%x : !gpuos.tensor<4x64xf16>, %w : !gpuos.tensor<64xf16>, %b : !gpuos.tensor<64xf16>)
    -> (sm : !gpuos.tensor<4x64xf16>, ln : !gpuos.tensor<4x64xf16>, ln_plain : !gpuos.tensor<4x64xf16>,
        ln_bias : !gpuos.tensor<4x64xf16>, rms : !gpuos.tensor<4x64xf16>, rms_plain : !gpuos.tensor<4x64xf16>) {
  %sm = gpuos.softmax %x axis 1 : !gpuos.tensor<4x64xf16>
  %ln = gpuos.layer_norm %x weight(%w : !gpuos.tensor<64xf16>) bias(%b : !gpuos.tensor<64xf16>) eps 1.0e-05 : !gpuos.tensor<4x64xf16>
  %ln_plain = gpuos.layer_norm %x eps 1.0e-05 : !gpuos.tensor<4x64xf16>
  %ln_bias = gpuos.layer_norm %x bias(%b : !gpuos.tensor<64xf16>) eps 1.0e-05 : !gpuos.tensor<4x64xf16>
  %rms = gpuos.rms_norm %x weight(%w : !gpuos.tensor<64xf16>) eps 1.0e-03 : !gpuos.tensor<4x64xf16>
  %rms_plain = gpuos.rms_norm %x eps 1.0e-03 : !gpuos.tensor<4x64xf16>
  gpuos.yield %sm, %ln, %ln_plain, %ln_bias, %rms, %rms_plain
      : !gpuos.tensor<4x64xf16>, !gpuos.tensor<4x64xf16>, !gpuos.tensor<4x64xf16>,
        !gpuos.tensor<4x64xf16>, !gpuos.tensor<4x64xf16>, !gpuos.tensor<4x64xf16>
}

// CHECK-LABEL: gpuos.graph @matmuls
// CHECK: gpuos.matmul %x, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
// CHECK: gpuos.matmul %x, %wt transpose_rhs : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<256x1024xf32>
// CHECK: gpuos.matmul %xt, %w transpose_lhs : !gpuos.tensor<1024x4xf32>, !gpuos.tensor<1024x256xf32>
// CHECK: gpuos.matmul %q, %k transpose_lhs transpose_rhs : !gpuos.tensor<16x64x32xbf16>, !gpuos.tensor<1x32x64xbf16>
gpuos.graph @matmuls(%x : !gpuos.tensor<4x1024xf32>, %w : !gpuos.tensor<1024x256xf32>,
                     %wt : !gpuos.tensor<256x1024xf32>, %xt : !gpuos.tensor<1024x4xf32>,
                     %q : !gpuos.tensor<16x64x32xbf16>, %k : !gpuos.tensor<1x32x64xbf16>)
    -> (a : !gpuos.tensor<4x256xf32>, b : !gpuos.tensor<4x256xf32>, c : !gpuos.tensor<4x256xf32>,
        d : !gpuos.tensor<16x32x32xbf16>) {
  %a = gpuos.matmul %x, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %b = gpuos.matmul %x, %wt transpose_rhs : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<256x1024xf32>
  %c = gpuos.matmul %xt, %w transpose_lhs : !gpuos.tensor<1024x4xf32>, !gpuos.tensor<1024x256xf32>
  %d = gpuos.matmul %q, %k transpose_lhs transpose_rhs : !gpuos.tensor<16x64x32xbf16>, !gpuos.tensor<1x32x64xbf16>
  gpuos.yield %a, %b, %c, %d : !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>,
      !gpuos.tensor<4x256xf32>, !gpuos.tensor<16x32x32xbf16>
}

// Graph bodies are graph regions: a use may precede its definition.
// CHECK-LABEL: gpuos.graph @any_order
// CHECK: %[[Y:.+]] = gpuos.add %x, %[[N:.+]] :
// CHECK: %[[N]] = gpuos.neg %x
gpuos.graph @any_order(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.add %x, %n : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %n = gpuos.neg %x : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// A task binds graph values to its isolated body and carries its tiling.
// CHECK-LABEL: gpuos.graph @tasks
// CHECK: %[[T:.+]]:2 = gpuos.task "fused_exp_add" ins(%[[A:.+]] = %x : !gpuos.tensor<32x1024xf32>, %[[B:.+]] = %b : !gpuos.tensor<1024xf32>) tile [1, 1024] priority #gpuos.priority<urgent> -> (!gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>) {
// CHECK:   %[[E:.+]] = gpuos.exp %[[A]]
// CHECK:   %[[S:.+]] = gpuos.add %[[E]], %[[B]]
// CHECK:   gpuos.yield %[[E]], %[[S]]
// CHECK: gpuos.yield %[[T]]#0, %[[T]]#1
gpuos.graph @tasks(%x : !gpuos.tensor<32x1024xf32>, %b : !gpuos.tensor<1024xf32>)
    -> (e : !gpuos.tensor<32x1024xf32>, s : !gpuos.tensor<32x1024xf32>)
    priority #gpuos.priority<urgent> {
  %r:2 = gpuos.task "fused_exp_add" ins(%xa = %x : !gpuos.tensor<32x1024xf32>, %ba = %b : !gpuos.tensor<1024xf32>)
      tile [1, 1024] priority #gpuos.priority<urgent>
      -> (!gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>) {
    %e = gpuos.exp %xa : !gpuos.tensor<32x1024xf32>
    %s = gpuos.add %e, %ba : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
    gpuos.yield %e, %s : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
}

// A dynamic operand size passes through a broadcast; its stride is kept.
// CHECK-LABEL: gpuos.graph @broadcast_dynamic
// CHECK-SAME: -> (y : !gpuos.tensor<2x?x8xf32, strides = [0, 8, 1]>)
gpuos.graph @broadcast_dynamic(%x : !gpuos.tensor<?x8xf32>)
    -> (y : !gpuos.tensor<2x?x8xf32, strides = [0, 8, 1]>) {
  %y = gpuos.broadcast %x to [2, ?, 8] : !gpuos.tensor<?x8xf32>
  gpuos.yield %y : !gpuos.tensor<2x?x8xf32, strides = [0, 8, 1]>
}

// A custom op: a user's device function, elementwise with broadcasting, its
// result type given; optionally a reference graph for the interpreter.
// CHECK-LABEL: gpuos.graph @custom
// CHECK: gpuos.custom @my_op(%x, %s) reference @my_op_ref : !gpuos.tensor<4x8xbf16>, !gpuos.tensor<8xbf16> -> f32
// CHECK: gpuos.custom @my_other(%x) : !gpuos.tensor<4x8xbf16> -> bf16
gpuos.graph @custom(%x : !gpuos.tensor<4x8xbf16>, %s : !gpuos.tensor<8xbf16>)
    -> (y : !gpuos.tensor<4x8xf32>, z : !gpuos.tensor<4x8xbf16>) {
  %y = gpuos.custom @my_op(%x, %s) reference @my_op_ref : !gpuos.tensor<4x8xbf16>, !gpuos.tensor<8xbf16> -> f32
  %z = gpuos.custom @my_other(%x) : !gpuos.tensor<4x8xbf16> -> bf16
  gpuos.yield %y, %z : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xbf16>
}
