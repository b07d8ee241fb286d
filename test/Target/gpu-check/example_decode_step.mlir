// examples/decode_step.mlir after gpuos-opt --gpuos-pipeline (a snapshot of the
// partitioner's output, so the GPU check covers realistic task bodies
// whatever state the pipeline is in; scripts/gpu-check.sh also compiles
// the live pipeline output when it runs). Regenerate with
//   gpuos-opt examples/decode_step.mlir --gpuos-pipeline
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK-COUNT-36: .visible .func gpuos_task_
module {
  gpuos.graph @decode_step(%x: !gpuos.tensor<1x256xf32>, %l0_norm1: !gpuos.tensor<256xf32>, %l0_wq: !gpuos.tensor<256x256xf32>, %l0_wk: !gpuos.tensor<256x256xf32>, %l0_wv: !gpuos.tensor<256x256xf32>, %l0_wo: !gpuos.tensor<256x256xf32>, %l0_kcache: !gpuos.tensor<4x32x64xf32>, %l0_vcache: !gpuos.tensor<4x32x64xf32>, %l0_norm2: !gpuos.tensor<256xf32>, %l0_wgate: !gpuos.tensor<256x512xf32>, %l0_wup: !gpuos.tensor<256x512xf32>, %l0_wdown: !gpuos.tensor<512x256xf32>, %l1_norm1: !gpuos.tensor<256xf32>, %l1_wq: !gpuos.tensor<256x256xf32>, %l1_wk: !gpuos.tensor<256x256xf32>, %l1_wv: !gpuos.tensor<256x256xf32>, %l1_wo: !gpuos.tensor<256x256xf32>, %l1_kcache: !gpuos.tensor<4x32x64xf32>, %l1_vcache: !gpuos.tensor<4x32x64xf32>, %l1_norm2: !gpuos.tensor<256xf32>, %l1_wgate: !gpuos.tensor<256x512xf32>, %l1_wup: !gpuos.tensor<256x512xf32>, %l1_wdown: !gpuos.tensor<512x256xf32>, %final_norm: !gpuos.tensor<256xf32>, %unembed: !gpuos.tensor<256x1024xf32>) -> (logits : !gpuos.tensor<1x1024xf32>, token : !gpuos.tensor<1xi64>) priority #gpuos.priority<urgent, deadline_us = 500> {
    %0 = gpuos.task "decode_step_t5_rms_norm" ins(%arg0 = %x : !gpuos.tensor<1x256xf32>, %arg1 = %l0_norm1 : !gpuos.tensor<256xf32>) tile [1, 256] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 1105168 : i64} {
      %36 = gpuos.rms_norm %arg0 weight(%arg1 : !gpuos.tensor<256xf32>) eps 9.9999999999999995E-7 : !gpuos.tensor<1x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %1 = gpuos.task "decode_step_t7_matmul" ins(%arg0 = %0 : !gpuos.tensor<1x256xf32>, %arg1 = %l0_wk : !gpuos.tensor<256x256xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 1104912 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %2 = gpuos.task "decode_step_t6_matmul" ins(%arg0 = %0 : !gpuos.tensor<1x256xf32>, %arg1 = %l0_wq : !gpuos.tensor<256x256xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 1096464 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %3 = gpuos.task "decode_step_t8_matmul" ins(%arg0 = %0 : !gpuos.tensor<1x256xf32>, %arg1 = %l0_wv : !gpuos.tensor<256x256xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 1096200 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %4 = gpuos.task "decode_step_t9_concat" ins(%arg0 = %l0_kcache : !gpuos.tensor<4x32x64xf32>, %arg1 = %1 : !gpuos.tensor<1x256xf32>) tile [1, 33, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<4x33x64xf32>) attributes {gpuos.critical_path = 1039376 : i64} {
      %36 = gpuos.reshape %arg1 to [4, 1, 64] : !gpuos.tensor<1x256xf32>
      %37 = gpuos.concat %arg0, %36 axis 1 : !gpuos.tensor<4x32x64xf32>, !gpuos.tensor<4x1x64xf32>
      gpuos.yield %37 : !gpuos.tensor<4x33x64xf32>
    }
    %5 = gpuos.task "decode_step_t11_matmul" ins(%arg0 = %2 : !gpuos.tensor<1x256xf32>, %arg1 = %4 : !gpuos.tensor<4x33x64xf32>) tile [1, 1, 33] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<4x1x33xf32>) attributes {gpuos.critical_path = 1030928 : i64} {
      %36 = gpuos.reshape %arg0 to [4, 1, 64] : !gpuos.tensor<1x256xf32>
      %37 = gpuos.matmul %36, %arg1 transpose_rhs : !gpuos.tensor<4x1x64xf32>, !gpuos.tensor<4x33x64xf32>
      gpuos.yield %37 : !gpuos.tensor<4x1x33xf32>
    }
    %6 = gpuos.task "decode_step_t10_concat" ins(%arg0 = %l0_vcache : !gpuos.tensor<4x32x64xf32>, %arg1 = %3 : !gpuos.tensor<1x256xf32>) tile [1, 33, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<4x33x64xf32>) attributes {gpuos.critical_path = 1030664 : i64} {
      %36 = gpuos.reshape %arg1 to [4, 1, 64] : !gpuos.tensor<1x256xf32>
      %37 = gpuos.concat %arg0, %36 axis 1 : !gpuos.tensor<4x32x64xf32>, !gpuos.tensor<4x1x64xf32>
      gpuos.yield %37 : !gpuos.tensor<4x33x64xf32>
    }
    %7 = gpuos.task "decode_step_t2_mul_softmax" ins(%arg0 = %5 : !gpuos.tensor<4x1x33xf32>) tile [4, 1, 33] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<4x1x33xf32>) attributes {gpuos.critical_path = 1022480 : i64} {
      %36 = gpuos.constant dense<1.250000e-01> : tensor<f32>
      %37 = gpuos.mul %arg0, %36 : !gpuos.tensor<4x1x33xf32>, !gpuos.tensor<f32>
      %38 = gpuos.softmax %37 axis 2 : !gpuos.tensor<4x1x33xf32>
      gpuos.yield %38 : !gpuos.tensor<4x1x33xf32>
    }
    %8 = gpuos.task "decode_step_t12_matmul" ins(%arg0 = %7 : !gpuos.tensor<4x1x33xf32>, %arg1 = %6 : !gpuos.tensor<4x33x64xf32>) tile [1, 1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<4x1x64xf32>) attributes {gpuos.critical_path = 1022216 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<4x1x33xf32>, !gpuos.tensor<4x33x64xf32>
      gpuos.yield %36 : !gpuos.tensor<4x1x64xf32>
    }
    %9 = gpuos.task "decode_step_t13_matmul" ins(%arg0 = %8 : !gpuos.tensor<4x1x64xf32>, %arg1 = %l0_wo : !gpuos.tensor<256x256xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 1013768 : i64} {
      %36 = gpuos.reshape %arg0 to [1, 256] : !gpuos.tensor<4x1x64xf32>
      %37 = gpuos.matmul %36, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
      gpuos.yield %37 : !gpuos.tensor<1x256xf32>
    }
    %10 = gpuos.task "decode_step_t14_add" ins(%arg0 = %x : !gpuos.tensor<1x256xf32>, %arg1 = %9 : !gpuos.tensor<1x256xf32>) tile [1, 256] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 948232 : i64} {
      %36 = gpuos.add %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %11 = gpuos.task "decode_step_t15_rms_norm" ins(%arg0 = %10 : !gpuos.tensor<1x256xf32>, %arg1 = %l0_norm2 : !gpuos.tensor<256xf32>) tile [1, 256] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 947976 : i64} {
      %36 = gpuos.rms_norm %arg0 weight(%arg1 : !gpuos.tensor<256xf32>) eps 9.9999999999999995E-7 : !gpuos.tensor<1x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %12 = gpuos.task "decode_step_t16_matmul" ins(%arg0 = %11 : !gpuos.tensor<1x256xf32>, %arg1 = %l0_wgate : !gpuos.tensor<256x512xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x512xf32>) attributes {gpuos.critical_path = 947720 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x512xf32>
      gpuos.yield %36 : !gpuos.tensor<1x512xf32>
    }
    %13 = gpuos.task "decode_step_t17_matmul" ins(%arg0 = %11 : !gpuos.tensor<1x256xf32>, %arg1 = %l0_wup : !gpuos.tensor<256x512xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x512xf32>) attributes {gpuos.critical_path = 947720 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x512xf32>
      gpuos.yield %36 : !gpuos.tensor<1x512xf32>
    }
    %14 = gpuos.task "decode_step_t0_silu_mul" ins(%arg0 = %12 : !gpuos.tensor<1x512xf32>, %arg1 = %13 : !gpuos.tensor<1x512xf32>) tile [1, 512] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x512xf32>) attributes {gpuos.critical_path = 816648 : i64} {
      %36 = gpuos.silu %arg0 : !gpuos.tensor<1x512xf32>
      %37 = gpuos.mul %36, %arg1 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
      gpuos.yield %37 : !gpuos.tensor<1x512xf32>
    }
    %15 = gpuos.task "decode_step_t18_matmul" ins(%arg0 = %14 : !gpuos.tensor<1x512xf32>, %arg1 = %l0_wdown : !gpuos.tensor<512x256xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 815624 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<512x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %16 = gpuos.task "decode_step_t19_add" ins(%arg0 = %10 : !gpuos.tensor<1x256xf32>, %arg1 = %15 : !gpuos.tensor<1x256xf32>) tile [1, 256] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 684552 : i64} {
      %36 = gpuos.add %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %17 = gpuos.task "decode_step_t20_rms_norm" ins(%arg0 = %16 : !gpuos.tensor<1x256xf32>, %arg1 = %l1_norm1 : !gpuos.tensor<256xf32>) tile [1, 256] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 684296 : i64} {
      %36 = gpuos.rms_norm %arg0 weight(%arg1 : !gpuos.tensor<256xf32>) eps 9.9999999999999995E-7 : !gpuos.tensor<1x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %18 = gpuos.task "decode_step_t22_matmul" ins(%arg0 = %17 : !gpuos.tensor<1x256xf32>, %arg1 = %l1_wk : !gpuos.tensor<256x256xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 684040 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %19 = gpuos.task "decode_step_t21_matmul" ins(%arg0 = %17 : !gpuos.tensor<1x256xf32>, %arg1 = %l1_wq : !gpuos.tensor<256x256xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 675592 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %20 = gpuos.task "decode_step_t23_matmul" ins(%arg0 = %17 : !gpuos.tensor<1x256xf32>, %arg1 = %l1_wv : !gpuos.tensor<256x256xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 675328 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %21 = gpuos.task "decode_step_t24_concat" ins(%arg0 = %l1_kcache : !gpuos.tensor<4x32x64xf32>, %arg1 = %18 : !gpuos.tensor<1x256xf32>) tile [1, 33, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<4x33x64xf32>) attributes {gpuos.critical_path = 618504 : i64} {
      %36 = gpuos.reshape %arg1 to [4, 1, 64] : !gpuos.tensor<1x256xf32>
      %37 = gpuos.concat %arg0, %36 axis 1 : !gpuos.tensor<4x32x64xf32>, !gpuos.tensor<4x1x64xf32>
      gpuos.yield %37 : !gpuos.tensor<4x33x64xf32>
    }
    %22 = gpuos.task "decode_step_t26_matmul" ins(%arg0 = %19 : !gpuos.tensor<1x256xf32>, %arg1 = %21 : !gpuos.tensor<4x33x64xf32>) tile [1, 1, 33] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<4x1x33xf32>) attributes {gpuos.critical_path = 610056 : i64} {
      %36 = gpuos.reshape %arg0 to [4, 1, 64] : !gpuos.tensor<1x256xf32>
      %37 = gpuos.matmul %36, %arg1 transpose_rhs : !gpuos.tensor<4x1x64xf32>, !gpuos.tensor<4x33x64xf32>
      gpuos.yield %37 : !gpuos.tensor<4x1x33xf32>
    }
    %23 = gpuos.task "decode_step_t25_concat" ins(%arg0 = %l1_vcache : !gpuos.tensor<4x32x64xf32>, %arg1 = %20 : !gpuos.tensor<1x256xf32>) tile [1, 33, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<4x33x64xf32>) attributes {gpuos.critical_path = 609792 : i64} {
      %36 = gpuos.reshape %arg1 to [4, 1, 64] : !gpuos.tensor<1x256xf32>
      %37 = gpuos.concat %arg0, %36 axis 1 : !gpuos.tensor<4x32x64xf32>, !gpuos.tensor<4x1x64xf32>
      gpuos.yield %37 : !gpuos.tensor<4x33x64xf32>
    }
    %24 = gpuos.task "decode_step_t3_mul_softmax" ins(%arg0 = %22 : !gpuos.tensor<4x1x33xf32>) tile [4, 1, 33] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<4x1x33xf32>) attributes {gpuos.critical_path = 601608 : i64} {
      %36 = gpuos.constant dense<1.250000e-01> : tensor<f32>
      %37 = gpuos.mul %arg0, %36 : !gpuos.tensor<4x1x33xf32>, !gpuos.tensor<f32>
      %38 = gpuos.softmax %37 axis 2 : !gpuos.tensor<4x1x33xf32>
      gpuos.yield %38 : !gpuos.tensor<4x1x33xf32>
    }
    %25 = gpuos.task "decode_step_t27_matmul" ins(%arg0 = %24 : !gpuos.tensor<4x1x33xf32>, %arg1 = %23 : !gpuos.tensor<4x33x64xf32>) tile [1, 1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<4x1x64xf32>) attributes {gpuos.critical_path = 601344 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<4x1x33xf32>, !gpuos.tensor<4x33x64xf32>
      gpuos.yield %36 : !gpuos.tensor<4x1x64xf32>
    }
    %26 = gpuos.task "decode_step_t28_matmul" ins(%arg0 = %25 : !gpuos.tensor<4x1x64xf32>, %arg1 = %l1_wo : !gpuos.tensor<256x256xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 592896 : i64} {
      %36 = gpuos.reshape %arg0 to [1, 256] : !gpuos.tensor<4x1x64xf32>
      %37 = gpuos.matmul %36, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
      gpuos.yield %37 : !gpuos.tensor<1x256xf32>
    }
    %27 = gpuos.task "decode_step_t29_add" ins(%arg0 = %16 : !gpuos.tensor<1x256xf32>, %arg1 = %26 : !gpuos.tensor<1x256xf32>) tile [1, 256] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 527360 : i64} {
      %36 = gpuos.add %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %28 = gpuos.task "decode_step_t30_rms_norm" ins(%arg0 = %27 : !gpuos.tensor<1x256xf32>, %arg1 = %l1_norm2 : !gpuos.tensor<256xf32>) tile [1, 256] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 527104 : i64} {
      %36 = gpuos.rms_norm %arg0 weight(%arg1 : !gpuos.tensor<256xf32>) eps 9.9999999999999995E-7 : !gpuos.tensor<1x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %29 = gpuos.task "decode_step_t31_matmul" ins(%arg0 = %28 : !gpuos.tensor<1x256xf32>, %arg1 = %l1_wgate : !gpuos.tensor<256x512xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x512xf32>) attributes {gpuos.critical_path = 526848 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x512xf32>
      gpuos.yield %36 : !gpuos.tensor<1x512xf32>
    }
    %30 = gpuos.task "decode_step_t32_matmul" ins(%arg0 = %28 : !gpuos.tensor<1x256xf32>, %arg1 = %l1_wup : !gpuos.tensor<256x512xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x512xf32>) attributes {gpuos.critical_path = 526848 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x512xf32>
      gpuos.yield %36 : !gpuos.tensor<1x512xf32>
    }
    %31 = gpuos.task "decode_step_t1_silu_mul" ins(%arg0 = %29 : !gpuos.tensor<1x512xf32>, %arg1 = %30 : !gpuos.tensor<1x512xf32>) tile [1, 512] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x512xf32>) attributes {gpuos.critical_path = 395776 : i64} {
      %36 = gpuos.silu %arg0 : !gpuos.tensor<1x512xf32>
      %37 = gpuos.mul %36, %arg1 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
      gpuos.yield %37 : !gpuos.tensor<1x512xf32>
    }
    %32 = gpuos.task "decode_step_t33_matmul" ins(%arg0 = %31 : !gpuos.tensor<1x512xf32>, %arg1 = %l1_wdown : !gpuos.tensor<512x256xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 394752 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<1x512xf32>, !gpuos.tensor<512x256xf32>
      gpuos.yield %36 : !gpuos.tensor<1x256xf32>
    }
    %33 = gpuos.task "decode_step_t4_add_rms_norm" ins(%arg0 = %27 : !gpuos.tensor<1x256xf32>, %arg1 = %32 : !gpuos.tensor<1x256xf32>, %arg2 = %final_norm : !gpuos.tensor<256xf32>) tile [1, 256] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x256xf32>) attributes {gpuos.critical_path = 263680 : i64} {
      %36 = gpuos.add %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x256xf32>
      %37 = gpuos.rms_norm %36 weight(%arg2 : !gpuos.tensor<256xf32>) eps 9.9999999999999995E-7 : !gpuos.tensor<1x256xf32>
      gpuos.yield %37 : !gpuos.tensor<1x256xf32>
    }
    %34 = gpuos.task "decode_step_t34_matmul" ins(%arg0 = %33 : !gpuos.tensor<1x256xf32>, %arg1 = %unembed : !gpuos.tensor<256x1024xf32>) tile [1, 64] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1x1024xf32>) attributes {gpuos.critical_path = 263168 : i64} {
      %36 = gpuos.matmul %arg0, %arg1 : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x1024xf32>
      gpuos.yield %36 : !gpuos.tensor<1x1024xf32>
    }
    %35 = gpuos.task "decode_step_t35_argmax" ins(%arg0 = %34 : !gpuos.tensor<1x1024xf32>) tile [1] priority #gpuos.priority<urgent, deadline_us = 500> -> (!gpuos.tensor<1xi64>) attributes {gpuos.critical_path = 1024 : i64} {
      %36 = gpuos.argmax %arg0 axis 1 : !gpuos.tensor<1x1024xf32>
      gpuos.yield %36 : !gpuos.tensor<1xi64>
    }
    gpuos.yield %34, %35 : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1xi64>
  }
}

