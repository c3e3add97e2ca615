// Text of HTTP answers as a kube-apiserver writes them: reason phrases,
// JSON strings and metav1.Status bodies. Shared by the scripted test server
// and the fault proxy.
#pragma once

#include <string>
#include <string_view>

namespace gpupool::netutil {

// "OK", "Too Many Requests", ...; "Status" for codes it does not know.
const char* reason_phrase(int status);

// Appends `s` as a JSON string literal (quotes included, escaped).
void append_json_string(std::string& out, std::string_view s);

// A metav1.Status, e.g. status_json(410, "Expired", "too old resource version: 1 (5)").
// "status" is "Success" for codes below 400, else "Failure"; an empty reason
// is left out; `details_json`, when not empty, is inserted verbatim as
// "details" (e.g. R"({"retryAfterSeconds":1})").
std::string status_json(int code, std::string_view reason, std::string_view message,
                        std::string_view details_json = {});

}  // namespace gpupool::netutil
