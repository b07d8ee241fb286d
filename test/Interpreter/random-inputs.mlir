// The same seed prints the same text; another seed changes the values.
// RUN: gpuos-interp %s --seed=7 > %t.a
// RUN: gpuos-interp %s --seed=7 > %t.b
// RUN: diff %t.a %t.b
// RUN: gpuos-interp %s --seed=8 > %t.c
// RUN: not diff %t.a %t.c
// RUN: FileCheck %s < %t.a
// RUN: gpuos-interp %s --graph=signed --print-values=0 | FileCheck %s --check-prefix=SIGNED

// A graph with log draws float inputs from [0.1, 2); integers come from
// [0, 8). Both outputs copy an input, so the printed values show the ranges.
gpuos.graph @positive(%x : !gpuos.tensor<2x3xf32>, %n : !gpuos.tensor<6xi32>)
    -> (l : !gpuos.tensor<2x3xf32>, m : !gpuos.tensor<6xi32>) {
  %l = gpuos.log %x : !gpuos.tensor<2x3xf32>
  %m = gpuos.max %n, %n : !gpuos.tensor<6xi32>, !gpuos.tensor<6xi32>
  gpuos.yield %l, %m : !gpuos.tensor<2x3xf32>, !gpuos.tensor<6xi32>
}

// CHECK:      graph @positive seed 7
// CHECK-NEXT: input x : !gpuos.tensor<2x3xf32> uniform [0.1, 2)
// CHECK-NEXT: input n : !gpuos.tensor<6xi32> uniform [0, 8)
// CHECK-NEXT: output l : !gpuos.tensor<2x3xf32>
// log of [0.1, 2) lies in [-2.31, 0.7).
// CHECK-NEXT:   min {{-?[0-2]\.[0-9]+}} max {{-?[0-2]\.[0-9]+}}
// CHECK-NEXT:   values: {{(-?[0-2]\.[0-9]+ ?){6}$}}
// CHECK-NEXT: output m : !gpuos.tensor<6xi32>
// CHECK-NEXT:   min {{[0-7]}} max {{[0-7]}}
// CHECK-NEXT:   values: {{([0-7] ?){6}$}}

gpuos.graph @signed(%x : !gpuos.tensor<4xf32>, %b : !gpuos.tensor<4xi1>)
    -> (y : !gpuos.tensor<4xf32>) {
  %z = gpuos.constant dense<0.0> : tensor<f32>
  %y = gpuos.select %b, %x, %z : !gpuos.tensor<4xi1>, !gpuos.tensor<4xf32>, !gpuos.tensor<f32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// SIGNED:      input x : !gpuos.tensor<4xf32> uniform [-1, 1)
// SIGNED-NEXT: input b : !gpuos.tensor<4xi1> random {0, 1}
// SIGNED-NEXT: output y : !gpuos.tensor<4xf32>
// SIGNED-NEXT:   min
// SIGNED-NOT:    values:
