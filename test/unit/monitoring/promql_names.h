// What a PromQL expression names, for checking queries against the metric
// families the project exports: a small tokenizer, not a parser. It reads
// vector selectors (metric name and the label names of their matchers,
// {__name__="x"} included), the labels of by / without / on / ignoring /
// group_left / group_right, and the functions called. It knows Prometheus
// 2.42's functions and aggregations; anything called that is not one is
// reported. Grafana's variables ($x, ${x}, [[x]], $__rate_interval) are
// opaque tokens; label values (strings) are not looked at. Header-only:
// test/CMakeLists.txt compiles only *_test.cpp files.
#pragma once

#include <cctype>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::monitoring::testing {

struct Selector {
  std::string metric;               // "" when a selector names no metric
  std::vector<std::string> labels;  // label names in its matchers, __name__ left out
};

struct PromqlNames {
  std::vector<Selector> selectors;
  std::set<std::string> grouping_labels;  // by(), without(), on(), ignoring(), group_left(), group_right()
  std::set<std::string> functions;        // functions and aggregations called
  std::vector<std::string> errors;        // unknown functions, unbalanced brackets, stray tokens
};

inline const std::set<std::string>& promql_functions() {
  static const std::set<std::string> f = {
      // aggregation operators
      "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk", "quantile",
      // functions (Prometheus 2.42)
      "abs", "absent", "absent_over_time", "ceil", "changes", "clamp", "clamp_max", "clamp_min", "day_of_month",
      "day_of_week", "day_of_year", "days_in_month", "delta", "deriv", "exp", "floor", "histogram_quantile",
      "holt_winters", "hour", "idelta", "increase", "irate", "label_join", "label_replace", "ln", "log2", "log10",
      "minute", "month", "predict_linear", "rate", "resets", "round", "scalar", "sgn", "sort", "sort_desc", "sqrt",
      "time", "timestamp", "vector", "year", "avg_over_time", "min_over_time", "max_over_time", "sum_over_time",
      "count_over_time", "quantile_over_time", "stddev_over_time", "stdvar_over_time", "last_over_time",
      "present_over_time", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin", "sinh", "tan",
      "tanh", "deg", "rad", "pi", "start", "end"};
  return f;
}

namespace detail {

enum class Tok { ident, string, number, variable, punct };

struct Token {
  Tok kind;
  std::string text;
};

inline bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }
inline bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }

inline std::vector<Token> tokenize(std::string_view s, std::vector<std::string>& errors) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '"' || c == '\'' || c == '`') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != c) j += (s[j] == '\\' && c != '`') ? 2 : 1;
      if (j >= s.size()) {
        errors.push_back("unterminated string");
        return out;
      }
      out.push_back({Tok::string, std::string(s.substr(i + 1, j - i - 1))});
      i = j + 1;
    } else if (c == '$') {
      std::size_t j = i + 1;
      if (j < s.size() && s[j] == '{') {
        while (j < s.size() && s[j] != '}') ++j;
        ++j;
      } else {
        while (j < s.size() && ident_char(s[j]) && s[j] != ':') ++j;
      }
      out.push_back({Tok::variable, std::string(s.substr(i, j - i))});
      i = j;
    } else if (c == '[' && i + 1 < s.size() && s[i + 1] == '[') {
      const std::size_t j = s.find("]]", i);
      if (j == std::string_view::npos) {
        errors.push_back("unterminated [[variable]]");
        return out;
      }
      out.push_back({Tok::variable, std::string(s.substr(i, j + 2 - i))});
      i = j + 2;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.' || s[j] == '_')) ++j;
      out.push_back({Tok::number, std::string(s.substr(i, j - i))});
      i = j;
    } else if (ident_start(c)) {
      std::size_t j = i;
      while (j < s.size() && ident_char(s[j])) ++j;
      out.push_back({Tok::ident, std::string(s.substr(i, j - i))});
      i = j;
    } else {
      // Two-character operators first.
      static const char* const two[] = {"=~", "!~", "!=", "==", ">=", "<="};
      std::string op(1, c);
      for (const char* t : two) {
        if (s.substr(i, 2) == t) op = t;
      }
      out.push_back({Tok::punct, op});
      i += op.size();
    }
  }
  return out;
}

}  // namespace detail

inline PromqlNames read_promql(std::string_view expr) {
  using detail::Tok;
  PromqlNames out;
  const auto toks = detail::tokenize(expr, out.errors);
  const auto is = [&](std::size_t i, Tok kind, std::string_view text = {}) {
    return i < toks.size() && toks[i].kind == kind && (text.empty() || toks[i].text == text);
  };
  static const std::set<std::string> grouping = {"by", "without", "on", "ignoring", "group_left", "group_right"};
  static const std::set<std::string> aggregations = {"sum",   "min",    "max",          "avg",     "group", "stddev",
                                                     "stdvar", "count", "count_values", "bottomk", "topk",  "quantile"};
  static const std::set<std::string> keywords = {"and", "or", "unless", "offset", "bool", "atan2", "inf", "nan"};
  const auto lower = [](std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  int parens = 0;
  std::size_t i = 0;
  // Reads the matchers of a selector starting at toks[i] == "{" into `sel`; returns the index after "}".
  const auto matchers = [&](std::size_t j, Selector& sel) {
    ++j;
    while (j < toks.size() && !is(j, Tok::punct, "}")) {
      if (!is(j, Tok::ident) || !(is(j + 1, Tok::punct, "=") || is(j + 1, Tok::punct, "!=") ||
                                  is(j + 1, Tok::punct, "=~") || is(j + 1, Tok::punct, "!~")) ||
          !is(j + 2, Tok::string)) {
        out.errors.push_back("cannot read the matcher at token '" + toks[j].text + "'");
        return toks.size();
      }
      if (toks[j].text == "__name__") {
        if (toks[j + 1].text == "=") sel.metric = toks[j + 2].text;
      } else {
        sel.labels.push_back(toks[j].text);
      }
      j += 3;
      if (is(j, Tok::punct, ",")) ++j;
    }
    if (j >= toks.size()) out.errors.push_back("unterminated {");
    return j + 1;
  };
  while (i < toks.size()) {
    const auto& t = toks[i];
    if (t.kind == Tok::punct && t.text == "[") {
      // A range or subquery: durations and variables only.
      while (i < toks.size() && !is(i, Tok::punct, "]")) ++i;
      if (i >= toks.size()) out.errors.push_back("unterminated [");
      ++i;
    } else if (t.kind == Tok::punct && t.text == "{") {
      Selector sel;
      i = matchers(i, sel);
      out.selectors.push_back(sel);
    } else if (t.kind == Tok::ident && grouping.contains(t.text)) {
      ++i;
      if (!is(i, Tok::punct, "(")) {
        if (t.text != "group_left" && t.text != "group_right") out.errors.push_back(t.text + " without a label list");
        continue;
      }
      ++i;
      while (i < toks.size() && !is(i, Tok::punct, ")")) {
        if (is(i, Tok::ident)) {
          out.grouping_labels.insert(toks[i].text);
        } else if (!is(i, Tok::punct, ",")) {
          out.errors.push_back("cannot read the label list of " + t.text + " at '" + toks[i].text + "'");
        }
        ++i;
      }
      ++i;
    } else if (t.kind == Tok::ident && keywords.contains(lower(t.text))) {
      ++i;
    } else if (t.kind == Tok::ident && (is(i + 1, Tok::punct, "(") ||
                                        (aggregations.contains(t.text) &&
                                         (is(i + 1, Tok::ident, "by") || is(i + 1, Tok::ident, "without"))))) {
      if (!promql_functions().contains(t.text)) out.errors.push_back("unknown function " + t.text + "()");
      out.functions.insert(t.text);
      ++i;
    } else if (t.kind == Tok::ident) {
      Selector sel{t.text, {}};
      ++i;
      if (is(i, Tok::punct, "{")) i = matchers(i, sel);
      out.selectors.push_back(sel);
    } else {
      if (t.kind == Tok::punct && t.text == "(") ++parens;
      if (t.kind == Tok::punct && t.text == ")") --parens;
      if (t.kind == Tok::punct && (t.text == "}" || t.text == "]")) out.errors.push_back("stray " + t.text);
      ++i;
    }
  }
  if (parens != 0) out.errors.push_back("unbalanced parentheses");
  return out;
}

// Metric name -> its label names, as exported (scrape-time labels included).
using Catalog = std::map<std::string, std::set<std::string>>;

// What in `expr` the catalog does not have: unknown metrics, labels a
// selector's metric lacks, grouping labels none of the expression's metrics
// has, labels in `legend` ({{label}}) none of them has, unknown functions and
// whatever the reader could not read. Empty: every name is exported.
inline std::vector<std::string> unknown_names(std::string_view expr, const Catalog& catalog,
                                              std::string_view legend = {}) {
  const auto names = read_promql(expr);
  std::vector<std::string> problems = names.errors;
  std::set<std::string> all_labels;
  for (const auto& sel : names.selectors) {
    if (sel.metric.empty()) {
      problems.push_back("a selector without a metric name");
      continue;
    }
    const auto it = catalog.find(sel.metric);
    if (it == catalog.end()) {
      problems.push_back("unknown metric " + sel.metric);
      continue;
    }
    all_labels.insert(it->second.begin(), it->second.end());
    for (const auto& l : sel.labels) {
      if (!it->second.contains(l)) problems.push_back("label " + l + " is not a label of " + sel.metric);
    }
  }
  for (const auto& l : names.grouping_labels) {
    if (!all_labels.contains(l)) problems.push_back("label " + l + " (by/on/...) is no label of the expression's metrics");
  }
  for (std::size_t at = legend.find("{{"); at != std::string_view::npos; at = legend.find("{{", at + 2)) {
    const auto end = legend.find("}}", at);
    if (end == std::string_view::npos) break;
    std::string l(legend.substr(at + 2, end - at - 2));
    while (!l.empty() && l.front() == ' ') l.erase(0, 1);
    while (!l.empty() && l.back() == ' ') l.pop_back();
    if (!all_labels.contains(l)) problems.push_back("legend label " + l + " is no label of the expression's metrics");
  }
  return problems;
}

}  // namespace gpupool::monitoring::testing
