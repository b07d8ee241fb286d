// The shipped examples, partitioned by the graph pipeline and compiled to
// images, have manifests that the runtime's own parser accepts
// (gpuos::runtime::parseManifest through gpuos-manifest-check), and the
// runtime reads the kinds in the order gpuos_dispatch numbers them.
// REQUIRES: nvjitlink, libdevice, runtime-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: gpuos-opt %S/../../examples/elementwise_chain.mlir --gpuos-pipeline -o %t/chain.mlir
// RUN: gpuos-jit %t/chain.mlir --no-cache -o %t/chain
// RUN: gpuos-manifest-check %t/chain.manifest.json | FileCheck %s --check-prefix=CHAIN
// RUN: gpuos-opt %S/../../examples/softmax_norm.mlir --gpuos-pipeline -o %t/sn.mlir
// RUN: gpuos-jit %t/sn.mlir --no-cache -o %t/sn
// RUN: gpuos-manifest-check %t/sn.manifest.json | FileCheck %s --check-prefix=SN
// RUN: gpuos-jit %t/sn.mlir --emit=mlir | FileCheck %s --check-prefix=SN-SWITCH
// RUN: gpuos-opt %S/../../examples/decode_step.mlir --gpuos-pipeline -o %t/decode.mlir
// RUN: gpuos-jit %t/decode.mlir --no-cache -o %t/decode
// RUN: gpuos-manifest-check %t/decode.manifest.json | FileCheck %s --check-prefix=DECODE
// The parser is really checking: a kind listed twice is rejected.
// RUN: sed 's/softmax_norm_t1_mul_select_softmax/softmax_norm_t2_add_layer_norm_rms_norm/' %t/sn.manifest.json > %t/bad.json
// RUN: not gpuos-manifest-check %t/bad.json 2>&1 | FileCheck %s --check-prefix=BAD
// --help is not a file name; a report that cannot be written is a failure.
// RUN: gpuos-manifest-check --help | FileCheck %s --check-prefix=HELP
// RUN: not gpuos-manifest-check --bogus 2>&1 | FileCheck %s --check-prefix=HELP
// RUN: not gpuos-manifest-check %t/sn.manifest.json > /dev/full 2> %t/full.err
// RUN: FileCheck %s --check-prefix=FULL --input-file=%t/full.err
// HELP: usage: gpuos-manifest-check img.manifest.json
// FULL: gpuos-manifest-check: writing the report failed

// CHAIN: manifest ok: abi 0, sm_90, 1 tasks
// CHAIN-NEXT: kind 0 elementwise_chain_t0_{{[a-z_]+}} graph=elementwise_chain priority=urgent tiles=128 block=256 shared=0 buffers=4 args=32 deps={{$}}

// SN: manifest ok: abi 0, sm_90, 2 tasks
// SN-NEXT: kind 0 softmax_norm_t2_add_layer_norm_rms_norm graph=softmax_norm {{.*}} buffers=7 {{.*}} deps={{$}}
// SN-NEXT: kind 1 softmax_norm_t1_mul_select_softmax graph=softmax_norm {{.*}} deps={{$}}

// The switch calls them in the same order: case i is kind i.
// SN-SWITCH: llvm.func @gpuos_dispatch(
// SN-SWITCH: llvm.call @gpuos_task_softmax_norm_t2_add_layer_norm_rms_norm(
// SN-SWITCH: llvm.call @gpuos_task_softmax_norm_t1_mul_select_softmax(

// DECODE: manifest ok: abi 0, sm_90, 25 tasks
// DECODE: kind 24 decode_step_{{[a-z0-9_]+}} graph=decode_step {{.*}} deps=23{{$}}

// BAD: gpuos-manifest-check: {{.*}}bad.json: bad image: manifest: tasks[1]: kind 'softmax_norm_t2_add_layer_norm_rms_norm' appears twice
