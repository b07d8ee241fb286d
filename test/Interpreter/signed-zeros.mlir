// Float max and min order -0 below +0 (IEEE 754 maximum/minimum, as the
// lowering's arith.maximumf/minimumf), whatever the operand order.
// canonicalize moves a constant operand of the commutative max to the
// right, so the graph gives the same values before and after the pipeline.
// 1 / x shows the sign of a zero: inf for +0, -inf for -0.
// RUN: gpuos-interp %s | FileCheck %s
// RUN: gpuos-opt %s --gpuos-pipeline | gpuos-interp - | FileCheck %s

// |x * 0| is +0 whatever the sign of x.
// CHECK-LABEL: graph @zeros
// CHECK:       output max_nz_pz
// CHECK:         values: inf inf inf inf
// CHECK:       output max_pz_nz
// CHECK:         values: inf inf inf inf
// CHECK:       output min_nz_pz
// CHECK:         values: -inf -inf -inf -inf
// CHECK:       output min_pz_nz
// CHECK:         values: -inf -inf -inf -inf
// Rows [-0, +0] and [+0, -0]: reduce max is +0 for both, reduce min -0.
// CHECK:       output rmax
// CHECK:         values: inf inf
// CHECK:       output rmin
// CHECK:         values: -inf -inf
gpuos.graph @zeros(%x : !gpuos.tensor<4xf32>)
    -> (max_nz_pz : !gpuos.tensor<4xf32>, max_pz_nz : !gpuos.tensor<4xf32>,
        min_nz_pz : !gpuos.tensor<4xf32>, min_pz_nz : !gpuos.tensor<4xf32>,
        rmax : !gpuos.tensor<2xf32>, rmin : !gpuos.tensor<2xf32>) {
  %one = gpuos.constant dense<1.0> : tensor<4xf32>
  %zero = gpuos.constant dense<0.0> : tensor<4xf32>
  %nz = gpuos.constant dense<-0.0> : tensor<4xf32>
  %p = gpuos.mul %x, %zero : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %pz = gpuos.abs %p : !gpuos.tensor<4xf32>
  %mx1 = gpuos.max %nz, %pz : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %mx2 = gpuos.max %pz, %nz : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %mn1 = gpuos.min %nz, %pz : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %mn2 = gpuos.min %pz, %nz : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %y1 = gpuos.div %one, %mx1 : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %y2 = gpuos.div %one, %mx2 : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %y3 = gpuos.div %one, %mn1 : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %y4 = gpuos.div %one, %mn2 : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %z = gpuos.constant dense<[[-0.0, 0.0], [0.0, -0.0]]> : tensor<2x2xf32>
  %one2 = gpuos.constant dense<1.0> : tensor<2xf32>
  %r1 = gpuos.reduce max %z axes [1] : !gpuos.tensor<2x2xf32>
  %r2 = gpuos.reduce min %z axes [1] : !gpuos.tensor<2x2xf32>
  %rmax = gpuos.div %one2, %r1 : !gpuos.tensor<2xf32>, !gpuos.tensor<2xf32>
  %rmin = gpuos.div %one2, %r2 : !gpuos.tensor<2xf32>, !gpuos.tensor<2xf32>
  gpuos.yield %y1, %y2, %y3, %y4, %rmax, %rmin
      : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>,
        !gpuos.tensor<2xf32>, !gpuos.tensor<2xf32>
}
