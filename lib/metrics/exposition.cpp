#include "gpupool/metrics/exposition.h"

#include <charconv>
#include <cmath>

#include "gpupool/metrics/registry.h"

namespace gpupool::metrics {
namespace {

void append_labels(std::string& out, const std::vector<std::string>& names, const std::vector<std::string>& values,
                   std::string_view le = {}) {
  if (names.empty() && le.empty()) return;
  out += '{';
  bool first = true;
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) {
    if (!first) out += ',';
    first = false;
    out += names[i];
    out += "=\"";
    out += escape_label_value(values[i]);
    out += '"';
  }
  if (!le.empty()) {
    if (!first) out += ',';
    out += "le=\"";
    out += le;
    out += '"';
  }
  out += '}';
}

void append_sample(std::string& out, std::string_view name, std::string_view suffix,
                   const std::vector<std::string>& label_names, const std::vector<std::string>& label_values,
                   std::string_view value, std::string_view le = {}) {
  out += name;
  out += suffix;
  append_labels(out, label_names, label_values, le);
  out += ' ';
  out += value;
  out += '\n';
}

void append_family(std::string& out, const FamilySnapshot& family) {
  if (family.children.empty()) return;
  if (!family.help.empty()) {
    out += "# HELP ";
    out += family.name;
    out += ' ';
    out += escape_help(family.help);
    out += '\n';
  }
  out += "# TYPE ";
  out += family.name;
  out += ' ';
  out += exposition_type(family.kind);
  out += '\n';
  for (const auto& child : family.children) {
    if (family.kind != MetricKind::Histogram) {
      append_sample(out, family.name, "", family.label_names, child.label_values, format_value(child.value));
      continue;
    }
    for (std::size_t i = 0; i < family.bucket_bounds.size(); ++i) {
      const std::uint64_t count = i < child.cumulative_counts.size() ? child.cumulative_counts[i] : 0;
      append_sample(out, family.name, "_bucket", family.label_names, child.label_values, std::to_string(count),
                    format_value(family.bucket_bounds[i]));
    }
    append_sample(out, family.name, "_bucket", family.label_names, child.label_values, std::to_string(child.count),
                  "+Inf");
    append_sample(out, family.name, "_sum", family.label_names, child.label_values, format_value(child.sum));
    append_sample(out, family.name, "_count", family.label_names, child.label_values, std::to_string(child.count));
  }
}

}  // namespace

std::string escape_help(std::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, result.ptr);
}

std::string render_text(const std::vector<FamilySnapshot>& families) {
  std::string out;
  for (const auto& family : families) append_family(out, family);
  return out;
}

std::string render_text(const Registry& registry) { return render_text(registry.collect()); }

}  // namespace gpupool::metrics
