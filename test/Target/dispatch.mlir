// gpuos_dispatch numbers kinds by their position in the manifest's "tasks"
// (docs/abi.md): graph by graph, each graph's tasks in a topological order.
// Here the graph body is written consumers first, so the order differs from
// the written one, and a second graph continues the numbering. Kind 3 and
// anything above return 1000 + kind.
// REQUIRES: nvjitlink, libdevice, runtime-device
// RUN: gpuos-jit %s --emit=mlir | FileCheck %s --check-prefix=SWITCH
// RUN: rm -rf %t && mkdir -p %t
// RUN: gpuos-jit %s --no-cache -o %t/img
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/img.manifest.json

// SWITCH:       llvm.func @gpuos_dispatch(%[[KIND:.+]]: i32, %[[ARGS:.+]]: !llvm.ptr, %[[TILE:.+]]: i32) -> i32
// SWITCH:         %[[ZERO:.+]] = llvm.mlir.constant(0 : i32) : i32
// SWITCH:         %[[BASE:.+]] = llvm.mlir.constant(1000 : i32) : i32
// SWITCH:         llvm.switch %[[KIND]] : i32, ^[[UNKNOWN:.+]] [
// SWITCH-NEXT:      0: ^[[K0:[a-z0-9]+]],
// SWITCH-NEXT:      1: ^[[K1:[a-z0-9]+]],
// SWITCH-NEXT:      2: ^[[K2:[a-z0-9]+]]
// SWITCH-NEXT:    ]
// SWITCH:       ^[[UNKNOWN]]:
// SWITCH-NEXT:    %[[CODE:.+]] = llvm.add %[[KIND]], %[[BASE]] : i32
// SWITCH-NEXT:    llvm.return %[[CODE]] : i32
// SWITCH:       ^[[K0]]:
// SWITCH-NEXT:    llvm.call @gpuos_task_first(%[[ARGS]], %[[TILE]]) : (!llvm.ptr, i32) -> ()
// SWITCH-NEXT:    llvm.return %[[ZERO]] : i32
// SWITCH:       ^[[K1]]:
// SWITCH-NEXT:    llvm.call @gpuos_task_second(%[[ARGS]], %[[TILE]]) : (!llvm.ptr, i32) -> ()
// SWITCH-NEXT:    llvm.return %[[ZERO]] : i32
// SWITCH:       ^[[K2]]:
// SWITCH-NEXT:    llvm.call @gpuos_task_other(%[[ARGS]], %[[TILE]]) : (!llvm.ptr, i32) -> ()
// SWITCH-NEXT:    llvm.return %[[ZERO]] : i32

// MANIFEST:     "kind": "first",
// MANIFEST:     "graph": "pair",
// MANIFEST:     "depends_on": []
// MANIFEST:     "kind": "second",
// MANIFEST:     "graph": "pair",
// MANIFEST:     "depends_on": [
// MANIFEST-NEXT:  0
// MANIFEST-NEXT: ]
// MANIFEST:     "kind": "other",
// MANIFEST:     "graph": "single",
gpuos.graph @pair(%x : !gpuos.tensor<256xf32>) -> (y : !gpuos.tensor<256xf32>) {
  %y = gpuos.task "second" ins(%a = %t : !gpuos.tensor<256xf32>) tile [256] -> (!gpuos.tensor<256xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<256xf32>
    gpuos.yield %0 : !gpuos.tensor<256xf32>
  }
  %t = gpuos.task "first" ins(%b = %x : !gpuos.tensor<256xf32>) tile [256] -> (!gpuos.tensor<256xf32>) {
    %0 = gpuos.add %b, %b : !gpuos.tensor<256xf32>, !gpuos.tensor<256xf32>
    gpuos.yield %0 : !gpuos.tensor<256xf32>
  }
  gpuos.yield %y : !gpuos.tensor<256xf32>
}

gpuos.graph @single(%x : !gpuos.tensor<64xf32>) -> (y : !gpuos.tensor<64xf32>) {
  %y = gpuos.task "other" ins(%a = %x : !gpuos.tensor<64xf32>) tile [64] -> (!gpuos.tensor<64xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<64xf32>
    gpuos.yield %0 : !gpuos.tensor<64xf32>
  }
  gpuos.yield %y : !gpuos.tensor<64xf32>
}
