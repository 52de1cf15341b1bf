// The evaluator's protocols (include/cudaperf/Schema/Protocol.h): each message's wire bytes, the
// exact round trip, and errors that name the field.
#include "cudaperf/Schema/Protocol.h"

#include "cudaperf/Support/Json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace cudaperf;
using namespace cudaperf::schema;
using support::Json;
using support::parseJson;
using support::writeJson;

namespace {

std::string line(const WorkerEvent &e) { return writeJson(workerEventToJson(e)); }

template <class Body> WorkerEvent routed(Body body, const char *impl, const char *config) {
  WorkerEvent e = WorkerEvent::make(std::move(body));
  if (impl)
    e.impl = impl;
  if (config)
    e.config = config;
  return e;
}

std::string strictError(const std::string &text) {
  try {
    workerEventFromJson(parseJson(text), "events");
  } catch (const support::SupportError &e) {
    return e.what();
  }
  return "";
}

} // namespace

// The lines the worker writes (tools/cudaperf-eval/worker), kind by kind, in its key order:
// `event` first except after the figures of timing and memory, `t` last.
TEST(WorkerEvents, EachKindsWireBytes) {
  WorkerEvent start = WorkerEvent::make(events::Start{false, std::string("runner"), 1.5, std::nullopt});
  start.t = 0.25;
  EXPECT_EQ(line(start), R"({"event":"start","pool":false,"isolation":"runner","context_seconds":1.5,"t":0.25})");

  events::Device device;
  device.properties = Json{{"name", "NVIDIA H200"}, {"arch", "sm_90"}, {"driver_version", 13000}};
  device.index = 0;
  device.pid = 42;
  EXPECT_EQ(line(WorkerEvent::make(device)),
            R"({"event":"device","name":"NVIDIA H200","arch":"sm_90","driver_version":13000,"index":0,"pid":42})");

  EXPECT_EQ(line(WorkerEvent::make(events::DeviceData{std::string("copy"), 3, std::string("CUDA IPC refused: x")})),
            R"({"event":"device_data","mode":"copy","copied_sets":3,"reason":"CUDA IPC refused: x"})");
  EXPECT_EQ(line(routed(events::Reference{true, 1, uint64_t(12), 0.5}, nullptr, "small")),
            R"({"event":"reference","cached":true,"config":"small","set":1,"seed":12,"ms":0.5})");
  EXPECT_EQ(line(routed(events::Phase{std::string("correctness"), 2}, "candidate", "small")),
            R"({"event":"phase","impl":"candidate","config":"small","step":"correctness","set":2})");
  EXPECT_EQ(line(routed(events::Phase{std::string("runner"), std::nullopt}, "candidate", nullptr)),
            R"({"event":"phase","impl":"candidate","step":"runner"})");

  events::Check check{0, uint64_t(11), std::string("correctness"), false, Json::object()};
  check.mismatch["argument"] = "out";
  check.mismatch["index"] = 7;
  EXPECT_EQ(line(routed(check, "candidate", "small")),
            R"({"event":"check","impl":"candidate","config":"small","set":0,"seed":11,"step":"correctness",)"
            R"("pass":false,"argument":"out","index":7})");

  events::Audit audit;
  audit.figures = Json{{"kernels", 1}, {"launches", Json::array()}, {"launches_truncated", false}};
  EXPECT_EQ(line(routed(audit, "candidate", "small")),
            R"({"event":"audit","impl":"candidate","config":"small","kernels":1,"launches":[],"launches_truncated":false})");

  events::Timing timing;
  timing.figures = Json{{"median_ms", 0.02}, {"runs", 20}};
  timing.stable = true;
  timing.integrity = Json{{"checked_calls", 8}};
  EXPECT_EQ(line(routed(timing, "baseline", "small")),
            R"({"median_ms":0.02,"runs":20,"event":"timing","impl":"baseline","config":"small","stable":true,)"
            R"("integrity":{"checked_calls":8}})");

  events::Memory memory;
  memory.summary = Json{{"device_bytes", 1024}};
  memory.heldBytes = 0;
  memory.peakHeldBytes = 512;
  EXPECT_EQ(line(routed(memory, "candidate", nullptr)),
            R"({"device_bytes":1024,"event":"memory","impl":"candidate","held_bytes":0,"peak_held_bytes":512})");

  EXPECT_EQ(line(routed(events::MemoryWait{0.04}, "candidate", "large")),
            R"({"event":"memory_wait","impl":"candidate","config":"large","seconds":0.04})");
  EXPECT_EQ(line(routed(events::Retry{0, std::string("full"), 0.5}, "candidate", "small")),
            R"({"event":"retry","impl":"candidate","config":"small","set":0,"reason":"full","pause_seconds":0.5})");
  EXPECT_EQ(line(WorkerEvent::make(events::SharedData{std::string("baseline"), true, std::nullopt})),
            R"({"event":"shared_data","after":"baseline","intact":true})");
  EXPECT_EQ(line(WorkerEvent::make(events::Sandbox{std::string("runner"), Json{{"complete", true}}, 7})),
            R"({"event":"sandbox","isolation":"runner","runner":{"complete":true},"pid":7})");
  EXPECT_EQ(line(routed(events::Verdict{std::string("wrong_answer"), std::string("x")}, "candidate", "small")),
            R"({"event":"verdict","impl":"candidate","outcome":"wrong_answer","detail":"x","config":"small"})");

  events::Counters counters;
  counters.document = Json{{"reason", "no CUPTI"}};
  counters.available = false;
  EXPECT_EQ(line(routed(counters, "candidate", "small")),
            R"({"event":"counters","impl":"candidate","config":"small","reason":"no CUPTI","available":false})");
  EXPECT_EQ(line(WorkerEvent::make(events::Error{std::string("no GPU"), true})),
            R"({"event":"error","detail":"no GPU","retryable":true})");
  EXPECT_EQ(line(WorkerEvent::make(events::Done{})), R"({"event":"done"})");
}

// Every line reads back into its kind and writes back byte for byte, unknown keys and the key
// order included (a cached baseline line has `cached` after its old `t`).
TEST(WorkerEvents, ReadLinesWriteBackIdentically) {
  const char *lines[] = {
      R"({"event":"start","pool":true,"isolation":"runner","context_seconds":0.8,"context_wait_seconds":0.1,"t":0.9})",
      R"({"event":"device","name":"NVIDIA H200","compute_capability":"9.0","arch":"sm_90","multiprocessors":132,)"
      R"("l2_bytes":52428800,"memory_bytes":150000000000,"driver_version":13000,"runtime_version":13000,"uuid":"GPU-1",)"
      R"("index":0,"pid":4242,"t":1.0})",
      R"({"event":"reference","cached":false,"config":"small","set":0,"seed":11,"ms":0.5,"t":1.2})",
      R"({"event":"phase","impl":"candidate","config":"small","step":"correctness","set":0,"t":2.0})",
      R"({"event":"check","impl":"candidate","config":"small","set":0,"seed":11,"step":"correctness","pass":false,)"
      R"("argument":"c","index":3,"got":1.5,"expected":2.5,"bad_elements":1,"nan_elements":0,"t":2.1})",
      R"({"median_ms":0.02,"min_ms":0.019,"runs":20,"event":"timing","impl":"baseline","config":"small",)"
      R"("stable":true,"integrity":{},"t":3.0,"cached":true})",
      R"({"device_bytes":0,"host_bytes":0,"event":"memory","impl":"candidate","held_bytes":0,"peak_held_bytes":0,"t":4.5})",
      R"({"event":"verdict","impl":"candidate","outcome":"ok","t":5.0})",
      R"({"event":"done","t":5.5})",
      R"({"event":"a_newer_kind","impl":"candidate","what":[1,2],"t":6.0})",
  };
  for (const char *text : lines) {
    Json v = parseJson(text);
    WorkerEvent e = workerEventFromJson(v, "events");
    EXPECT_EQ(writeJson(workerEventToJson(e)), writeJson(v)) << text;
  }
  WorkerEvent check = workerEventFromJson(parseJson(lines[4]), "events");
  ASSERT_TRUE(check.is<events::Check>());
  EXPECT_EQ(check.as<events::Check>()->pass, false);
  EXPECT_EQ(check.impl, "candidate");
  EXPECT_EQ(writeJson(workerEventPayload(check)),
            R"({"set":0,"seed":11,"step":"correctness","pass":false,"argument":"c","index":3,"got":1.5,)"
            R"("expected":2.5,"bad_elements":1,"nan_elements":0})");
  WorkerEvent newer = workerEventFromJson(parseJson(lines[9]), "events");
  EXPECT_TRUE(newer.is<events::Unknown>());
  EXPECT_EQ(newer.name, "a_newer_kind");
  EXPECT_EQ(newer.t, 6.0);
}

TEST(WorkerEvents, AMalformedLineIsRefusedNamingTheField) {
  EXPECT_EQ(strictError(R"({"event":"verdict","impl":"candidate","outcome":3})"),
            "events (verdict): outcome: expected a string, got 3");
  EXPECT_EQ(strictError(R"({"event":"check","pass":"yes"})"), R"(events (check): pass: expected true or false, got "yes")");
  EXPECT_EQ(strictError(R"({"event":"done","t":"late"})"), R"(events (done): t: expected a number, got "late")");
  EXPECT_EQ(strictError(R"({"event":"phase","impl":1})"), "events (phase): impl: expected a string, got 1");
  EXPECT_EQ(strictError(R"({"event":"phase","set":1.5})"), "events (phase): set: expected a whole number, got 1.5");
  EXPECT_EQ(strictError(R"({"event":"reference","seed":-1})"),
            "events (reference): seed: expected a whole number of at least 0, got -1");
  EXPECT_EQ(strictError(R"({"event":"timing","integrity":[]})"),
            "events (timing): integrity: expected an object, got an array");
  EXPECT_EQ(strictError(R"({"event":7})"), "events: event: expected a string, got 7");
  EXPECT_EQ(strictError(R"({"impl":"candidate"})"), "events: event: missing");
  EXPECT_EQ(strictError(R"([1])"), "events: the top level: expected an object, got an array");
}

// The evaluator's reader: lines that are not events are dropped, a known field of the wrong type
// reads as absent and stays verbatim in what the result copies.
TEST(WorkerEvents, TheEvaluatorsReaderToleratesWhatItDoesNotTrust) {
  std::vector<WorkerEvent> read = readWorkerEvents(
      "{\"event\":\"check\",\"impl\":\"candidate\",\"config\":\"small\",\"pass\":\"yes\",\"set\":0.5}\n"
      "\n"
      "not json\n"
      "[1,2]\n"
      "{\"event\":3}\n"
      "{\"no_event\":true}\n"
      "{\"event\":\"phase\",\"impl\":\"candidate\",\"step\":\"timing\",\"set\":2.7,\"t\":\"x\"}\n"
      "{\"event\":\"verdict\",\"impl\":[\"candidate\"],\"outcome\":\"ok\"}\n"
      "{\"event\":\"done\",\"t\":9}\n"
      "{\"event\":\"verdict\",\"outc"); // torn last line
  ASSERT_EQ(read.size(), 4u);
  const events::Check *check = read[0].as<events::Check>();
  ASSERT_NE(check, nullptr);
  EXPECT_FALSE(check->pass.has_value());
  EXPECT_FALSE(check->set.has_value());
  EXPECT_EQ(writeJson(workerEventPayload(read[0])), R"({"pass":"yes","set":0.5})");
  // A phase's input set is read as the evaluator always has (a fraction truncated); `t` is absent.
  const events::Phase *phase = read[1].as<events::Phase>();
  ASSERT_NE(phase, nullptr);
  EXPECT_EQ(phase->set, 2);
  EXPECT_FALSE(read[1].t.has_value());
  EXPECT_FALSE(read[2].impl.has_value());
  EXPECT_EQ(read[2].as<events::Verdict>()->outcome, "ok");
  EXPECT_TRUE(read[3].is<events::Done>());
  EXPECT_EQ(read[3].t, 9.0);
  // A set out of range is INT64_MIN (x86's conversion, which the evaluator has always shown), not
  // undefined behaviour.
  std::vector<WorkerEvent> huge = readWorkerEvents("{\"event\":\"phase\",\"set\":1e300}\n{\"event\":\"phase\",\"set\":-2.5}");
  ASSERT_EQ(huge.size(), 2u);
  EXPECT_EQ(huge[0].as<events::Phase>()->set, INT64_MIN);
  EXPECT_EQ(huge[1].as<events::Phase>()->set, -2);
}

namespace {

std::string holderError(const std::string &text, bool request) {
  try {
    if (request)
      holder::requestFromJson(parseJson(text), "request");
    else
      holder::answerFromJson(parseJson(text), "answer");
  } catch (const support::SupportError &e) {
    return e.what();
  }
  return "";
}

} // namespace

// The evaluator's requests to the data holder (lib/Runtime/DeviceSlot.cpp) and its answers
// (tools/cudaperf-eval/worker/Holder.cpp), in their key order.
TEST(HolderProtocol, EachMessagesWireBytes) {
  holder::Prepare so;
  so.taskDir = "data/tasks/vector_add";
  so.configs = std::vector<std::string>{};
  so.seed = 1;
  so.sets = 3;
  so.manifest = "/w/data-0-k.json";
  so.memoryWaitSeconds = 30.0;
  so.setCacheLimitBytes = uint64_t(1) << 30;
  so.setCache = "/c/data";
  so.referenceSo = "/c/ref.so";
  so.referenceId = "/c/ref.so";
  EXPECT_EQ(writeJson(holder::requestToJson(holder::Request::make(so, "k"))),
            R"({"op":"prepare","key":"k","task_dir":"data/tasks/vector_add","configs":[],"seed":1,"sets":3,)"
            R"("manifest":"/w/data-0-k.json","memory_wait_seconds":30.0,"set_cache_limit_bytes":1073741824,)"
            R"("set_cache":"/c/data","reference_so":"/c/ref.so","reference_id":"/c/ref.so"})");

  holder::Prepare torch = so;
  torch.configs = std::vector<std::string>{"small"};
  torch.setCache.reset();
  torch.referenceSo.reset();
  torch.referenceId = "tk";
  holder::TorchReference &t = torch.torch.emplace();
  t.program = "cudaperf-torch-reference";
  t.args = std::vector<std::string>{"--task", "d"};
  t.timingPath = "";
  t.timeoutSeconds = 600.0;
  t.logPath = "/w/torch.log";
  EXPECT_EQ(writeJson(holder::requestToJson(holder::Request::make(torch, "k"))),
            R"({"op":"prepare","key":"k","task_dir":"data/tasks/vector_add","configs":["small"],"seed":1,"sets":3,)"
            R"("manifest":"/w/data-0-k.json","memory_wait_seconds":30.0,"set_cache_limit_bytes":1073741824,)"
            R"("reference_id":"tk","torch":{"program":"cudaperf-torch-reference","args":["--task","d"],)"
            R"("timing_path":"","timeout_seconds":600.0,"log_path":"/w/torch.log"}})");
  EXPECT_EQ(writeJson(holder::requestToJson(holder::Request::make(holder::Release{}, "k"))),
            R"({"op":"release","key":"k"})");
  EXPECT_EQ(writeJson(holder::requestToJson(holder::Request::make(holder::Verify{}, "k"))),
            R"({"op":"verify","key":"k"})");

  EXPECT_EQ(writeJson(holder::answerToJson(holder::Answer::make(holder::Ready{std::string("GPU-1"), 42}, std::nullopt))),
            R"({"op":"ready","device_uuid":"GPU-1","pid":42})");
  holder::Prepared prepared{std::string("/w/m.json"), uint64_t(4096), 1.5, 0.5, 1.0, 2, 3, false};
  EXPECT_EQ(writeJson(holder::answerToJson(holder::Answer::make(prepared, std::string("k")))),
            R"({"op":"prepared","key":"k","manifest":"/w/m.json","bytes":4096,"seconds":1.5,"generate_seconds":0.5,)"
            R"("reference_seconds":1.0,"sets_from_cache":2,"sets":3,"torch_ran":false})");
  EXPECT_EQ(writeJson(holder::answerToJson(holder::Answer::make(holder::Released{}, std::string("k")))),
            R"({"op":"released","key":"k"})");
  EXPECT_EQ(writeJson(holder::answerToJson(holder::Answer::make(holder::Verified{true, std::string("")}, std::string("k")))),
            R"({"op":"verified","key":"k","intact":true,"detail":""})");
  EXPECT_EQ(writeJson(holder::answerToJson(holder::Answer::make(holder::Failed{std::string("not prepared")}, std::string("")))),
            R"({"op":"failed","key":"","detail":"not prepared"})");
}

TEST(HolderProtocol, ReadMessagesWriteBackIdentically) {
  const char *requests[] = {
      R"({"op":"prepare","key":"k","task_dir":"d","configs":[],"seed":18446744073709551615,"sets":3,"manifest":"m",)"
      R"("memory_wait_seconds":30.0,"set_cache_limit_bytes":1073741824,"reference_id":"tk","torch":{"program":"p",)"
      R"("args":["a"],"timing_path":"","timeout_seconds":600.0,"log_path":"l","newer":1}})",
      R"({"key":"k","op":"release"})",
      R"({"op":"rename","key":"k","to":"j"})",
  };
  for (const char *text : requests) {
    Json v = parseJson(text);
    EXPECT_EQ(writeJson(holder::requestToJson(holder::requestFromJson(v, "request"))), writeJson(v)) << text;
  }
  holder::Request prepare = holder::requestFromJson(parseJson(requests[0]), "request");
  ASSERT_NE(prepare.as<holder::Prepare>(), nullptr);
  EXPECT_EQ(prepare.as<holder::Prepare>()->seed, UINT64_MAX);
  EXPECT_EQ(prepare.as<holder::Prepare>()->torch->args->at(0), "a");
  holder::Request rename = holder::requestFromJson(parseJson(requests[2]), "request");
  EXPECT_NE(rename.as<holder::UnknownOp>(), nullptr);
  EXPECT_EQ(rename.op, "rename");

  const char *answers[] = {
      R"({"op":"ready","device_uuid":"GPU-1","pid":42})",
      R"({"op":"prepared","key":"k","manifest":"m","bytes":1,"seconds":0.25,"generate_seconds":0.125,)"
      R"("reference_seconds":0.0,"sets_from_cache":0,"sets":3,"torch_ran":true})",
      R"({"op":"failed","key":"","detail":"holder set-up: no GPU"})",
  };
  for (const char *text : answers) {
    Json v = parseJson(text);
    EXPECT_EQ(writeJson(holder::answerToJson(holder::answerFromJson(v, "answer"))), writeJson(v)) << text;
  }
}

TEST(HolderProtocol, AMalformedMessageIsRefusedNamingTheField) {
  EXPECT_EQ(holderError(R"({"op":"prepare","key":"k","seed":1,"sets":3})", true), "request (prepare): task_dir: missing");
  EXPECT_EQ(holderError(R"({"op":"prepare","key":"k","task_dir":"d","seed":-1,"sets":3})", true),
            "request (prepare): seed: expected a whole number of at least 0, got -1");
  EXPECT_EQ(holderError(R"({"op":"prepare","key":"k","task_dir":"d","seed":1,"sets":3,"configs":["a",2]})", true),
            "request (prepare): configs[1]: expected a string, got 2");
  EXPECT_EQ(holderError(R"({"op":"prepare","key":"k","task_dir":"d","seed":1,"sets":3,"torch":{"args":"x"}})", true),
            "request (prepare): torch.args: expected an array of strings, got \"x\"");
  EXPECT_EQ(holderError(R"({"op":"release","key":7})", true), "request (release): key: expected a string, got 7");
  EXPECT_EQ(holderError(R"({"key":"k"})", true), "request: op: missing");
  EXPECT_EQ(holderError(R"({"op":"prepared","key":"k","bytes":"many"})", false),
            "answer (prepared): bytes: expected a whole number of at least 0, got \"many\"");
  EXPECT_EQ(holderError(R"({"op":"ready","pid":1.5})", false), "answer (ready): pid: expected a whole number, got 1.5");
}

// The lines of `cudaperf-eval --serve` (lib/Runtime/EvalServer.cpp, ServeProtocol.cpp), in their key
// order: a stats answer has its id last.
TEST(ServeMessages, EachMessagesWireBytes) {
  auto line = [](const serve::Message &m) { return writeJson(serve::messageToJson(m)); };
  serve::Ready ready{std::string("cudaperf-eval-serve/1"), std::string("sm_90"), Json::array(), 256, 2};
  EXPECT_EQ(line(serve::Message::make(ready)),
            R"({"type":"ready","protocol":"cudaperf-eval-serve/1","arch":"sm_90","devices":[],"queue_limit":256,)"
            R"("build_threads":2})");
  EXPECT_EQ(line(serve::Message::make(serve::Pong{}, Json(7))), R"({"type":"pong","id":7})");
  EXPECT_EQ(line(serve::resultMessage(Json("a"), Json{{"schema", "cudaperf-eval-result/1"}, {"outcome", "ok"}})),
            R"({"type":"result","id":"a","outcome":"ok","result":{"schema":"cudaperf-eval-result/1","outcome":"ok"}})");
  EXPECT_EQ(line(serve::resultMessage(Json("a"), Json::object())), R"({"type":"result","id":"a","outcome":null,"result":{}})");
  EXPECT_EQ(line(serve::Message::make(serve::Error{std::string("queue_full"), std::string("the queue is full")}, Json())),
            R"({"type":"error","id":null,"code":"queue_full","message":"the queue is full"})");
  EXPECT_EQ(line(serve::Message::make(serve::Cancelled{}, Json("a"))), R"({"type":"cancelled","id":"a"})");

  serve::Stats stats;
  stats.results = 1;
  stats.outcomes = Json{{"ok", 1}};
  stats.meanStageSeconds = Json{{"build", 0.5}};
  stats.submitted = stats.finished = 1;
  stats.cancelled = stats.waiting = stats.building = stats.running = 0;
  stats.runsPerDevice = std::vector<uint64_t>{1};
  stats.workerExit = serve::WorkerExits{uint64_t(1), 0.25, 0.25, Json::object(), {}};
  serve::Message answer = serve::Message::make(stats, Json("s"));
  const char *figures = R"("results":1,"outcomes":{"ok":1},"mean_stage_seconds":{"build":0.5},"submitted":1,"finished":1,)"
                        R"("cancelled":0,"waiting":0,"building":0,"running":0,"runs_per_device":[1],)"
                        R"("worker_exit":{"reaped":1,"mean_seconds":0.25,"max_seconds":0.25})";
  EXPECT_EQ(line(answer), std::string(R"({"type":"stats",)") + figures + R"(,"id":"s"})");
  serve::Message bye = serve::Message::make(stats);
  bye.type = "bye";
  EXPECT_EQ(line(bye), std::string(R"({"type":"bye",)") + figures + "}");

  for (const std::string &text : {line(answer), line(bye), line(serve::Message::make(ready))}) {
    Json v = parseJson(text);
    EXPECT_EQ(writeJson(serve::messageToJson(serve::messageFromJson(v, "serve"))), text);
  }
  EXPECT_NE(serve::messageFromJson(parseJson(line(bye)), "serve").as<serve::Stats>(), nullptr);
}

TEST(ServeMessages, AMalformedMessageIsRefusedNamingTheField) {
  auto error = [](const char *text) {
    try {
      serve::messageFromJson(parseJson(text), "serve");
    } catch (const support::SupportError &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(R"({"type":"error","id":1,"code":404})"), "serve (error): code: expected a string, got 404");
  EXPECT_EQ(error(R"({"type":"result","id":1,"outcome":"ok"})"), "serve (result): result: missing");
  EXPECT_EQ(error(R"({"type":"stats","worker_exit":{"reaped":-2}})"),
            "serve (stats): worker_exit.reaped: expected a whole number of at least 0, got -2");
  EXPECT_EQ(error(R"({"id":1})"), "serve: type: missing");
}

// A client's request line (the full cases are test/runtime/ServeProtocolTest.cpp): read into its
// struct, or an error message naming the key, never an exception.
TEST(ServeRequests, ReadOrRefusedNamingTheKey) {
  serve::Parse ok = serve::parseRequest(R"({"id": 3, "task_dir": "/t", "source": "s", "configs": "a,,b", "counters": true})");
  ASSERT_TRUE(ok.request.has_value());
  EXPECT_EQ(ok.request->op, serve::Request::Op::Evaluate);
  EXPECT_EQ(ok.request->idKey, "n:3");
  EXPECT_EQ(*ok.request->configs, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ok.request->counters, true);

  serve::Parse bad = serve::parseRequest(R"({"id": "c", "task_dir": "/t", "source": "s", "counters": "yes"})");
  EXPECT_FALSE(bad.request.has_value());
  EXPECT_EQ(bad.errorCode, "bad_request");
  EXPECT_EQ(bad.errorMessage, "\"counters\" must be true or false");
  EXPECT_EQ(bad.id, "c");
  EXPECT_EQ(serve::parseRequest("[[[").errorCode, "bad_json");
}

// Every request kind a client writes (serve::requestToJson): the bytes the clients built by hand
// before (QueueModes.cpp's batch lines and shutdown, BenchQueue.cpp, lib/Queue/RewardEvaluator.cpp,
// lib/Reward/ServiceEvaluator.cpp's cancel), and parseRequest reads each back into the same request.
TEST(ServeRequests, EveryKindWrittenAsTheClientsDidAndReadBack) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("cudaperf-serve-requests-" + std::to_string(::getpid()));
  fs::create_directories(root);
  root = fs::canonical(root);
  std::string candidate = (root / "c.cu").string();
  std::ofstream(candidate) << "__global__ void k() {}\n";
  serve::Policy policy;
  policy.candidateRoot = root.string();

  auto request = [](serve::Request::Op op, Json id) {
    serve::Request r;
    r.op = op;
    r.id = std::move(id);
    return r;
  };
  struct Case {
    serve::Request request;
    std::string before; // the hand-built form's bytes
  };
  std::vector<Case> cases;

  // cudaperf-eval --submit's batch line "TASK_DIR CANDIDATE" and cudaperf-bench --queue's request.
  serve::Request byPath = request(serve::Request::Op::Evaluate, Json(3));
  byPath.taskDir = "/t/vector_add";
  byPath.candidatePath = candidate;
  cases.push_back({byPath, writeJson(Json{{"id", 3}, {"task_dir", "/t/vector_add"}, {"candidate", candidate}})});
  serve::Request byIndex = byPath;
  byIndex.id = size_t(0);
  cases.push_back(
      {byIndex, writeJson(Json{{"id", size_t(0)}, {"task_dir", "/t/vector_add"}, {"candidate", candidate}})});
  // ... with --configs and --counters added after the line was read.
  serve::Request withOptions = byPath;
  withOptions.configs = std::vector<std::string>{"small", "large"};
  withOptions.counters = true;
  {
    Json before = {{"id", 3}, {"task_dir", "/t/vector_add"}, {"candidate", candidate}};
    before["configs"] = std::vector<std::string>{"small", "large"};
    before["counters"] = true;
    cases.push_back({withOptions, writeJson(before)});
  }
  // lib/Queue/RewardEvaluator.cpp: the candidate's text, named candidate.cu.
  serve::Request bySource = request(serve::Request::Op::Evaluate, Json(1));
  bySource.taskDir = "/t/relu";
  bySource.source = "__global__ void k(float *x) { x[0] = \"\\n\"[0]; }\n";
  bySource.name = "candidate.cu";
  {
    Json before = {{"id", 1}, {"task_dir", "/t/relu"}, {"source", bySource.source}, {"name", "candidate.cu"}};
    cases.push_back({bySource, writeJson(before)});
    serve::Request withConfigs = bySource;
    withConfigs.configs = std::vector<std::string>{"small"};
    withConfigs.counters = true;
    before["configs"] = std::vector<std::string>{"small"};
    before["counters"] = true;
    cases.push_back({withConfigs, writeJson(before)});
  }
  serve::Request emptySource = request(serve::Request::Op::Evaluate, Json("e"));
  emptySource.taskDir = "/t";
  cases.push_back({emptySource, R"({"id":"e","task_dir":"/t","source":""})"});
  // lib/Reward/ServiceEvaluator.cpp's cancel.
  cases.push_back({request(serve::Request::Op::Cancel, Json("c1")), writeJson(Json{{"op", "cancel"}, {"id", "c1"}})});
  cases.push_back({request(serve::Request::Op::Cancel, Json(7)), R"({"op":"cancel","id":7})"});
  cases.push_back({request(serve::Request::Op::Stats, Json()), R"({"op":"stats"})"});
  cases.push_back({request(serve::Request::Op::Stats, Json("s")), R"({"op":"stats","id":"s"})"});
  cases.push_back({request(serve::Request::Op::Ping, Json(1)), R"({"op":"ping","id":1})"});
  // QueueModes.cpp's ServeEvaluator at its end: {"op": "shutdown", "drain": false} (the same
  // members, now without the spaces).
  serve::Request shutdown = request(serve::Request::Op::Shutdown, Json());
  shutdown.drain = false;
  cases.push_back({shutdown, writeJson(parseJson(R"({"op": "shutdown", "drain": false})"))});
  cases.push_back({request(serve::Request::Op::Shutdown, Json()), R"({"op":"shutdown"})"});

  for (const Case &c : cases) {
    std::string text = writeJson(serve::requestToJson(c.request));
    EXPECT_EQ(text, c.before);
    serve::Parse read = serve::parseRequest(text, policy);
    ASSERT_TRUE(read.request.has_value()) << text << ": " << read.errorMessage;
    const serve::Request &r = *read.request;
    EXPECT_EQ(r.op, c.request.op) << text;
    EXPECT_EQ(r.id, c.request.id) << text;
    EXPECT_EQ(r.idKey, c.request.id.is_null() ? "" : (c.request.id.is_string() ? "s:" : "n:") +
                                                         (c.request.id.is_string() ? c.request.id.get<std::string>()
                                                                                   : c.request.id.dump()))
        << text;
    EXPECT_EQ(r.taskDir, c.request.taskDir) << text;
    EXPECT_EQ(r.candidatePath, c.request.candidatePath) << text;
    EXPECT_EQ(r.source, c.request.source) << text;
    EXPECT_EQ(r.name, c.request.name) << text;
    EXPECT_EQ(r.configs, c.request.configs) << text;
    EXPECT_EQ(r.counters, c.request.counters) << text;
    EXPECT_EQ(r.drain, c.request.drain) << text;
    EXPECT_EQ(writeJson(serve::requestToJson(r)), text);
  }
  // The shutdown the clients wrote by hand is read as the typed one.
  serve::Parse literal = serve::parseRequest(R"({"op": "shutdown", "drain": false})");
  ASSERT_TRUE(literal.request.has_value());
  EXPECT_EQ(writeJson(serve::requestToJson(*literal.request)), R"({"op":"shutdown","drain":false})");
  fs::remove_all(root);
}

// The evaluator's job for a pool worker (lib/Runtime/DeviceSlot.cpp -> the worker's stdin).
TEST(PoolJob, WireBytesAndErrors) {
  PoolJob job;
  job.argv = {"--events", "/w/worker-1.events"};
  job.handedAt = 12.5;
  std::string text = writeJson(poolJobToJson(job));
  EXPECT_EQ(text, R"({"argv":["--events","/w/worker-1.events"],"handed_at":12.5})");
  EXPECT_EQ(writeJson(poolJobToJson(poolJobFromJson(parseJson(text), "job"))), text);
  auto error = [](const char *t) {
    try {
      poolJobFromJson(parseJson(t), "job");
    } catch (const support::SupportError &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(R"({"handed_at":1.0})"), "job: argv: missing");
  EXPECT_EQ(error(R"({"argv":["a",1]})"), "job: argv[1]: expected a string, got 1");
  EXPECT_EQ(error(R"({"argv":[],"handed_at":"now"})"), R"(job: handed_at: expected a number, got "now")");
}
