// Test helper: HTTPS POSTs with libcurl, verifying
// the server against a CA given in memory and a name resolved to 127.0.0.1
// (as kube-apiserver verifies a webhook Service's DNS name), and reporting
// the serial number of the certificate the server presented.
#pragma once

#include <curl/curl.h>

#include <string>
#include <utility>

#include "gpupool/webhook/certificates.h"

namespace gpupool::webhook::testing {

struct PostResult {
  CURLcode code = CURLE_OK;
  std::string error;  // curl's message when code != CURLE_OK
  long status = 0;
  std::string body;
  std::string peer_serial;  // hex, as CertificateInfo::serial_hex (new connections only)
  bool new_connection = false;  // false: an existing connection was reused

  bool ok() const { return code == CURLE_OK && status == 200; }
};

struct PostOptions {
  std::string name = "127.0.0.1";  // the name in the URL; verified against the SANs
  long ssl_version = CURL_SSLVERSION_DEFAULT;
  std::string cipher_list;  // empty: curl's default
};

inline std::size_t append_body(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// One client; with `reuse` its connection is kept between posts (as
// kube-apiserver keeps its connections to a webhook), otherwise every post
// makes a new connection with a full handshake.
class HttpsClient {
 public:
  HttpsClient(std::string ca_pem, PostOptions options, bool reuse)
      : ca_pem_(std::move(ca_pem)), options_(std::move(options)), reuse_(reuse), curl_(curl_easy_init()) {}
  ~HttpsClient() {
    if (curl_ != nullptr) curl_easy_cleanup(curl_);
  }
  HttpsClient(const HttpsClient&) = delete;
  HttpsClient& operator=(const HttpsClient&) = delete;

  PostResult post(int port, const std::string& path, const std::string& body) {
    PostResult out;
    if (curl_ == nullptr) {
      out.code = CURLE_FAILED_INIT;
      out.error = "curl_easy_init";
      return out;
    }
    CURL* curl = curl_;
    curl_easy_reset(curl);
    const std::string port_text = std::to_string(port);
    const std::string url = "https://" + options_.name + ":" + port_text + path;
    curl_slist* resolve = curl_slist_append(nullptr, (options_.name + ":" + port_text + ":127.0.0.1").c_str());
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    curl_blob ca{const_cast<char*>(ca_pem_.data()), ca_pem_.size(), CURL_BLOB_COPY};
    char error[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_RESOLVE, resolve);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca);
    curl_easy_setopt(curl, CURLOPT_CAPATH, nullptr);  // only this CA
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(curl, CURLOPT_SSLVERSION, options_.ssl_version);
    if (!options_.cipher_list.empty()) curl_easy_setopt(curl, CURLOPT_SSL_CIPHER_LIST, options_.cipher_list.c_str());
    curl_easy_setopt(curl, CURLOPT_SSL_SESSIONID_CACHE, 0L);  // a full handshake on every new connection
    if (!reuse_) {
      curl_easy_setopt(curl, CURLOPT_FRESH_CONNECT, 1L);
      curl_easy_setopt(curl, CURLOPT_FORBID_REUSE, 1L);
    }
    curl_easy_setopt(curl, CURLOPT_CERTINFO, 1L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 20000L);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &out.body);
    out.code = curl_easy_perform(curl);
    if (out.code != CURLE_OK) {
      out.error = error[0] != '\0' ? error : curl_easy_strerror(out.code);
    } else {
      curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
      long connects = 0;
      curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
      out.new_connection = connects > 0;
      curl_certinfo* info = nullptr;
      if (curl_easy_getinfo(curl, CURLINFO_CERTINFO, &info) == CURLE_OK && info != nullptr && info->num_of_certs > 0) {
        for (curl_slist* field = info->certinfo[0]; field != nullptr; field = field->next) {
          const std::string text = field->data;
          if (text.starts_with("Cert:")) out.peer_serial = read_certificate(text.substr(5)).serial_hex;
        }
      }
    }
    curl_slist_free_all(resolve);
    curl_slist_free_all(headers);
    return out;
  }

 private:
  std::string ca_pem_;
  PostOptions options_;
  bool reuse_;
  CURL* curl_;
};

inline PostResult https_post(int port, const std::string& ca_pem, const std::string& path, const std::string& body,
                             const PostOptions& options = {}) {
  return HttpsClient(ca_pem, options, false).post(port, path, body);
}

}  // namespace gpupool::webhook::testing
