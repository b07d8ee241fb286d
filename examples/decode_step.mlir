// One decode step of a small transformer: batch 1, hidden 256, 4 heads of
// 64, a KV cache of 32 positions, 2 pre-norm layers with a SwiGLU MLP, and a
// greedy next-token pick over a 1024-token vocabulary. Weights are graph
// inputs; tools generate them at random at run time.
gpuos.graph @decode_step(%x : !gpuos.tensor<1x256xf32>,
                         %l0_norm1 : !gpuos.tensor<256xf32>,
                         %l0_wq : !gpuos.tensor<256x256xf32>,
                         %l0_wk : !gpuos.tensor<256x256xf32>,
                         %l0_wv : !gpuos.tensor<256x256xf32>,
                         %l0_wo : !gpuos.tensor<256x256xf32>,
                         %l0_kcache : !gpuos.tensor<4x32x64xf32>,
                         %l0_vcache : !gpuos.tensor<4x32x64xf32>,
                         %l0_norm2 : !gpuos.tensor<256xf32>,
                         %l0_wgate : !gpuos.tensor<256x512xf32>,
                         %l0_wup : !gpuos.tensor<256x512xf32>,
                         %l0_wdown : !gpuos.tensor<512x256xf32>,
                         %l1_norm1 : !gpuos.tensor<256xf32>,
                         %l1_wq : !gpuos.tensor<256x256xf32>,
                         %l1_wk : !gpuos.tensor<256x256xf32>,
                         %l1_wv : !gpuos.tensor<256x256xf32>,
                         %l1_wo : !gpuos.tensor<256x256xf32>,
                         %l1_kcache : !gpuos.tensor<4x32x64xf32>,
                         %l1_vcache : !gpuos.tensor<4x32x64xf32>,
                         %l1_norm2 : !gpuos.tensor<256xf32>,
                         %l1_wgate : !gpuos.tensor<256x512xf32>,
                         %l1_wup : !gpuos.tensor<256x512xf32>,
                         %l1_wdown : !gpuos.tensor<512x256xf32>,
                         %final_norm : !gpuos.tensor<256xf32>,
                         %unembed : !gpuos.tensor<256x1024xf32>)
    -> (logits : !gpuos.tensor<1x1024xf32>, token : !gpuos.tensor<1xi64>)
    priority #gpuos.priority<urgent, deadline_us = 500> {
  %attn_scale = gpuos.constant dense<0.125> : tensor<f32>
  // layer 0: attention over the KV cache
  %l0_h = gpuos.rms_norm %x weight(%l0_norm1 : !gpuos.tensor<256xf32>) eps 1.0e-06 : !gpuos.tensor<1x256xf32>
  %l0_q = gpuos.matmul %l0_h, %l0_wq : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
  %l0_k = gpuos.matmul %l0_h, %l0_wk : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
  %l0_v = gpuos.matmul %l0_h, %l0_wv : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
  %l0_qh = gpuos.reshape %l0_q to [4, 1, 64] : !gpuos.tensor<1x256xf32>
  %l0_kh = gpuos.reshape %l0_k to [4, 1, 64] : !gpuos.tensor<1x256xf32>
  %l0_vh = gpuos.reshape %l0_v to [4, 1, 64] : !gpuos.tensor<1x256xf32>
  %l0_keys = gpuos.concat %l0_kcache, %l0_kh axis 1 : !gpuos.tensor<4x32x64xf32>, !gpuos.tensor<4x1x64xf32>
  %l0_vals = gpuos.concat %l0_vcache, %l0_vh axis 1 : !gpuos.tensor<4x32x64xf32>, !gpuos.tensor<4x1x64xf32>
  %l0_scores = gpuos.matmul %l0_qh, %l0_keys transpose_rhs : !gpuos.tensor<4x1x64xf32>, !gpuos.tensor<4x33x64xf32>
  %l0_scaled = gpuos.mul %l0_scores, %attn_scale : !gpuos.tensor<4x1x33xf32>, !gpuos.tensor<f32>
  %l0_probs = gpuos.softmax %l0_scaled axis 2 : !gpuos.tensor<4x1x33xf32>
  %l0_ctx = gpuos.matmul %l0_probs, %l0_vals : !gpuos.tensor<4x1x33xf32>, !gpuos.tensor<4x33x64xf32>
  %l0_ctx2 = gpuos.reshape %l0_ctx to [1, 256] : !gpuos.tensor<4x1x64xf32>
  %l0_o = gpuos.matmul %l0_ctx2, %l0_wo : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
  %l0_r1 = gpuos.add %x, %l0_o : !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x256xf32>
  // layer 0: SwiGLU MLP
  %l0_h2 = gpuos.rms_norm %l0_r1 weight(%l0_norm2 : !gpuos.tensor<256xf32>) eps 1.0e-06 : !gpuos.tensor<1x256xf32>
  %l0_gate = gpuos.matmul %l0_h2, %l0_wgate : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x512xf32>
  %l0_up = gpuos.matmul %l0_h2, %l0_wup : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x512xf32>
  %l0_act = gpuos.silu %l0_gate : !gpuos.tensor<1x512xf32>
  %l0_prod = gpuos.mul %l0_act, %l0_up : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
  %l0_down = gpuos.matmul %l0_prod, %l0_wdown : !gpuos.tensor<1x512xf32>, !gpuos.tensor<512x256xf32>
  %l0_out = gpuos.add %l0_r1, %l0_down : !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x256xf32>
  // layer 1: attention over the KV cache
  %l1_h = gpuos.rms_norm %l0_out weight(%l1_norm1 : !gpuos.tensor<256xf32>) eps 1.0e-06 : !gpuos.tensor<1x256xf32>
  %l1_q = gpuos.matmul %l1_h, %l1_wq : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
  %l1_k = gpuos.matmul %l1_h, %l1_wk : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
  %l1_v = gpuos.matmul %l1_h, %l1_wv : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
  %l1_qh = gpuos.reshape %l1_q to [4, 1, 64] : !gpuos.tensor<1x256xf32>
  %l1_kh = gpuos.reshape %l1_k to [4, 1, 64] : !gpuos.tensor<1x256xf32>
  %l1_vh = gpuos.reshape %l1_v to [4, 1, 64] : !gpuos.tensor<1x256xf32>
  %l1_keys = gpuos.concat %l1_kcache, %l1_kh axis 1 : !gpuos.tensor<4x32x64xf32>, !gpuos.tensor<4x1x64xf32>
  %l1_vals = gpuos.concat %l1_vcache, %l1_vh axis 1 : !gpuos.tensor<4x32x64xf32>, !gpuos.tensor<4x1x64xf32>
  %l1_scores = gpuos.matmul %l1_qh, %l1_keys transpose_rhs : !gpuos.tensor<4x1x64xf32>, !gpuos.tensor<4x33x64xf32>
  %l1_scaled = gpuos.mul %l1_scores, %attn_scale : !gpuos.tensor<4x1x33xf32>, !gpuos.tensor<f32>
  %l1_probs = gpuos.softmax %l1_scaled axis 2 : !gpuos.tensor<4x1x33xf32>
  %l1_ctx = gpuos.matmul %l1_probs, %l1_vals : !gpuos.tensor<4x1x33xf32>, !gpuos.tensor<4x33x64xf32>
  %l1_ctx2 = gpuos.reshape %l1_ctx to [1, 256] : !gpuos.tensor<4x1x64xf32>
  %l1_o = gpuos.matmul %l1_ctx2, %l1_wo : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x256xf32>
  %l1_r1 = gpuos.add %l0_out, %l1_o : !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x256xf32>
  // layer 1: SwiGLU MLP
  %l1_h2 = gpuos.rms_norm %l1_r1 weight(%l1_norm2 : !gpuos.tensor<256xf32>) eps 1.0e-06 : !gpuos.tensor<1x256xf32>
  %l1_gate = gpuos.matmul %l1_h2, %l1_wgate : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x512xf32>
  %l1_up = gpuos.matmul %l1_h2, %l1_wup : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x512xf32>
  %l1_act = gpuos.silu %l1_gate : !gpuos.tensor<1x512xf32>
  %l1_prod = gpuos.mul %l1_act, %l1_up : !gpuos.tensor<1x512xf32>, !gpuos.tensor<1x512xf32>
  %l1_down = gpuos.matmul %l1_prod, %l1_wdown : !gpuos.tensor<1x512xf32>, !gpuos.tensor<512x256xf32>
  %l1_out = gpuos.add %l1_r1, %l1_down : !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x256xf32>
  %final = gpuos.rms_norm %l1_out weight(%final_norm : !gpuos.tensor<256xf32>) eps 1.0e-06 : !gpuos.tensor<1x256xf32>
  %logits = gpuos.matmul %final, %unembed : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x1024xf32>
  %token = gpuos.argmax %logits axis 1 : !gpuos.tensor<1x1024xf32>
  gpuos.yield %logits, %token : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1xi64>
}
