// Views compose into index arithmetic: no copies. A transpose swaps the
// strides, a slice adds its start and scales by its step, a broadcast drops
// dims; the loads then go through the composed strides one lane at a time.
// RUN: gpuos-opt %s --gpuos-lower-tasks-to-nvvm=convert-to-llvm=false | FileCheck %s

// %t = transpose(%a): element (i, j) of %t is %a[j, i], at offset j * 32 + i
// of %a's buffer. Lanes run along j, 32 elements apart: four scalar loads.
// CHECK-LABEL: llvm.func @gpuos_task_transposed
// CHECK:         %[[A:.+]] = llvm.inttoptr {{.*}} : i64 to !llvm.ptr<1>
// CHECK:         scf.for %[[E:.+]] = {{.*}} : i32 {
// CHECK:           %[[J:.+]] = arith.remui %[[E]], %c64_i32 : i32
// CHECK:           %[[JOFF:.+]] = arith.muli %[[J]], %c32_i32 : i32
// CHECK:           %[[OFF:.+]] = arith.addi %[[JOFF]], %{{.+}} : i32
// CHECK:           llvm.getelementptr %[[A]][%[[OFF]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK:           %[[OFF1:.+]] = arith.addi %[[OFF]], %c32_i32 : i32
// CHECK:           llvm.getelementptr %[[A]][%[[OFF1]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK:           %[[OFF2:.+]] = arith.addi %[[OFF]], %c64_i32 : i32
// CHECK:           %[[OFF3:.+]] = arith.addi %[[OFF]], %c96_i32 : i32
gpuos.graph @transposed(%x : !gpuos.tensor<64x32xf32>) -> (o : !gpuos.tensor<32x64xf32>) {
  %r = gpuos.task "transposed" ins(%a = %x : !gpuos.tensor<64x32xf32>) tile [8, 64] -> (!gpuos.tensor<32x64xf32>) {
    %t = gpuos.transpose %a [1, 0] : !gpuos.tensor<64x32xf32>
    %0 = gpuos.neg %t : !gpuos.tensor<32x64xf32, strides = [1, 32]>
    gpuos.yield %0 : !gpuos.tensor<32x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<32x64xf32>
}

// slice starts [3, 4] steps [2, 1] of a 40x80 buffer: element (i, j) is at
// (3 + 2i) * 80 + 4 + j. The start offset keeps the lanes at a multiple of
// 4 elements, so the loads stay 16-byte vectors.
// CHECK-LABEL: llvm.func @gpuos_task_sliced
// CHECK:         scf.for %[[E:.+]] = {{.*}} : i32 {
// CHECK:           %[[ROW:.+]] = arith.muli %{{.+}}, %c2_i32 : i32
// CHECK:           %[[R3:.+]] = arith.addi %[[ROW]], %c3_i32 : i32
// CHECK:           %[[COL:.+]] = arith.addi %{{.+}}, %c4_i32 : i32
// CHECK:           %[[ROWOFF:.+]] = arith.muli %[[R3]], %c80_i32 : i32
// CHECK:           %[[OFF:.+]] = arith.addi %[[ROWOFF]], %[[COL]] : i32
// CHECK:           %[[P:.+]] = llvm.getelementptr %{{.+}}[%[[OFF]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK:           llvm.load %[[P]] invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
gpuos.graph @sliced(%x : !gpuos.tensor<40x80xf32>) -> (o : !gpuos.tensor<16x32xf32>) {
  %r = gpuos.task "sliced" ins(%a = %x : !gpuos.tensor<40x80xf32>) tile [4, 32] -> (!gpuos.tensor<16x32xf32>) {
    %s = gpuos.slice %a starts [3, 4] sizes [16, 32] steps [2, 1] : !gpuos.tensor<40x80xf32>
    %0 = gpuos.abs %s : !gpuos.tensor<16x32xf32, strides = [160, 1]>
    gpuos.yield %0 : !gpuos.tensor<16x32xf32>
  }
  gpuos.yield %r : !gpuos.tensor<16x32xf32>
}

// A start of 5 breaks the 16-byte proof: the same slice reads scalars
// (the contiguous output is still written with vectors).
// CHECK-LABEL: llvm.func @gpuos_task_unaligned_slice
// CHECK:         llvm.load %{{.+}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT:     !llvm.ptr<1> -> vector<4xf32>
// CHECK:         llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-LABEL: llvm.func @gpuos_launch_unaligned_slice
gpuos.graph @unaligned_slice(%x : !gpuos.tensor<40x80xf32>) -> (o : !gpuos.tensor<16x32xf32>) {
  %r = gpuos.task "unaligned_slice" ins(%a = %x : !gpuos.tensor<40x80xf32>) tile [4, 32] -> (!gpuos.tensor<16x32xf32>) {
    %s = gpuos.slice %a starts [3, 5] sizes [16, 32] steps [2, 1] : !gpuos.tensor<40x80xf32>
    %0 = gpuos.abs %s : !gpuos.tensor<16x32xf32, strides = [160, 1]>
    gpuos.yield %0 : !gpuos.tensor<16x32xf32>
  }
  gpuos.yield %r : !gpuos.tensor<16x32xf32>
}

// A strided output buffer is written through its strides.
// CHECK-LABEL: llvm.func @gpuos_task_strided_out
// CHECK-COUNT-4: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
gpuos.graph @strided_out(%x : !gpuos.tensor<16x24xf32>) -> (o : !gpuos.tensor<24x16xf32, strides = [1, 24]>) {
  %r = gpuos.task "strided_out" ins(%a = %x : !gpuos.tensor<16x24xf32>)
      tile [8, 16] -> (!gpuos.tensor<24x16xf32, strides = [1, 24]>) {
    %e = gpuos.exp %a : !gpuos.tensor<16x24xf32>
    %t = gpuos.transpose %e [1, 0] : !gpuos.tensor<16x24xf32>
    gpuos.yield %t : !gpuos.tensor<24x16xf32, strides = [1, 24]>
  }
  gpuos.yield %r : !gpuos.tensor<24x16xf32, strides = [1, 24]>
}
