// A softmax / norm block: scaled scores with a causal mask, a softmax over
// the key axis, then residual add + LayerNorm and RMSNorm of the rows.
gpuos.graph @softmax_norm(%scores : !gpuos.tensor<16x32x32xf32>, %mask : !gpuos.tensor<32x32xi1>,
                          %x : !gpuos.tensor<32x1024xf32>, %h : !gpuos.tensor<32x1024xf32>,
                          %ln_w : !gpuos.tensor<1024xf32>, %ln_b : !gpuos.tensor<1024xf32>,
                          %rms_w : !gpuos.tensor<1024xf32>)
    -> (probs : !gpuos.tensor<16x32x32xf32>, ln : !gpuos.tensor<32x1024xf32>,
        rms : !gpuos.tensor<32x1024xf32>) priority #gpuos.priority<normal> {
  %scale = gpuos.constant dense<0.125> : tensor<f32>
  %neg_inf = gpuos.constant dense<-1.0e+30> : tensor<f32>
  %scaled = gpuos.mul %scores, %scale : !gpuos.tensor<16x32x32xf32>, !gpuos.tensor<f32>
  %masked = gpuos.select %mask, %scaled, %neg_inf
      : !gpuos.tensor<32x32xi1>, !gpuos.tensor<16x32x32xf32>, !gpuos.tensor<f32>
  %probs = gpuos.softmax %masked axis 2 : !gpuos.tensor<16x32x32xf32>
  %res = gpuos.add %x, %h : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %ln = gpuos.layer_norm %res weight(%ln_w : !gpuos.tensor<1024xf32>) bias(%ln_b : !gpuos.tensor<1024xf32>)
      eps 1.0e-05 : !gpuos.tensor<32x1024xf32>
  %rms = gpuos.rms_norm %res weight(%rms_w : !gpuos.tensor<1024xf32>) eps 1.0e-06
      : !gpuos.tensor<32x1024xf32>
  gpuos.yield %probs, %ln, %rms
      : !gpuos.tensor<16x32x32xf32>, !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
}
