// Decoding a large PodList: a whole-document DOM against the streaming SAX
// projection (json_projection.h), and a DOM per item found by scan_list.
//
//   gpupool-list-decode-bench [--pods N] [--file PATH] [--keep]
//
// Generates PATH (default /tmp/gpupool-bench-pods-N.json) unless it exists:
// a compact PodList of N Deployment pods shaped like the apiserver's output
// (managedFields, probes, env, a projected token volume, status...). Each mode
// runs in its own forked child so the peak RSS reported (wait4) is that
// mode's alone. A file this run generated is removed afterwards unless --keep.
// Prints figures only; there are no thresholds.
#include <fcntl.h>
#include <rapidjson/document.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpupool/kube/json_projection.h"
#include "pod_writer.h"

namespace {

using gpupool::bench::PodWriter;
using gpupool::kube::PodProjection;

// ---- the generated PodList ---------------------------------------------------

// Writes the list to a temporary name first so an interrupted run never leaves
// a truncated file that a later run would reuse.
void generate(const std::string& path, std::size_t pods) {
  const std::string tmp = path + ".partial";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot create " + tmp + ": " + std::strerror(errno));
  PodWriter writer(42);
  std::string head = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":")" +
                     std::to_string(1000000 + pods * 3) + R"("},"items":[)";
  bool ok = std::fwrite(head.data(), 1, head.size(), f) == head.size();
  for (std::size_t i = 0; ok && i < pods; ++i) {
    std::string pod = writer.pod(i);
    if (i + 1 < pods) pod += ',';
    ok = std::fwrite(pod.data(), 1, pod.size(), f) == pod.size();
  }
  ok = ok && std::fputs("]}\n", f) >= 0;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) throw std::runtime_error("cannot write " + tmp);
  std::filesystem::rename(tmp, path);
}

// ---- the measured modes --------------------------------------------------------

struct Figures {
  double seconds = 0;
  uint64_t pods = 0;
  uint64_t check = 0;  // a sum over decoded fields, so nothing is optimized away
};

// Length of metadata.name, 0 when absent: touches every item like a consumer would.
std::size_t name_length(const rapidjson::Value& pod) {
  if (!pod.IsObject()) return 0;
  auto meta = pod.FindMember("metadata");
  if (meta == pod.MemberEnd() || !meta->value.IsObject()) return 0;
  auto name = meta->value.FindMember("name");
  return name != meta->value.MemberEnd() && name->value.IsString() ? name->value.GetStringLength() : 0;
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// (a) read the whole file, parse it into one Document, walk the items.
Figures dom_whole(const std::string& path) {
  Figures r;
  const double t0 = now();
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string text(std::filesystem::file_size(path), '\0');
  const bool read_ok = std::fread(text.data(), 1, text.size(), f) == text.size();
  std::fclose(f);
  if (!read_ok) throw std::runtime_error("cannot read " + path);
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError() || !doc.IsObject()) throw std::runtime_error("DOM parse failed");
  auto items = doc.FindMember("items");
  if (items == doc.MemberEnd() || !items->value.IsArray()) throw std::runtime_error("no items array");
  for (const auto& item : items->value.GetArray()) {
    ++r.pods;
    r.check += name_length(item);
  }
  r.seconds = now() - t0;
  return r;
}

// (b) the streaming SAX projection.
Figures projection(const std::string& path) {
  Figures r;
  const double t0 = now();
  gpupool::kube::project_pod_list_file(path, [&](PodProjection&& pod) {
    ++r.pods;
    r.check += pod.name.size();
  });
  r.seconds = now() - t0;
  return r;
}

// (c) mmap the file, find items with scan_list, parse each into its own Document.
Figures dom_per_item(const std::string& path) {
  Figures r;
  const double t0 = now();
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw std::runtime_error("cannot open " + path);
  const std::size_t size = std::filesystem::file_size(path);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) throw std::runtime_error("cannot mmap " + path);
  ::madvise(map, size, MADV_SEQUENTIAL);
  gpupool::kube::scan_list(std::string_view(static_cast<const char*>(map), size), [&](std::string_view item) {
    rapidjson::Document doc;
    doc.Parse(item.data(), item.size());
    if (doc.HasParseError()) throw std::runtime_error("item parse failed");
    ++r.pods;
    r.check += name_length(doc);
  });
  ::munmap(map, size);
  r.seconds = now() - t0;
  return r;
}

struct Measured {
  Figures figures;
  double peak_rss_mib = 0;
};

// Runs `mode` in a child process; its figures come back through a pipe and
// its peak RSS from wait4.
Measured run_in_child(const std::function<Figures()>& mode) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    int code = 0;
    try {
      Figures f = mode();
      if (::write(fds[1], &f, sizeof f) != static_cast<ssize_t>(sizeof f)) code = 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      code = 1;
    }
    ::_exit(code);
  }
  ::close(fds[1]);
  Measured m;
  const bool got = ::read(fds[0], &m.figures, sizeof m.figures) == static_cast<ssize_t>(sizeof m.figures);
  ::close(fds[0]);
  int status = 0;
  rusage ru{};
  if (::wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !got) {
    throw std::runtime_error("benchmark child failed");
  }
  m.peak_rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB
  return m;
}

// Reads the file once so every mode starts with it in the page cache.
void warm_page_cache(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return;
  std::vector<char> buf(1 << 20);
  while (std::fread(buf.data(), 1, buf.size(), f) == buf.size()) {
  }
  std::fclose(f);
}

[[noreturn]] void usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s [--pods N] [--file PATH] [--keep]\n", argv0);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t pods = 150000;
  std::string path;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--pods" && i + 1 < argc) {
      pods = std::strtoull(argv[++i], nullptr, 10);
      if (pods == 0) usage(argv[0]);
    } else if (arg == "--file" && i + 1 < argc) {
      path = argv[++i];
    } else if (arg == "--keep") {
      keep = true;
    } else {
      usage(argv[0]);
    }
  }
  if (path.empty()) path = "/tmp/gpupool-bench-pods-" + std::to_string(pods) + ".json";

  try {
    bool generated = false;
    if (!std::filesystem::exists(path)) {
      std::printf("generating %zu pods into %s ...\n", pods, path.c_str());
      const double t0 = now();
      generate(path, pods);
      std::printf("generated in %.1f s\n", now() - t0);
      generated = true;
    } else {
      std::printf("using existing %s (--pods does not apply to it)\n", path.c_str());
    }
    const double size = static_cast<double>(std::filesystem::file_size(path));
    const double mib = size / (1024.0 * 1024.0);
    warm_page_cache(path);

    const Measured baseline = run_in_child([] { return Figures{}; });
    const Measured proj = run_in_child([&] { return projection(path); });
    const Measured dom = run_in_child([&] { return dom_whole(path); });
    const Measured item = run_in_child([&] { return dom_per_item(path); });

    std::printf("file: %s, %.1f MiB (%.0f bytes), %.0f bytes per pod\n", path.c_str(), mib, size,
                proj.figures.pods ? size / static_cast<double>(proj.figures.pods) : 0.0);
    std::printf("peak RSS of an idle child (included below): %.1f MiB\n\n", baseline.peak_rss_mib);
    std::printf("%-44s %9s %9s %14s %9s\n", "mode", "seconds", "MiB/s", "peak RSS MiB", "pods");
    auto row = [&](const char* name, const Measured& m) {
      std::printf("%-44s %9.3f %9.1f %14.1f %9llu\n", name, m.figures.seconds, mib / m.figures.seconds,
                  m.peak_rss_mib, static_cast<unsigned long long>(m.figures.pods));
    };
    row("(a) DOM: read file + Document::Parse", dom);
    row("(b) projection: project_pod_list_file", proj);
    row("(c) DOM per item: mmap + scan_list", item);
    std::printf("\nprojection vs DOM: %.2fx the speed, %.1fx less peak memory\n",
                dom.figures.seconds / proj.figures.seconds, dom.peak_rss_mib / proj.peak_rss_mib);
    std::printf("(c) RSS counts the mapped file's pages; they are page cache, not heap.\n");
    if (dom.figures.pods != proj.figures.pods || item.figures.pods != proj.figures.pods ||
        dom.figures.check != proj.figures.check || item.figures.check != proj.figures.check) {
      std::printf("warning: the modes decoded different data\n");
    }

    if (generated && !keep) std::filesystem::remove(path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
