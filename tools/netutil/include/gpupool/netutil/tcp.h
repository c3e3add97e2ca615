// TCP socket helpers for the loopback servers and clients in tools/ and the
// tests: listening, connecting with a deadline, timeouts, abrupt closes.
// Descriptors are created close-on-exec; the caller owns what it gets.
#pragma once

#include <chrono>
#include <string>

namespace gpupool::netutil {

// A host and port from "HOST:PORT", "[V6]:PORT" or ":PORT" (host then
// empty). Throws std::invalid_argument when it is none of these or the port is
// not in [0, 65535].
struct HostPort {
  std::string host;
  int port = 0;
};
HostPort parse_host_port(const std::string& text);

// How a URL names a server listening on `host`: 127.0.0.1 for an empty,
// "localhost" or 0.0.0.0 address, [::1] for ::, IPv6 addresses in brackets.
std::string url_host(const std::string& host);

// A listening socket bound to `host` (a numeric IPv4 or IPv6 address, or
// "localhost"; empty means 127.0.0.1) and `port` (0: an ephemeral one), with
// SO_REUSEADDR. `bound_port` gets the port actually bound. Throws
// std::runtime_error naming the address on failure.
int listen_tcp(const std::string& host, int port, int backlog, int* bound_port);

// Stops a listening socket from listening while keeping its address and
// port: connection attempts are then refused (ECONNREFUSED) as if nothing
// listened, and connections waiting in its backlog are reset, until listen()
// is called on it again. False (errno set) when it could not: the socket may
// then have lost its port, and listening again binds a new one.
bool stop_listening(int fd);

// A connected socket to `host` (numeric address or a name resolved with
// getaddrinfo) and `port`, with TCP_NODELAY, or -1 when no address could be
// reached within `timeout` (then `error` says why).
int connect_tcp(const std::string& host, int port, std::chrono::milliseconds timeout, std::string* error);

// accept4() with SOCK_CLOEXEC and TCP_NODELAY; -1 on failure.
int accept_tcp(int listen_fd);

// SO_RCVTIMEO / SO_SNDTIMEO: a blocking read or write fails after this long.
void set_read_timeout(int fd, std::chrono::milliseconds timeout);
void set_write_timeout(int fd, std::chrono::milliseconds timeout);

// Closes with SO_LINGER 0: the peer gets a TCP reset, as from a crashed server.
void close_with_reset(int fd);

// Blocks SIGPIPE in the calling thread, so that writing to a TLS connection
// the peer closed leaves it pending instead of killing the process. Call at
// the start of every thread that writes through OpenSSL.
void block_sigpipe_in_this_thread();

}  // namespace gpupool::netutil
