// The device function of custom.mlir's gpuos.custom ops (float compute type
// for f32 and f16 alike): log(1 + exp(x)) * s.
extern "C" __device__ float scaled_softplus(float x, float s) {
  return log1pf(expf(x)) * s;
}
