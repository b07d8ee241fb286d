// Row chains on the straight-line path: a run of at least three links that
// differ only in where their slices start is one loop over the link index
// (RowLinks.h, RowEmitter::emitLinkLoop). Each iteration loads the next
// link's residual before its own reduction (carried to the next
// iteration) and its weight; with one statistic per link the shared-memory
// slot alternates by the link's parity (xor 512). test/Target/gpu-check/
// link_loops.mlir checks the numbers.
// RUN: gpuos-opt %s --gpuos-lower-tasks-to-nvvm=convert-to-llvm=false | FileCheck %s

// Four links: link 0 reads the task input, links 1-3 are the loop, which
// carries two chunks of four lanes of the previous link's result and of
// the next link's residual.
// CHECK-LABEL: llvm.func @gpuos_task_link_rms
// CHECK:         scf.if %{{.+}} {
// CHECK:           %[[OUT:.+]]:16 = scf.for %[[LINK:.+]] = %c0_i32 to %c3_i32 step %c1_i32 iter_args(
// CHECK-NEXT:        %[[NEXT:.+]] = arith.addi %[[LINK]], %c1_i32 : i32
// CHECK-NEXT:        arith.minui %[[NEXT]], %c2_i32 : i32
// CHECK-COUNT-4:     llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:         nvvm.barrier0
// CHECK:             %[[ODD:.+]] = arith.andi %[[LINK]], %c1_i32 : i32
// CHECK-NEXT:        %[[FLIP:.+]] = arith.muli %[[ODD]], %c512_i32 : i32
// CHECK-NOT:         llvm.load {{.*}}!llvm.ptr<1>
// CHECK:             nvvm.shfl.sync
// CHECK:             arith.xori %{{.+}}, %[[FLIP]] : i32
// CHECK:             nvvm.barrier0
// CHECK-NOT:         nvvm.barrier0
// CHECK-NOT:         llvm.load {{.*}}!llvm.ptr<1>
// CHECK:             scf.yield
// CHECK-NEXT:      }
// CHECK-NOT:       nvvm.barrier0
// CHECK:           llvm.insertelement %[[OUT]]#0,
// CHECK-COUNT-2:   llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK:         } else {
gpuos.graph @link_rms(%x : !gpuos.tensor<1x2048xf32>, %d : !gpuos.tensor<4x2048xf32>, %w : !gpuos.tensor<4x2048xf32>)
    -> (y : !gpuos.tensor<1x2048xf32>) {
  %r = gpuos.task "link_rms" ins(%a0 = %x : !gpuos.tensor<1x2048xf32>, %a1 = %d : !gpuos.tensor<4x2048xf32>, %a2 = %w : !gpuos.tensor<4x2048xf32>)
      tile [1, 2048] -> (!gpuos.tensor<1x2048xf32>) {
    %0 = gpuos.slice %a1 starts [0, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %1 = gpuos.slice %a2 starts [0, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %2 = gpuos.reshape %1 to [2048] : !gpuos.tensor<1x2048xf32>
    %3 = gpuos.add %a0, %0 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %4 = gpuos.rms_norm %3 weight(%2 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %5 = gpuos.slice %a1 starts [1, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %6 = gpuos.slice %a2 starts [1, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %7 = gpuos.reshape %6 to [2048] : !gpuos.tensor<1x2048xf32>
    %8 = gpuos.add %4, %5 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %9 = gpuos.rms_norm %8 weight(%7 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %10 = gpuos.slice %a1 starts [2, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %11 = gpuos.slice %a2 starts [2, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %12 = gpuos.reshape %11 to [2048] : !gpuos.tensor<1x2048xf32>
    %13 = gpuos.add %9, %10 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %14 = gpuos.rms_norm %13 weight(%12 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %15 = gpuos.slice %a1 starts [3, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %16 = gpuos.slice %a2 starts [3, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %17 = gpuos.reshape %16 to [2048] : !gpuos.tensor<1x2048xf32>
    %18 = gpuos.add %14, %15 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %19 = gpuos.rms_norm %18 weight(%17 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    gpuos.yield %19 : !gpuos.tensor<1x2048xf32>
  }
  gpuos.yield %r : !gpuos.tensor<1x2048xf32>
}

// Link 2's sum is also a result: links 1 and 3 alone are too short a run,
// so the chain stays straight-line (no loop, four barriers).
// CHECK-LABEL: llvm.func @gpuos_task_link_yielded
// CHECK:         scf.if %{{.+}} {
// CHECK-NOT:       arith.minui
// CHECK-COUNT-4:   nvvm.barrier0
// CHECK-NOT:       arith.xori
// CHECK:         } else {
gpuos.graph @link_yielded(%x : !gpuos.tensor<1x2048xf32>, %d : !gpuos.tensor<4x2048xf32>, %w : !gpuos.tensor<4x2048xf32>)
    -> (y : !gpuos.tensor<1x2048xf32>, a2 : !gpuos.tensor<1x2048xf32>) {
  %r:2 = gpuos.task "link_yielded" ins(%a0 = %x : !gpuos.tensor<1x2048xf32>, %a1 = %d : !gpuos.tensor<4x2048xf32>, %a2 = %w : !gpuos.tensor<4x2048xf32>)
      tile [1, 2048] -> (!gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>) {
    %0 = gpuos.slice %a1 starts [0, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %1 = gpuos.slice %a2 starts [0, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %2 = gpuos.reshape %1 to [2048] : !gpuos.tensor<1x2048xf32>
    %3 = gpuos.add %a0, %0 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %4 = gpuos.rms_norm %3 weight(%2 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %5 = gpuos.slice %a1 starts [1, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %6 = gpuos.slice %a2 starts [1, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %7 = gpuos.reshape %6 to [2048] : !gpuos.tensor<1x2048xf32>
    %8 = gpuos.add %4, %5 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %9 = gpuos.rms_norm %8 weight(%7 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %10 = gpuos.slice %a1 starts [2, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %11 = gpuos.slice %a2 starts [2, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %12 = gpuos.reshape %11 to [2048] : !gpuos.tensor<1x2048xf32>
    %13 = gpuos.add %9, %10 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %14 = gpuos.rms_norm %13 weight(%12 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    %15 = gpuos.slice %a1 starts [3, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %16 = gpuos.slice %a2 starts [3, 0] sizes [1, 2048] steps [1, 1] : !gpuos.tensor<4x2048xf32>
    %17 = gpuos.reshape %16 to [2048] : !gpuos.tensor<1x2048xf32>
    %18 = gpuos.add %14, %15 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
    %19 = gpuos.rms_norm %18 weight(%17 : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<1x2048xf32>
    gpuos.yield %19, %13 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1x2048xf32>
}
