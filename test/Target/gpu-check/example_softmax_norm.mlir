// examples/softmax_norm.mlir after gpuos-opt --gpuos-pipeline (a snapshot of the
// partitioner's output, so the GPU check covers realistic task bodies
// whatever state the pipeline is in; scripts/gpu-check.sh also compiles
// the live pipeline output when it runs). Regenerate with
//   gpuos-opt examples/softmax_norm.mlir --gpuos-pipeline
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK-COUNT-3: .visible .func gpuos_task_
module {
  gpuos.graph @softmax_norm(%scores: !gpuos.tensor<16x32x32xf32>, %mask: !gpuos.tensor<32x32xi1>, %x: !gpuos.tensor<32x1024xf32>, %h: !gpuos.tensor<32x1024xf32>, %ln_w: !gpuos.tensor<1024xf32>, %ln_b: !gpuos.tensor<1024xf32>, %rms_w: !gpuos.tensor<1024xf32>) -> (probs : !gpuos.tensor<16x32x32xf32>, ln : !gpuos.tensor<32x1024xf32>, rms : !gpuos.tensor<32x1024xf32>) priority #gpuos.priority<normal> {
    %0 = gpuos.task "softmax_norm_t3_add" ins(%arg0 = %x : !gpuos.tensor<32x1024xf32>, %arg1 = %h : !gpuos.tensor<32x1024xf32>) tile [4, 1024] priority #gpuos.priority<normal> -> (!gpuos.tensor<32x1024xf32>) attributes {gpuos.critical_path = 98304 : i64} {
      %3 = gpuos.add %arg0, %arg1 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      gpuos.yield %3 : !gpuos.tensor<32x1024xf32>
    }
    %1:2 = gpuos.task "softmax_norm_t2_layer_norm_rms_norm" ins(%arg0 = %0 : !gpuos.tensor<32x1024xf32>, %arg1 = %ln_w : !gpuos.tensor<1024xf32>, %arg2 = %ln_b : !gpuos.tensor<1024xf32>, %arg3 = %rms_w : !gpuos.tensor<1024xf32>) tile [4, 1024] priority #gpuos.priority<normal> -> (!gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>) attributes {gpuos.critical_path = 65536 : i64} {
      %3 = gpuos.layer_norm %arg0 weight(%arg1 : !gpuos.tensor<1024xf32>) bias(%arg2 : !gpuos.tensor<1024xf32>) eps 1.000000e-05 : !gpuos.tensor<32x1024xf32>
      %4 = gpuos.rms_norm %arg0 weight(%arg3 : !gpuos.tensor<1024xf32>) eps 9.9999999999999995E-7 : !gpuos.tensor<32x1024xf32>
      gpuos.yield %3, %4 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
    }
    %2 = gpuos.task "softmax_norm_t1_mul_select_softmax" ins(%arg0 = %scores : !gpuos.tensor<16x32x32xf32>, %arg1 = %mask : !gpuos.tensor<32x32xi1>) tile [4, 32, 32] priority #gpuos.priority<normal> -> (!gpuos.tensor<16x32x32xf32>) attributes {gpuos.critical_path = 49152 : i64} {
      %3 = gpuos.constant dense<-1.000000e+30> : tensor<f32>
      %4 = gpuos.constant dense<1.250000e-01> : tensor<f32>
      %5 = gpuos.mul %arg0, %4 : !gpuos.tensor<16x32x32xf32>, !gpuos.tensor<f32>
      %6 = gpuos.select %arg1, %5, %3 : !gpuos.tensor<32x32xi1>, !gpuos.tensor<16x32x32xf32>, !gpuos.tensor<f32>
      %7 = gpuos.softmax %6 axis 2 : !gpuos.tensor<16x32x32xf32>
      gpuos.yield %7 : !gpuos.tensor<16x32x32xf32>
    }
    gpuos.yield %2, %1#0, %1#1 : !gpuos.tensor<16x32x32xf32>, !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  }
}

