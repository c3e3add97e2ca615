// The fault proxy's control port API: small HTTP requests with query
// parameters, JSON answers. For tests not written in C++ and the CLI.
//
//   GET  /healthz                     {"ok":true}
//   GET  /stats                       {"connections":N,"open_connections":N,"refused":N,"requests":N,
//                                      "forwarded":N,"injected":N,"delayed":N,"cut":N,"upstream_errors":N}
//   POST /cut                         cut every open connection now         {"cut":N}
//   POST /delay?ms=N                  delay every request by N ms (0: none)
//   POST /errors?status=S&share=F     answer share F (0..1) of requests with S (400..599); share 0 removes
//        [&retry_after=SECONDS]       Retry-After (default: 1 for 429, none otherwise)
//   POST /next?count=N&status=S       the next N requests are answered S    [&retry_after=SECONDS]
//   POST /next?count=N&cut=1          ... are cut [&after_bytes=B: after B bytes of their response]
//   POST /next?count=N&delay_ms=D     ... are delayed by D ms
//   POST /fail-next?status=S&count=N  = /next with a status
//   POST /refuse?ms=N                 refuse connections for N ms, cutting the open ones
//   POST /seed?value=N                restart the fault draws from seed N
//   POST /reset                       no faults any more
//
// /errors, /next and /fail-next also take method=, path_prefix= and
// query_contains= to say which requests they apply to (see Match). Answers:
// 200 {"ok":true} (or the object shown), 400 {"error":"..."} for bad or
// missing parameters, 404 for an unknown path, 405 for a wrong method.
#pragma once

#include <string>

#include "gpupool/faultproxy/fault_proxy.h"
#include "gpupool/netutil/http_request_reader.h"

namespace gpupool::faultproxy {

struct ControlAnswer {
  int status = 200;
  std::string body;  // JSON
};

ControlAnswer handle_control(FaultProxy& proxy, const netutil::RecordedRequest& request);

// Stats as the /stats JSON object.
std::string stats_json(const Stats& stats);

}  // namespace gpupool::faultproxy
