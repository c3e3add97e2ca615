#include "gpupool/testenv/http_probe.h"

#include <curl/curl.h>

#include <mutex>

namespace gpupool::testenv {

namespace {

size_t append_body(char* data, size_t size, size_t nmemb, void* user) {
  static_cast<std::string*>(user)->append(data, size * nmemb);
  return size * nmemb;
}

}  // namespace

HttpResponse http_request(const HttpRequest& request) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });

  HttpResponse response;
  CURL* curl = curl_easy_init();
  if (!curl) {
    response.error = "curl_easy_init failed";
    return response;
  }
  char error[CURL_ERROR_SIZE] = {0};
  curl_slist* headers = nullptr;
  std::string auth;
  if (!request.bearer_token.empty()) {
    auth = "Authorization: Bearer " + request.bearer_token;
    headers = curl_slist_append(headers, auth.c_str());
  }
  if (!request.body.empty()) headers = curl_slist_append(headers, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (!request.body.empty() || request.method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");  // loopback only; ignore $https_proxy
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  if (request.insecure) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  } else if (!request.ca_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_CAINFO, request.ca_file.c_str());
  }
  CURLcode rc = curl_easy_perform(curl);
  if (rc == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  } else {
    response.error = error[0] ? error : curl_easy_strerror(rc);
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return response;
}

}  // namespace gpupool::testenv
