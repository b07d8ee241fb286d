// The gpuos-jit command is a launcher (tools/gpuos-jit/SourceKey.h): an
// input it has compiled before, with the same options, environment and
// compiler, is served from the image cache's source index without starting
// gpuos-jit-core; anything else runs the core, which decides by content.
// REQUIRES: nvjitlink, libdevice, runtime-device
// RUN: rm -rf %t.cache %t.*
// RUN: gpuos-jit %S/image.mlir -o %t.a --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: gpuos-jit %S/image.mlir -o %t.b --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=FAST
// RUN: cmp %t.a.cubin %t.b.cubin
// RUN: cmp %t.a.manifest.json %t.b.manifest.json
// The index entry: the image's content hash and the files it depends on.
// RUN: cat %t.cache/sources/* | FileCheck %s --check-prefix=ENTRY
// The key is the input's bytes and its name (the manifest's ops name the
// file): a copy elsewhere goes to the core, which finds the image by
// content (and writes its own locations); then the copy is served.
// RUN: cp %S/image.mlir %t.copy.mlir
// RUN: gpuos-jit %t.copy.mlir -o %t.c --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=CONTENT
// RUN: gpuos-jit %t.copy.mlir -o %t.c --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=FAST
// Other bytes (a comment) are another key: the core runs, and finds the
// same image by content; then the new key is served.
// RUN: echo "// a comment" >> %t.copy.mlir
// RUN: gpuos-jit %t.copy.mlir -o %t.d --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=CONTENT
// RUN: gpuos-jit %t.copy.mlir -o %t.d --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=FAST
// Other options are another key.
// RUN: gpuos-jit %S/image.mlir -O2 -o %t.e --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=MISS
// A dependency that changed (here the runtime library, by its time) sends
// the request to the core, which records the new state.
// RUN: cp %gpuos_runtime_lib %t.rt.o
// RUN: gpuos-jit %S/image.mlir --runtime-lib=%t.rt.o -o %t.f --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=CONTENT
// RUN: gpuos-jit %S/image.mlir --runtime-lib=%t.rt.o -o %t.f --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=FAST
// RUN: touch -d "2001-01-01" %t.rt.o
// RUN: gpuos-jit %S/image.mlir --runtime-lib=%t.rt.o -o %t.f --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=CONTENT
// RUN: gpuos-jit %S/image.mlir --runtime-lib=%t.rt.o -o %t.f --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=FAST
// An image removed from the cache is compiled again.
// RUN: rm %t.cache/*.cubin
// RUN: gpuos-jit %S/image.mlir -o %t.g --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: cmp %t.a.cubin %t.g.cubin
// So is a damaged one (truncated): neither the launcher nor the core
// serves it (both did, writing the 1000 bytes out as the image).
// RUN: for f in %t.cache/*.cubin; do truncate -s 1000 $f; done
// RUN: gpuos-jit %S/image.mlir -o %t.h --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: cmp %t.a.cubin %t.h.cubin
// A relative path in the environment is resolved against the working
// directory, which is then part of the key: the same setting in another
// directory is another key.
// RUN: mkdir -p %t.A %t.B
// RUN: cp %gpuos_runtime_lib %t.A/rt.o
// RUN: cp %gpuos_runtime_lib %t.B/rt.o
// RUN: cd %t.A && env GPUOS_RUNTIME_LIB=rt.o gpuos-jit %S/image.mlir -o %t.r --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=CONTENT
// RUN: cd %t.A && env GPUOS_RUNTIME_LIB=rt.o gpuos-jit %S/image.mlir -o %t.r --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=FAST
// RUN: cd %t.B && env GPUOS_RUNTIME_LIB=rt.o gpuos-jit %S/image.mlir -o %t.r --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=CONTENT
// Outputs are named as the core names them: the input's stem ("" for a
// file named .mlir), a trailing .cubin of -o dropped.
// RUN: cp %S/image.mlir %t.A/.mlir
// RUN: cd %t.A && gpuos-jit .mlir --cache-dir=%t.cache
// RUN: cd %t.A && gpuos-jit .mlir --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=FAST
// RUN: ls -a %t.A | FileCheck %s --check-prefix=STEM
// RUN: gpuos-jit %S/image.mlir -o %t.k.cubin --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=FAST
// RUN: cmp %t.a.cubin %t.k.cubin
// An input that is not a regular file (a pipe) and a response file go to
// the core untouched.
// RUN: cat %S/image.mlir | gpuos-jit /dev/stdin -o %t.p --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=CONTENT
// RUN: cmp %t.a.cubin %t.p.cubin
// RUN: echo "-O2" > %t.rsp
// RUN: gpuos-jit %S/image.mlir @%t.rsp -o %t.q --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=CORE
// RUN: gpuos-jit %S/image.mlir @%t.rsp -o %t.q --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=CONTENT
// The core records a key only for the input the launcher hashed: another
// input's SHA-256 (the file changed in between) records nothing.
// RUN: gpuos-jit-core %S/image.mlir --source-key=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb -o %t.w --cache-dir=%t.c2
// RUN: test -f %t.w.cubin
// RUN: not ls %t.c2/sources/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
// --no-cache, an --emit other than image, and options the launcher does not
// parse all go to the core as they are.
// RUN: gpuos-jit %S/image.mlir -o %t.h --cache-dir=%t.cache --no-cache -v 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: gpuos-jit %S/image.mlir --emit=ptx -o %t.ptx --cache-dir=%t.cache
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=PTX
// RUN: not gpuos-jit %S/image.mlir --arch sm_75 -o %t.i 2>&1 | FileCheck %s --check-prefix=ARCH

// MISS: cache: miss
// FAST: cache: hit {{[0-9a-f]+}} (source key,
// CONTENT: cache: hit {{[0-9a-f]+}} ({{[0-9.]+}} ms)
// CORE: cache: {{miss|hit [0-9a-f]+ \([0-9.]+ ms\)}}
// OFF: cache: off
// PTX: .target sm_90
// STEM-NOT: .mlir.cubin
// STEM: .cubin
// STEM-NEXT: .manifest.json
// ARCH: gpuos-jit: unsupported --arch=sm_75

// ENTRY:      gpuos-jit source entry 1
// ENTRY-NEXT: image {{[0-9a-f]+}}
// ENTRY-DAG:  dep {{[0-9]+ [0-9]+ .*}}gpuos_runtime_device.o
// ENTRY-DAG:  dep {{[0-9]+ [0-9]+ .*}}libnvJitLink.so.13
// ENTRY-DAG:  dep {{[0-9]+ [0-9]+ .*}}gpuos-jit-core
