// The sharing background's four tasks over about 25 MB instead of 200 (the
// same code: an elementwise chain over 512x4096, row sums of 1024x1024, a
// softmax over 256x2048 and the 512x256x256 matmul; 912 tiles): what the
// urgent calls pay for the background's code without its footprint.
gpuos.graph @background_bulk(%a : !gpuos.tensor<512x4096xf32>,
                             %c : !gpuos.tensor<1024x1024xf32>,
                             %s : !gpuos.tensor<256x2048xf32>,
                             %l : !gpuos.tensor<512x256xf32>,
                             %m : !gpuos.tensor<256x256xf32>)
    -> (ea : !gpuos.tensor<512x4096xf32>, rc : !gpuos.tensor<1024xf32>, ps : !gpuos.tensor<256x2048xf32>, mo : !gpuos.tensor<512x256xf32>) priority #gpuos.priority<background> {
  %c1 = gpuos.constant dense<5.000000e-01> : tensor<f32>
  %v2 = gpuos.mul %a, %a : !gpuos.tensor<512x4096xf32>, !gpuos.tensor<512x4096xf32>
  %v3 = gpuos.add %v2, %c1 : !gpuos.tensor<512x4096xf32>, !gpuos.tensor<f32>
  %v4 = gpuos.tanh %v3 : !gpuos.tensor<512x4096xf32>
  %v5 = gpuos.mul %v4, %a : !gpuos.tensor<512x4096xf32>, !gpuos.tensor<512x4096xf32>
  %v6 = gpuos.sub %v5, %c1 : !gpuos.tensor<512x4096xf32>, !gpuos.tensor<f32>
  %v7 = gpuos.sigmoid %v6 : !gpuos.tensor<512x4096xf32>
  %red8 = gpuos.reduce sum %c axes [1] : !gpuos.tensor<1024x1024xf32>
  %sm9 = gpuos.softmax %s axis 1 : !gpuos.tensor<256x2048xf32>
  %mm10 = gpuos.matmul %l, %m : !gpuos.tensor<512x256xf32>, !gpuos.tensor<256x256xf32>
  gpuos.yield %v7, %red8, %sm9, %mm10 : !gpuos.tensor<512x4096xf32>, !gpuos.tensor<1024xf32>, !gpuos.tensor<256x2048xf32>, !gpuos.tensor<512x256xf32>
}
