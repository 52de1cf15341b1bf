// The layout of a set's slab on the device and the manifest a data holder publishes.
#include "cudaperf/Runtime/DeviceData.h"

#include <gtest/gtest.h>

using namespace cudaperf::runtime;

namespace {
Task saxpyLike() {
  return parseTask(R"({"name": "t", "kind": "c-to-cuda", "entry": "f",
    "args": [{"name": "n", "type": "scalar", "dtype": "i32"},
             {"name": "x", "type": "pointer", "dtype": "f32", "access": "in", "count": "n"},
             {"name": "y", "type": "pointer", "dtype": "f32", "access": "inout", "count": "n"},
             {"name": "h", "type": "pointer", "dtype": "u8", "access": "out", "count": "3"}],
    "configs": [{"name": "small", "n": 1000}, {"name": "big", "n": 3000000000}]})",
                   "/x", false);
}
} // namespace

TEST(DeviceData, SlabLayoutHasAlignedInputsThenExpected) {
  Task t = saxpyLike();
  DeviceSet s = layoutSet(t, t.configs[0]);
  ASSERT_EQ(s.buffers.size(), 4u); // x, y as inputs; y, h as expected
  EXPECT_EQ(s.buffers[0].arg, 1u);
  EXPECT_EQ(s.buffers[0].role, DeviceBuffer::Role::Input);
  EXPECT_EQ(s.buffers[1].arg, 2u);
  EXPECT_EQ(s.buffers[1].offset, 4096u); // 4000 bytes rounded up to 256
  EXPECT_EQ(s.buffers[2].role, DeviceBuffer::Role::Expected);
  EXPECT_EQ(s.buffers[2].arg, 2u);
  EXPECT_EQ(s.buffers[3].arg, 3u);
  EXPECT_EQ(s.buffers[3].bytes, 3u);
  for (const DeviceBuffer &b : s.buffers)
    EXPECT_EQ(b.offset % kSlabAlignment, 0u);
  EXPECT_EQ(s.slabBytes, 3 * 4096u + 256u);
  EXPECT_NE(s.find(2, DeviceBuffer::Role::Expected), nullptr);
  EXPECT_EQ(s.find(1, DeviceBuffer::Role::Expected), nullptr);
  // 12 GB per float argument: 64-bit offsets.
  DeviceSet big = layoutSet(t, t.configs[1]);
  EXPECT_EQ(big.buffers[1].offset, 12000000000u);
}

TEST(DeviceData, ManifestRoundTripsAndRejectsDamage) {
  Task t = saxpyLike();
  DeviceData d;
  d.key = "k";
  d.task = "t";
  d.deviceUuid = "GPU-1234";
  d.seed = 7;
  d.sets = 1;
  DeviceConfigData c;
  c.name = "small";
  DeviceSet s = layoutSet(t, t.configs[0]);
  s.seed = 123456789012345ull;
  s.referenceMs = 0.5;
  s.ipcHandle = std::string(128, 'a');
  s.buffers[0].checksum = 0xFEDCBA9876543210ull;
  c.sets.push_back(s);
  d.configs.push_back(c);
  nlohmann::ordered_json j = deviceDataToJson(d);
  DeviceData back = deviceDataFromJson(j);
  EXPECT_EQ(back.configs[0].sets[0].seed, s.seed);
  EXPECT_EQ(back.configs[0].sets[0].buffers[0].checksum, 0xFEDCBA9876543210ull);
  EXPECT_EQ(back.totalBytes(), d.totalBytes());
  EXPECT_NE(back.config("small"), nullptr);

  j["configs"][0]["sets"][0]["buffers"][1]["offset"] = 1ull << 40;
  EXPECT_THROW(deviceDataFromJson(j), TaskError);
  j = deviceDataToJson(d);
  j["configs"][0]["sets"][0]["buffers"][0]["checksum"] = "xyz";
  try {
    deviceDataFromJson(j);
    FAIL();
  } catch (const TaskError &e) {
    EXPECT_NE(std::string(e.what()).find("configs[0].sets[0].buffers[0].checksum"), std::string::npos) << e.what();
  }
}

TEST(DeviceData, Hex) {
  unsigned char b[3] = {0x00, 0xAB, 0x7F}, back[3];
  EXPECT_EQ(hexEncode(b, 3), "00ab7f");
  EXPECT_TRUE(hexDecode("00AB7f", back, 3));
  EXPECT_EQ(back[1], 0xAB);
  EXPECT_FALSE(hexDecode("00ab7", back, 3));
  EXPECT_FALSE(hexDecode("00ab7g", back, 3));
}
