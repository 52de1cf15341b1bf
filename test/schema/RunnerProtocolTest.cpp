// The worker <-> runner channel (include/cudaperf/Schema/RunnerProtocol.h): each message's wire
// bytes as the worker and the runner have always written them, the exact round trip, and hostile
// answers (the runner runs candidate code) read as errors that name the field, never as anything
// but a support::SupportError.
#include "cudaperf/Schema/RunnerProtocol.h"

#include "cudaperf/Support/Error.h"
#include "cudaperf/Support/Json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

using namespace cudaperf;
using namespace cudaperf::schema::runner;
using support::Json;
using support::parseJson;
using support::writeJson;

namespace {

std::string wire(const Request &r) { return writeJson(requestToJson(r)); }
std::string wire(const Answer &a) { return writeJson(answerToJson(a)); }

// Text -> typed -> text.
std::string requestRoundTrip(const std::string &text) {
  return writeJson(requestToJson(requestFromJson(parseJson(text), "runner request")));
}
std::string answerRoundTrip(const std::string &text, Op op) {
  return writeJson(answerToJson(answerFromJson(parseJson(text), op, "runner answer")));
}

// "" when the answer reads; the SupportError's text otherwise. Any other exception fails the test.
std::string forgedAnswerError(const Json &message, Op op) {
  try {
    answerFromJson(message, op, "runner answer");
  } catch (const support::SupportError &e) {
    return e.what();
  }
  return "";
}
std::string answerError(const std::string &text, Op op) { return forgedAnswerError(parseJson(text), op); }

std::string requestError(const std::string &text) {
  try {
    requestFromJson(parseJson(text), "runner request");
  } catch (const support::SupportError &e) {
    return e.what();
  }
  return "";
}

std::string readyError(const std::string &text) {
  try {
    readyFromJson(parseJson(text), "runner ready");
  } catch (const support::SupportError &e) {
    return e.what();
  }
  return "";
}

MemoryFigures someMemory() {
  MemoryFigures m;
  m.deviceBytes = 4096;
  m.hostBytes = 0;
  m.bytesByKind = std::vector<std::pair<std::string, uint64_t>>{{"device", 4096}, {"async", 0}};
  m.liveAllocations = 1;
  m.allocations = 2;
  m.frees = 1;
  m.failedAllocations = 1;
  m.failedBytes = std::numeric_limits<uint64_t>::max(); // a candidate asked for SIZE_MAX bytes
  m.invalidFrees = 0;
  m.untrackedFrees = 0;
  m.refusedFrees = 0;
  m.poolReservedBytes = 0;
  m.pools = 1;
  return m;
}

constexpr const char *kMemoryWire =
    R"({"device_bytes":4096,"host_bytes":0,"bytes_by_kind":{"device":4096,"async":0},"live_allocations":1,)"
    R"("allocations":2,"frees":1,"failed_allocations":1,"failed_bytes":18446744073709551615,"invalid_frees":0,)"
    R"("untracked_frees":0,"refused_frees":0,"pool_reserved_bytes":0,"pools":1})";

const char *const kCheckAnswer = R"({"launch_error":0,"error":0,"out_of_memory":2,"memory":{"device_bytes":1}})";

const char *const kAuditAnswer =
    R"({"error":0,"stream_span_ms":0.5,"host_return_ms":0.25,"drain_ms":0.0,"kernels":2,)"
    R"("kernels_default_stream":0,"kernels_other_streams":1,"pending_streams":0,"host_copies":0,)"
    R"("threads_left":0,"attempts":1,"violation":"work on another stream",)"
    R"("launches":[{"kernel":"_Z3addPf","grid":[4,1,1],"block":[256,1,1],"dynamic_smem_bytes":0,"stream":"timed"},)"
    R"({"kernel":"<unknown>","grid":[1,1,1],"block":[32,1,1],"dynamic_smem_bytes":1024,"stream":"other"}],)"
    R"("launches_truncated":false})";

} // namespace

// What RunnerCallee sends (tools/cudaperf-eval/worker/Callee.cpp), op by op, in the keys and order
// the worker wrote by hand before these types.
TEST(RunnerProtocol, RequestsWireBytes) {
  EXPECT_EQ(wire(Request::make(Load{"/tmp/cudaperf-runner-x/candidate.so"})),
            R"({"op":"load","path":"/tmp/cudaperf-runner-x/candidate.so"})");

  BindArg buffer;
  buffer.hex = "00ff";
  buffer.offset = 4096;
  buffer.bytes = 1024;
  BindArg scalar;
  scalar.kind = BindArg::Kind::Scalar;
  scalar.hex = "0a000000";
  EXPECT_EQ(wire(Request::make(Bind{3, {buffer, scalar}})),
            R"({"op":"bind","slot":3,"args":[{"handle":"00ff","offset":4096,"bytes":1024},{"scalar":"0a000000"}]})");
  EXPECT_EQ(wire(Request::make(Unbind{3})), R"({"op":"unbind","slot":3})");
  EXPECT_EQ(wire(Request::make(Check{3})), R"({"op":"check","slot":3})");
  EXPECT_EQ(wire(Request::make(Timed{3, true})), R"({"op":"timed","slot":3,"settle":true})");
  EXPECT_EQ(wire(Request::make(Audit{0})), R"({"op":"audit","slot":0})");
  EXPECT_EQ(wire(Request::make(Batch{{1, 2, 5}})), R"({"op":"batch","slots":[1,2,5]})");
  EXPECT_EQ(wire(Request::make(Batch{})), R"({"op":"batch","slots":[]})");
  EXPECT_EQ(wire(Request::make(Memory{})), R"({"op":"memory"})");
  EXPECT_EQ(wire(Request::make(Quit{})), R"({"op":"quit"})");
}

TEST(RunnerProtocol, RequestsReadTypedAndRoundTrip) {
  for (const char *text :
       {R"({"op":"load","path":"/s/candidate.so"})",
        R"({"op":"bind","slot":7,"args":[{"handle":"ab","offset":4096,"bytes":8},{"scalar":"01"},{"handle":"cd","offset":0}]})",
        R"({"op":"unbind","slot":7})", R"({"op":"check","slot":7})", R"({"op":"timed","slot":7,"settle":false})",
        R"({"op":"audit","slot":7})", R"({"op":"batch","slots":[7,8]})", R"({"op":"memory"})", R"({"op":"quit"})",
        // Unknown keys and key order are kept; an op this build does not know reads as UnknownOp.
        R"({"slot":1,"op":"check","trace":{"x":1}})", R"({"op":"reset","slot":1})"})
    EXPECT_EQ(requestRoundTrip(text), text);

  Request bind = requestFromJson(
      parseJson(R"({"op":"bind","slot":7,"args":[{"handle":"ab","offset":4096,"bytes":8},{"scalar":"01"}]})"), "r");
  ASSERT_EQ(bind.kind(), Op::Bind);
  const Bind &b = *bind.as<Bind>();
  EXPECT_EQ(b.slot, 7);
  ASSERT_EQ(b.args.size(), 2u);
  EXPECT_EQ(b.args[0].kind, BindArg::Kind::Buffer);
  EXPECT_EQ(b.args[0].hex, "ab");
  EXPECT_EQ(b.args[0].offset, 4096u);
  EXPECT_EQ(b.args[0].bytes, std::optional<uint64_t>(8));
  EXPECT_EQ(b.args[1].kind, BindArg::Kind::Scalar);
  EXPECT_EQ(b.args[1].hex, "01");

  Request timed = requestFromJson(parseJson(R"({"op":"timed","slot":2})"), "r");
  ASSERT_TRUE(timed.as<Timed>());
  EXPECT_EQ(timed.as<Timed>()->slot, 2);
  EXPECT_FALSE(timed.as<Timed>()->settle); // absent: not settled
  EXPECT_TRUE(requestFromJson(parseJson(R"({"op":"timed","slot":2,"settle":true})"), "r").as<Timed>()->settle);

  Request batch = requestFromJson(parseJson(R"({"op":"batch","slots":[4,0]})"), "r");
  EXPECT_EQ(batch.as<Batch>()->slots, (std::vector<int64_t>{4, 0}));
  Request unknown = requestFromJson(parseJson(R"({"op":"reset"})"), "r");
  EXPECT_EQ(unknown.kind(), Op::Unknown);
  EXPECT_EQ(unknown.op, "reset");
  EXPECT_EQ(opName(Op::Timed), std::string("timed"));
  EXPECT_EQ(opName(Op::Unknown), std::string(""));
}

// The runner reads the trusted worker's requests strictly: what it cannot use is a bad request
// with a message naming the field (the runner answers it with cudaErrorInvalidValue and it).
TEST(RunnerProtocol, MalformedRequestsNameTheField) {
  EXPECT_EQ(requestError(R"([1])"), "runner request: the top level: expected an object, got an array");
  EXPECT_EQ(requestError(R"({"slot":1})"), "runner request: op: missing");
  EXPECT_EQ(requestError(R"({"op":3})"), "runner request: op: expected a string, got 3");
  EXPECT_EQ(requestError(R"({"op":"check"})"), "runner request (check): slot: missing");
  EXPECT_EQ(requestError(R"({"op":"check","slot":-1})"),
            "runner request (check): slot: expected a whole number from 0 to 2147483647, got -1");
  EXPECT_EQ(requestError(R"({"op":"check","slot":1.5})"), "runner request (check): slot: expected a whole number, got 1.5");
  EXPECT_EQ(requestError(R"({"op":"check","slot":"1"})"), R"(runner request (check): slot: expected a whole number, got "1")");
  EXPECT_EQ(requestError(R"({"op":"load"})"), "runner request (load): path: missing");
  EXPECT_EQ(requestError(R"({"op":"bind","slot":1,"args":{}})"), "runner request (bind): args: expected an array, got an object");
  EXPECT_EQ(requestError(R"({"op":"bind","slot":1,"args":[{"handle":"ab"}]})"),
            "runner request (bind): args[0].offset: missing");
  EXPECT_EQ(requestError(R"({"op":"bind","slot":1,"args":[{"handle":"ab","offset":-8}]})"),
            "runner request (bind): args[0].offset: expected a whole number of at least 0, got -8");
  EXPECT_EQ(requestError(R"({"op":"bind","slot":1,"args":[{"bytes":4}]})"), "runner request (bind): args[0].scalar: missing");
  EXPECT_EQ(requestError(R"({"op":"bind","slot":1,"args":[7]})"), "runner request (bind): args[0]: expected an object, got 7");
  EXPECT_EQ(requestError(R"({"op":"timed","slot":1,"settle":"yes"})"),
            R"(runner request (timed): settle: expected true or false, got "yes")");
  EXPECT_EQ(requestError(R"({"op":"batch","slots":[1,"2"]})"),
            R"(runner request (batch): slots[1]: expected a whole number, got "2")");
  EXPECT_EQ(requestError(R"({"op":"batch","slots":[4294967296]})"),
            "runner request (batch): slots[0]: expected a whole number from 0 to 2147483647, got 4294967296");
}

// What the runner answers (tools/cudaperf-eval/worker/Runner.cpp), in the keys and order it wrote
// by hand before these types.
TEST(RunnerProtocol, AnswersWireBytes) {
  EXPECT_EQ(wire(Answer::make(Load::Result{})), "{}");
  EXPECT_EQ(wire(Answer::make(Load::Result{std::string("built object has no cudaperf_entry")})),
            R"({"load_error":"built object has no cudaperf_entry"})");
  EXPECT_EQ(wire(Answer::make(Bind::Result{})), "{}");
  EXPECT_EQ(wire(Answer::make(Bind::Result{}, 1)), R"({"error":1})");
  EXPECT_EQ(wire(Answer::make(Unbind::Result{})), "{}");

  Check::Result check{0, 2, someMemory()};
  EXPECT_EQ(wire(Answer::make(check, 0)),
            std::string(R"({"launch_error":0,"error":0,"out_of_memory":2,"memory":)") + kMemoryWire + "}");
  EXPECT_EQ(wire(Answer::make(Check::Result{}, 1)), R"({"error":1})"); // an unknown slot

  EXPECT_EQ(wire(Answer::make(Timed::Result{0.5, 0.125}, 0)), R"({"error":0,"ms":0.5,"host_ms":0.125})");
  // A NaN figure is written as cudaperf's JSON writes one, and reads back as a number.
  Answer nan = Answer::make(Timed::Result{std::numeric_limits<double>::quiet_NaN(), 0.0}, 0);
  EXPECT_EQ(wire(nan), R"({"error":0,"ms":"nan","host_ms":0.0})");
  EXPECT_TRUE(std::isnan(*answerFromJson(parseJson(wire(nan)), Op::Timed, "a").as<Timed::Result>()->ms));

  Audit::Result audit;
  audit.streamSpanMs = 0.5;
  audit.hostReturnMs = 0.25;
  audit.drainMs = 0.0;
  audit.kernels = 2;
  audit.kernelsDefaultStream = 0;
  audit.kernelsOtherStreams = 1;
  audit.pendingStreams = 0;
  audit.hostCopies = 0;
  audit.threadsLeft = 0;
  audit.attempts = 1;
  audit.violation = "work on another stream";
  Launch first;
  first.kernel = "_Z3addPf";
  first.grid = {4, 1, 1};
  first.block = {256, 1, 1};
  first.stream = "timed";
  Launch second;
  second.kernel = "<unknown>";
  second.grid = {1, 1, 1};
  second.block = {32, 1, 1};
  second.dynamicSmemBytes = 1024;
  second.stream = "other";
  audit.launches = std::vector<Launch>{first, second};
  audit.launchesTruncated = false;
  EXPECT_EQ(wire(Answer::make(audit, 0)), kAuditAnswer);

  EXPECT_EQ(wire(Answer::make(Batch::Result{0}, 0)), R"({"launch_error":0,"error":0})");
  EXPECT_EQ(wire(Answer::make(Memory::Result{someMemory()})), std::string(R"({"memory":)") + kMemoryWire + "}");

  Answer refused = Answer::make(UnknownOp::Result{}, 1);
  refused.detail = "bad request: runner request (check): slot: missing";
  EXPECT_EQ(wire(refused), R"({"error":1,"detail":"bad request: runner request (check): slot: missing"})");
  EXPECT_EQ(wire(Answer::make(UnknownOp::Result{}, 801)), R"({"error":801})");
}

TEST(RunnerProtocol, AnswersReadTypedAndRoundTrip) {
  const std::pair<const char *, Op> answers[] = {
      {"{}", Op::Load},
      {R"({"load_error":"loading the built object failed: x"})", Op::Load},
      {R"({"error":1})", Op::Bind},
      {"{}", Op::Unbind},
      {kCheckAnswer, Op::Check},
      {R"({"error":0,"ms":0.5,"host_ms":0.01})", Op::Timed},
      {R"({"error":0,"ms":"inf"})", Op::Timed},
      {kAuditAnswer, Op::Audit},
      {R"({"launch_error":0,"error":0})", Op::Batch},
      {R"({"memory":{"device_bytes":1,"bytes_by_kind":{"managed":2,"a kind of the future":3}}})", Op::Memory},
      {R"({"error":1,"detail":"bad request: x"})", Op::Unknown},
      // Unknown keys, also inside the memory figures and a launch, are kept where they were.
      {R"({"ms":1.5,"forged":{"a":[1,2]},"error":0})", Op::Timed},
      {R"({"memory":{"x":1,"pools":2}})", Op::Memory},
      {R"({"launches":[{"stream":"default","kernel":"k","grid":[1,1,1],"block":[1,1,1],"dynamic_smem_bytes":0,"y":0}]})",
       Op::Audit},
      // A field of another op's answer is not this op's: kept, never read.
      {R"({"ms":"not a number","error":0})", Op::Check},
  };
  for (const auto &[text, op] : answers)
    EXPECT_EQ(answerRoundTrip(text, op), text) << text;

  Answer check = answerFromJson(parseJson(kCheckAnswer), Op::Check, "a");
  ASSERT_EQ(check.kind(), Op::Check);
  EXPECT_EQ(check.error, std::optional<int64_t>(0));
  const Check::Result &c = *check.as<Check::Result>();
  EXPECT_EQ(c.launchError, std::optional<int64_t>(0));
  EXPECT_EQ(c.outOfMemory, std::optional<uint64_t>(2));
  ASSERT_TRUE(c.memory);
  EXPECT_EQ(c.memory->deviceBytes, std::optional<uint64_t>(1));
  EXPECT_FALSE(c.memory->frees); // absent

  Answer audit = answerFromJson(parseJson(kAuditAnswer), Op::Audit, "a");
  const Audit::Result &a = *audit.as<Audit::Result>();
  EXPECT_EQ(a.kernels, std::optional<int64_t>(2));
  EXPECT_EQ(a.kernelsOtherStreams, std::optional<int64_t>(1));
  EXPECT_EQ(a.violation, std::optional<std::string>("work on another stream"));
  ASSERT_TRUE(a.launches);
  ASSERT_EQ(a.launches->size(), 2u);
  EXPECT_EQ((*a.launches)[0].block, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ((*a.launches)[1].dynamicSmemBytes, 1024u);
  EXPECT_EQ((*a.launches)[1].stream, "other");
  EXPECT_EQ(a.launchesTruncated, std::optional<bool>(false));

  Answer memory = answerFromJson(parseJson(std::string(R"({"memory":)") + kMemoryWire + "}"), Op::Memory, "a");
  ASSERT_TRUE(memory.as<Memory::Result>()->memory);
  const MemoryFigures &m = *memory.as<Memory::Result>()->memory;
  EXPECT_EQ(m.failedBytes, std::optional<uint64_t>(std::numeric_limits<uint64_t>::max()));
  EXPECT_EQ(m.bytesByKind, (std::optional<std::vector<std::pair<std::string, uint64_t>>>(
                               std::vector<std::pair<std::string, uint64_t>>{{"device", 4096}, {"async", 0}})));
  EXPECT_EQ(writeJson(memoryFiguresToJson(m)), kMemoryWire);
  EXPECT_EQ(writeJson(memoryFiguresToJson(memoryFiguresFromJson(parseJson(kMemoryWire), "m"))), kMemoryWire);
}

// A hostile runner's answers: every known field of the wrong type, out of range or missing where
// required is an error naming it.
TEST(RunnerProtocol, HostileAnswersNameTheField) {
  // Not an object (the channel refuses these before, but the reader must not rely on it).
  EXPECT_EQ(forgedAnswerError(Json::array({1}), Op::Check), "runner answer (check): the top level: expected an object, got an array");
  EXPECT_EQ(forgedAnswerError(Json("x"), Op::Timed), R"(runner answer (timed): the top level: expected an object, got "x")");
  EXPECT_EQ(forgedAnswerError(Json(), Op::Load), "runner answer (load): the top level: expected an object, got null");

  // Wrong types.
  EXPECT_EQ(answerError(R"({"error":"0"})", Op::Check), R"(runner answer (check): error: expected a whole number, got "0")");
  EXPECT_EQ(answerError(R"({"error":null})", Op::Bind), "runner answer (bind): error: expected a whole number, got null");
  EXPECT_EQ(answerError(R"({"error":0.0})", Op::Check), "runner answer (check): error: expected a whole number, got 0.0");
  EXPECT_EQ(answerError(R"({"detail":5})", Op::Check), "runner answer (check): detail: expected a string, got 5");
  EXPECT_EQ(answerError(R"({"load_error":{"x":1}})", Op::Load),
            "runner answer (load): load_error: expected a string, got an object");
  EXPECT_EQ(answerError(R"({"launch_error":true})", Op::Batch),
            "runner answer (batch): launch_error: expected a whole number, got true");
  EXPECT_EQ(answerError(R"({"ms":"fast"})", Op::Timed), R"(runner answer (timed): ms: expected a number, got "fast")");
  EXPECT_EQ(answerError(R"({"host_ms":[1]})", Op::Timed), "runner answer (timed): host_ms: expected a number, got an array");
  EXPECT_EQ(answerError(R"({"memory":[]})", Op::Check), "runner answer (check): memory: expected an object, got an array");
  EXPECT_EQ(answerError(R"({"memory":{"device_bytes":-1}})", Op::Memory),
            "runner answer (memory): memory.device_bytes: expected a whole number of at least 0, got -1");
  EXPECT_EQ(answerError(R"({"memory":{"bytes_by_kind":{"device":"4096"}}})", Op::Check),
            R"(runner answer (check): memory.bytes_by_kind.device: expected a whole number of at least 0, got "4096")");
  EXPECT_EQ(answerError(R"({"memory":{"bytes_by_kind":[]}})", Op::Check),
            "runner answer (check): memory.bytes_by_kind: expected an object, got an array");
  EXPECT_EQ(answerError(R"({"out_of_memory":-3})", Op::Check),
            "runner answer (check): out_of_memory: expected a whole number of at least 0, got -3");
  EXPECT_EQ(answerError(R"({"violation":0})", Op::Audit), "runner answer (audit): violation: expected a string, got 0");
  EXPECT_EQ(answerError(R"({"launches_truncated":"no"})", Op::Audit),
            R"(runner answer (audit): launches_truncated: expected true or false, got "no")");
  EXPECT_EQ(answerError(R"({"launches":{}})", Op::Audit), "runner answer (audit): launches: expected an array, got an object");
  EXPECT_EQ(answerError(R"({"launches":[3]})", Op::Audit), "runner answer (audit): launches[0]: expected an object, got 3");

  // Huge and out-of-range numbers.
  EXPECT_EQ(answerError(R"({"error":18446744073709551615})", Op::Check),
            "runner answer (check): error: expected a whole number, got 18446744073709551615 (too large)");
  EXPECT_EQ(answerError(R"({"error":1e300})", Op::Check), "runner answer (check): error: expected a whole number, got 1e+300");
  EXPECT_EQ(answerError(R"({"pending_streams":1e300})", Op::Audit),
            "runner answer (audit): pending_streams: expected a whole number, got 1e+300");
  EXPECT_EQ(answerError(R"({"attempts":4294967296})", Op::Audit),
            "runner answer (audit): attempts: expected a whole number from 0 to 2147483647, got 4294967296");
  EXPECT_EQ(answerError(R"({"kernels":-1})", Op::Audit),
            "runner answer (audit): kernels: expected a whole number from 0 to 2147483647, got -1");
  EXPECT_EQ(answerError(R"({"out_of_memory":18446744073709551616})", Op::Check),
            "runner answer (check): out_of_memory: expected a whole number of at least 0, got 1.8446744073709552e+19");

  // A launch: every field required, dimensions three whole numbers that fit 32 bits, a known stream.
  const std::string launch = R"("kernel":"k","grid":[1,1,1],"block":[1,1,1],"dynamic_smem_bytes":0)";
  EXPECT_EQ(answerError(R"({"launches":[{)" + launch + "}]}", Op::Audit), "runner answer (audit): launches[0].stream: missing");
  EXPECT_EQ(answerError(R"({"launches":[{)" + launch + R"(,"stream":"hidden"}]})", Op::Audit),
            R"(runner answer (audit): launches[0].stream: expected "timed", "default" or "other", got "hidden")");
  EXPECT_EQ(answerError(R"({"launches":[{"kernel":"k","grid":[1,1],"block":[1,1,1],"dynamic_smem_bytes":0,"stream":"timed"}]})",
                        Op::Audit),
            "runner answer (audit): launches[0].grid: expected an array of 3 whole numbers, got an array");
  EXPECT_EQ(answerError(R"({"launches":[{"kernel":"k","grid":[1,1,4294967296],"block":[1,1,1],"dynamic_smem_bytes":0,"stream":"timed"}]})",
                        Op::Audit),
            "runner answer (audit): launches[0].grid[2]: expected a whole number from 0 to 4294967295, got 4294967296");
  EXPECT_EQ(answerError(R"({"launches":[{"kernel":7,"grid":[1,1,1],"block":[1,1,1],"dynamic_smem_bytes":0,"stream":"timed"}]})",
                        Op::Audit),
            "runner answer (audit): launches[0].kernel: expected a string, got 7");

  // What is absent reads as absent; a known field of another op is not looked at.
  EXPECT_EQ(answerError("{}", Op::Audit), "");
  EXPECT_EQ(answerError(R"({"ms":"x","memory":7})", Op::Batch), "");
}

// Every known field of every answer, replaced by each hostile value: the reader either takes the
// answer (and then writes it back so that it reads the same again) or throws SupportError naming
// that field; nothing else escapes (a nlohmann type_error out of the worker would be a crash).
TEST(RunnerProtocol, EveryFieldWithEveryHostileValue) {
  const std::pair<const char *, Op> valid[] = {
      {R"({"load_error":"x","error":0,"detail":"d"})", Op::Load},
      {kCheckAnswer, Op::Check},
      {R"({"error":0,"ms":0.5,"host_ms":0.01})", Op::Timed},
      {kAuditAnswer, Op::Audit},
      {R"({"launch_error":0,"error":0})", Op::Batch},
      {nullptr, Op::Memory}, // memoryAnswer
  };
  const Json hostile[] = {Json(), Json(true), Json(-1), Json(int64_t(INT64_MIN)), Json(uint64_t(UINT64_MAX)),
                          Json(1e300), Json(-0.5), Json("nan"), Json("x"), Json::array(), Json::array({1, 2, 3}),
                          Json::object(), Json{{"a", 1}}};
  std::string memoryAnswer = std::string(R"({"memory":)") + kMemoryWire + "}";
  size_t cases = 0, refused = 0;
  for (auto [text, op] : valid) {
    Json base = parseJson(op == Op::Memory ? memoryAnswer : std::string(text));
    ASSERT_EQ(forgedAnswerError(base, op), "") << text;
    // Paths to every member, nested objects and arrays of objects included.
    std::vector<Json::json_pointer> paths;
    std::function<void(const Json &, Json::json_pointer)> walk = [&](const Json &v, Json::json_pointer at) {
      if (v.is_object())
        for (const auto &kv : v.items()) {
          paths.push_back(at / kv.key());
          walk(kv.value(), at / kv.key());
        }
      else if (v.is_array())
        for (size_t i = 0; i < v.size(); ++i) {
          paths.push_back(at / i);
          walk(v[i], at / i);
        }
    };
    walk(base, Json::json_pointer());
    for (const Json::json_pointer &path : paths)
      for (const Json &value : hostile) {
        Json forged = base;
        forged[path] = value;
        ++cases;
        try {
          Answer a = answerFromJson(forged, op, "runner answer");
          Json back = answerToJson(a);
          EXPECT_EQ(writeJson(answerToJson(answerFromJson(back, op, "runner answer"))), writeJson(back))
              << forged.dump();
        } catch (const support::SupportError &e) {
          ++refused;
          // The message names the field: its last member name (or index) is in it.
          std::string last = path.back();
          EXPECT_NE(std::string(e.what()).find(last), std::string::npos) << e.what() << " for " << forged.dump();
        } catch (const std::exception &e) {
          ADD_FAILURE() << "not a SupportError: " << e.what() << " for " << forged.dump();
        }
      }
  }
  EXPECT_GT(cases, 500u);
  // Most forgeries are of the wrong type; some (a count of -1, a string that is a string) are not.
  EXPECT_GT(refused, cases / 2);
  EXPECT_LT(refused, cases);
}

TEST(RunnerProtocol, ReadyWireBytesAndRoundTrip) {
  // The runner's sandbox report (runtime::SandboxStatus::toJson) keeps its figures and their order.
  const std::string status =
      R"({"landlock_abi":6,"no_new_privs":true,"capabilities_dropped":true,"landlock_files":true,)"
      R"("landlock_network":true,"landlock_signals":true,"seccomp":true,"exec_mappings_forbidden":true,)"
      R"("resource_limits":true,"complete":true,"missing":[]})";
  SandboxReport report = sandboxReportFromJson(parseJson(status), "sandbox");
  EXPECT_EQ(report.complete, std::optional<bool>(true));
  EXPECT_EQ(report.missing, std::optional<std::vector<std::string>>(std::vector<std::string>{}));
  EXPECT_EQ(writeJson(sandboxReportToJson(report)), status);

  Ready ready;
  ready.sandbox = report;
  ready.contextSeconds = 1.25;
  std::string text = writeJson(readyToJson(ready));
  EXPECT_EQ(text, R"({"event":"ready","sandbox":)" + status + R"(,"context_seconds":1.25})");
  EXPECT_EQ(writeJson(readyToJson(readyFromJson(parseJson(text), "r"))), text);

  Ready failed;
  failed.sandbox.emplace();
  failed.sandbox->complete = false;
  failed.sandbox->missing = std::vector<std::string>{"all confinement (--isolation runner-unconfined)"};
  failed.contextSeconds = 0.5;
  failed.error = "CUDA context creation failed in the runner: out of memory";
  failed.retryable = true;
  text = writeJson(readyToJson(failed));
  EXPECT_EQ(text, R"x({"event":"ready","sandbox":{"complete":false,"missing":["all confinement (--isolation )x"
                  R"x(runner-unconfined)"]},"context_seconds":0.5,"error":"CUDA context creation failed in the )x"
                  R"x(runner: out of memory","retryable":true})x");
  Ready back = readyFromJson(parseJson(text), "r");
  EXPECT_EQ(back.error, failed.error);
  EXPECT_EQ(back.retryable, std::optional<bool>(true));
  EXPECT_EQ(writeJson(readyToJson(back)), text);
  EXPECT_EQ(writeJson(readyToJson(readyFromJson(parseJson(R"({"x":1,"event":"ready"})"), "r"))), R"({"x":1,"event":"ready"})");
}

TEST(RunnerProtocol, HostileReadyNamesTheField) {
  EXPECT_EQ(readyError("[]"), "runner ready: the top level: expected an object, got an array");
  EXPECT_EQ(readyError("{}"), "runner ready: event: missing");
  EXPECT_EQ(readyError(R"({"event":"done"})"), R"(runner ready: event: expected "ready", got "done")");
  EXPECT_EQ(readyError(R"({"event":"ready","sandbox":"complete"})"),
            R"(runner ready: sandbox: expected an object, got "complete")");
  EXPECT_EQ(readyError(R"({"event":"ready","sandbox":{"complete":"yes"}})"),
            R"(runner ready: sandbox.complete: expected true or false, got "yes")");
  EXPECT_EQ(readyError(R"({"event":"ready","sandbox":{"missing":[1]}})"),
            "runner ready: sandbox.missing[0]: expected a string, got 1");
  EXPECT_EQ(readyError(R"({"event":"ready","error":3})"), "runner ready: error: expected a string, got 3");
  EXPECT_EQ(readyError(R"({"event":"ready","retryable":1})"), "runner ready: retryable: expected true or false, got 1");
  EXPECT_EQ(readyError(R"({"event":"ready","context_seconds":"1"})"),
            R"(runner ready: context_seconds: expected a number, got "1")");
  EXPECT_EQ(readyError(R"({"event":"ready"})"), "");
}
