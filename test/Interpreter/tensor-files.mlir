// Inputs read from and outputs written to raw files (float64 for floats,
// int64 for integers), the interface the PyTorch front-end's CPU checks use.
// RUN: rm -rf %t && mkdir -p %t/in %t/out
// RUN: %python -c "import struct; open('%t/in/x.bin','wb').write(struct.pack('<6d', 1, -2, 3.5, 4, 0.1, 6)); open('%t/in/n.bin','wb').write(struct.pack('<3q', 1, 2, -3))"
// RUN: gpuos-interp %s --inputs-dir=%t/in --outputs-dir=%t/out | FileCheck %s
// RUN: %python -c "import struct; print(struct.unpack('<3d', open('%t/out/s.bin','rb').read())); print(struct.unpack('<2d', open('%t/out/h.bin','rb').read())); print(struct.unpack('<3q', open('%t/out/m.bin','rb').read()))" | FileCheck %s --check-prefix=FILES
// A file of the wrong size names the input, the path and both sizes.
// RUN: %python -c "open('%t/in/x.bin','wb').write(bytes(40))"
// RUN: not gpuos-interp %s --inputs-dir=%t/in 2>&1 | FileCheck %s --check-prefix=SIZE
// A missing file names the input and the path.
// RUN: %python -c "open('%t/in/x.bin','wb').write(bytes(48))" && rm %t/in/n.bin
// RUN: not gpuos-interp %s --inputs-dir=%t/in 2>&1 | FileCheck %s --check-prefix=MISSING

gpuos.graph @files(%x : !gpuos.tensor<2x3xf32>, %n : !gpuos.tensor<3xi32>)
    -> (s : !gpuos.tensor<3xf32>, h : !gpuos.tensor<2xf16>, m : !gpuos.tensor<3xi32>) {
  %s = gpuos.reduce sum %x axes [0] : !gpuos.tensor<2x3xf32>
  %r = gpuos.reduce sum %x axes [1] : !gpuos.tensor<2x3xf32>
  %h = gpuos.cast %r : !gpuos.tensor<2xf32> to f16
  %m = gpuos.mul %n, %n : !gpuos.tensor<3xi32>, !gpuos.tensor<3xi32>
  gpuos.yield %s, %h, %m : !gpuos.tensor<3xf32>, !gpuos.tensor<2xf16>, !gpuos.tensor<3xi32>
}

// CHECK: graph @files
// CHECK-NOT: seed
// CHECK: input x : !gpuos.tensor<2x3xf32> from {{.*}}x.bin
// CHECK: output s : !gpuos.tensor<3xf32>
// CHECK-NEXT: min -1.9 max 9.5 mean 4.2 sum 12.6
// 0.1 rounds to f32 on the way in, and the sum rounds to f32 again.
// FILES: (5.0, -1.899999976158142, 9.5)
// 2.5 and 10.1 rounded to f16: 10.1 becomes 10.1015625.
// FILES-NEXT: (2.5, 10.1015625)
// FILES-NEXT: (1, 4, 9)
// SIZE: gpuos-interp: error: input 'x': {{.*}}x.bin holds 40 bytes; 6 elements of float64 need 48
// MISSING: gpuos-interp: error: input 'n': cannot read {{.*}}n.bin
