// A chain of 64 elementwise ops over a 32x1024 f32 activation with
// broadcast per-column scale and bias: the shape of workload where eager
// launches cost more than the math. One fused pass should do it all.
gpuos.graph @elementwise_chain(%x : !gpuos.tensor<32x1024xf32>, %scale : !gpuos.tensor<1024xf32>, %bias : !gpuos.tensor<1024xf32>)
    -> (y : !gpuos.tensor<32x1024xf32>) priority #gpuos.priority<urgent> {
  %v0 = gpuos.mul %x, %scale : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v1 = gpuos.add %v0, %bias : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v2 = gpuos.tanh %v1 : !gpuos.tensor<32x1024xf32>
  %v3 = gpuos.sub %v2, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v4 = gpuos.sigmoid %v3 : !gpuos.tensor<32x1024xf32>
  %v5 = gpuos.mul %v4, %v4 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v6 = gpuos.silu %v5 : !gpuos.tensor<32x1024xf32>
  %v7 = gpuos.max %v6, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v8 = gpuos.mul %v7, %scale : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v9 = gpuos.add %v8, %bias : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v10 = gpuos.tanh %v9 : !gpuos.tensor<32x1024xf32>
  %v11 = gpuos.sub %v10, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v12 = gpuos.sigmoid %v11 : !gpuos.tensor<32x1024xf32>
  %v13 = gpuos.mul %v12, %v12 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v14 = gpuos.silu %v13 : !gpuos.tensor<32x1024xf32>
  %v15 = gpuos.max %v14, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v16 = gpuos.mul %v15, %scale : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v17 = gpuos.add %v16, %bias : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v18 = gpuos.tanh %v17 : !gpuos.tensor<32x1024xf32>
  %v19 = gpuos.sub %v18, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v20 = gpuos.sigmoid %v19 : !gpuos.tensor<32x1024xf32>
  %v21 = gpuos.mul %v20, %v20 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v22 = gpuos.silu %v21 : !gpuos.tensor<32x1024xf32>
  %v23 = gpuos.max %v22, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v24 = gpuos.mul %v23, %scale : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v25 = gpuos.add %v24, %bias : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v26 = gpuos.tanh %v25 : !gpuos.tensor<32x1024xf32>
  %v27 = gpuos.sub %v26, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v28 = gpuos.sigmoid %v27 : !gpuos.tensor<32x1024xf32>
  %v29 = gpuos.mul %v28, %v28 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v30 = gpuos.silu %v29 : !gpuos.tensor<32x1024xf32>
  %v31 = gpuos.max %v30, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v32 = gpuos.mul %v31, %scale : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v33 = gpuos.add %v32, %bias : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v34 = gpuos.tanh %v33 : !gpuos.tensor<32x1024xf32>
  %v35 = gpuos.sub %v34, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v36 = gpuos.sigmoid %v35 : !gpuos.tensor<32x1024xf32>
  %v37 = gpuos.mul %v36, %v36 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v38 = gpuos.silu %v37 : !gpuos.tensor<32x1024xf32>
  %v39 = gpuos.max %v38, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v40 = gpuos.mul %v39, %scale : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v41 = gpuos.add %v40, %bias : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v42 = gpuos.tanh %v41 : !gpuos.tensor<32x1024xf32>
  %v43 = gpuos.sub %v42, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v44 = gpuos.sigmoid %v43 : !gpuos.tensor<32x1024xf32>
  %v45 = gpuos.mul %v44, %v44 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v46 = gpuos.silu %v45 : !gpuos.tensor<32x1024xf32>
  %v47 = gpuos.max %v46, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v48 = gpuos.mul %v47, %scale : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v49 = gpuos.add %v48, %bias : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v50 = gpuos.tanh %v49 : !gpuos.tensor<32x1024xf32>
  %v51 = gpuos.sub %v50, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v52 = gpuos.sigmoid %v51 : !gpuos.tensor<32x1024xf32>
  %v53 = gpuos.mul %v52, %v52 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v54 = gpuos.silu %v53 : !gpuos.tensor<32x1024xf32>
  %v55 = gpuos.max %v54, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v56 = gpuos.mul %v55, %scale : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v57 = gpuos.add %v56, %bias : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
  %v58 = gpuos.tanh %v57 : !gpuos.tensor<32x1024xf32>
  %v59 = gpuos.sub %v58, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v60 = gpuos.sigmoid %v59 : !gpuos.tensor<32x1024xf32>
  %v61 = gpuos.mul %v60, %v60 : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  %v62 = gpuos.silu %v61 : !gpuos.tensor<32x1024xf32>
  %v63 = gpuos.max %v62, %x : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<32x1024xf32>
  gpuos.yield %v63 : !gpuos.tensor<32x1024xf32>
}
