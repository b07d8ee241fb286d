// Contiguous innermost dims: 16-byte vector accesses behind a run-time
// check that the buffers are 16-byte aligned, a scalar copy of the loop
// otherwise; a broadcast operand (stride 0 along the lanes) loads once.
// RUN: gpuos-opt %s --gpuos-lower-tasks-to-nvvm=convert-to-llvm=false | FileCheck %s

// CHECK-LABEL: llvm.func @gpuos_task_scale
// CHECK:         %[[X:.+]] = llvm.inttoptr {{.*}} : i64 to !llvm.ptr<1>
// CHECK:         %[[S:.+]] = llvm.inttoptr {{.*}} : i64 to !llvm.ptr<1>
// CHECK:         %[[Y:.+]] = llvm.inttoptr {{.*}} : i64 to !llvm.ptr<1>
// CHECK:         %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x
// CHECK:         %[[NTID:.+]] = nvvm.read.ptx.sreg.ntid.x
// Only the buffers read or written with vectors enter the check (not the
// scalar %s).
// CHECK:         %[[PX:.+]] = llvm.ptrtoint %[[X]] : !llvm.ptr<1> to i64
// CHECK:         %[[PY:.+]] = llvm.ptrtoint %[[Y]] : !llvm.ptr<1> to i64
// CHECK:         %[[OR:.+]] = arith.ori %[[PX]], %[[PY]] : i64
// CHECK:         %[[LOW:.+]] = arith.andi %[[OR]], %c15_i64 : i64
// CHECK:         %[[ALIGNED:.+]] = arith.cmpi eq, %[[LOW]], %c0_i64 : i64
// CHECK:         scf.if %[[ALIGNED]] {
// Four f32 per thread: the loop steps by 4 * blockDim.
// CHECK:           scf.for %[[E:.+]] = %{{.+}} to %c2048_i32 step %{{.+}} : i32 {
// CHECK:             llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:             %[[SV:.+]] = llvm.load %[[S]] invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-COUNT-4:     arith.mulf %{{.+}}, %[[SV]] : f32
// CHECK:             llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// The scalar copy handles one element per iteration: the loop steps by
// blockDim, one load of x, one store of y.
// CHECK:         } else {
// CHECK:           scf.for %{{.+}} = %[[TID]] to %c2048_i32 step %[[NTID]] : i32 {
// CHECK-NOT:         vector<4xf32>
// CHECK:             llvm.load %{{.+}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK:             llvm.load %[[S]] invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NEXT:        arith.mulf
// CHECK-NEXT:        llvm.getelementptr
// CHECK-NEXT:        llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-NEXT:      }
// CHECK:         }
gpuos.graph @scale(%x : !gpuos.tensor<8x256xf32>, %s : !gpuos.tensor<f32>)
    -> (y : !gpuos.tensor<8x256xf32>) {
  %r = gpuos.task "scale" ins(%a = %x : !gpuos.tensor<8x256xf32>, %b = %s : !gpuos.tensor<f32>)
      tile [8, 256] -> (!gpuos.tensor<8x256xf32>) {
    %0 = gpuos.mul %a, %b : !gpuos.tensor<8x256xf32>, !gpuos.tensor<f32>
    gpuos.yield %0 : !gpuos.tensor<8x256xf32>
  }
  gpuos.yield %r : !gpuos.tensor<8x256xf32>
}

// f16 travels 8 per 16-byte vector and computes in f32.
// CHECK-LABEL: llvm.func @gpuos_task_half
// CHECK:         llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// CHECK:         arith.extf %{{.+}} : f16 to f32
// CHECK:         llvm.call @__nv_expf(%{{.+}}) : (f32) -> f32
// CHECK:         arith.truncf %{{.+}} : f32 to f16
// CHECK:         llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>
gpuos.graph @half(%x : !gpuos.tensor<4x64xf16>) -> (y : !gpuos.tensor<4x64xf16>) {
  %r = gpuos.task "half" ins(%a = %x : !gpuos.tensor<4x64xf16>) tile [1, 64] -> (!gpuos.tensor<4x64xf16>) {
    %0 = gpuos.exp %a : !gpuos.tensor<4x64xf16>
    gpuos.yield %0 : !gpuos.tensor<4x64xf16>
  }
  gpuos.yield %r : !gpuos.tensor<4x64xf16>
}

// An odd innermost size leaves one element per access and no check.
// CHECK-LABEL: llvm.func @gpuos_task_odd
// CHECK-NOT:     scf.if
// CHECK-NOT:     vector<
// CHECK:         llvm.return
gpuos.graph @odd(%x : !gpuos.tensor<3x7xf32>) -> (y : !gpuos.tensor<3x7xf32>) {
  %r = gpuos.task "odd" ins(%a = %x : !gpuos.tensor<3x7xf32>) tile [1, 7] -> (!gpuos.tensor<3x7xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<3x7xf32>
    gpuos.yield %0 : !gpuos.tensor<3x7xf32>
  }
  gpuos.yield %r : !gpuos.tensor<3x7xf32>
}
