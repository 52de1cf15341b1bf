// schema::DeviceData, the manifest a data holder publishes (`cudaperf-device-data/1`). The
// repository stores none (a holder writes it beside its slabs at run time), so the wire format is
// pinned by the document below, written as the holder writes it: it reads and writes back
// byte-identically, and damaged documents fail naming the field path.
#include "cudaperf/Schema/DeviceDataManifest.h"
#include "cudaperf/Support/JsonReader.h"

#include <gtest/gtest.h>

#include <functional>

using cudaperf::schema::DeviceBuffer;
using cudaperf::schema::DeviceData;
using cudaperf::support::Json;

namespace {

const char *kManifest = R"({"schema":"cudaperf-device-data/1","key":"transpose|ref|7|3|small","task":"transpose",)"
                        R"("device_uuid":"GPU-5d1c","seed":18446744073709551615,"sets":1,"total_bytes":8448,)"
                        R"("configs":[{"name":"small","sets":[{"seed":12345678901234567890,"reference_ms":0.25,)"
                        R"("expected_from_cache":true,"expected_file":"/cache/data/ab.bin","ipc_handle":"00ff",)"
                        R"("slab_bytes":8448,"buffers":[)"
                        R"({"arg":0,"role":"input","offset":0,"bytes":4096,"checksum":"1032547698badcfe"},)"
                        R"({"arg":1,"role":"expected","offset":4096,"bytes":4100,"checksum":"0000000000000000"}]}]}]})";

std::string readError(const std::function<void(Json &)> &change) {
  Json doc = cudaperf::support::parseJson(kManifest);
  change(doc);
  try {
    DeviceData::fromJson(doc, "manifest.json");
  } catch (const cudaperf::support::SupportError &e) {
    return e.what();
  }
  return "(read without error)";
}

} // namespace

TEST(DeviceDataManifest, ReadsAndWritesBackAsTheHolderWritesIt) {
  Json doc = cudaperf::support::parseJson(kManifest);
  DeviceData d = DeviceData::fromJson(doc);
  EXPECT_EQ(d.seed, 18446744073709551615ull); // full 64-bit seeds
  ASSERT_EQ(d.configs.size(), 1u);
  const auto &set = d.configs[0].sets.at(0);
  EXPECT_EQ(set.seed, 12345678901234567890ull);
  EXPECT_TRUE(set.expectedFromCache);
  EXPECT_EQ(set.buffers.at(0).checksum, 0xfedcba9876543210ull); // little-endian bytes in hex
  ASSERT_NE(set.find(1, DeviceBuffer::Role::Expected), nullptr);
  EXPECT_EQ(set.find(1, DeviceBuffer::Role::Input), nullptr);
  EXPECT_EQ(d.totalBytes(), 8448u);
  EXPECT_NE(d.config("small"), nullptr);
  EXPECT_EQ(cudaperf::support::writeJson(d.toJson()), cudaperf::support::writeJson(doc));
}

TEST(DeviceDataManifest, ErrorsNameTheField) {
  auto buffer = [](Json &d, int i) -> Json & { return d["configs"][0]["sets"][0]["buffers"][i]; };
  EXPECT_EQ(readError([](Json &d) { d["schema"] = "cudaperf-device-data/2"; }),
            "manifest.json: schema: expected \"cudaperf-device-data/1\", got \"cudaperf-device-data/2\"");
  EXPECT_EQ(readError([](Json &d) { d.erase("device_uuid"); }), "manifest.json: device_uuid: missing");
  EXPECT_EQ(readError([&](Json &d) { buffer(d, 0)["checksum"] = "xyz"; }),
            "manifest.json: configs[0].sets[0].buffers[0].checksum: expected 16 hex digits, got \"xyz\"");
  EXPECT_EQ(readError([&](Json &d) { buffer(d, 1)["role"] = "output"; }),
            "manifest.json: configs[0].sets[0].buffers[1].role: expected \"input\" or \"expected\", got \"output\"");
  EXPECT_EQ(readError([&](Json &d) { buffer(d, 1)["offset"] = uint64_t(1) << 40; }),
            "manifest.json: configs[0].sets[0].buffers[1]: outside its slab of 8448 bytes (offset 1099511627776, "
            "4100 bytes)");
  EXPECT_EQ(readError([](Json &d) { d["configs"][0]["sets"][0]["reference_ms"] = "fast"; }),
            "manifest.json: configs[0].sets[0].reference_ms: expected a number, got \"fast\"");
}
