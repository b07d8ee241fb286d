//===- ManifestTest.cpp - reading docs/abi.md manifests -------------------===//

#include "gpuos/runtime/Manifest.h"
#include "gpuos/runtime/Runtime.h"

#include "TestImage.h"
#include "gtest/gtest.h"

using namespace gpuos::runtime;

namespace {

std::string testManifest() {
  std::vector<char> text;
  EXPECT_TRUE(readFile(testimage::manifestPath(), text).ok());
  return std::string(text.begin(), text.end());
}

/// One-task manifest with `task` spliced in as the task object.
std::string withTask(const std::string &task) {
  return R"({"abi": 0, "arch": "sm_90", "tasks": [)" + task + "]}";
}

std::string parseError(const std::string &json) {
  ImageManifest m;
  Status st = parseManifest(json, m);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.code(), ErrorCode::BadImage);
  return st.message();
}

const char *kGood =
    R"({"kind": "k", "tile": [4], "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [16]}]})";

} // namespace

// The test image's manifest reads completely: kinds in order, buffers,
// dynamic slots written as -1, priorities, depends_on.
TEST(Manifest, ReadsTheTestImage) {
  ImageManifest m;
  Status st = parseManifest(testManifest(), m);
  ASSERT_TRUE(st.ok()) << st.toString();
  EXPECT_EQ(m.arch, "sm_90");
  ASSERT_EQ(m.tasks.size(), 13u);
  EXPECT_EQ(m.findKind("add4k"), 2);
  EXPECT_EQ(m.findKind("nope"), -1);
  const ManifestTask &add = m.tasks[2];
  EXPECT_EQ(add.function, "gpuos_task_add4k");
  EXPECT_EQ(add.graph, "chain");
  ASSERT_EQ(add.buffers.size(), 3u);
  EXPECT_FALSE(add.buffers[0].isOutput);
  EXPECT_TRUE(add.buffers[2].isOutput);
  EXPECT_EQ(add.buffers[2].vectorAlign, 16);
  EXPECT_EQ(add.dependsOn, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(add.numTiles, 16);
  EXPECT_EQ(add.argBlockBytes(), 32u); // 3 pointers, padded to 16
  const ManifestTask &count = m.tasks[4];
  EXPECT_EQ(count.priority, Priority::Background);
  EXPECT_EQ(count.buffers[0].shape, (std::vector<int64_t>{kDynamic}));
  EXPECT_EQ(count.dynamic, (std::vector<std::string>{"n", "id"}));
  EXPECT_EQ(m.tasks[3].priority, Priority::Urgent);
  EXPECT_EQ(m.tasks[3].deadlineUs, 100);
}

// Dynamic dims may also be null or "?"; strides default to row-major.
TEST(Manifest, DynamicSpellingsAndDefaultStrides) {
  ImageManifest m;
  Status st = parseManifest(
      withTask(R"({"kind": "k", "tile": [1, 8], "dynamic": ["a", "b", "c"],
        "buffers": [{"name": "o", "role": "output", "dtype": "bf16", "shape": [null, "?"]}]})"),
      m);
  ASSERT_TRUE(st.ok()) << st.toString();
  const ManifestBuffer &b = m.tasks[0].buffers[0];
  EXPECT_EQ(b.shape, (std::vector<int64_t>{kDynamic, kDynamic}));
  EXPECT_EQ(b.strides, (std::vector<int64_t>{kDynamic, 1}));
  EXPECT_EQ(b.elemBytes, 2);
  EXPECT_EQ(m.tasks[0].blockSize, 256);
  EXPECT_EQ(m.tasks[0].function, "gpuos_task_k");
}

// Each malformed field is named with its task and buffer.
TEST(Manifest, ErrorsNameTheField) {
  EXPECT_EQ(parseError("[]"), "manifest: the document must be an object");
  EXPECT_EQ(parseError(R"({"abi": 1, "tasks": []})"),
            "manifest: ABI version 1 is not supported (this runtime reads "
            "version 0)");
  EXPECT_EQ(parseError(R"({"tasks": []})"), "manifest: missing 'abi'");
  EXPECT_NE(parseError("{").find("manifest: invalid JSON: line 1, column 2"),
            std::string::npos);
  EXPECT_EQ(parseError(withTask(R"({"kind": "1bad", "tile": [1], "buffers": []})")),
            "manifest: tasks[0] ('1bad'): 'kind' must be a C identifier");
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "priority": "high", "tile": [4], "buffers": []})")),
            "manifest: tasks[0] ('k'): 'priority' must be \"urgent\", "
            "\"normal\" or \"background\", not \"high\"");
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "tile": [4], "buffers": [{"name": "o", "role": "inout", "dtype": "f32", "shape": [4]}]})")),
            "manifest: tasks[0] ('k'): buffers[0]: 'role' must be \"input\" "
            "or \"output\", not \"inout\"");
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "tile": [4], "buffers": [{"name": "o", "role": "output", "dtype": "q7", "shape": [4]}]})")),
            "manifest: tasks[0] ('k'): buffers[0]: unknown dtype 'q7' and no "
            "'elem_bytes'");
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "tile": [4, 4], "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [4]}]})")),
            "manifest: tasks[0] ('k'): 'tile' has rank 2 but the first result "
            "'o' has rank 1");
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "tile": [0], "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [4]}]})")),
            "manifest: tasks[0] ('k'): 'tile' must be an array of positive "
            "integers");
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "tile": [4], "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [-1]}]})")),
            "manifest: tasks[0] ('k'): the buffers have 1 dynamic sizes and "
            "strides but 'dynamic' names only 0");
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "tile": [4], "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [4]}, {"name": "i", "role": "input", "dtype": "f32", "shape": [4]}]})")),
            "manifest: tasks[0] ('k'): buffer 'i' is an input after an output; "
            "the ABI lists inputs, then outputs");
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "block_size": 100, "tile": [4], "buffers": []})")),
            "manifest: tasks[0] ('k'): 'block_size' must be a multiple of 32 in "
            "[32, 1024]");
}

// Sizes at the edges of the types: a view spanning more than 64 bits of
// bytes (the default strides' product overflowed into a stride of 0) and
// shared memory beyond the 32 bits the launch carries (it was truncated)
// are refused, named.
TEST(Manifest, ViewsAndSharedMemoryMustFitTheirTypes) {
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "tile": [4], "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [4294967296, 4294967296, 4294967296]}]})")),
            "manifest: tasks[0] ('k'): buffers[0]: 'shape' spans more than 2^63 "
            "elements");
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "tile": [4], "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [4611686018427387904], "strides": [1]}]})")),
            "manifest: tasks[0] ('k'): buffers[0]: the view spans more than 2^64 "
            "bytes");
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "shared_bytes": 4294968320, "tile": [4], "buffers": []})")),
            "manifest: tasks[0] ('k'): 'shared_bytes' must be in [0, 2^32)");
  ImageManifest m;
  EXPECT_TRUE(parseManifest(withTask(
                  R"({"kind": "k", "tile": [4, 4], "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [1073741824, 1024], "strides": [1024, 1]}]})"),
                  m).ok()); // 4 TiB fits
  EXPECT_EQ(parseError(withTask(R"({"kind": "k", "tile": [1], "num_tiles": 4294967296, "buffers": []})")),
            "manifest: tasks[0] ('k'): 'num_tiles' must be in [0, 2^32)");
}

// Fields that contradict each other or the ABI: a dtype's size against
// elem_bytes (copies used one, the task code the other), a function that
// is no symbol name, two buffers of one name (bindings are by name).
TEST(Manifest, FieldsAgreeWithEachOther) {
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "tile": [4], "buffers": [{"name": "o", "role": "output", "dtype": "f16", "elem_bytes": 4, "shape": [4]}]})")),
            "manifest: tasks[0] ('k'): buffers[0]: 'elem_bytes' is 4 but dtype "
            "'f16' has 2");
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "function": "", "tile": [4], "buffers": []})")),
            "manifest: tasks[0] ('k'): 'function' must be a C identifier, not \"\"");
  EXPECT_EQ(parseError(withTask(
                R"({"kind": "k", "tile": [4], "buffers": [{"name": "x", "role": "input", "dtype": "f32", "shape": [4]}, {"name": "x", "role": "output", "dtype": "f32", "shape": [4]}]})")),
            "manifest: tasks[0] ('k'): buffers[1]: the name 'x' is buffers[0]'s too");
  ImageManifest m;
  EXPECT_TRUE(parseManifest(withTask(
                  R"({"kind": "k", "tile": [4], "buffers": [{"name": "o", "role": "output", "dtype": "q7", "elem_bytes": 3, "shape": [4]}]})"),
                  m).ok()); // a dtype this runtime does not know: its size as given
}

// "ops" (optional): the ops a task was compiled from, in body order, with
// their source locations; malformed entries are named.
TEST(Manifest, OpsOfATask) {
  ImageManifest m;
  Status st = parseManifest(
      withTask(R"({"kind": "k", "tile": [4], "ops": [{"name": "gpuos.add", "loc": "m.mlir:3:10"},
        {"name": "gpuos.exp", "loc": null}, {"name": "gpuos.mul"}],
        "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [16]}]})"),
      m);
  ASSERT_TRUE(st.ok()) << st.toString();
  ASSERT_EQ(m.tasks[0].ops.size(), 3u);
  EXPECT_EQ(m.tasks[0].ops[0].name, "gpuos.add");
  EXPECT_EQ(m.tasks[0].ops[0].loc, "m.mlir:3:10");
  EXPECT_EQ(m.tasks[0].ops[1].loc, "");
  EXPECT_EQ(m.tasks[0].ops[2].name, "gpuos.mul");
  ASSERT_TRUE(parseManifest(withTask(kGood), m).ok());
  EXPECT_TRUE(m.tasks[0].ops.empty());
  // The test image lists the fault kind's ops.
  ASSERT_TRUE(parseManifest(testManifest(), m).ok());
  ASSERT_GE(m.findKind("fault"), 0);
  EXPECT_EQ(m.tasks[m.findKind("fault")].ops.size(), 2u);

  auto bad = [](const std::string &ops) {
    return parseError(withTask(R"({"kind": "k", "tile": [4], "ops": )" + ops +
                               R"(, "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [16]}]})"));
  };
  EXPECT_EQ(bad(R"("gpuos.add")"), "manifest: tasks[0] ('k'): 'ops' must be an array");
  EXPECT_EQ(bad(R"(["gpuos.add"])"), "manifest: tasks[0] ('k'): ops[0]: must be an object");
  EXPECT_EQ(bad(R"([{"name": "a"}, {"loc": "m.mlir:1:1"}])"),
            "manifest: tasks[0] ('k'): ops[1]: missing 'name'");
  EXPECT_EQ(bad(R"([{"name": "a", "loc": 7}])"),
            "manifest: tasks[0] ('k'): ops[0]: 'loc' must be a string");
}

// depends_on: in range, within the graph, acyclic; kinds unique.
TEST(Manifest, DependenciesAreChecked) {
  std::string a = std::string(kGood);
  std::string b = R"({"kind": "b", "tile": [4], "depends_on": [0], "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [16]}]})";
  ImageManifest m;
  ASSERT_TRUE(parseManifest(withTask(a + "," + b), m).ok());
  EXPECT_EQ(parseError(withTask(a + "," + a)),
            "manifest: tasks[1]: kind 'k' appears twice; kinds are unique "
            "within an image");
  std::string c = R"({"kind": "c", "tile": [4], "depends_on": [5], "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [16]}]})";
  EXPECT_EQ(parseError(withTask(a + "," + c)),
            "manifest: tasks[1] ('c'): depends_on 5 is not a task index (0..1)");
  std::string d = R"({"kind": "d", "graph": "other", "tile": [4], "depends_on": [0], "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [16]}]})";
  EXPECT_EQ(parseError(withTask(a + "," + d)),
            "manifest: tasks[1] ('d'): depends on task 0 of another graph ('')");
  std::string e0 = R"({"kind": "e0", "tile": [4], "depends_on": [1], "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [16]}]})";
  std::string e1 = R"({"kind": "e1", "tile": [4], "depends_on": [0], "buffers": [{"name": "o", "role": "output", "dtype": "f32", "shape": [16]}]})";
  EXPECT_EQ(parseError(withTask(e0 + "," + e1)),
            "manifest: depends_on has a cycle through tasks[0] ('e0')");
}

// What the compiler writes today (lib/Target/Manifest.cpp) also reads:
// extra fields ("launcher", "lanes", "strategy", "runtime": null) are ignored.
TEST(Manifest, ToleratesCompilerExtras) {
  ImageManifest m;
  Status st = parseManifest(
      R"({"abi": 0, "arch": "sm_90", "content_hash": "h", "runtime": null,
          "tasks": [{"kind": "k", "function": "gpuos_task_k", "launcher": "gpuos_launch_k",
          "graph": "g", "priority": "normal", "deadline_us": null, "block_size": 128,
          "shared_bytes": 0, "tile": [1, 1024], "num_tiles": 32, "lanes": 4,
          "strategy": "vector", "buffers": [{"name": "x", "role": "output", "dtype": "f32",
          "shape": [32, 1024], "strides": [1024, 1], "elem_bytes": 4, "vector_align": 16}],
          "dynamic": [], "depends_on": []}]})",
      m);
  ASSERT_TRUE(st.ok()) << st.toString();
  EXPECT_EQ(m.tasks[0].numTiles, 32);
  EXPECT_EQ(m.tasks[0].blockSize, 128);
}
