gpuos.graph @tasks(%x : !gpuos.tensor<32x1024xf32>, %b : !gpuos.tensor<1024xf32>)
    -> (e : !gpuos.tensor<32x1024xf32>, s : !gpuos.tensor<32x1024xf32>) priority #gpuos.priority<urgent> {
  %r:2 = gpuos.task "fused_exp_add" ins(%xa = %x : !gpuos.tensor<32x1024xf32>, %ba = %b : !gpuos.tensor<1024xf32>)
      tile [1, 1024] priority #gpuos.priority<background>
      -> (!gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>) {
    %e = gpuos.exp %xa : !gpuos.tensor<32x1024xf32>
    %s = gpuos.add %e, %ba : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
    gpuos.yield %e, %s : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
}
