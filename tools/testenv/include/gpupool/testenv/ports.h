// Loopback TCP ports: for the control plane's components, and for whatever a
// test or benchmark serves on loopback (a webhook, metrics).
#pragma once

#include <vector>

namespace gpupool::testenv {

// `n` distinct ports the kernel handed out for 127.0.0.1:0, all held at once
// and then released. Another process may take one before the component binds
// it; start() retries with new ports when that happens.
std::vector<int> pick_free_ports(int n);

// Whether 127.0.0.1:port can be bound right now.
bool port_is_free(int port);

}  // namespace gpupool::testenv
