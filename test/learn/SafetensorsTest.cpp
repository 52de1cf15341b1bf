#include "cudaperf/Learn/Safetensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace cudaperf::learn;
namespace fs = std::filesystem;

namespace {

fs::path freshDir(const std::string &name) {
  fs::path dir = fs::temp_directory_path() / ("cudaperf-learn-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void writeBytes(const fs::path &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A file written by hand in the documented layout, independent of the writer under test.
std::string handMadeFile(const std::string &header, const std::string &data) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[size_t(i)] = char((n >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string messageOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const SafetensorsError &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(Safetensors, ReadsAHandMadeFile) {
  fs::path dir = freshDir("hand");
  float values[3] = {1.5f, -2.0f, 3.25f};
  std::string data(reinterpret_cast<const char *>(values), sizeof values);
  data += std::string("\x01\x02", 2); // an int8 tensor of two elements after the floats
  std::string header = R"({"b":{"dtype":"I8","shape":[2],"data_offsets":[12,14]},)"
                       R"("a":{"dtype":"F32","shape":[1,3],"data_offsets":[0,12]},"__metadata__":{"format":"pt"}})";
  writeBytes(dir / "x.safetensors", handMadeFile(header, data));
  SafetensorsFile file = SafetensorsFile::open((dir / "x.safetensors").string());
  ASSERT_EQ(file.tensors().size(), 2u);
  EXPECT_EQ(file.tensors()[0].name, "a"); // file byte order, not header order
  const TensorView *a = file.find("a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->dtype, TensorDtype::F32);
  EXPECT_EQ(a->shape, (std::vector<int64_t>{1, 3}));
  float back[3];
  std::memcpy(back, a->data, 12);
  EXPECT_EQ(back[2], 3.25f);
  EXPECT_EQ(file.find("b")->data[1], 2);
  EXPECT_EQ(file.metadata().at("format"), "pt");
  EXPECT_EQ(file.find("c"), nullptr);
}

TEST(Safetensors, WriterRoundTripAndLayout) {
  fs::path dir = freshDir("roundtrip");
  std::vector<uint16_t> bf16 = {0x3f80, 0xc000, 0x4040, 0x0000, 0x7f80, 0x0001};
  std::vector<int64_t> ints = {7, -9};
  writeSafetensors((dir / "m.safetensors").string(),
                   {{"w", TensorDtype::BF16, {2, 3}, bf16.data(), bf16.size() * 2},
                    {"ids", TensorDtype::I64, {2}, ints.data(), 16}});
  // Header padded to 8 bytes, so the data of an 8-byte dtype stays aligned.
  std::ifstream in(dir / "m.safetensors", std::ios::binary);
  uint64_t n = 0;
  in.read(reinterpret_cast<char *>(&n), 8);
  EXPECT_EQ(n % 8, 0u);
  std::string header(n, ' ');
  in.read(header.data(), std::streamsize(n));
  auto parsed = nlohmann::json::parse(header);
  EXPECT_EQ(parsed["w"]["data_offsets"], nlohmann::json({0, 12}));
  EXPECT_EQ(parsed["ids"]["data_offsets"], nlohmann::json({12, 28}));
  SafetensorsFile file = SafetensorsFile::open((dir / "m.safetensors").string());
  EXPECT_EQ(0, std::memcmp(file.find("w")->data, bf16.data(), 12));
  EXPECT_EQ(0, std::memcmp(file.find("ids")->data, ints.data(), 16));
}

TEST(Safetensors, ShardedWriteAndCheckpointFolder) {
  fs::path dir = freshDir("shards");
  std::vector<float> a(100, 1.0f), b(100, 2.0f), c(10, 3.0f);
  std::vector<TensorToWrite> tensors = {{"a", TensorDtype::F32, {100}, a.data(), 400},
                                        {"b", TensorDtype::F32, {10, 10}, b.data(), 400},
                                        {"c", TensorDtype::F32, {10}, c.data(), 40}};
  auto files = writeSafetensorsSharded(dir.string(), tensors, 500);
  ASSERT_EQ(files.size(), 3u); // two shards and the index: a | b + c
  EXPECT_EQ(files[0], "model-00001-of-00002.safetensors");
  EXPECT_TRUE(fs::exists(dir / "model.safetensors.index.json"));
  EXPECT_FALSE(fs::exists(dir / "model.safetensors"));
  SafetensorsCheckpoint ckpt = SafetensorsCheckpoint::openFolder(dir.string());
  EXPECT_EQ(ckpt.names(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(ckpt.totalBytes(), 840u);
  float v;
  std::memcpy(&v, ckpt.find("c")->data, 4);
  EXPECT_EQ(v, 3.0f);
  // Rewriting as one file removes the shards and the index.
  writeSafetensorsSharded(dir.string(), tensors, 1 << 20);
  EXPECT_TRUE(fs::exists(dir / "model.safetensors"));
  EXPECT_FALSE(fs::exists(dir / "model.safetensors.index.json"));
  EXPECT_FALSE(fs::exists(dir / "model-00001-of-00002.safetensors"));
  EXPECT_EQ(SafetensorsCheckpoint::openFolder(dir.string()).names().size(), 3u);
}

TEST(Safetensors, BadFilesAreNamedErrors) {
  fs::path dir = freshDir("bad");
  writeBytes(dir / "short.safetensors", "abc");
  EXPECT_NE(messageOf([&] { SafetensorsFile::open((dir / "short.safetensors").string()); }).find("too short"),
            std::string::npos);
  writeBytes(dir / "long.safetensors", handMadeFile("{}", "") .replace(0, 1, "\xff"));
  EXPECT_NE(messageOf([&] { SafetensorsFile::open((dir / "long.safetensors").string()); }).find("exceeds"),
            std::string::npos);
  writeBytes(dir / "json.safetensors", handMadeFile("{not json", ""));
  EXPECT_NE(messageOf([&] { SafetensorsFile::open((dir / "json.safetensors").string()); }).find("not JSON"),
            std::string::npos);
  writeBytes(dir / "range.safetensors",
             handMadeFile(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", std::string(8, '\0')));
  std::string range = messageOf([&] { SafetensorsFile::open((dir / "range.safetensors").string()); });
  EXPECT_NE(range.find("tensor 'w'"), std::string::npos) << range;
  EXPECT_NE(range.find("outside"), std::string::npos) << range;
  writeBytes(dir / "shape.safetensors",
             handMadeFile(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", std::string(8, '\0')));
  EXPECT_NE(messageOf([&] { SafetensorsFile::open((dir / "shape.safetensors").string()); }).find("needs 12 bytes"),
            std::string::npos);
  // Numbers that are not integers (fuzz-Safetensors: 1e65 cast to an unsigned was undefined behaviour).
  writeBytes(dir / "float.safetensors",
             handMadeFile(R"({"w":{"dtype":"F32","shape":[1e65],"data_offsets":[0,4]}})", std::string(4, '\0')));
  std::string notInteger = messageOf([&] { SafetensorsFile::open((dir / "float.safetensors").string()); });
  EXPECT_NE(notInteger.find("shape: 1e+65 is not an integer"), std::string::npos) << notInteger;
  writeBytes(dir / "half.safetensors",
             handMadeFile(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4.5]}})", std::string(4, '\0')));
  EXPECT_NE(messageOf([&] { SafetensorsFile::open((dir / "half.safetensors").string()); }).find("not an integer"),
            std::string::npos);
  writeBytes(dir / "negative.safetensors",
             handMadeFile(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})", std::string(4, '\0')));
  EXPECT_NE(messageOf([&] { SafetensorsFile::open((dir / "negative.safetensors").string()); }).find("is negative"),
            std::string::npos);
  writeBytes(dir / "dtype.safetensors",
             handMadeFile(R"({"w":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}})", std::string(1, '\0')));
  EXPECT_NE(messageOf([&] { SafetensorsFile::open((dir / "dtype.safetensors").string()); }).find("F8_E4M3"),
            std::string::npos);
  writeBytes(dir / "overlap.safetensors",
             handMadeFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                          std::string(12, '\0')));
  EXPECT_NE(messageOf([&] { SafetensorsFile::open((dir / "overlap.safetensors").string()); }).find("overlap"),
            std::string::npos);
  EXPECT_NE(messageOf([&] { SafetensorsFile::open((dir / "absent.safetensors").string()); }).find("cannot open"),
            std::string::npos);
  EXPECT_NE(messageOf([&] { SafetensorsCheckpoint::openFolder(dir.string()); }).find("no model.safetensors"),
            std::string::npos);
  // An index naming a tensor its shard lacks.
  fs::path sharded = freshDir("badindex");
  std::vector<float> a(2, 0.f);
  writeSafetensors((sharded / "s1.safetensors").string(), {{"a", TensorDtype::F32, {2}, a.data(), 8}});
  writeBytes(sharded / "model.safetensors.index.json", R"({"weight_map":{"a":"s1.safetensors","b":"s1.safetensors"}})");
  EXPECT_NE(messageOf([&] { SafetensorsCheckpoint::openFolder(sharded.string()); }).find("'b' is listed"),
            std::string::npos);
  EXPECT_NE(messageOf([&] {
              writeSafetensors((dir / "dup.safetensors").string(),
                               {{"a", TensorDtype::F32, {2}, a.data(), 8}, {"a", TensorDtype::F32, {2}, a.data(), 8}});
            }).find("twice"),
            std::string::npos);
  EXPECT_NE(messageOf([&] { writeSafetensors((dir / "n.safetensors").string(), {{"a", TensorDtype::F32, {3}, a.data(), 8}}); })
                .find("needs 12 bytes"),
            std::string::npos);
}
