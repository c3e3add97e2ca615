#include "parallel_writes.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "gpupool/kube/errors.h"

namespace gpupool::bench {

WriteFigures create_all(kube::Client& client, std::size_t count, int writers,
                        const std::function<kube::ResourceRef(std::size_t)>& collection,
                        const std::function<std::string(std::size_t)>& body) {
  using Clock = std::chrono::steady_clock;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  std::string first_error;
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int w = 0; w < std::max(1, writers); ++w) {
    threads.emplace_back([&] {
      for (std::size_t i; !failed && (i = next++) < count;) {
        const auto give_up = Clock::now() + std::chrono::minutes(1);
        for (;;) {
          try {
            client.create(collection(i), body(i));
            break;
          } catch (const kube::ApiError& e) {
            if (e.is_already_exists()) break;
            const bool no_account_yet = std::string(e.what()).find("serviceaccount") != std::string::npos;
            if (no_account_yet && Clock::now() < give_up) {
              std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the namespace's account comes shortly
              continue;
            }
            std::lock_guard lock(mu);
            if (first_error.empty()) first_error = e.what();
            failed = true;
            break;
          } catch (const std::exception& e) {
            std::lock_guard lock(mu);
            if (first_error.empty()) first_error = e.what();
            failed = true;
            break;
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  if (failed) throw std::runtime_error("seeding failed: " + first_error);
  return {count, std::chrono::duration<double>(Clock::now() - start).count()};
}

}  // namespace gpupool::bench
