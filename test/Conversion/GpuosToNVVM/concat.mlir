// A concat evaluates every operand at its position clamped into the
// operand, then selects the one that holds the element. An operand of size
// 0 on the axis holds none and is not read at all: its clamp would be to
// element -1, an out-of-bounds load of a buffer without elements.
// RUN: gpuos-opt %s --gpuos-lower-tasks-to-nvvm=convert-to-llvm=false | FileCheck %s

// %x (4x0) is buffer 0: its address, the argument block's first slot, is
// never loaded, and no clamp goes to -1. %y is buffer 1.
// CHECK-LABEL: llvm.func @gpuos_task_empty_first
// CHECK:         %[[BLOCK:.+]] = llvm.addrspacecast %arg0 : !llvm.ptr to !llvm.ptr<1>
// CHECK-NOT:     llvm.load %[[BLOCK]] {{.*}}-> i64
// CHECK-NOT:     arith.constant -1
// CHECK:         %[[SLOT1:.+]] = llvm.getelementptr %[[BLOCK]][1]
// CHECK-NEXT:    %[[YADDR:.+]] = llvm.load %[[SLOT1]]
// CHECK-NEXT:    %[[Y:.+]] = llvm.inttoptr %[[YADDR]]
// CHECK-NOT:     arith.constant -1
// CHECK:         arith.minsi %{{.+}}, %c7_i32
// CHECK:         llvm.getelementptr %[[Y]][
// CHECK-NOT:     arith.constant -1
// CHECK:         llvm.return
gpuos.graph @first(%x : !gpuos.tensor<4x0xf32>, %y : !gpuos.tensor<4x8xf32>) -> (a : !gpuos.tensor<4x8xf32>) {
  %r = gpuos.task "empty_first" ins(%a = %x : !gpuos.tensor<4x0xf32>, %b = %y : !gpuos.tensor<4x8xf32>) tile [4, 8] -> (!gpuos.tensor<4x8xf32>) {
    %0 = gpuos.concat %a, %b axis 1 : !gpuos.tensor<4x0xf32>, !gpuos.tensor<4x8xf32>
    %1 = gpuos.neg %0 : !gpuos.tensor<4x8xf32>
    gpuos.yield %1 : !gpuos.tensor<4x8xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4x8xf32>
}

// Between two operands: %y (8 wide, buffer 0) and %w (5 wide, buffer 2)
// are read, the empty %z (buffer 1) is not, and the one select picks %y
// below position 8.
// CHECK-LABEL: llvm.func @gpuos_task_empty_middle
// CHECK:         %[[BLOCK:.+]] = llvm.addrspacecast %arg0 : !llvm.ptr to !llvm.ptr<1>
// CHECK-NOT:     llvm.getelementptr %[[BLOCK]][1]
// CHECK:         %[[SLOT2:.+]] = llvm.getelementptr %[[BLOCK]][2]
// CHECK-NOT:     llvm.getelementptr %[[BLOCK]][1]
// CHECK-NOT:     arith.constant -1
// CHECK:         arith.cmpi slt, %{{.+}}, %c8_i32
// CHECK-NOT:     arith.constant -1
// CHECK:         llvm.return
gpuos.graph @middle(%y : !gpuos.tensor<4x8xf32>, %z : !gpuos.tensor<4x0xf32>, %w : !gpuos.tensor<4x5xf32>) -> (a : !gpuos.tensor<4x13xf32>) {
  %r = gpuos.task "empty_middle" ins(%a = %y : !gpuos.tensor<4x8xf32>, %b = %z : !gpuos.tensor<4x0xf32>, %c = %w : !gpuos.tensor<4x5xf32>) tile [4, 13] -> (!gpuos.tensor<4x13xf32>) {
    %0 = gpuos.concat %a, %b, %c axis 1 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x0xf32>, !gpuos.tensor<4x5xf32>
    %1 = gpuos.neg %0 : !gpuos.tensor<4x13xf32>
    gpuos.yield %1 : !gpuos.tensor<4x13xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4x13xf32>
}
