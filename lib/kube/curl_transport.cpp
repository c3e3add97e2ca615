// HttpTransport over libcurl (OpenSSL). Easy handles are pooled so their
// connection caches (and HTTP/2 connections) are reused across requests.
#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpupool/kube/errors.h"
#include "gpupool/kube/http.h"

namespace gpupool::kube {

namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct HandleDeleter {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
using Handle = std::unique_ptr<CURL, HandleDeleter>;

struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

// State shared with curl's C callbacks for one transfer.
struct Transfer {
  const StreamHandler* stream = nullptr;  // null: buffer into response.body
  HttpResponse response;
  bool headers_delivered = false;
  bool aborted_by_us = false;
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

bool deliver_headers(Transfer& t) {
  if (t.headers_delivered) return true;
  t.headers_delivered = true;
  if (t.stream && t.stream->on_headers && !t.stream->on_headers(t.response.status, t.response.headers)) {
    t.aborted_by_us = true;
    return false;
  }
  return true;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  std::string line(data, size * n);
  if (line == "\r\n" || line == "\n") {
    // The end of a header block. A stream's handler hears of the answer now,
    // not with its first byte of body: a quiet watch may send none for
    // minutes, and whether the server had answered decides how soon a cut
    // stream is resumed (Client::watch). 1xx blocks are not the answer.
    if (t.stream && t.response.status >= 200 && !deliver_headers(t)) return 0;
    return size * n;
  }
  if (line.rfind("HTTP/", 0) == 0) {  // a new status line (also after 100 Continue)
    auto sp = line.find(' ');
    t.response.status = sp == std::string::npos ? 0 : std::atoi(line.c_str() + sp + 1);
    t.response.headers.clear();
    return size * n;
  }
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    t.response.headers[lower(line.substr(0, colon))] = trim(line.substr(colon + 1));
  }
  return size * n;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  size_t len = size * n;
  if (!t.stream) {
    t.response.body.append(data, len);
    return len;
  }
  if (!deliver_headers(t)) return 0;
  if (t.stream->on_data && !t.stream->on_data(std::string_view(data, len))) {
    t.aborted_by_us = true;
    return 0;
  }
  return len;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto& t = *static_cast<Transfer*>(user);
  if (t.stream && t.stream->cancelled && t.stream->cancelled()) {
    t.aborted_by_us = true;
    return 1;
  }
  return 0;
}

TransportError::Kind classify(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    // A handshake cut short (a server restarting, a proxy resetting): the
    // request was never sent. Certificate failures have codes of their own.
    case CURLE_SSL_CONNECT_ERROR:
      return TransportError::Kind::Connect;
    case CURLE_OPERATION_TIMEDOUT:
      return TransportError::Kind::Timeout;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
      return TransportError::Kind::Tls;
    case CURLE_ABORTED_BY_CALLBACK:
    case CURLE_WRITE_ERROR:
      return TransportError::Kind::Aborted;
    default:
      return TransportError::Kind::Other;
  }
}

// Host and port of an absolute URL, for CURLOPT_CONNECT_TO.
bool split_host_port(const std::string& url, std::string& scheme, std::string& host, std::string& port,
                     std::string& rest) {
  auto sep = url.find("://");
  if (sep == std::string::npos) return false;
  scheme = url.substr(0, sep);
  auto start = sep + 3;
  auto end = url.find('/', start);
  std::string authority = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  rest = end == std::string::npos ? "" : url.substr(end);
  auto colon = authority.rfind(':');
  if (colon != std::string::npos && authority.find(']', colon) == std::string::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  } else {
    host = authority;
    port = scheme == "https" ? "443" : "80";
  }
  return true;
}

class CurlTransport final : public HttpTransport {
 public:
  explicit CurlTransport(const RestConfig& config) : config_(config) { global_init(); }

  HttpResponse send(const HttpRequest& request) override {
    Transfer t;
    perform(request, t);
    return std::move(t.response);
  }

  int stream(const HttpRequest& request, const StreamHandler& handler) override {
    Transfer t;
    t.stream = &handler;
    perform(request, t);
    // A body-less answer (e.g. an error with no content) still reports its headers.
    if (!t.headers_delivered && !deliver_headers(t)) {
      throw TransportError(TransportError::Kind::Aborted, "stream aborted by the caller");
    }
    return t.response.status;
  }

 private:
  Handle take_handle() {
    {
      std::lock_guard lock(mu_);
      if (!idle_.empty()) {
        Handle h = std::move(idle_.back());
        idle_.pop_back();
        curl_easy_reset(h.get());  // keeps the connection cache
        return h;
      }
    }
    Handle h(curl_easy_init());
    if (!h) throw TransportError(TransportError::Kind::Other, "curl_easy_init failed");
    return h;
  }

  void give_back(Handle h) {
    std::lock_guard lock(mu_);
    if (idle_.size() < 16) idle_.push_back(std::move(h));
  }

  void perform(const HttpRequest& request, Transfer& t) {
    Handle handle = take_handle();
    CURL* h = handle.get();
    Credentials creds;
    if (config_.credentials) creds = config_.credentials->get();

    std::string url = request.url;
    Slist connect_to;
    if (!config_.tls.server_name.empty()) {
      // Verify the certificate against tls-server-name while connecting to the real host.
      std::string scheme, host, port, rest;
      if (split_host_port(url, scheme, host, port, rest)) {
        url = scheme + "://" + config_.tls.server_name + ":" + port + rest;
        connect_to.reset(curl_slist_append(nullptr, (config_.tls.server_name + ":" + port + ":" + host + ":" + port).c_str()));
        curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to.get());
      }
    }

    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (request.method == "GET") curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    if (!request.body.empty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH") {
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    }
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPIDLE, 30L);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPINTVL, 10L);
    if (request.timeout.count() > 0) curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
    curl_easy_setopt(h, CURLOPT_USERAGENT, config_.user_agent.c_str());
    if (!config_.proxy_url.empty()) curl_easy_setopt(h, CURLOPT_PROXY, config_.proxy_url.c_str());

    // TLS: verification stays on unless the configuration turns it off.
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, config_.tls.insecure_skip_verify ? 0L : 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, config_.tls.insecure_skip_verify ? 0L : 2L);
    curl_blob ca{};
    if (!config_.tls.ca_pem.empty()) {
      ca.data = const_cast<char*>(config_.tls.ca_pem.data());
      ca.len = config_.tls.ca_pem.size();
      ca.flags = CURL_BLOB_COPY;
      curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
    }
    curl_blob cert{}, key{};
    if (!creds.client_cert_pem.empty()) {
      cert.data = creds.client_cert_pem.data();
      cert.len = creds.client_cert_pem.size();
      cert.flags = CURL_BLOB_COPY;
      key.data = creds.client_key_pem.data();
      key.len = creds.client_key_pem.size();
      key.flags = CURL_BLOB_COPY;
      curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
      curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cert);
      curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
      curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &key);
    }

    Slist headers;
    auto add = [&headers](const std::string& line) {
      curl_slist* next = curl_slist_append(headers.get(), line.c_str());
      if (!next) throw TransportError(TransportError::Kind::Other, "out of memory building headers");
      (void)headers.release();
      headers.reset(next);
    };
    for (const auto& [name, value] : request.headers) add(name + ": " + value);
    if (!creds.bearer_token.empty()) add("Authorization: Bearer " + creds.bearer_token);
    add("Expect:");  // no 100-continue round trip for large bodies
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());

    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
    if (t.stream) {
      curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
      curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
      curl_easy_setopt(h, CURLOPT_XFERINFODATA, &t);
    }

    CURLcode rc = curl_easy_perform(h);
    if (rc != CURLE_OK) {
      char buf[CURL_ERROR_SIZE];
      auto kind = t.aborted_by_us ? TransportError::Kind::Aborted : classify(rc);
      if (kind == TransportError::Kind::Aborted && !t.aborted_by_us) kind = TransportError::Kind::Other;
      std::snprintf(buf, sizeof buf, "%s", curl_easy_strerror(rc));
      // The handle may hold a broken connection; don't reuse it.
      throw TransportError(kind, request.method + " " + strip_query(request.url) + ": " + buf);
    }
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    t.response.status = static_cast<int>(status);
    long version = 0, connects = 0;
    curl_easy_getinfo(h, CURLINFO_HTTP_VERSION, &version);
    curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &connects);
    t.response.http_major = version == CURL_HTTP_VERSION_2_0 ? 2 : version == CURL_HTTP_VERSION_3 ? 3 : 1;
    t.response.new_connections = connects;
    // Drop per-request pointers before the handle goes back to the pool.
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, nullptr);
    curl_easy_setopt(h, CURLOPT_CONNECT_TO, nullptr);
    give_back(std::move(handle));
  }

  static std::string strip_query(const std::string& url) { return url.substr(0, url.find('?')); }

  RestConfig config_;
  std::mutex mu_;
  std::vector<Handle> idle_;
};

}  // namespace

std::shared_ptr<HttpTransport> make_curl_transport(const RestConfig& config) {
  return std::make_shared<CurlTransport>(config);
}

}  // namespace gpupool::kube
