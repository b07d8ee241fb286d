//===- gpuos-bench.cpp - resident runtime against launch and CUDA graphs --===//
//
// One run measures, on the same device and the same tiny task (one block
// writing 256 floats):
//   roundtrip   submit -> complete of a one-task graph (p50/p99)
//   throughput  a graph of N independent tiny tasks, us per task
//   chain       a graph of N dependent tiny tasks, us per hop
//   fan-out     submit -> complete (p50/p99) at normal priority of one task
//               of 128 / 1024 small compute tiles, of 8 chained tasks of
//               128 tiles, and of 32 chained one-tile tasks
//   relaunch    park(), then submit -> complete (includes the relaunch)
//   eager       cuLaunchKernel + cuStreamSynchronize of the same task
//   eager_b2b   back-to-back cuLaunchKernel, one sync at the end
//   cuda_graph  replay of a captured graph of N launches, us per node
//   swap        loadImage of another image (v1 <-> v2, nothing in flight):
//               drain + park + cuModuleLoadData + relaunch, as the caller
//               sees it (swap_pause_us), and swap -> submit -> complete
//   bandwidth   a one-task graph streaming y = 3x + 1 over --bw-mb MB
//               (default 256, tiles of 4096 f32 like the suite's bandwidth
//               workload), scalar ("stream") and 16-byte ("stream4") task
//               code, in TB/s of bytes read + written; beside it the same
//               task code as an ordinary grid and a device copy kernel
// and prints a table (last) and writes JSON (--json FILE).
// --trace: block 0 timestamps each inline round trip (TraceRecord); the
// median of each step is printed (diagnostics: it adds a fence).
// --trace-tiles: also every worker tile (traceAllTiles); one more run of the
// chain of many-tile tasks is printed as a timeline (docs/runtime.md,
// "Where a many-tile hop goes").
// --short: round trip, throughput, chain and bandwidth only.
//
//   gpuos-bench [--json out.json] [--quick] [--short] [--sim] [--isolate]
//               [--workers-per-sm N] [--idle-sleep-ns N] [--no-inline]
//               [--no-continue] [--no-record] [--no-gang] [--ring-acquire-gpu]
//               [--trace] [--trace-tiles] [--no-settle] [--bw-mb N]
//
// Numbers must be whole and in range (--workers-per-sm 0-32, 0: the
// runtime's choice; --idle-sleep-ns up to 10^6; --bw-mb 1-65536), else exit
// 2; --json is opened before measuring (exit 2 if it cannot be), and a
// failed write is reported after the table (exit 1).
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/Driver.h"
#include "gpuos/runtime/Runtime.h"
#include "gpuos/runtime/TraceWindow.h"

#include "TestImage.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

using namespace gpuos::runtime;
using Clock = std::chrono::steady_clock;

namespace {

double usSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

struct Summary {
  double p50 = 0, p99 = 0, mean = 0;
  size_t n = 0;
};

Summary summarize(std::vector<double> v) {
  Summary s;
  if (v.empty())
    return s;
  std::sort(v.begin(), v.end());
  s.n = v.size();
  s.p50 = v[v.size() / 2];
  s.p99 = v[std::min(v.size() - 1, (size_t)(v.size() * 0.99))];
  double sum = 0;
  for (double x : v)
    sum += x;
  s.mean = sum / v.size();
  return s;
}

bool check(const Status &st, const char *what) {
  if (st.ok())
    return true;
  std::fprintf(stderr, "gpuos-bench: %s: %s\n", what, st.toString().c_str());
  return false;
}

/// `iters` submit -> wait round trips of graph `id` after a tenth as many
/// for warm-up, each in us into `samples`; false (reported) on an error.
bool roundTrips(Runtime &rt, GraphId id, Priority priority, int iters,
                std::vector<double> &samples) {
  for (int i = 0; i < iters + iters / 10; ++i) {
    Submission s;
    auto t0 = Clock::now();
    if (!check(rt.submit(id, priority, s), "submit") ||
        !check(rt.wait(s, 10'000'000), "wait"))
      return false;
    if (i >= iters / 10)
      samples.push_back(usSince(t0));
  }
  return true;
}

struct Row {
  std::string key, label, unit;
  double p50 = 0, p99 = -1; // p99 < 0: a single figure
  std::string target;
  size_t samples = 0;
};

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), v < 1 ? "%.3f" : "%.2f", v);
  return buf;
}

/// The eager and CUDA-graph baselines (GPU only; the kernel must be parked).
class Baselines {
public:
  bool setup(const std::string &cubinPath, uint64_t argsDev) {
    const DriverStatus &d = loadDriver();
    if (!d.available())
      return false;
    api = d.api;
    CUdevice dev;
    if (api->cuDeviceGet(&dev, 0) || api->cuDevicePrimaryCtxRetain(&ctx, dev) ||
        api->cuCtxSetCurrent(ctx))
      return false;
    std::vector<char> cubin;
    if (!readFile(cubinPath, cubin).ok())
      return false;
    if (api->cuModuleLoadData(&module, cubin.data()) ||
        api->cuModuleGetFunction(&tiny, module, "gpuos_launch_tiny") ||
        api->cuStreamCreate(&stream, cu::kStreamNonBlocking))
      return false;
    args = argsDev;
    return true;
  }
  ~Baselines() {
    if (!api)
      return;
    if (stream)
      api->cuStreamDestroy(stream);
    if (module)
      api->cuModuleUnload(module);
  }

  CUresult launch() {
    void *params[] = {&args};
    return api->cuLaunchKernel(tiny, 1, 1, 1, 256, 1, 1, 0, stream, params, nullptr);
  }

  Summary eager(int iters) {
    std::vector<double> v;
    for (int i = 0; i < iters + iters / 10; ++i) {
      auto t0 = Clock::now();
      launch();
      api->cuStreamSynchronize(stream);
      if (i >= iters / 10)
        v.push_back(usSince(t0));
    }
    return summarize(v);
  }

  double backToBack(int n) {
    for (int i = 0; i < 100; ++i)
      launch();
    api->cuStreamSynchronize(stream);
    auto t0 = Clock::now();
    for (int i = 0; i < n; ++i)
      launch();
    api->cuStreamSynchronize(stream);
    return usSince(t0) / n;
  }

  /// Host writes i to mapped memory, a one-thread kernel answers with a
  /// release store of i: the PCIe round trip under everything else.
  Summary pingPong(int iters) {
    CUfunction fn = nullptr;
    void *host = nullptr;
    CUdeviceptr dev = 0;
    Summary s;
    if (api->cuModuleGetFunction(&fn, module, "gpuos_pingpong") ||
        api->cuMemHostAlloc(&host, 256, cu::kMemHostAllocPortable | cu::kMemHostAllocDeviceMap) ||
        api->cuMemHostGetDevicePointer(&dev, host, 0))
      return s;
    auto *flag = static_cast<uint32_t *>(host);
    uint32_t *ack = flag + 16;
    *flag = 0;
    *ack = 0;
    CUdeviceptr flagDev = dev, ackDev = dev + 64;
    unsigned n = (unsigned)(iters + iters / 10);
    void *params[] = {&flagDev, &ackDev, &n};
    if (api->cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, params, nullptr))
      return s;
    std::vector<double> v;
    for (unsigned i = 1; i <= n; ++i) {
      auto t0 = Clock::now();
      __atomic_store_n(flag, i, __ATOMIC_RELEASE);
      while (__atomic_load_n(ack, __ATOMIC_ACQUIRE) != i) {
      }
      if (i > (unsigned)iters / 10)
        v.push_back(usSince(t0));
    }
    api->cuStreamSynchronize(stream);
    api->cuMemFreeHost(host);
    return summarize(v);
  }

  /// gpuos_probe (TestTasks.cu): per-primitive latency, alone and with
  /// `spinners` other blocks polling like idle workers. ns per operation.
  std::vector<double> probe(Runtime &rt, unsigned spinners) {
    std::vector<double> ns;
    CUfunction fn = nullptr;
    void *host = nullptr;
    CUdeviceptr hostDev = 0;
    Buffer dev, out;
    if (api->cuModuleGetFunction(&fn, module, "gpuos_probe") ||
        api->cuMemHostAlloc(&host, 4096, cu::kMemHostAllocPortable | cu::kMemHostAllocDeviceMap) ||
        api->cuMemHostGetDevicePointer(&hostDev, host, 0) ||
        !rt.alloc(64 * 1024 * 4, dev).ok() || !rt.alloc(32 * 8, out).ok())
      return ns;
    std::memset(host, 0, 4096);
    std::vector<uint32_t> words(64 * 1024, 0);
    for (uint32_t i = 0; i < 64; ++i)
      words[32 * i] = 32 * ((i + 1) % 64);
    if (!rt.copyToDevice(dev.ptr, words.data(), words.size() * 4).ok())
      return ns;
    CUdeviceptr d = dev.ptr, o = out.ptr;
    unsigned iters = 2000;
    void *params[] = {&d, &hostDev, &o, &iters};
    if (api->cuLaunchKernel(fn, 1 + spinners, 1, 1, 256, 1, 1, 0, stream, params,
                            nullptr) ||
        api->cuStreamSynchronize(stream))
      return ns;
    std::vector<unsigned long long> r(32);
    if (!rt.copyFromDevice(r.data(), out.ptr, r.size() * 8).ok())
      return ns;
    for (int k = 0; k < 10; ++k)
      ns.push_back(r[2 * k + 1] / 1000.0);
    api->cuMemFreeHost(host);
    return ns;
  }

  /// Median us of one launch of `name` (grid x 256 threads) + sync.
  double timeKernel(const char *name, void **params, unsigned grid, int reps) {
    CUfunction fn = nullptr;
    if (api->cuModuleGetFunction(&fn, module, name))
      return -1;
    std::vector<double> v;
    for (int r = 0; r < reps + 2; ++r) {
      auto t0 = Clock::now();
      if (api->cuLaunchKernel(fn, grid, 1, 1, 256, 1, 1, 0, stream, params, nullptr) ||
          api->cuStreamSynchronize(stream))
        return -1;
      if (r >= 2)
        v.push_back(usSince(t0));
    }
    return summarize(v).p50;
  }

  /// Median us per node of replaying a captured graph of `nodes` launches.
  double graphReplay(int nodes, int reps) {
    if (!api->cuStreamBeginCapture || !api->cuStreamEndCapture ||
        !api->cuGraphInstantiateWithFlags || !api->cuGraphLaunch)
      return -1;
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    if (api->cuStreamBeginCapture(stream, cu::kStreamCaptureModeThreadLocal))
      return -1;
    for (int i = 0; i < nodes; ++i)
      launch();
    if (api->cuStreamEndCapture(stream, &graph) ||
        api->cuGraphInstantiateWithFlags(&exec, graph, 0))
      return -1;
    std::vector<double> v;
    for (int r = 0; r < reps + 2; ++r) {
      auto t0 = Clock::now();
      api->cuGraphLaunch(exec, stream);
      api->cuStreamSynchronize(stream);
      if (r >= 2)
        v.push_back(usSince(t0) / nodes);
    }
    api->cuGraphExecDestroy(exec);
    api->cuGraphDestroy(graph);
    return summarize(v).p50;
  }

private:
  const DriverApi *api = nullptr;
  CUcontext ctx = nullptr;
  CUmodule module = nullptr;
  CUfunction tiny = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr args = 0;
};

/// --trace: the median of each step of the workers' continuation hops
/// recorded after `sinceNs`, in us at the SM clock. Returns the newest stamp.
uint64_t hopTable(Runtime &rt, const char *what, uint64_t sinceNs,
                  std::string &table) {
  TraceWindow w;
  if (!check(readTraceWindow(rt, sinceNs, w), "readHopTrace"))
    return sinceNs;
  const std::vector<HopTraceRecord> &v = w.records;
  uint64_t newest = w.newest;
  if (v.size() < 2 || w.ghz <= 0)
    return newest;
  double ghz = w.ghz;
  const char *names[] = {"finishTile (fence, counters, successors)",
                         "statistics, warp 0 section",
                         "next job chosen (priority check)",
                         "prefetch, job record, to the barrier",
                         "barrier to tile start",
                         "tile (thread 0's dispatch)",
                         "barrier to tile end"};
  char line[200];
  std::snprintf(line, sizeof(line),
                "\ncontinuation hops, %s (%zu traced, SM clock %.3f GHz), median us:\n",
                what, v.size(), ghz);
  table += line;
  std::vector<double> d[8];
  for (const HopTraceRecord &h : v) {
    uint64_t t[8] = {h.tileEnd, h.finished, h.finishDone, h.decided,
                     h.started, h.tileStart, h.dispatched, h.nextTileEnd};
    for (int k = 0; k < 7; ++k)
      d[k].push_back((double)(t[k + 1] - t[k]) / ghz / 1000.0);
    d[7].push_back((double)(t[7] - t[0]) / ghz / 1000.0);
  }
  for (int k = 0; k < 8; ++k) {
    Summary sk = summarize(d[k]);
    std::snprintf(line, sizeof(line), "  %-44s %7.3f  (p99 %.3f)\n",
                  k < 7 ? names[k] : "whole hop", sk.p50, sk.p99);
    table += line;
  }
  return newest;
}

/// --trace-tiles: one more run of a chain of many-tile tasks, every tile
/// traced (traceAllTiles), as a timeline on the device's globaltimer (ns)
/// and SM clocks (cycles, converted with the clock rate the records give):
/// per task, when its first tile started and its last ended (us from task
/// 0's first tile end), then for each hop between tasks: how long the block
/// that ended the predecessor spent releasing it (finishTile, then warp 0
/// publishing the staged ranges), from that release to the successor's
/// first tile start (other workers seeing and claiming the entries), and
/// the successor's tiles themselves (p50); for a gang (urgent, alone), the
/// releasing member's gangFinishTile and the waiting members' search and
/// wait. Returns the newest stamp.
uint64_t chainTimeline(Runtime &rt, GraphId id, Priority priority, const char *what,
                       uint64_t sinceNs, std::string &table) {
  TraceWindow w;
  if (!check(readTraceWindow(rt, sinceNs, w), "readHopTrace")) // all older
    return sinceNs;
  sinceNs = w.newest;
  Submission s;
  if (!check(rt.submit(id, priority, s), "submit") ||
      !check(rt.wait(s, 10'000'000), "wait") ||
      !check(readTraceWindow(rt, sinceNs, w), "readHopTrace"))
    return sinceNs;
  const std::vector<HopTraceRecord> &v = w.records;
  uint64_t newest = w.newest;
  if (v.size() < 2)
    return newest;
  double ghz = w.ghz > 0 ? w.ghz : 1.0;
  auto us = [&](uint64_t cycles) { return (double)cycles / ghz / 1000.0; };
  struct Task {
    uint64_t lastEnd = 0;
    double firstStart = 1e300;
    std::vector<double> tile;
  };
  std::map<uint32_t, Task> tasks;
  for (size_t k = 0; k < v.size(); ++k) {
    Task &t = tasks[v[k].task];
    double start = w.tileStartNs(v[k]);
    t.firstStart = std::min(t.firstStart, start);
    t.tile.push_back(us(v[k].nextTileEnd - v[k].tileStart));
    t.lastEnd = std::max(t.lastEnd, v[k].endNs);
  }
  double origin = tasks.begin()->second.firstStart;
  char line[240];
  std::snprintf(line, sizeof(line),
                "\n%s, one run, every tile traced (%zu tiles, SM clock %.3f GHz), us:\n"
                "  %-5s %6s %8s %8s %10s %12s %10s\n",
                what, v.size(), ghz, "task", "tiles", "start", "end", "release",
                "to next start", "tile p50");
  table += line;
  const Task *prev = nullptr;
  uint32_t prevTask = 0;
  for (auto &[task, t] : tasks) {
    // The releasing block: of the predecessor's tiles, the one whose
    // finishTile and warp 0 section (the first steps of the block's next
    // record) took longest; its atomic on the task's tile count was the
    // last, whichever tile ended last by the clock.
    double release = 0, finish = 0, toNext = 0;
    if (prev)
      for (size_t k = 1; k < v.size(); ++k)
        if (v[k].block == v[k - 1].block && v[k - 1].task == prevTask &&
            us(v[k].finishDone - v[k].tileEnd) > release) {
          release = us(v[k].finishDone - v[k].tileEnd);
          finish = us(v[k].finished - v[k].tileEnd);
          toNext = t.firstStart - ((double)v[k - 1].endNs + release * 1000.0);
        }
    std::snprintf(line, sizeof(line), "  %-5u %6zu %8.2f %8.2f %5.2f+%4.2f %12.2f %10.2f\n",
                  task, t.tile.size(), (t.firstStart - origin) / 1000.0,
                  ((double)t.lastEnd - origin) / 1000.0, finish, release - finish,
                  toNext / 1000.0, summarize(t.tile).p50);
    table += line;
    prev = &t;
    prevTask = task;
  }
  return newest;
}

const char *gangPolicyName(GangPolicy p) {
  switch (p) {
  case GangPolicy::Off:
    return "off";
  case GangPolicy::WhenIdle:
    return "when idle";
  case GangPolicy::OneAtATime:
    return "one at a time";
  case GangPolicy::UrgentAlone:
    return "when no other urgent run";
  }
  return "?";
}

/// `text` as a whole decimal number in [lo, hi] (atoi read "8x" as 8 and
/// "-1" as 4294967295 once cast).
bool parseCount(const char *text, unsigned long lo, unsigned long hi, unsigned &out) {
  if (!std::isdigit((unsigned char)text[0]))
    return false;
  errno = 0;
  char *end = nullptr;
  unsigned long value = std::strtoul(text, &end, 10);
  if (errno || *end || value < lo || value > hi)
    return false;
  out = (unsigned)value;
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::string jsonPath;
  bool quick = false, sim = false;
  unsigned workersPerSM = 0, idleSleepNs = 0, bwMB = 256;
  bool inlineUrgent = true, continueSuccessors = true, recordJobs = true;
  bool ringAcquireGpu = false, trace = false, shortRun = false, settle = true;
  bool traceTiles = false, gang = true, isolate = false;
  // A numeric option's value, or a usage error naming it.
  auto count = [&](int &i, unsigned long lo, unsigned long hi, unsigned &out) {
    if (parseCount(argv[i + 1], lo, hi, out)) {
      ++i;
      return true;
    }
    std::fprintf(stderr, "gpuos-bench: %s %s: want a whole number from %lu to %lu\n",
                 argv[i], argv[i + 1], lo, hi);
    return false;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--json" && i + 1 < argc)
      jsonPath = argv[++i];
    else if (a == "--quick")
      quick = true;
    else if (a == "--sim")
      sim = true;
    else if (a == "--workers-per-sm" && i + 1 < argc) {
      if (!count(i, 0, 32, workersPerSM))
        return 2;
    }
    else if (a == "--idle-sleep-ns" && i + 1 < argc) {
      if (!count(i, 0, 1000000, idleSleepNs))
        return 2;
    }
    else if (a == "--no-inline")
      inlineUrgent = false;
    else if (a == "--no-continue")
      continueSuccessors = false;
    else if (a == "--no-record")
      recordJobs = false;
    else if (a == "--no-gang")
      gang = false;
    else if (a == "--ring-acquire-gpu")
      ringAcquireGpu = true;
    else if (a == "--trace")
      trace = true;
    else if (a == "--trace-tiles")
      trace = traceTiles = true;
    else if (a == "--no-settle")
      settle = false;
    else if (a == "--isolate")
      isolate = true;
    else if (a == "--short")
      shortRun = true;
    else if (a == "--bw-mb" && i + 1 < argc) {
      if (!count(i, 1, 65536, bwMB))
        return 2;
    }
    else {
      std::fprintf(stderr, "usage: gpuos-bench [--json FILE] [--quick] [--short] [--sim] "
                           "[--workers-per-sm N] [--idle-sleep-ns N] [--no-inline] "
                           "[--no-continue] [--no-record] [--no-gang] "
                           "[--ring-acquire-gpu] [--trace] [--trace-tiles] "
                           "[--no-settle] [--isolate] [--bw-mb N]\n");
      return 2;
    }
  }
  // Opened now: an unwritable --json fails before minutes of measuring.
  std::ofstream js;
  if (!jsonPath.empty()) {
    js.open(jsonPath);
    if (!js) {
      std::fprintf(stderr, "gpuos-bench: cannot write --json %s: %s\n", jsonPath.c_str(),
                   std::strerror(errno));
      return 2;
    }
  }
  const int rtIters = sim ? 2000 : quick ? 5000 : 20000;
  const int throughputTasks = sim ? 2000 : 10000;
  const int chainTasks = sim ? 200 : 1000;
  const int relaunchIters = sim ? 20 : quick ? 100 : 300;

  RuntimeOptions options;
  options.idleParkUs = 0; // park only when asked: no park in the middle
  options.workersPerSM = workersPerSM;
  options.workerIdleSleepNs = idleSleepNs;
  options.inlineUrgentSingletons = inlineUrgent;
  options.continueSuccessors = continueSuccessors;
  options.recordJobs = recordJobs;
  options.ringAcquireGpuScope = ringAcquireGpu;
  options.traceRecords = trace ? 1u << 15 : 0u;
  options.traceAllTiles = traceTiles;
  options.settleAfterInline = settle;
  if (!gang)
    options.gangs = GangPolicy::Off;
  if (sim)
    bwMB = std::min(bwMB, 8u);
  std::unique_ptr<Runtime> rt;
  std::string skip, error;
  // --isolate: the context in a device host process (isolateDevice).
  const std::string backendName =
      std::string(sim ? "sim" : "gpu") + (isolate ? "host" : "");
  if (!testimage::openTestRuntime(backendName, options, rt, skip, error)) {
    std::fprintf(stderr, "gpuos-bench: %s\n", (skip + error).c_str());
    return skip.empty() ? 1 : 0;
  }
  Stats st0;
  if (!check(rt->stats(st0), "stats"))
    return 1;
  std::vector<Row> rows;
  std::string probeTable, probeJson;

  Buffer out, args;
  if (!check(rt->alloc(256 * 4, out), "alloc") || !check(rt->alloc(16, args), "alloc") ||
      !check(rt->copyToDevice(args.ptr, &out.ptr, 8), "copy"))
    return 1;
  auto tinyTask = [&](std::vector<uint32_t> deps) {
    return TaskSpec{"tiny", {out.arg()}, {}, std::move(deps)};
  };

  // 1. Round trip of a one-task graph.
  GraphSpec one;
  one.tasks.push_back(tinyTask({}));
  GraphId oneId;
  if (!check(rt->createGraph(one, oneId), "createGraph"))
    return 1;
  std::vector<double> samples;
  if (!roundTrips(*rt, oneId, Priority::Urgent, rtIters, samples))
    return 1;
  Summary roundtrip = summarize(samples);
  rows.push_back({"roundtrip_us", "submit->complete, 1-task graph, urgent", "us",
                  roundtrip.p50, roundtrip.p99, "p50 <= 4", roundtrip.n});
  std::string traceTable;
  if (trace) {
    // Where the inline round trip goes: block 0's cycles per step, in ns
    // (the SM clock rate from the globaltimer over the whole run).
    std::vector<TraceRecord> tr;
    if (!check(rt->readTrace(tr), "readTrace"))
      return 1;
    tr.erase(std::remove_if(tr.begin(), tr.end(), [](const TraceRecord &r) { return r.queued; }),
             tr.end()); // the inline ones only
    size_t skipN = tr.size() > (size_t)rtIters ? tr.size() - rtIters : 0;
    tr.erase(tr.begin(), tr.begin() + skipN);
    if (tr.size() > 2 && tr.back().seenNs > tr.front().seenNs) {
      double ghz = (double)(tr.back().seen - tr.front().seen) /
                   (double)(tr.back().seenNs - tr.front().seenNs);
      const char *names[] = {"ring read (issue -> returned)",
                             "acquire fence (fence.acq_rel.sys)",
                             "run row read, job set up",
                             "barriers, job record, to tile start",
                             "tile (dispatch + barrier)",
                             "completion st.release.sys issued",
                             "completion performed (fence.sc.sys)"};
      std::vector<double> d[8];
      for (const TraceRecord &r : tr) {
        uint64_t t[8] = {r.pollIssued, r.seen, r.acquired, r.rowRead,
                         r.tileStart, r.tileEnd, r.completed, r.performed};
        for (int k = 0; k < 7; ++k)
          d[k].push_back((double)(t[k + 1] - t[k]) / ghz / 1000.0);
        d[7].push_back((double)(r.completed - r.seen) / ghz / 1000.0);
      }
      char line[200];
      std::snprintf(line, sizeof(line),
                    "\ninline round trip on the device (%zu traced, SM clock %.3f GHz), "
                    "median us:\n", tr.size(), ghz);
      traceTable += line;
      for (int k = 0; k < 7; ++k) {
        Summary sk = summarize(d[k]);
        std::snprintf(line, sizeof(line), "  %-44s %7.3f  (p99 %.3f)\n", names[k],
                      sk.p50, sk.p99);
        traceTable += line;
      }
      Summary span = summarize(d[7]);
      std::snprintf(line, sizeof(line),
                    "  %-44s %7.3f\n  %-44s %7.3f\n",
                    "device span: entry seen -> completion issued", span.p50,
                    "host round trip minus that span", roundtrip.p50 - span.p50);
      traceTable += line;
      rows.push_back({"trace_device_span_us", "traced: entry seen -> completion issued",
                      "us", span.p50, span.p99, "", span.n});
    }
  }
  // The same at normal priority: always through a ready queue and a worker.
  std::vector<double> submitOnly;
  samples.clear();
  for (int i = 0; i < rtIters + rtIters / 10; ++i) {
    Submission s;
    auto t0 = Clock::now();
    if (!check(rt->submit(oneId, Priority::Normal, s), "submit"))
      return 1;
    double submitted = usSince(t0);
    if (!check(rt->wait(s, 10'000'000), "wait"))
      return 1;
    if (i >= rtIters / 10) {
      samples.push_back(usSince(t0));
      submitOnly.push_back(submitted);
    }
  }
  Summary queued = summarize(samples), submitS = summarize(submitOnly);
  rows.push_back({"roundtrip_queued_us", "submit->complete, 1-task graph, normal",
                  "us", queued.p50, queued.p99, "(through a worker)", queued.n});
  rows.push_back({"submit_call_us", "host time inside submit()", "us",
                  submitS.p50, submitS.p99, "", submitS.n});

  // 2. Throughput: N independent tiny tasks in one graph.
  GraphSpec wide;
  for (int i = 0; i < throughputTasks; ++i)
    wide.tasks.push_back(tinyTask({}));
  GraphId wideId;
  if (!check(rt->createGraph(wide, wideId), "createGraph(wide)"))
    return 1;
  samples.clear();
  for (int r = 0; r < 12; ++r) {
    Submission s;
    auto t0 = Clock::now();
    if (!check(rt->submit(wideId, Priority::Normal, s), "submit") ||
        !check(rt->wait(s, 60'000'000), "wait"))
      return 1;
    if (r >= 2)
      samples.push_back(usSince(t0) / throughputTasks);
  }
  Summary wideS = summarize(samples);
  rows.push_back({"throughput_us_per_task",
                  "tiny tasks in a graph (" + std::to_string(throughputTasks) +
                      " independent)",
                  "us/task", wideS.p50, -1, "<= 0.3", wideS.n});

  // 3. A dependent chain: the device-side dependency hop.
  GraphSpec chain;
  for (int i = 0; i < chainTasks; ++i)
    chain.tasks.push_back(tinyTask(i ? std::vector<uint32_t>{(uint32_t)i - 1}
                                     : std::vector<uint32_t>{}));
  GraphId chainId;
  if (!check(rt->createGraph(chain, chainId), "createGraph(chain)"))
    return 1;
  samples.clear();
  for (int r = 0; r < 7; ++r) {
    Submission s;
    auto t0 = Clock::now();
    if (!check(rt->submit(chainId, Priority::Urgent, s), "submit") ||
        !check(rt->wait(s, 60'000'000), "wait"))
      return 1;
    if (r >= 2)
      samples.push_back(usSince(t0) / chainTasks);
  }
  Summary chainS = summarize(samples);
  uint64_t hopsSince = trace ? hopTable(*rt, "urgent chain of tiny tasks", 0, traceTable) : 0;
  rows.push_back({"chain_us_per_hop",
                  "dependent chain (" + std::to_string(chainTasks) + " tasks)",
                  "us/task", chainS.p50, -1, "", chainS.n});

  // 3a. Fan-out and dependent many-tile tasks, as a caller that waits for
  // each call sees them (sync latency, normal priority: through the
  // queues): one task of 128 and of 1024 small compute tiles (256 f32 x 64
  // elementwise ops, well under a microsecond each), 8 such tasks of 128
  // tiles in a chain, and 32 one-tile tasks in a chain.
  Buffer fx, fy, fxArg;
  const int64_t fanMax = 1024 * 256;
  if (!check(rt->alloc(fanMax * 4, fx), "alloc") || !check(rt->alloc(fanMax * 4, fy), "alloc"))
    return 1;
  {
    std::vector<float> ones(fanMax, 1.0f);
    if (!check(rt->copyToDevice(fx.ptr, ones.data(), ones.size() * 4), "copy") ||
        !check(rt->copyToDevice(fy.ptr, ones.data(), ones.size() * 4), "copy"))
      return 1;
  }
  auto computeTask = [&](int64_t tiles, int k, std::vector<uint32_t> deps) {
    int64_t n = tiles * 256;
    const Buffer &in = k % 2 ? fy : fx, &outB = k % 2 ? fx : fy;
    return TaskSpec{"compute", {in.arg(), outB.arg()}, {n, n}, std::move(deps)};
  };
  const int fanIters = sim ? 50 : quick ? 1000 : 3000;
  // The chains again at urgent priority: each call finds the GPU idle, so
  // the 8 x 128 chain runs as a gang (RuntimeOptions::gangs, by default);
  // the chain of one-tile tasks (width 1) through continuations.
  struct FanCase {
    const char *key, *label;
    int tasks;
    int64_t tiles;
    Priority priority;
  } fanCases[] = {
      {"fanout128_us", "1 task x 128 compute tiles, sync", 1, 128, Priority::Normal},
      {"fanout1024_us", "1 task x 1024 compute tiles, sync", 1, 1024, Priority::Normal},
      {"chain8x128_us", "8 chained tasks x 128 tiles, sync", 8, 128, Priority::Normal},
      {"chain32x1_us", "32 chained 1-tile compute tasks, sync", 32, 1, Priority::Normal},
      {"chain8x128_urgent_us", "8 chained x 128 tiles, urgent (gang), sync", 8, 128,
       Priority::Urgent},
      {"chain32x1_urgent_us", "32 chained 1-tile, urgent, sync", 32, 1,
       Priority::Urgent},
  };
  for (const FanCase &fc : fanCases) {
    GraphSpec g;
    for (int k = 0; k < fc.tasks; ++k)
      g.tasks.push_back(computeTask(fc.tiles, k,
                                    k ? std::vector<uint32_t>{(uint32_t)k - 1}
                                      : std::vector<uint32_t>{}));
    GraphId id;
    if (!check(rt->createGraph(g, id), "createGraph(fan-out)"))
      return 1;
    samples.clear();
    if (!roundTrips(*rt, id, fc.priority, fanIters, samples))
      return 1;
    // Every element went through 64 steps of v = 0.5 v + 1 per task: 2.
    float y[2] = {0, 0};
    const Buffer &last = fc.tasks % 2 ? fy : fx;
    if (!check(rt->copyFromDevice(y, last.ptr + (fc.tiles * 256 - 2) * 4, 8), "copy"))
      return 1;
    if (y[0] != 2.0f || y[1] != 2.0f) {
      std::fprintf(stderr, "gpuos-bench: %s computed %g, expected 2\n", fc.key, y[0]);
      return 1;
    }
    Summary fs = summarize(samples);
    rows.push_back({fc.key, fc.label, "us", fs.p50, fs.p99, "", fs.n});
    if (trace && fc.tiles == 1 && !traceTiles)
      hopsSince = hopTable(*rt, fc.label, hopsSince, traceTable);
    if (traceTiles && fc.tasks > 1 && fc.tiles > 1)
      hopsSince = chainTimeline(*rt, id, fc.priority, fc.label, hopsSince, traceTable);
    if (!check(rt->destroyGraph(id), "destroyGraph"))
      return 1;
  }

  // 3b. Bandwidth: one memory-bound task over bwMB MB in tiles of 4096 f32.
  Buffer bwX, bwY, bwArgs;
  const uint64_t bwBytes = (uint64_t)bwMB << 20;
  const int64_t bwN = (int64_t)(bwBytes / 4);
  if (!check(rt->alloc(bwBytes, bwX), "alloc") || !check(rt->alloc(bwBytes, bwY), "alloc") ||
      !check(rt->alloc(24, bwArgs), "alloc"))
    return 1;
  {
    uint64_t a[3] = {bwX.ptr, bwY.ptr, (uint64_t)bwN};
    if (!check(rt->copyToDevice(bwArgs.ptr, a, sizeof(a)), "copy"))
      return 1;
    std::vector<float> ones(1 << 20, 1.0f);
    for (uint64_t off = 0; off < bwBytes; off += ones.size() * 4)
      if (!check(rt->copyToDevice(bwX.ptr + off, ones.data(),
                                  std::min<uint64_t>(ones.size() * 4, bwBytes - off)),
                 "copy"))
        return 1;
  }
  for (const char *kind : {"stream", "stream4"}) {
    GraphSpec g;
    g.tasks.push_back(TaskSpec{kind, {bwX.arg(), bwY.arg()}, {bwN, bwN}, {}});
    GraphId id;
    if (!check(rt->createGraph(g, id), "createGraph(stream)"))
      return 1;
    samples.clear();
    for (int r = 0; r < 12; ++r) {
      Submission s;
      auto t0 = Clock::now();
      if (!check(rt->submit(id, Priority::Normal, s), "submit") ||
          !check(rt->wait(s, 60'000'000), "wait"))
        return 1;
      if (r >= 2)
        samples.push_back(2.0 * (double)bwBytes / usSince(t0) / 1e6);
    }
    float y[4] = {0, 0, 0, 0};
    if (!check(rt->copyFromDevice(y, bwY.ptr + bwBytes - 16, 16), "copy"))
      return 1;
    if (y[0] != 4.0f || y[3] != 4.0f) {
      std::fprintf(stderr, "gpuos-bench: %s computed %g, expected 4\n", kind, y[0]);
      return 1;
    }
    Summary bw = summarize(samples);
    rows.push_back({std::string(kind) + "_tbps",
                    std::string(kind == std::string("stream") ? "scalar" : "16-byte") +
                        " stream task, " + std::to_string(bwMB) + " MB in + out",
                    "TB/s", bw.p50, -1, "(device copy below)", bw.n});
    if (!check(rt->destroyGraph(id), "destroyGraph"))
      return 1;
  }

  // 4. Park -> relaunch -> complete.
  samples.clear();
  std::vector<double> parks;
  for (int i = 0; i < (shortRun ? 0 : relaunchIters); ++i) {
    auto tp = Clock::now();
    if (!check(rt->park(), "park"))
      return 1;
    parks.push_back(usSince(tp));
    Submission s;
    auto t0 = Clock::now();
    if (!check(rt->submit(oneId, Priority::Urgent, s), "submit") ||
        !check(rt->wait(s, 10'000'000), "wait"))
      return 1;
    samples.push_back(usSince(t0));
  }
  Summary relaunch = summarize(samples), parkS = summarize(parks);
  if (!shortRun) {
    rows.push_back({"relaunch_us", "park -> submit -> complete (relaunch)", "us",
                    relaunch.p50, relaunch.p99, "p50 <= 50", relaunch.n});
    rows.push_back({"park_us", "park() (drain + exit)", "us", parkS.p50, parkS.p99,
                    "", parkS.n});
  }

  // 5. Image swaps: the pause a caller sees, and until work completes.
  // Alternating v1/v2: after the first two, both are in the backend's image
  // cache, so this is drain + park + switch + relaunch.
  std::string swapLine;
  if (!shortRun) {
    // Only the one-task graph stays: rebinding renumbered kinds re-uploads
    // each graph (O(its size)), which is not the pause being measured.
    if (!check(rt->destroyGraph(wideId), "destroyGraph") ||
        !check(rt->destroyGraph(chainId), "destroyGraph"))
      return 1;
    std::vector<char> cubin[2];
    std::string json[2];
    if (!check(testimage::readImage(backendName, false, cubin[0], json[0]), "image v1") ||
        !check(testimage::readImage(backendName, true, cubin[1], json[1]), "image v2"))
      return 1;
    ImageManifest man[2];
    for (int v = 0; v < 2; ++v)
      if (!check(parseManifest(json[v], man[v]), "manifest"))
        return 1;
    std::vector<double> pauses, untilDone;
    const int swaps = sim ? 20 : quick ? 60 : 200;
    for (int i = 0; i < swaps; ++i) {
      int v = (i + 1) % 2;
      // Parsing and the caller's copy of the bytes excluded, as nvJitLink
      // is: the pause is the runtime's part.
      ImageManifest m = man[v];
      std::vector<char> bytes = cubin[v];
      auto t0 = Clock::now();
      if (!check(rt->loadImage(std::move(bytes), std::move(m)), "loadImage"))
        return 1;
      pauses.push_back(usSince(t0));
      Submission s;
      if (!check(rt->submit(oneId, Priority::Urgent, s), "submit") ||
          !check(rt->wait(s, 10'000'000), "wait"))
        return 1;
      untilDone.push_back(usSince(t0));
    }
    Stats cachedStats;
    if (!check(rt->stats(cachedStats), "stats"))
      return 1;
    // Images never loaded before: the bytes differ (padding after the ELF,
    // which the loader ignores), so each one is a real cuModuleLoadData.
    std::vector<double> fresh;
    double freshLoad = 0;
    for (int i = 0; i < (sim ? 4 : 20); ++i) {
      std::vector<char> bytes = cubin[i % 2];
      bytes.resize(bytes.size() + 64 * (i + 1), 0);
      ImageManifest m = man[i % 2];
      auto t0 = Clock::now();
      if (!check(rt->loadImage(std::move(bytes), std::move(m)), "loadImage(new)"))
        return 1;
      fresh.push_back(usSince(t0));
      Stats fs;
      if (!check(rt->stats(fs), "stats"))
        return 1;
      freshLoad += fs.lastSwap.loadUs;
    }
    freshLoad /= fresh.size();
    if (!check(rt->loadImage(cubin[0], man[0]), "loadImage"))
      return 1;
    Summary pause = summarize(pauses), done = summarize(untilDone),
            freshS = summarize(fresh);
    const Stats::SwapPhases &ph = cachedStats.lastSwap;
    swapLine = "last cached swap, us: drain+park " + fmt(ph.parkUs) + ", load " +
               fmt(ph.loadUs) + ", install+rebind " + fmt(ph.installUs) +
               ", relaunch " + fmt(ph.relaunchUs) +
               "; new images: cuModuleLoadData & co. " + fmt(freshLoad) + " us on average";
    rows.push_back({"swap_pause_us", "image swap (cached image): loadImage",
                    "us", pause.p50, pause.p99, "p50 <= 50", pause.n});
    rows.push_back({"swap_to_complete_us", "image swap, then a 1-task graph completes",
                    "us", done.p50, done.p99, "", done.n});
    rows.push_back({"swap_new_image_us", "image swap to a never-loaded image", "us",
                    freshS.p50, freshS.p99, "(module load included)", freshS.n});
  }

  Stats st;
  if (!check(rt->stats(st), "stats"))
    return 1;
  double busyMin = 1, busyMax = 0, busySum = 0;
  for (const Stats::SM &sm : st.perSM) {
    busyMin = std::min(busyMin, sm.busyFraction());
    busyMax = std::max(busyMax, sm.busyFraction());
    busySum += sm.busyFraction();
  }
  std::string smLine = "SMs with blocks: " + std::to_string(st.perSM.size()) +
                       ", busy fraction over the run min/mean/max " + fmt(busyMin) +
                       "/" + fmt(st.perSM.empty() ? 0 : busySum / st.perSM.size()) +
                       "/" + fmt(busyMax) + ", swaps " + std::to_string(st.swaps);

  // 6. Baselines on the same task, with the kernel parked. They use this
  // process's context, which an isolated runtime's device addresses
  // (args) do not belong to: not with --isolate.
  if (!sim && !isolate) {
    if (!check(rt->park(), "park"))
      return 1;
    Baselines base;
    const bool baseOk = base.setup(testimage::cubinPath(), args.ptr);
    if (baseOk) {
      // The stream task code as ordinary grids, and a device copy.
      CUdeviceptr bwArgsDev = bwArgs.ptr, xDev = bwX.ptr, yDev = bwY.ptr;
      unsigned long long n4 = (unsigned long long)bwN / 4;
      void *streamParams[] = {&bwArgsDev};
      void *copyParams[] = {&xDev, &yDev, &n4};
      unsigned tiles = (unsigned)((bwN + 4095) / 4096);
      double tbps = 2.0 * (double)bwBytes / 1e6;
      double us = base.timeKernel("gpuos_launch_stream", streamParams, tiles, 10);
      if (us > 0)
        rows.push_back({"stream_grid_tbps", "scalar stream task as a grid (no runtime)",
                        "TB/s", tbps / us, -1, "", 10});
      us = base.timeKernel("gpuos_launch_stream4", streamParams, tiles, 10);
      if (us > 0)
        rows.push_back({"stream4_grid_tbps", "16-byte stream task as a grid (no runtime)",
                        "TB/s", tbps / us, -1, "", 10});
      us = base.timeKernel("gpuos_copy4", copyParams, 132 * 16, 10);
      if (us > 0)
        rows.push_back({"device_copy_tbps", "device copy kernel (16-byte, same bytes)",
                        "TB/s", tbps / us, -1, "", 10});
    }
    if (baseOk && !shortRun) {
      Summary ping = base.pingPong(rtIters);
      rows.push_back({"pcie_pingpong_us", "PCIe ping-pong floor (mapped flag)", "us",
                      ping.p50, ping.p99, "(2.2 measured before)", ping.n});
      Summary eager = base.eager(rtIters);
      rows.push_back({"eager_launch_sync_us", "eager cuLaunchKernel + sync", "us",
                      eager.p50, eager.p99, "(8.6 measured before)", eager.n});
      double b2b = base.backToBack(rtIters);
      rows.push_back({"eager_back_to_back_us", "eager launches back to back",
                      "us/launch", b2b, -1, "", (size_t)rtIters});
      double graph = base.graphReplay(1000, 20);
      rows.push_back({"cuda_graph_us_per_node", "CUDA graph replay (1000 nodes)",
                      "us/node", graph, -1, "", 20});
      const char *names[] = {"ld.relaxed.gpu (L2, dependent)", "atom.add.gpu (dependent)",
                             "ld.acquire.gpu (dependent)", "fence.acq_rel.gpu",
                             "st.relaxed.gpu + fence.acq_rel.gpu", "st.release.gpu",
                             "fence.sc.sys", "st.release.sys (host memory)",
                             "st.relaxed.sys + fence.sc.sys", "ld.volatile host memory (PCIe)"};
      std::vector<double> quiet = base.probe(*rt, 0);
      std::vector<double> loaded = base.probe(*rt, st.workers);
      if (quiet.size() == 10 && loaded.size() == 10) {
        probeTable += "\nprimitive latency, ns (thread 0 alone | with " +
                      std::to_string(st.workers) + " idle-polling blocks):\n";
        for (int k = 0; k < 10; ++k) {
          char line[160];
          std::snprintf(line, sizeof(line), "  %-40s %8.1f %8.1f\n", names[k],
                        quiet[k], loaded[k]);
          probeTable += line;
          probeJson += std::string(probeJson.empty() ? "" : ",\n") + "    \"" +
                       names[k] + "\": [" + std::to_string(quiet[k]) + ", " +
                       std::to_string(loaded[k]) + "]";
        }
      }
    } else if (!baseOk) {
      std::fprintf(stderr, "gpuos-bench: baselines unavailable\n");
    }
  }

  // JSON.
  if (!jsonPath.empty()) {
    js << "{\n  \"device\": \"" << rt->deviceInfo().name << "\",\n"
       << "  \"workers\": " << st.workers << ",\n"
       << "  \"block_threads\": " << st.blockThreads << ",\n"
       << "  \"launches\": " << st.launches << ",\n  \"results\": {\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row &r = rows[i];
      js << "    \"" << r.key << "\": {\"p50\": " << r.p50;
      if (r.p99 >= 0)
        js << ", \"p99\": " << r.p99;
      js << ", \"unit\": \"" << r.unit << "\", \"samples\": " << r.samples << "}"
         << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    js << "  },\n  \"primitives_ns_quiet_loaded\": {\n" << probeJson << "\n  }\n}\n";
    js.close();
  }
  // Reported after the table, so the figures are not lost with the file.
  const bool jsonFailed = !jsonPath.empty() && !js;

  // The table, last.
  std::printf("\ngpuos-bench on %s: %u workers x %u threads, idle nap %u ns, "
              "urgent singletons %s, continuations %s, job records %s, "
              "ring acquire %s, settle %s, gangs %s (%llu runs), %llu launches\n",
              rt->deviceInfo().name.c_str(), st.workers, st.blockThreads,
              idleSleepNs, inlineUrgent ? "inline" : "queued",
              continueSuccessors ? "on" : "off", recordJobs ? "on" : "off",
              ringAcquireGpu ? "gpu scope" : "sys scope", settle ? "on" : "off",
              gangPolicyName(options.gangs), (unsigned long long)st.gangRuns,
              (unsigned long long)st.launches);
  std::printf("%-44s %10s %10s  %-10s %s\n", "metric", "p50", "p99", "unit", "target");
  for (const Row &r : rows)
    std::printf("%-44s %10s %10s  %-10s %s\n", r.label.c_str(), fmt(r.p50).c_str(),
                r.p99 >= 0 ? fmt(r.p99).c_str() : "-", r.unit.c_str(),
                r.target.c_str());
  std::printf("%s\n%s\n", smLine.c_str(), swapLine.c_str());
  std::printf("%s%s", traceTable.c_str(), probeTable.c_str());
  if (jsonFailed) {
    std::fflush(stdout); // the table first
    std::fprintf(stderr, "gpuos-bench: writing --json %s failed\n", jsonPath.c_str());
    return 1;
  }
  return 0;
}
