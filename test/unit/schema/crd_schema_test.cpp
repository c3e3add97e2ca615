// CrdSchemaSet against the fixture CRDs in test/data/schema/widgets.yaml.
#include "gpupool/schema/crd_schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "gpupool/api/manifest.h"

namespace gpupool::schema {
namespace {

std::string fixture_path() { return std::string(GPUPOOL_SOURCE_DIR) + "/test/data/schema/widgets.yaml"; }

const CrdSchemaSet& widgets() {
  static const CrdSchemaSet set = CrdSchemaSet::load({fixture_path()});
  return set;
}

// Validates the first object in `yaml`.
api::FieldErrors check(const std::string& yaml) {
  const api::ManifestSet m = api::load_manifests_from_string(yaml, "case.yaml");
  if (!m.errors.empty()) return {{"<load>", m.errors.front().str()}};
  if (m.objects.empty()) return {{"<load>", "no object"}};
  return widgets().validate(m.objects.front().object);
}

std::string widget(const std::string& spec) {
  return "apiVersion: test.gpupool.io/v1\nkind: Widget\nmetadata: {name: w1, namespace: team-a}\nspec: " + spec + "\n";
}

struct Expected {
  std::string path;
  std::string reason;  // a substring of the reason
};

struct Case {
  const char* name;
  std::string yaml;
  std::vector<Expected> errors;
};

std::string describe(const api::FieldErrors& errs) {
  std::string out;
  for (const auto& e : errs) out += "\n  [" + e.path + "] " + e.reason;
  return out;
}

TEST(CrdSchemaLoad, FixtureKinds) {
  const auto& set = widgets();
  ASSERT_EQ(set.kinds().size(), 3u);  // Widget v1, Widget v0, Gadget v1; the ConfigMap is ignored
  const CrdKind* w = set.find("test.gpupool.io/v1", "Widget");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->group, "test.gpupool.io");
  EXPECT_EQ(w->version, "v1");
  EXPECT_EQ(w->plural, "widgets");
  EXPECT_EQ(w->list_kind, "WidgetList");
  EXPECT_EQ(w->scope, "Namespaced");
  EXPECT_TRUE(w->served);
  EXPECT_TRUE(w->storage);
  ASSERT_TRUE(w->openapi_schema);
  EXPECT_TRUE((*w->openapi_schema)["properties"]["spec"].IsObject());
  const CrdKind* v0 = set.find("test.gpupool.io/v0", "Widget");
  ASSERT_NE(v0, nullptr);
  EXPECT_FALSE(v0->served);
  const CrdKind* g = set.find("test.gpupool.io/v1", "Gadget");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->list_kind, "GadgetList");
  EXPECT_FALSE(g->namespaced());
  EXPECT_EQ(set.find("test.gpupool.io/v2", "Widget"), nullptr);
  EXPECT_EQ(set.find("v1", "Widget"), nullptr);
}

TEST(CrdSchemaLoad, CelRulesAreListedNotEvaluated) {
  const CrdKind* w = widgets().find("test.gpupool.io/v1", "Widget");
  ASSERT_NE(w, nullptr);
  const auto rules = w->cel_rules();
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].path, "");
  EXPECT_EQ(rules[0].message, "name too long");
  EXPECT_EQ(rules[1].path, "spec");
  EXPECT_EQ(rules[1].field_path, ".minReplicas");
  EXPECT_EQ(rules[1].reason, "FieldValueInvalid");
  EXPECT_NE(rules[1].rule.find("self.minReplicas <= self.replicas"), std::string::npos);
  EXPECT_EQ(rules[2].path, "spec.selector.matchExpressions[*]");
  // Not evaluated: minReplicas > replicas passes the schema check.
  EXPECT_TRUE(check(widget("{size: 1, mode: Fast, replicas: 1, minReplicas: 5}")).empty());
}

TEST(CrdSchemaLoad, MalformedCrdsThrowClearErrors) {
  const std::string head =
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x.y}\n";
  auto throws_with = [](const std::string& text, const std::string& needle) {
    try {
      CrdSchemaSet::from_yaml(text, "bad-crd.yaml");
      ADD_FAILURE() << "no error for: " << text;
    } catch (const CrdError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad-crd.yaml"), std::string::npos) << e.what();
    }
  };
  throws_with(head + "spec: {group: g, scope: Cluster, names: {kind: K, plural: ks}}\n", "spec.versions is required");
  throws_with(head + "spec: {scope: Cluster, names: {kind: K, plural: ks}, versions: [{name: v1}]}\n",
              "spec.group is required");
  throws_with(head + "spec: {group: g, scope: Cluster, names: {kind: K, plural: ks}, versions: [{name: v1}]}\n",
              "openAPIV3Schema is required");
  throws_with(head +
                  "spec: {group: g, scope: Cluster, names: {kind: K, plural: ks}, versions: [{name: v1, schema: "
                  "{openAPIV3Schema: {type: object, properties: {a: {type: strin}}}}}]}\n",
              "properties.a.type: unsupported type \"strin\"");
  throws_with(head +
                  "spec: {group: g, scope: Cluster, names: {kind: K, plural: ks}, versions: [{name: v1, schema: "
                  "{openAPIV3Schema: {type: object, properties: {a: {type: string, maxLength: -1}}}}}]}\n",
              "maxLength");
  throws_with(head + "spec: {group: g, scope: Galaxy, names: {kind: K, plural: ks}, versions: []}\n", "spec.scope");
  throws_with("a: [1\n", "cannot read CRDs");
  EXPECT_TRUE(CrdSchemaSet::from_yaml("", "empty").empty());
  EXPECT_TRUE(CrdSchemaSet::from_yaml("\n---\n# nothing\n", "empty").empty());
}

TEST(CrdSchemaValidate, Cases) {
  const std::vector<Case> cases = {
      {"minimal valid", widget("{size: 4, mode: Fast}"), {}},
      {"every field valid",
       widget(R"({size: 64, ratio: 0.5, replicas: 2, minReplicas: 0, bigCount: 9223372036854775807, mode: Slow,
         name: a-1, title: "ééé", enabled: yes, createdAt: "2024-01-02T03:04:05.123+02:00", day: "2024-02-29",
         note: null, maxUnavailable: "25%", quantity: "12", tags: [a, b], days: [Mon, Wed],
         conditions: [{type: Ready, status: "True", lastTransitionTime: "2024-01-01T00:00:00Z"}, {type: Synced, status: "False"}],
         ports: [{name: http, protocol: TCP}, {name: http, protocol: UDP}],
         resources: {nvidia.com/gpu: 4, memory: 10Gi}, labels: {team: ml},
         selector: {matchExpressions: [{key: k, operator: In, values: [a]}]},
         extra: {known: 1, whatever: {deep: [1]}}, template: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {x: 1}},
         closed: {a: x}, anything: {any: [thing]}, choice: {a: x}, limited: 10, word: allowed})"),
       {}},
      {"integer above maximum", widget("{size: 70, mode: Fast}"),
       {{"spec.size", "Invalid value: 70: spec.size in body should be less than or equal to 64"}}},
      {"integer below minimum", widget("{size: 0, mode: Fast}"),
       {{"spec.size", "Invalid value: 0: spec.size in body should be greater than or equal to 1"}}},
      {"string for integer", widget("{size: \"4\", mode: Fast}"),
       {{"spec.size", "Invalid value: \"string\": spec.size in body must be of type integer: \"string\""}}},
      {"fraction for integer", widget("{size: 4.5, mode: Fast}"),
       {{"spec.size", "must be of type integer: \"number\""}}},
      {"int32 overflow", widget("{size: 1, replicas: 3000000000, mode: Fast}"),
       {{"spec.replicas", "Invalid value: 3000000000: spec.replicas in body must be of type int32"}}},
      {"int64 overflow", widget("{size: 1, mode: Fast, bigCount: 18446744073709551615}"),
       {{"spec.bigCount", "must be of type int64"}}},
      {"exclusive maximum", widget("{size: 1, mode: Fast, ratio: 1}"),
       {{"spec.ratio", "Invalid value: 1: spec.ratio in body should be less than 1"}}},
      {"exclusive minimum with a float", widget("{size: 1, mode: Fast, ratio: -0.5}"),
       {{"spec.ratio", "Invalid value: -0.5: spec.ratio in body should be greater than 0"}}},
      {"required missing; a defaulted required field is not", widget("{size: 1}"),
       {{"spec.mode", "Required value"}}},
      {"spec missing", "apiVersion: test.gpupool.io/v1\nkind: Widget\nmetadata: {name: w}\n",
       {{"spec", "Required value"}}},
      {"enum", widget("{size: 1, mode: Medium}"),
       {{"spec.mode", "Unsupported value: \"Medium\": supported values: \"Fast\", \"Slow\""}}},
      {"enum is case-sensitive", widget("{size: 1, mode: fast}"), {{"spec.mode", "Unsupported value: \"fast\""}}},
      {"null for a non-nullable string", widget("{size: 1, mode: null}"),
       {{"spec.mode", "Invalid value: \"null\": spec.mode in body must be of type string: \"null\""}}},
      // kube-apiserver defaults a null of a field that has a default (and
      // only then): checked against v1.37 with spec.monitoring: null.
      {"null for a field with a default is defaulted", widget("{size: 1, mode: Fast, replicas: null}"), {}},
      {"empty string: minLength and pattern", widget("{size: 1, mode: Fast, name: \"\"}"),
       {{"spec.name", "Invalid value: \"\": spec.name in body should be at least 1 chars long"},
        {"spec.name", "should match '^[a-z][a-z0-9-]*$'"}}},
      {"maxLength", widget("{size: 1, mode: Fast, name: abcdefghij}"),
       {{"spec.name", "Too long: may not be longer than 8"}}},
      {"maxLength counts code points", widget("{size: 1, mode: Fast, title: \"ééééé\"}"),
       {{"spec.title", "Too long: may not be longer than 4"}}},
      {"pattern", widget("{size: 1, mode: Fast, name: Abc}"),
       {{"spec.name", "Invalid value: \"Abc\": spec.name in body should match '^[a-z][a-z0-9-]*$'"}}},
      {"date-time", widget("{size: 1, mode: Fast, createdAt: \"2024-13-01T00:00:00Z\"}"),
       {{"spec.createdAt", "spec.createdAt in body must be of type date-time: \"2024-13-01T00:00:00Z\""}}},
      {"date-time without zone", widget("{size: 1, mode: Fast, createdAt: \"2024-01-01T00:00:00\"}"),
       {{"spec.createdAt", "must be of type date-time"}}},
      {"date", widget("{size: 1, mode: Fast, day: \"2023-02-29\"}"), {{"spec.day", "must be of type date"}}},
      {"quoted yes is a string", widget("{size: 1, mode: Fast, enabled: \"yes\"}"),
       {{"spec.enabled", "must be of type boolean: \"string\""}}},
      {"int-or-string: integer ok, bad string", widget("{size: 1, mode: Fast, maxUnavailable: abc}"),
       {{"spec.maxUnavailable", "Invalid value: \"abc\": spec.maxUnavailable in body should match '^[0-9]+%$'"}}},
      {"int-or-string: boolean", widget("{size: 1, mode: Fast, maxUnavailable: true}"),
       {{"spec.maxUnavailable", "must be of type integer,string: \"boolean\""}}},
      {"int-or-string: anyOf branches", widget("{size: 1, mode: Fast, quantity: 1Gi}"),
       {{"spec.quantity", "must validate at least one schema (anyOf)"},
        {"spec.quantity", "should match '^[0-9]+$'"}}},
      {"int-or-string: negative integer", widget("{size: 1, mode: Fast, quantity: -1}"),
       {{"spec.quantity", "must validate at least one schema (anyOf)"},
        {"spec.quantity", "should be greater than or equal to 0"}}},
      {"set duplicates", widget("{size: 1, mode: Fast, tags: [a, b, a]}"),
       {{"spec.tags[2]", "Duplicate value: \"a\""}}},
      {"maxItems", widget("{size: 1, mode: Fast, tags: [a, b, c, d, e]}"),
       {{"spec.tags", "Too many: 5: must have at most 4 items"}}},
      {"minItems", widget("{size: 1, mode: Fast, days: []}"),
       {{"spec.days", "Invalid value: []: spec.days in body should have at least 1 items"}}},
      {"enum inside an array", widget("{size: 1, mode: Fast, days: [Mon, Fri, Tue, Sun]}"),
       {{"spec.days[1]", "Unsupported value: \"Fri\": supported values: \"Mon\", \"Tue\", \"Wed\""},
        {"spec.days[3]", "Unsupported value: \"Sun\""}}},
      {"list-map duplicate key",
       widget("{size: 1, mode: Fast, conditions: [{type: Ready, status: \"True\"}, {type: Ready, status: \"False\"}]}"),
       {{"spec.conditions[1]", "Duplicate value: {\"type\":\"Ready\"}"}}},
      {"list-map with two keys",
       widget("{size: 1, mode: Fast, ports: [{name: a, protocol: TCP}, {name: b, protocol: TCP}, {name: a, protocol: TCP}]}"),
       {{"spec.ports[2]", "Duplicate value: {\"name\":\"a\",\"protocol\":\"TCP\"}"}}},
      {"list-map key with a default is not required", widget("{size: 1, mode: Fast, ports: [{name: a}]}"), {}},
      {"required inside list items", widget("{size: 1, mode: Fast, conditions: [{type: Ready}]}"),
       {{"spec.conditions[0].status", "Required value"}}},
      {"enum in list items", widget("{size: 1, mode: Fast, conditions: [{type: Ready, status: Maybe}]}"),
       {{"spec.conditions[0].status", "Unsupported value: \"Maybe\": supported values: \"True\", \"False\", \"Unknown\""}}},
      {"plain Yes is a boolean (YAML 1.1)", widget("{size: 1, mode: Fast, conditions: [{type: Ready, status: Yes}]}"),
       {{"spec.conditions[0].status",
         "Invalid value: \"boolean\": spec.conditions[0].status in body must be of type string: \"boolean\""}}},
      {"map value: path uses the key", widget("{size: 1, mode: Fast, resources: {nvidia.com/gpu: true}}"),
       {{"spec.resources[nvidia.com/gpu]", "must be of type integer,string: \"boolean\""}}},
      {"maxProperties", widget("{size: 1, mode: Fast, resources: {a: 1, b: 2, c: 3, d: 4}}"),
       {{"spec.resources", "Too many: 4: must have at most 3 items"}}},
      {"minProperties", widget("{size: 1, mode: Fast, labels: {}}"),
       {{"spec.labels", "should have at least 1 properties"}}},
      {"additionalProperties schema", widget("{size: 1, mode: Fast, labels: {team: toolong}}"),
       {{"spec.labels[team]", "Too long: may not be longer than 5"}}},
      {"unknown field in spec", widget("{size: 1, mode: Fast, fooBar: 1}"),
       {{"spec.fooBar", "unknown field \"spec.fooBar\""}}},
      {"unknown field at the top", widget("{size: 1, mode: Fast}") + "specs: {}\n",
       {{"specs", "unknown field \"specs\""}}},
      {"unknown field deep in a list",
       widget("{size: 1, mode: Fast, selector: {matchExpressions: [{key: k, operator: In}, {key: k, operator: Exists, "
              "vals: [a]}]}}"),
       {{"spec.selector.matchExpressions[1].vals", "unknown field \"spec.selector.matchExpressions[1].vals\""}}},
      {"unknown field in a list-map item",
       widget("{size: 1, mode: Fast, conditions: [{type: Ready, status: \"True\", reasn: x}]}"),
       {{"spec.conditions[0].reasn", "unknown field \"spec.conditions[0].reasn\""}}},
      {"unknown field in status", widget("{size: 1, mode: Fast}") + "status: {phase: x, phaze: y}\n",
       {{"status.phaze", "unknown field \"status.phaze\""}}},
      {"additionalProperties: false", widget("{size: 1, mode: Fast, closed: {a: x, b: z}}"),
       {{"spec.closed.b", "unknown field \"spec.closed.b\""}}},
      {"preserve-unknown-fields still checks known fields", widget("{size: 1, mode: Fast, extra: {known: x, other: 1}}"),
       {{"spec.extra.known", "must be of type integer: \"string\""}}},
      {"embedded resource: unknown field next to apiVersion/kind/metadata",
       widget("{size: 1, mode: Fast, template: {apiVersion: v1, kind: Pod, metadata: {}, spek: {}}}"),
       {{"spec.template.spek", "unknown field \"spec.template.spek\""}}},
      {"oneOf", widget("{size: 1, mode: Fast, choice: {a: x, b: z}}"),
       {{"spec.choice", "must validate one and only one schema (oneOf)"}}},
      {"allOf", widget("{size: 1, mode: Fast, limited: 11}"),
       {{"spec.limited", "Invalid value: 11: spec.limited in body should be less than or equal to 10"}}},
      {"not", widget("{size: 1, mode: Fast, word: forbidden}"),
       {{"spec.word", "must not validate the schema (not)"}}},
      {"document order", widget("{mode: X, size: 99, fooBar: 1, tags: [a, a]}"),
       {{"spec.mode", "Unsupported value: \"X\""},
        {"spec.size", "less than or equal to 64"},
        {"spec.fooBar", "unknown field"},
        {"spec.tags[1]", "Duplicate value"}}},
      {"metadata.name missing", "apiVersion: test.gpupool.io/v1\nkind: Widget\nmetadata: {}\nspec: {size: 1, mode: Fast}\n",
       {{"metadata.name", "Required value: name or generateName is required"}}},
      {"generateName instead of name",
       "apiVersion: test.gpupool.io/v1\nkind: Widget\nmetadata: {generateName: w-}\nspec: {size: 1, mode: Fast}\n", {}},
      {"metadata.name not DNS-1123",
       "apiVersion: test.gpupool.io/v1\nkind: Widget\nmetadata: {name: Bad_Name}\nspec: {size: 1, mode: Fast}\n",
       {{"metadata.name", "Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of"}}},
      {"metadata.name too long",
       "apiVersion: test.gpupool.io/v1\nkind: Widget\nmetadata: {name: " + std::string(254, 'a') +
           "}\nspec: {size: 1, mode: Fast}\n",
       {{"metadata.name", "must be no more than 253 characters"}}},
      {"metadata.namespace not a label",
       "apiVersion: test.gpupool.io/v1\nkind: Widget\nmetadata: {name: w, namespace: team.a}\nspec: {size: 1, mode: Fast}\n",
       {{"metadata.namespace", "a lowercase RFC 1123 label must consist of"}}},
      {"unknown metadata field",
       "apiVersion: test.gpupool.io/v1\nkind: Widget\nmetadata: {name: w, lables: {a: b}}\nspec: {size: 1, mode: Fast}\n",
       {{"metadata.lables", "unknown field \"metadata.lables\""}}},
      {"cluster-scoped: namespace ignored",
       "apiVersion: test.gpupool.io/v1\nkind: Gadget\nmetadata: {name: g, namespace: Not_A_Label}\nspec: {color: red}\n", {}},
      {"cluster-scoped kind validated", "apiVersion: test.gpupool.io/v1\nkind: Gadget\nmetadata: {name: g}\nspec: {color: blue}\n",
       {{"spec.color", "Unsupported value: \"blue\": supported values: \"red\", \"green\""}}},
      {"unknown kind in a known group", "apiVersion: test.gpupool.io/v1\nkind: Wodget\nmetadata: {name: w}\n",
       {{"kind", "Unsupported value: \"Wodget\": supported values: \"Gadget\", \"Widget\""}}},
      {"unknown version of a known kind", "apiVersion: test.gpupool.io/v2\nkind: Widget\nmetadata: {name: w}\n",
       {{"apiVersion", "Unsupported value: \"test.gpupool.io/v2\": supported values: \"test.gpupool.io/v0\", "
                       "\"test.gpupool.io/v1\""}}},
      {"version not served", "apiVersion: test.gpupool.io/v0\nkind: Widget\nmetadata: {name: w}\n",
       {{"apiVersion", "version v0 of Widget is not served"}}},
      {"kind no CRD defines", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
       {{"kind", "no CustomResourceDefinition defines kind Deployment"}}},
      {"kind missing", "apiVersion: test.gpupool.io/v1\nmetadata: {name: w}\n", {{"kind", "Required value"}}},
      {"apiVersion missing", "kind: Widget\nmetadata: {name: w}\n", {{"apiVersion", "Required value"}}},
  };
  std::size_t checked = 0;
  for (const auto& c : cases) {
    const api::FieldErrors got = check(c.yaml);
    ASSERT_EQ(got.size(), c.errors.size()) << c.name << ":" << describe(got);
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].path, c.errors[i].path) << c.name << ":" << describe(got);
      EXPECT_NE(got[i].reason.find(c.errors[i].reason), std::string::npos)
          << c.name << ": want \"" << c.errors[i].reason << "\" in:" << describe(got);
    }
    ++checked;
  }
  EXPECT_GE(checked, 35u);
}

TEST(CrdSchemaValidate, JsonFloatsWithIntegralValuesAreIntegers) {
  const api::ManifestSet m = api::load_manifests_from_string(
      R"({"apiVersion": "test.gpupool.io/v1", "kind": "Widget", "metadata": {"name": "w"},
          "spec": {"size": 4.0, "mode": "Fast", "ratio": 0.25}})",
      "w.json");
  ASSERT_EQ(m.objects.size(), 1u);
  ASSERT_TRUE(m.objects[0].object["spec"]["size"].IsDouble());
  EXPECT_TRUE(widgets().validate(m.objects[0].object).empty()) << describe(widgets().validate(m.objects[0].object));
}

TEST(CrdSchemaValidate, NeverCrashesOnOddShapes) {
  rapidjson::Document d;
  d.Parse("[1, 2]");
  EXPECT_EQ(widgets().validate(d).size(), 1u);
  d.Parse(R"({"apiVersion": 5, "kind": ["Widget"]})");
  EXPECT_EQ(widgets().validate(d).size(), 1u);
  d.Parse(R"({"apiVersion": "test.gpupool.io/v1", "kind": "Widget", "metadata": [], "spec": "x"})");
  const auto errs = widgets().validate(d);
  ASSERT_EQ(errs.size(), 2u) << describe(errs);
  EXPECT_EQ(errs[0].path, "metadata");
  EXPECT_EQ(errs[1].path, "spec");
  d.Parse(R"({"apiVersion": "test.gpupool.io/v1", "kind": "Widget", "metadata": {"name": 7}, "spec": null})");
  EXPECT_FALSE(widgets().validate(d).empty());
  // The longest string still matched against the pattern does not exhaust the stack.
  const auto at_limit = check(widget("{size: 1, mode: Fast, name: " + std::string(4096, 'a') + "}"));
  ASSERT_EQ(at_limit.size(), 1u) << describe(at_limit);
  const auto at_limit_bad = check(widget("{size: 1, mode: Fast, name: " + std::string(4095, 'a') + "B}"));
  ASSERT_EQ(at_limit_bad.size(), 2u) << describe(at_limit_bad);
  // A very long string is checked for length but not matched against the pattern.
  const auto long_name = check(widget("{size: 1, mode: Fast, name: " + std::string(100000, 'a') + "}"));
  ASSERT_EQ(long_name.size(), 1u) << describe(long_name);
  EXPECT_NE(long_name[0].reason.find("Too long"), std::string::npos);
}

TEST(CrdSchemaBuiltin, FindsTheGpupoolKinds) {
  const CrdSchemaSet& set = CrdSchemaSet::builtin();
  if (set.empty()) GTEST_SKIP() << "no CRDs embedded (crds/*.yaml absent when this binary was configured)";
  for (const char* kind : {"GPUPool", "GPUPolicy", "TenantQuota", "GPUNode"}) {
    const CrdKind* k = set.find("gpupool.io/v1alpha1", kind);
    ASSERT_NE(k, nullptr) << kind;
    EXPECT_TRUE(k->served) << kind;
    EXPECT_TRUE(k->schema) << kind;
  }
  EXPECT_TRUE(set.find("gpupool.io/v1alpha1", "TenantQuota")->namespaced());
  EXPECT_FALSE(set.find("gpupool.io/v1alpha1", "GPUPool")->namespaced());
}

// The health rules (GPUPolicy spec.health and its copy in GPUNode spec.health)
// in the built-in CRDs: the new fields are known, typed and carry their CEL rule.
TEST(CrdSchemaBuiltin, HealthRulesInPolicyAndNode) {
  const CrdSchemaSet& set = CrdSchemaSet::builtin();
  if (set.empty()) GTEST_SKIP() << "no CRDs embedded (crds/*.yaml absent when this binary was configured)";
  auto errors_of = [&](const std::string& yaml) {
    const api::ManifestSet m = api::load_manifests_from_string(yaml, "case.yaml");
    EXPECT_TRUE(m.errors.empty());
    return set.validate(m.objects.front().object);
  };
  const std::string policy = "apiVersion: gpupool.io/v1alpha1\nkind: GPUPolicy\nmetadata: {name: p}\nspec:\n  health: ";
  const std::string node =
      "apiVersion: gpupool.io/v1alpha1\nkind: GPUNode\nmetadata: {name: node-1}\nspec:\n  nodeName: node-1\n  health: ";
  for (const std::string& head : {policy, node}) {
    SCOPED_TRACE(head);
    EXPECT_TRUE(errors_of(head + "{recoveryPeriod: 10m, maxUnhealthyNodes: 2}").empty());
    EXPECT_TRUE(errors_of(head + "{maxUnhealthyNodes: \"10%\", xids: [{codes: [79], action: Cordon}]}").empty());
    auto e = errors_of(head + "{maxUnhealthyNodes: true}");
    ASSERT_EQ(e.size(), 1u) << describe(e);
    EXPECT_EQ(e[0].path, "spec.health.maxUnhealthyNodes");
    e = errors_of(head + "{recoveryPeriod: 10 minutes}");
    ASSERT_EQ(e.size(), 1u) << describe(e);
    EXPECT_EQ(e[0].path, "spec.health.recoveryPeriod");
    e = errors_of(head + "{maxUnhealthy: 1}");
    ASSERT_EQ(e.size(), 1u) << describe(e);
    EXPECT_EQ(e[0].path, "spec.health.maxUnhealthy");
  }
  for (const char* kind : {"GPUPolicy", "GPUNode"}) {
    const auto rules = set.find("gpupool.io/v1alpha1", kind)->cel_rules();
    EXPECT_TRUE(std::any_of(rules.begin(), rules.end(), [](const CelRule& r) {
      return r.path == "spec.health.maxUnhealthyNodes" && r.rule.find("self >= 0") != std::string::npos;
    })) << kind;
  }
}

}  // namespace
}  // namespace gpupool::schema
