#!/usr/bin/env python3
"""Writes the large graphs docs/passes.md times gpuos-pipeline on.

  python3 tools/gpuos-difftest/scaling-graphs.py OUTDIR [LINKS]

chain.mlir     LINKS x (exp, reduce, div, add, tanh): 5 ops a link, written
               in order; 20000 links make 10^5 ops.
chain-rev.mlir the same ops written last to first (a graph region allows it).
wide.mlir      a tanh chain whose every link is also reduced, the reductions
               summed in a tree: each fused link has a consumer outside the
               group, the case a naive cycle check makes quadratic.
"""
import os
import sys

out = sys.argv[1]
links = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
os.makedirs(out, exist_ok=True)
T = '!gpuos.tensor<8x16xf32>'
R = '!gpuos.tensor<8x1xf32>'
S = '!gpuos.tensor<f32>'

lines, prev = [], '%x'
for i in range(links):
    lines += [f'  %a{i} = gpuos.exp {prev} : {T}',
              f'  %b{i} = gpuos.reduce sum %a{i} axes [1] keepdim : {T}',
              f'  %c{i} = gpuos.div %a{i}, %b{i} : {T}, {R}',
              f'  %d{i} = gpuos.add %c{i}, %x : {T}, {T}',
              f'  %e{i} = gpuos.tanh %d{i} : {T}']
    prev = f'%e{i}'
for name, body in (('chain', lines), ('chain-rev', lines[::-1])):
    with open(os.path.join(out, name + '.mlir'), 'w') as f:
        f.write(f'gpuos.graph @{name.replace("-", "_")}(%x : {T}) -> (y : {T}) {{\n')
        f.write('\n'.join(body))
        f.write(f'\n  gpuos.yield {prev} : {T}\n}}\n')

lines, prev = [], '%x'
for i in range(links):
    lines += [f'  %c{i} = gpuos.tanh {prev} : {T}',
              f'  %r{i} = gpuos.reduce max %c{i} axes [0, 1] : {T}']
    prev = f'%c{i}'
values, k = [f'%r{i}' for i in range(links)], 0
while len(values) > 1:
    pairs = []
    for j in range(0, len(values) - 1, 2):
        lines.append(f'  %s{k} = gpuos.add {values[j]}, {values[j + 1]} : {S}, {S}')
        pairs.append(f'%s{k}')
        k += 1
    if len(values) % 2:
        pairs.append(values[-1])
    values = pairs
with open(os.path.join(out, 'wide.mlir'), 'w') as f:
    f.write(f'gpuos.graph @wide(%x : {T}) -> (y : {T}, s : {S}) {{\n')
    f.write('\n'.join(lines))
    f.write(f'\n  gpuos.yield {prev}, {values[0]} : {T}, {S}\n}}\n')
