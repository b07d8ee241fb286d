//===- gpuos-runtime-check.cpp - compiled images through the runtime ------===//
//
//   gpuos-runtime-check DIR/check.txt
//
// The runtime half of the GPU check (scripts/gpu-check.sh run): loads the
// image (cubin + manifest next to it) into gpuos::runtime::Runtime, the
// resident kernel linked into it by gpuos-jit, and runs
//
//  * every task on its own, as a one-task graph (createGraph), with the
//    vectors the launcher uses: this reaches every kind through the
//    image's gpuos_dispatch;
//  * every graph as a whole (createGraphFromManifest, inputs and outputs
//    bound by name, intermediates allocated by the runtime, dependencies
//    resolved on the device) with the graph vectors of gpuos-check-gen,
//
// comparing outputs with the interpreter's values under the same
// tolerances (CheckFile.h); output bytes no element covers must keep their
// 0xFF poison. Links only the runtime library: no LLVM, builds on the GPU
// machine. Exit 1 on any failure, 2 on bad usage.
//
//===----------------------------------------------------------------------===//

#include "../CheckFile.h"
#include "gpuos/runtime/Runtime.h"

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace gpuos;
using runtime::Status;

namespace {

/// Device buffers of one run: each a fresh allocation, outputs poisoned.
struct Bound {
  std::vector<runtime::Buffer> buffers;
};

Status upload(runtime::Runtime &rt, const check::Buffer &b, runtime::Buffer &out) {
  uint64_t bytes = uint64_t(b.span) * b.elemBytes;
  GPUOS_RETURN_IF_ERROR(rt.alloc(bytes, out));
  std::vector<char> poison(bytes, char(0xFF));
  const std::vector<char> &data = b.input ? b.data : poison;
  return rt.copyToDevice(out.ptr, data.data(), bytes);
}

/// Compares the outputs of `buffers` (device copies in `bound`).
Status compareOutputs(runtime::Runtime &rt, const std::vector<check::Buffer> &buffers,
                      const Bound &bound, check::Outcome &outcome) {
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].input)
      continue;
    std::vector<char> device(size_t(buffers[i].span) * buffers[i].elemBytes);
    GPUOS_RETURN_IF_ERROR(
        rt.copyFromDevice(device.data(), bound.buffers[i].ptr, device.size()));
    check::compare(buffers[i], device, 0, outcome);
  }
  return Status::success();
}

void release(runtime::Runtime &rt, Bound &bound) {
  for (const runtime::Buffer &b : bound.buffers)
    (void)rt.free(b.ptr);
  bound.buffers.clear();
}

/// Submits graph `g`, waits (a minute at most) and destroys it.
Status runGraph(runtime::Runtime &rt, runtime::GraphId g) {
  runtime::Submission s;
  Status st = rt.submit(g, s);
  if (st.ok())
    st = rt.wait(s, 60'000'000);
  Status destroyed = rt.destroyGraph(g);
  return st.ok() ? destroyed : st;
}

bool report(const char *what, const std::string &name, const Status &st,
            const check::Outcome &outcome) {
  bool ok = st.ok() && outcome.ok;
  std::printf("%s %-5s %-40s max_abs=%.3g max_rel=%.3g elems=%lld", ok ? "PASS" : "FAIL",
              what, name.c_str(), outcome.maxAbs, outcome.maxRel, outcome.elements);
  if (!st.ok())
    std::printf(" error: %s", st.toString().c_str());
  if (outcome.mismatches)
    std::printf(" mismatches=%lld first: %s", outcome.mismatches, outcome.first.c_str());
  if (outcome.poisonTouched)
    std::printf(" wrote %lld elements outside the view", outcome.poisonTouched);
  std::printf("\n");
  return ok;
}

bool checkTask(runtime::Runtime &rt, const check::Task &task) {
  Bound bound;
  runtime::GraphSpec spec;
  runtime::TaskSpec ts;
  ts.kind = task.kind;
  Status st;
  for (const check::Buffer &b : task.buffers) {
    runtime::Buffer buffer;
    st = upload(rt, b, buffer);
    if (!st.ok())
      break;
    bound.buffers.push_back(buffer);
    ts.buffers.push_back(buffer.arg());
  }
  spec.tasks.push_back(ts);
  check::Outcome outcome;
  runtime::GraphId g = 0;
  if (st.ok())
    st = rt.createGraph(spec, g);
  if (st.ok())
    st = runGraph(rt, g);
  if (st.ok())
    st = compareOutputs(rt, task.buffers, bound, outcome);
  release(rt, bound);
  return report("task", task.kind, st, outcome);
}

bool checkGraph(runtime::Runtime &rt, const check::Graph &graph) {
  // Bind only names the manifest's tasks of this graph use (a graph input
  // that no task reads has no buffer there).
  std::map<std::string, bool> used;
  for (const runtime::ManifestTask &t : rt.manifest()->tasks)
    if (t.graph == graph.name)
      for (const runtime::ManifestBuffer &b : t.buffers)
        used[b.name] = true;
  Bound bound;
  std::vector<check::Buffer> buffers;
  std::map<std::string, runtime::BufferArg> bindings;
  Status st;
  for (const check::Buffer &b : graph.buffers) {
    if (!used.count(b.name)) {
      std::printf("note  graph %s: %s '%s' is not a task buffer; not bound\n",
                  graph.name.c_str(), b.input ? "input" : "output", b.name.c_str());
      continue;
    }
    runtime::Buffer buffer;
    st = upload(rt, b, buffer);
    if (!st.ok())
      break;
    bound.buffers.push_back(buffer);
    buffers.push_back(b);
    bindings[b.name] = buffer.arg();
  }
  check::Outcome outcome;
  runtime::GraphId g = 0;
  if (st.ok())
    st = rt.createGraphFromManifest(graph.name, bindings, g);
  if (st.ok())
    st = runGraph(rt, g);
  if (st.ok())
    st = compareOutputs(rt, buffers, bound, outcome);
  release(rt, bound);
  return report("graph", graph.name, st, outcome);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gpuos-runtime-check DIR/check.txt\n");
    return 2;
  }
  std::string image;
  std::vector<check::Task> tasks;
  std::vector<check::Graph> graphs;
  if (!check::parseCheck(argv[1], image, tasks, &graphs))
    return 1;
  std::string manifest = image;
  if (manifest.size() > 6 && manifest.compare(manifest.size() - 6, 6, ".cubin") == 0)
    manifest.resize(manifest.size() - 6);
  manifest += ".manifest.json";

  std::unique_ptr<runtime::Runtime> rt;
  Status st = runtime::Runtime::open(0, runtime::RuntimeOptions(), rt);
  if (!st.ok()) {
    std::fprintf(stderr, "gpuos-runtime-check: %s\n", st.toString().c_str());
    return 1;
  }
  std::printf("device: %s, runtime, image %s\n", rt->deviceInfo().name.c_str(),
              image.c_str());
  st = rt->loadImageFiles(image, manifest);
  if (!st.ok()) {
    std::printf("FAIL load %s: %s\n", image.c_str(), st.toString().c_str());
    return 1;
  }
  int passed = 0, failed = 0;
  for (const check::Task &task : tasks)
    (checkTask(*rt, task) ? passed : failed)++;
  for (const check::Graph &graph : graphs)
    (checkGraph(*rt, graph) ? passed : failed)++;
  // A fault makes every later call fail; close() reports it once more.
  st = rt->close();
  if (!st.ok()) {
    std::printf("FAIL close: %s\n", st.toString().c_str());
    ++failed;
  }
  std::printf("runtime-check %s: %d passed, %d failed\n", image.c_str(), passed, failed);
  return failed ? 1 : 0;
}
