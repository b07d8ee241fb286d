// Malformed input: a diagnostic with file:line:col and exit 1. Bad
// options: a message and exit 2.
// RUN: not gpuos-jit %s --emit=ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: bash -c 'gpuos-jit %s --arch=sm_75 --emit=ptx; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: bash -c 'gpuos-jit %s -O9 --emit=ptx; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: bash -c 'gpuos-jit %s --emit=cubin; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: bash -c 'gpuos-jit %s --no-such-flag; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: bash -c 'gpuos-jit %s.missing --emit=ptx; test $? -eq 1' 2>&1 | FileCheck %s --check-prefix=MISSING

// The whole -O value is checked (only its first character was: -O33 ran as -O3).
// RUN: bash -c 'gpuos-jit %s -O33 --emit=ptx; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=OPT33
// OPT33: gpuos-jit: unsupported -O33; use -O0 to -O3
// Options of the link step with another --emit are refused, not ignored
// (PTX carries no register limit; custom sources are linked, not emitted).
// RUN: bash -c 'gpuos-jit %s --emit=ptx --maxrregcount=64 -o %t.ptx; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=LINKOPT
// LINKOPT: gpuos-jit: --maxrregcount applies to --emit=image only
// RUN: bash -c 'gpuos-jit %s --emit=llvm --custom-source=%s -o %t.ll; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=LINKSRC
// LINKSRC: gpuos-jit: --custom-source applies to --emit=image only
// An image named after its own input (x.cubin as the source) is refused
// before anything is written: the source would be overwritten.
// RUN: cp %s %t.cubin
// RUN: bash -c 'gpuos-jit %t.cubin -o %t; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=SELF
// RUN: cmp %s %t.cubin
// SELF: gpuos-jit: the output '{{.*}}.cubin' is the input file; name another with -o
// So is a text output written over its input (--emit=ptx -o x.mlir).
// RUN: cp %s %t.self.mlir
// RUN: bash -c 'gpuos-jit %t.self.mlir --emit=ptx -o %t.self.mlir; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=SELFTEXT
// RUN: cmp %s %t.self.mlir
// SELFTEXT: gpuos-jit: the output '{{.*}}self.mlir' is the input file; name another with -o
// A directory is not an image's path stem (it wrote dir/.cubin).
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: bash -c 'gpuos-jit %s -o %t.dir/; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=DIR
// RUN: bash -c 'gpuos-jit %s -o %t.dir; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=DIR
// RUN: ls -A %t.dir | count 0
// DIR: gpuos-jit: the output '{{.*}}.dir{{/?}}' is a directory; -o takes the image's path without its suffix
// A custom source that is not a file (a device would be read until memory ran out).
// RUN: not gpuos-jit %s --custom-source=/dev/zero -o %t.img 2>&1 | FileCheck %s --check-prefix=DEV
// DEV: gpuos-jit: cannot read custom source '/dev/zero': not a regular file

// ARCH: gpuos-jit: unsupported --arch=sm_75; use sm_80, sm_89, sm_90 or sm_100
// OPT: gpuos-jit: unsupported -O9; use -O0 to -O3
// EMIT: Cannot find option named 'cubin'
// FLAG: Unknown command line argument '--no-such-flag'
// MISSING: gpuos-jit: cannot open input file
gpuos.graph @bad(%x : !gpuos.tensor<4x8xf32>, %y : !gpuos.tensor<3xf32>) -> (z : !gpuos.tensor<4x8xf32>) {
  // CHECK: errors.mlir:[[@LINE+1]]:8: error: 'gpuos.add' cannot broadcast operand shapes 4x8 and 3
  %z = gpuos.add %x, %y : !gpuos.tensor<4x8xf32>, !gpuos.tensor<3xf32>
  gpuos.yield %z : !gpuos.tensor<4x8xf32>
}
