extern "C" __device__ float something_else(float x) { return x; }
