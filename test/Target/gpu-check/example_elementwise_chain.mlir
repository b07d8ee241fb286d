// examples/elementwise_chain.mlir after gpuos-opt --gpuos-pipeline (a snapshot of the
// partitioner's output, so the GPU check covers realistic task bodies
// whatever state the pipeline is in; scripts/gpu-check.sh also compiles
// the live pipeline output when it runs). Regenerate with
//   gpuos-opt examples/elementwise_chain.mlir --gpuos-pipeline
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK-COUNT-1: .visible .func gpuos_task_
module {
  gpuos.graph @elementwise_chain(%x: !gpuos.tensor<32x1024xf32>, %scale: !gpuos.tensor<1024xf32>, %bias: !gpuos.tensor<1024xf32>) -> (y : !gpuos.tensor<32x1024xf32>) priority #gpuos.priority<urgent> {
    %0 = gpuos.task "elementwise_chain_t0_mul_add_tanh_sub_sigmoid_silu_max" ins(%arg0 = %x : !gpuos.tensor<32x1024xf32>, %arg1 = %scale : !gpuos.tensor<1024xf32>, %arg2 = %bias : !gpuos.tensor<1024xf32>) tile [4, 1024] priority #gpuos.priority<urgent> -> (!gpuos.tensor<32x1024xf32>) attributes {gpuos.critical_path = 2097152 : i64} {
      %1 = gpuos.mul %arg0, %arg1 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %2 = gpuos.add %1, %arg2 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %3 = gpuos.tanh %2 : !gpuos.tensor<32x1024xf32>
      %4 = gpuos.sub %3, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %5 = gpuos.sigmoid %4 : !gpuos.tensor<32x1024xf32>
      %6 = gpuos.mul %5, %5 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %7 = gpuos.silu %6 : !gpuos.tensor<32x1024xf32>
      %8 = gpuos.max %7, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %9 = gpuos.mul %8, %arg1 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %10 = gpuos.add %9, %arg2 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %11 = gpuos.tanh %10 : !gpuos.tensor<32x1024xf32>
      %12 = gpuos.sub %11, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %13 = gpuos.sigmoid %12 : !gpuos.tensor<32x1024xf32>
      %14 = gpuos.mul %13, %13 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %15 = gpuos.silu %14 : !gpuos.tensor<32x1024xf32>
      %16 = gpuos.max %15, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %17 = gpuos.mul %16, %arg1 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %18 = gpuos.add %17, %arg2 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %19 = gpuos.tanh %18 : !gpuos.tensor<32x1024xf32>
      %20 = gpuos.sub %19, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %21 = gpuos.sigmoid %20 : !gpuos.tensor<32x1024xf32>
      %22 = gpuos.mul %21, %21 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %23 = gpuos.silu %22 : !gpuos.tensor<32x1024xf32>
      %24 = gpuos.max %23, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %25 = gpuos.mul %24, %arg1 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %26 = gpuos.add %25, %arg2 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %27 = gpuos.tanh %26 : !gpuos.tensor<32x1024xf32>
      %28 = gpuos.sub %27, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %29 = gpuos.sigmoid %28 : !gpuos.tensor<32x1024xf32>
      %30 = gpuos.mul %29, %29 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %31 = gpuos.silu %30 : !gpuos.tensor<32x1024xf32>
      %32 = gpuos.max %31, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %33 = gpuos.mul %32, %arg1 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %34 = gpuos.add %33, %arg2 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %35 = gpuos.tanh %34 : !gpuos.tensor<32x1024xf32>
      %36 = gpuos.sub %35, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %37 = gpuos.sigmoid %36 : !gpuos.tensor<32x1024xf32>
      %38 = gpuos.mul %37, %37 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %39 = gpuos.silu %38 : !gpuos.tensor<32x1024xf32>
      %40 = gpuos.max %39, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %41 = gpuos.mul %40, %arg1 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %42 = gpuos.add %41, %arg2 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %43 = gpuos.tanh %42 : !gpuos.tensor<32x1024xf32>
      %44 = gpuos.sub %43, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %45 = gpuos.sigmoid %44 : !gpuos.tensor<32x1024xf32>
      %46 = gpuos.mul %45, %45 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %47 = gpuos.silu %46 : !gpuos.tensor<32x1024xf32>
      %48 = gpuos.max %47, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %49 = gpuos.mul %48, %arg1 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %50 = gpuos.add %49, %arg2 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %51 = gpuos.tanh %50 : !gpuos.tensor<32x1024xf32>
      %52 = gpuos.sub %51, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %53 = gpuos.sigmoid %52 : !gpuos.tensor<32x1024xf32>
      %54 = gpuos.mul %53, %53 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %55 = gpuos.silu %54 : !gpuos.tensor<32x1024xf32>
      %56 = gpuos.max %55, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %57 = gpuos.mul %56, %arg1 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %58 = gpuos.add %57, %arg2 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
      %59 = gpuos.tanh %58 : !gpuos.tensor<32x1024xf32>
      %60 = gpuos.sub %59, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %61 = gpuos.sigmoid %60 : !gpuos.tensor<32x1024xf32>
      %62 = gpuos.mul %61, %61 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      %63 = gpuos.silu %62 : !gpuos.tensor<32x1024xf32>
      %64 = gpuos.max %63, %arg0 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
      gpuos.yield %64 : !gpuos.tensor<32x1024xf32>
    }
    gpuos.yield %0 : !gpuos.tensor<32x1024xf32>
  }
}

