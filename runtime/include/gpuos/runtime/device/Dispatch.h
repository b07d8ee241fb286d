//===- Dispatch.h - what an image provides to the runtime library -*- C++ -*-===//
//
// docs/abi.md: the compiler generates, per image, a switch over the image's
// task kinds (their indices in the manifest's "tasks") that calls each
// gpuos_task_<kind>(args, tile) directly. The runtime's relocatable device
// library calls it; nvJitLink resolves it when it links the image.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_DEVICE_DISPATCH_H
#define GPUOS_RUNTIME_DEVICE_DISPATCH_H

#if defined(__CUDACC__)
/// Runs one tile of task kind `kind` with the whole block. Returns 0, or a
/// non-zero error code (an unknown kind, a task's own error); every thread
/// of the block must return the same value.
extern "C" __device__ int gpuos_dispatch(unsigned int kind,
                                         const unsigned char *args,
                                         unsigned int tile);
#endif

#endif // GPUOS_RUNTIME_DEVICE_DISPATCH_H
