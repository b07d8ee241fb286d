"""Writes a graph with one long chain to stdout, for the tests of long
chains (the fusion op cap, the lowering's depth limit).

usage: long_chain.py N [--reduce | --views | --task]

N negs in a row on a 4x64 f32 input; --reduce: then a sum over the rows;
--views: N reshapes in a row (4x64 <-> 256) feeding one neg; --task: the
N negs in one hand-written task "deep".
"""
import sys

n = int(sys.argv[1])
mode = sys.argv[2] if len(sys.argv) > 2 else ""
t = "!gpuos.tensor<4x64xf32>"
flat = "!gpuos.tensor<256xf32>"
out = "!gpuos.tensor<4xf32>" if mode == "--reduce" else t
lines = [f"gpuos.graph @chain(%x : {t}) -> (y : {out}) {{"]
prev = "%x"
if mode == "--task":
    lines.append(f'  %t = gpuos.task "deep" ins(%a = %x : {t}) tile [4, 64] -> ({t}) {{')
    prev = "%a"
for i in range(n):
    if mode == "--views":
        lines.append(f"  %v{i} = gpuos.reshape {prev} to [256] : {t}" if i % 2 == 0
                     else f"  %v{i} = gpuos.reshape {prev} to [4, 64] : {flat}")
    else:
        lines.append(f"  %v{i} = gpuos.neg {prev} : {t}")
    prev = f"%v{i}"
if mode == "--views":
    shape = flat if n % 2 else t
    lines.append(f"  %n = gpuos.neg {prev} : {shape}")
    prev = "%n"
    if n % 2:
        lines.append(f"  %r = gpuos.reshape %n to [4, 64] : {flat}")
        prev = "%r"
if mode == "--reduce":
    lines.append(f"  %s = gpuos.reduce sum {prev} axes [1] : {t}")
    prev = "%s"
if mode == "--task":
    lines.append(f"  gpuos.yield {prev} : {t}")
    lines.append("  }")
    prev = "%t"
lines.append(f"  gpuos.yield {prev} : {out}")
lines.append("}")
print("\n".join(lines))
