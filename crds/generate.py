#!/usr/bin/env python3
"""Generates the gpupool.io/v1alpha1 CustomResourceDefinitions in this folder.

The contract is docs/api.md; this script spells it out as OpenAPI v3 schemas
(shared types are written once here and repeated in each CRD that uses them).
Run it after changing the contract and commit the YAML it writes:

    python3 crds/generate.py            # rewrites crds/gpupool.io_*.yaml
    python3 crds/generate.py --check    # exits 1 when a file is out of date

Needs Python 3 with PyYAML. kubectl ignores this file (`kubectl apply -f crds/`
only reads .yaml/.yml/.json).

CEL rules stay within what Kubernetes v1.35 supports (standard macros, size(),
matches(), has(), transition rules with oldSelf, fieldPath); every string, list
and map a rule touches has a maxLength / maxItems / maxProperties so the
apiserver's cost estimate stays within budget.
"""

import argparse
import copy
import os
import sys

import yaml

GROUP = "gpupool.io"
VERSION = "v1alpha1"
CATEGORY = "gpupool-all"

# --- patterns ---------------------------------------------------------------

# A Kubernetes quantity ("4", "500m", "1Gi"), as resource.Quantity's schema.
QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
                    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")
# A Go duration string ("30s", "10m", "1h30m", "0s").
DURATION_PATTERN = r"^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$"
# A label key: optional DNS-subdomain prefix and '/', then a name of at most
# 63 characters (alphanumerics, '-', '_', '.', alphanumeric at both ends).
LABEL_KEY_PATTERN = (r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                     r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
# A label value: empty, or at most 63 characters as a label name.
LABEL_VALUE_PATTERN = r"^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$"
DNS_SUBDOMAIN_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
DNS_LABEL_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
DRIVER_VERSION_PATTERN = r"^[0-9]+(\.[0-9]+){1,3}(-[0-9A-Za-z.]+)?$"
CONDITION_REASON_PATTERN = r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"

# --- schema helpers ---------------------------------------------------------


def string(desc, **kw):
    return {"description": desc, "type": "string", **kw}


def integer(desc, fmt="int32", **kw):
    return {"description": desc, "type": "integer", "format": fmt, **kw}


def boolean(desc, **kw):
    return {"description": desc, "type": "boolean", **kw}


def obj(desc, properties, required=None, rules=None, **kw):
    out = {"description": desc, "type": "object"}
    if required:
        out["required"] = list(required)
    out["properties"] = properties
    out.update(kw)
    if rules:
        out["x-kubernetes-validations"] = rules
    return out


def array(desc, items, **kw):
    return {"description": desc, "type": "array", "items": items, **kw}


def string_map(desc, values, **kw):
    return {"description": desc, "type": "object", "additionalProperties": values, **kw}


def rule(expr, message, field_path=None, reason=None):
    out = {"rule": expr, "message": message}
    if field_path:
        out["fieldPath"] = field_path
    if reason:
        out["reason"] = reason
    return out


def quantity(desc):
    return {
        "description": desc,
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "pattern": QUANTITY_PATTERN,
        "x-kubernetes-int-or-string": True,
    }


def duration(desc, **kw):
    return string(desc, pattern=DURATION_PATTERN, maxLength=64, **kw)


def quantity_map(desc, **kw):
    # Keys stay free-form here (resource names are checked semantically), so
    # gpupool.io/gpu passes; its fractions ("2.5", "500m") match the pattern.
    return string_map(desc, quantity("Amount of this resource: a non-negative whole number of devices "
                                     "(4 or \"4\"); for gpupool.io/gpu a number of GPUs with at most 3 "
                                     "decimals, written as a string (\"2.5\", \"500m\")."), **kw)


def with_desc(schema, desc):
    out = copy.deepcopy(schema)
    out["description"] = desc
    return out


# --- shared types -----------------------------------------------------------

LABEL_SELECTOR_REQUIREMENT = obj(
    "A label selector requirement: a key, an operator relating the key to a set of values.",
    {
        "key": string("The label key the requirement applies to, in label-key syntax "
                      "(optional DNS-subdomain prefix and '/', then a name).",
                      maxLength=317, pattern=LABEL_KEY_PATTERN),
        "operator": string("How the key relates to the values: In and NotIn need at least one "
                           "value; Exists and DoesNotExist take none.",
                           enum=["In", "NotIn", "Exists", "DoesNotExist"]),
        "values": array("Label values for In and NotIn (at least one); must be empty for "
                        "Exists and DoesNotExist.",
                        string("A label value (at most 63 characters).", maxLength=63),
                        maxItems=256),
    },
    required=["key", "operator"],
    rules=[
        rule("!(self.operator in ['In', 'NotIn']) || (has(self.values) && size(self.values) > 0)",
             "operators In and NotIn require at least one value", ".values"),
        rule("!(self.operator in ['Exists', 'DoesNotExist']) || !has(self.values) || size(self.values) == 0",
             "operators Exists and DoesNotExist take no values", ".values"),
    ],
)


def label_selector(desc):
    return obj(desc, {
        "matchLabels": string_map(
            "Labels that must all match exactly (key = value); ANDed with matchExpressions.",
            string("The required label value.", maxLength=63)),
        "matchExpressions": array(
            "Label selector requirements, all of which must hold; ANDed with matchLabels.",
            LABEL_SELECTOR_REQUIREMENT, maxItems=32),
    }, **{"x-kubernetes-map-type": "atomic"})


CONDITION = obj(
    "A condition of the object, as metav1.Condition: one aspect of its state.",
    {
        "type": string("Condition type in CamelCase, e.g. Ready.", maxLength=316),
        "status": string("Whether the condition holds: True, False or Unknown.",
                         enum=["True", "False", "Unknown"]),
        "observedGeneration": integer("The .metadata.generation the condition was set for; "
                                      "lower than the current generation means it is out of date.",
                                      fmt="int64", minimum=0),
        "lastTransitionTime": string("When the condition last changed status (RFC 3339).",
                                     format="date-time"),
        "reason": string("A programmatic identifier in CamelCase for the last transition, "
                         "e.g. PoolCapacityExceeded.",
                         maxLength=1024, minLength=1, pattern=CONDITION_REASON_PATTERN),
        "message": string("A human-readable explanation of the transition (may be empty).",
                          maxLength=32768),
    },
    required=["type", "status", "lastTransitionTime", "reason", "message"],
)


def conditions(desc):
    return array(desc, CONDITION, maxItems=32,
                 **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]})


def local_object_reference(desc, name_desc):
    return obj(desc, {
        "name": string(name_desc, maxLength=253, minLength=1, pattern=DNS_SUBDOMAIN_PATTERN),
    }, required=["name"], **{"x-kubernetes-map-type": "atomic"})


MAINTENANCE_WINDOW = obj(
    "A recurring window in which nodes may be drained and upgraded.",
    {
        "days": array("Days of the week the window opens on (at least one, each at most once).",
                      string("A day of the week.", enum=["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]),
                      minItems=1, maxItems=7, **{"x-kubernetes-list-type": "set"}),
        "start": string("Local time the window opens, 24-hour HH:MM (\"22:00\").",
                        pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$"),
        "duration": duration("How long the window stays open, a Go duration between 1m and 24h "
                             "(\"4h\"). Work already started when it closes finishes."),
        "timeZone": string("IANA time zone of start (\"Europe/Berlin\"). Default UTC.",
                           default="UTC", maxLength=64, minLength=1),
    },
    required=["days", "start", "duration"],
)

DRAIN_OPTIONS = obj(
    "How a node is drained before its driver or partitioning changes.",
    {
        "timeout": duration("Longest wait for the node's pods to be evicted, a Go duration above 0 "
                            "and at most 24h; when it passes the node counts as failed. Default 10m.",
                            default="10m"),
        "skipPodLabel": string("Pods with this label set to \"true\" are not evicted; the node waits "
                               "for them to finish. Default gpupool.io/skip-drain.",
                               default="gpupool.io/skip-drain", maxLength=317, pattern=LABEL_KEY_PATTERN),
        "deleteEmptyDirData": boolean("Evict pods that use emptyDir volumes (their data is lost). "
                                      "Default false.", default=False),
        "force": boolean("Evict pods that have no controller (they are not recreated). Default false.",
                         default=False),
    },
    default={},
)


def upgrade_strategy(desc):
    return obj(desc, {
        "maxUnavailable": {
            "description": "How many member nodes may be drained and upgraded at once: an integer "
                           ">= 1 or a percentage of the pool's nodes from \"1%\" to \"100%\" "
                           "(rounded down, at least one node). Default 1.",
            "anyOf": [{"type": "integer"}, {"type": "string"}],
            "x-kubernetes-int-or-string": True,
            "default": 1,
            "maxLength": 4,
            "x-kubernetes-validations": [
                rule("type(self) == int ? self >= 1 : self.matches('^([1-9][0-9]?|100)%$')",
                     "maxUnavailable must be an integer >= 1 or a percentage from \"1%\" to \"100%\""),
            ],
        },
        "failureBudget": integer("How many failed nodes the rollout tolerates: with more than this "
                                 "many failed, no new node starts (Degraded) until the spec changes "
                                 "or a failure is cleared; 0 stops at the first failure. Default 1.",
                                 default=1, minimum=0),
        "drain": DRAIN_OPTIONS,
        "cordonOnFailure": boolean("Leave a node whose update failed cordoned, so nothing new lands on "
                                   "it until someone looks (true), or uncordon it so its GPUs serve "
                                   "again as they were (false). Default true.", default=True),
        "maintenanceWindows": array("Windows in which upgrades may start; empty means at any time.",
                                    MAINTENANCE_WINDOW, maxItems=16),
        "order": obj("The order nodes are updated in.", {
            "by": string("Name: by node name (default). Label: by the value of the node label "
                         "`label`, then by name, nodes without the label last (e.g. "
                         "topology.kubernetes.io/zone to go zone by zone, or a label you set to "
                         "pick canaries).", default="Name", enum=["Name", "Label"]),
            "label": string("The node label to order by; required when by is Label, not allowed "
                            "otherwise.", maxLength=317, pattern=LABEL_KEY_PATTERN),
        }, rules=[
            rule("!has(self.by) || self.by != 'Label' || has(self.label)",
                 "label is required when by is Label", ".label"),
            rule("(has(self.by) && self.by == 'Label') || !has(self.label)",
                 "label may only be set when by is Label", ".label"),
        ], default={}),
    })


def sharing(desc):
    return obj(desc, {
        "mode": string("How pods share a GPU (or MIG instance): exclusive (one pod per device), "
                       "timeSlicing (replicas take turns) or mps (NVIDIA Multi-Process Service). "
                       "Default exclusive.",
                       default="exclusive", enum=["exclusive", "timeSlicing", "mps"]),
        "timeSlicing": obj("Time-slicing settings; required when mode is timeSlicing, not allowed "
                           "otherwise.", {
                               "replicas": integer("How many pods may share each device (2-64).",
                                                   minimum=2, maximum=64),
                               "renameResources": boolean(
                                   "Advertise the shared devices as <resource>.shared (e.g. "
                                   "nvidia.com/gpu.shared) instead of the plain resource name. "
                                   "Default false.", default=False),
                           }, required=["replicas"]),
        "mps": obj("MPS settings; required when mode is mps, not allowed otherwise.", {
            "replicas": integer("How many pods may share each device through MPS (2-48).",
                                minimum=2, maximum=48),
            "defaultActiveThreadPercentage": integer(
                "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE for clients (1-100); unset lets the driver choose.",
                minimum=1, maximum=100),
        }, required=["replicas"]),
    }, rules=[
        rule("!has(self.mode) || self.mode != 'timeSlicing' || has(self.timeSlicing)",
             "timeSlicing is required when mode is timeSlicing", ".timeSlicing"),
        rule("(has(self.mode) && self.mode == 'timeSlicing') || !has(self.timeSlicing)",
             "timeSlicing may only be set when mode is timeSlicing", ".timeSlicing"),
        rule("!has(self.mode) || self.mode != 'mps' || has(self.mps)",
             "mps is required when mode is mps", ".mps"),
        rule("(has(self.mode) && self.mode == 'mps') || !has(self.mps)",
             "mps may only be set when mode is mps", ".mps"),
    ], default={})


def monitoring(desc):
    return obj(desc, {
        "enabled": boolean("Run the GPU metrics exporter on member nodes. Default true.", default=True),
        "scrapeInterval": duration("How often GPU metrics are collected, a Go duration from 5s to 10m. "
                                   "Default 30s.", default="30s"),
        "alerts": obj("Alerting rules for the GPUs.", {
            "enabled": boolean("Install the alerting rules (PrometheusRule). Default true.", default=True),
        }, default={}),
        "dashboard": obj("Grafana dashboard for the GPUs.", {
            "enabled": boolean("Install the dashboard (ConfigMap for the Grafana sidecar). Default false.",
                               default=False),
        }, default={}),
    }, default={})


TAINT = obj("A taint put on every member node.", {
    "key": string("Taint key in label-key syntax.", maxLength=317, pattern=LABEL_KEY_PATTERN),
    "value": string("Taint value (at most 63 characters).", maxLength=63),
    "effect": string("What the taint does to pods that do not tolerate it.",
                     enum=["NoSchedule", "PreferNoSchedule", "NoExecute"]),
}, required=["key", "effect"])

AMD_PARTITIONING = obj(
    "AMD Instinct compute and memory partitioning (amd-smi). The pair must be supported by every "
    "GPU model concerned.",
    {
        "computePartition": string("Compute partition mode: SPX (one), DPX (two), TPX (three), QPX "
                                   "(four) or CPX (one per XCD).",
                                   enum=["SPX", "DPX", "TPX", "QPX", "CPX"]),
        "memoryPartition": string("Memory (NUMA) partition mode: NPS1, NPS2, NPS4 or NPS8.",
                                  enum=["NPS1", "NPS2", "NPS4", "NPS8"]),
    })


def driver_spec(desc, with_upgrade_strategy):
    props = {
        "version": string("Driver version to install, e.g. \"570.133.20\" (NVIDIA) or \"6.3.3\" (AMD).",
                          maxLength=64, pattern=DRIVER_VERSION_PATTERN),
        "installer": obj("How the driver gets onto the node (required: there is no safe default "
                         "between a container image and what the host already has).", {
            "kind": string("Installation method: container (a driver container image), package "
                           "(the distribution's package manager), runfile (the vendor's installer) or "
                           "preinstalled (already on the host; only checked). Default container.",
                           default="container",
                           enum=["container", "package", "runfile", "preinstalled"]),
            "image": string("Driver container image (registry/repository:tag or @digest); required "
                            "when kind is container, not allowed otherwise.", maxLength=512, minLength=1),
            "parameters": string_map("Installer-specific parameters (e.g. kernel module options), "
                                     "at most 32.",
                                     string("Parameter value (at most 1024 characters).", maxLength=1024),
                                     maxProperties=32),
        }, rules=[
            rule("(has(self.kind) && self.kind != 'container') || has(self.image)",
                 "image is required when kind is container", ".image"),
            rule("!has(self.kind) || self.kind == 'container' || !has(self.image)",
                 "image may only be set when kind is container", ".image"),
        ]),
    }
    if with_upgrade_strategy:
        props["upgradeStrategy"] = upgrade_strategy(
            "How driver changes roll out over the pool's nodes; unset falls back to the "
            "referenced policy's upgrade rules, then to the defaults.")
    return obj(desc, props, required=["version", "installer"])


def status_map(desc):
    return quantity_map(desc, maxProperties=64)


# --- GPUPool ------------------------------------------------------------------

MIG_DEVICE_LAYOUT = obj("MIG profiles for a set of GPUs.", {
    "gpus": array("GPU indexes (0-15) this entry covers; empty means every GPU not named in "
                  "another entry.",
                  integer("A GPU index on the node.", minimum=0, maximum=15), maxItems=16),
    "profiles": string_map("MIG profile name (\"3g.40gb\") to the number of instances of it on each "
                           "GPU (1-7). The profiles must fit the GPU model.",
                           integer("Instances of the profile per GPU (1-7).", minimum=1, maximum=7),
                           minProperties=1, maxProperties=16),
}, required=["profiles"])

MIG_PARTITIONING = obj(
    "NVIDIA Multi-Instance GPU layout for member nodes: exactly one of layout or devices.",
    {
        "strategy": string("How MIG devices are advertised: single (every GPU has one profile, "
                           "advertised as nvidia.com/gpu) or mixed (nvidia.com/mig-<profile>). "
                           "Default single.",
                           default="single", enum=["single", "mixed"]),
        "layout": string("A named layout: a mig-parted config name, or built-in \"all-disabled\", "
                         "\"all-balanced\" or \"all-<profile>\" (e.g. \"all-1g.10gb\").",
                         maxLength=253, minLength=1),
        "devices": array("Explicit per-GPU profiles.", MIG_DEVICE_LAYOUT, maxItems=16, minItems=1),
    },
    rules=[rule("has(self.layout) != has(self.devices)", "exactly one of layout or devices must be set")],
)

POOL_PARTITIONING = obj(
    "How member GPUs are partitioned: nvidia (MIG) or amd (compute/memory partitions), not both.",
    {
        "nvidia": MIG_PARTITIONING,
        "amd": AMD_PARTITIONING,
    },
    rules=[rule("!(has(self.nvidia) && has(self.amd))", "nvidia and amd partitioning are mutually exclusive")],
)

NODE_COUNTS = obj("Member node counts.", {
    "total": integer("Nodes selected by the pool.", minimum=0),
    "ready": integer("Member nodes whose GPUs match the pool's spec and are healthy.", minimum=0),
    "updating": integer("Member nodes being drained or reconfigured.", minimum=0),
    "failed": integer("Member nodes whose last change failed.", minimum=0),
    "conflicted": integer("Nodes also selected by another pool of the same priority.", minimum=0),
})

ROLLOUT_STATUS = obj("Progress of the current driver rollout.", {
    "targetVersion": string("Driver version being rolled out.", maxLength=64),
    "updated": integer("Member nodes already running the target version.", minimum=0),
    "pending": integer("Member nodes still to be upgraded.", minimum=0),
    "failed": integer("Member nodes whose upgrade failed.", minimum=0),
    "paused": boolean("True while the rollout waits (failure budget spent, pool paused, or outside "
                      "every maintenance window)."),
    "message": string("Why the rollout is paused or what it does now.", maxLength=32768),
})

GPUPOOL_SPEC = obj(
    "Desired state of the pool: which nodes belong to it and how their GPUs are set up.",
    {
        "nodeSelector": label_selector("Selects the member nodes, e.g. by gpupool.io/gpu-model or "
                                       "nvidia.com/gpu.product. A node selected by several pools "
                                       "belongs to the one with the highest priority."),
        "priority": integer("Among pools selecting the same node the highest priority wins; a tie "
                            "is reported as a Conflict (0-1000000). Default 0.",
                            default=0, minimum=0, maximum=1000000),
        "vendor": string("GPU vendor of the member nodes; auto detects it per node. Default auto.",
                         default="auto", enum=["auto", "nvidia", "amd"]),
        "policyRef": local_object_reference("The GPUPolicy with the quota, health and default upgrade "
                                            "rules for this pool.", "Name of the GPUPolicy."),
        "paused": boolean("While true the operator makes no changes to member nodes (drivers, "
                          "partitioning, labels). Default false.", default=False),
        "driver": driver_spec("The GPU driver for member nodes; unset leaves the driver alone.", True),
        "partitioning": POOL_PARTITIONING,
        "sharing": sharing("How workloads share the member GPUs."),
        "monitoring": monitoring("GPU metrics, alerts and dashboards for member nodes."),
        "nodeLabels": string_map("Labels put on every member node (keys in label-key syntax, values "
                                 "label values), at most 32.",
                                 string("Label value (at most 63 characters).", maxLength=63),
                                 maxProperties=32),
        "nodeTaints": array("Taints put on every member node, at most 16.", TAINT, maxItems=16),
    },
    required=["nodeSelector"],
    rules=[
        rule("!has(self.partitioning) || !has(self.partitioning.amd) || !has(self.vendor) || self.vendor != 'nvidia'",
             "amd partitioning is not allowed when vendor is nvidia", ".partitioning.amd"),
        rule("!has(self.partitioning) || !has(self.partitioning.nvidia) || !has(self.vendor) || self.vendor != 'amd'",
             "nvidia partitioning is not allowed when vendor is amd", ".partitioning.nvidia"),
    ],
)
GPUPOOL_SPEC["properties"]["nodeLabels"]["x-kubernetes-validations"] = [
    rule("self.all(k, size(k) <= 317 && k.matches(r'" + LABEL_KEY_PATTERN + "'))",
         "every nodeLabels key must be a valid label key (optional DNS prefix and '/', then a name of "
         "at most 63 characters)"),
    rule("self.all(k, self[k].matches(r'" + LABEL_VALUE_PATTERN + "'))",
         "every nodeLabels value must be a valid label value (at most 63 alphanumerics, '-', '_' or "
         "'.', starting and ending with an alphanumeric)"),
]

GPUPOOL_STATUS = obj("Observed state of the pool, written by the controller.", {
    "observedGeneration": integer("The .metadata.generation the status reflects.", fmt="int64", minimum=0),
    "conditions": conditions("Conditions of the pool: Ready, Progressing, Degraded and Conflict."),
    "nodes": NODE_COUNTS,
    "capacity": status_map("Allocatable capacity of the pool by resource name (nvidia.com/gpu: 32, "
                           "nvidia.com/mig-1g.10gb: 14)."),
    "granted": status_map("Quota granted to TenantQuotas against the capacity, by resource name."),
    "rollout": ROLLOUT_STATUS,
})

# --- GPUPolicy ----------------------------------------------------------------

QUOTA_RULES = obj("Rules for TenantQuotas against pools using this policy.", {
    "namespaceSelector": label_selector("Namespaces whose TenantQuotas may request capacity; unset "
                                        "means all namespaces (further limited by namespaces)."),
    "namespaces": array("Namespaces allowed to request capacity, by name (in addition to "
                        "namespaceSelector), at most 256.",
                        string("A namespace name.", maxLength=63, pattern=DNS_LABEL_PATTERN), maxItems=256),
    "approval": string("Automatic grants quota as capacity allows; Manual waits for an administrator "
                       "to approve each TenantQuota. Default Automatic.",
                       default="Automatic", enum=["Automatic", "Manual"]),
    "maxPerTenant": quantity_map("Most a single TenantQuota may guarantee, by resource name "
                                 "(nvidia.com/gpu: 8).", maxProperties=32),
    "borrowing": obj("Using idle capacity beyond the guarantee.", {
        "enabled": boolean("Tenants may borrow idle capacity beyond their guarantee (reclaimed when "
                           "its owner needs it). Default false.", default=False),
        "limitPercent": integer("Most a tenant may borrow, in percent of its guarantee (0-100); above 0 "
                                "requires enabled. Default 0.", default=0, minimum=0, maximum=100),
    }, rules=[rule("!has(self.limitPercent) || self.limitPercent == 0 || (has(self.enabled) && self.enabled)",
                   "limitPercent above 0 requires borrowing to be enabled", ".limitPercent")], default={}),
    "fairShare": obj("Weights for dividing capacity when guarantees exceed it.", {
        "defaultWeight": integer("Weight of namespaces not listed in weights (1-1000). Default 1.",
                                 default=1, minimum=1, maximum=1000),
        "weights": string_map("Namespace name to weight (1-1000), at most 256.",
                              integer("Weight of the namespace (1-1000).", minimum=1, maximum=1000),
                              maxProperties=256),
    }, default={}),
    "reclaimGracePeriod": duration("How long borrowed capacity is kept after its owner asks for it "
                                   "back, a Go duration from 0s to 24h. Default 5m.", default="5m"),
    "reserve": quantity_map("Capacity kept back from guarantees, by resource name (nvidia.com/gpu: 2, "
                            "gpupool.io/gpu: \"1.5\"), at most 32.", maxProperties=32),
    "partialGrants": boolean("When a whole request does not fit, grant what fits (true) or nothing "
                             "(false: all or nothing). Default true.", default=True),
    "chargeBasis": string("What a MIG partition's share of gpupool.io/gpu is measured by: Compute (its "
                          "compute slices over the GPU's) or Memory (the memory the GPU reports for the "
                          "instance over the GPU's memory). Default Compute.",
                          default="Compute", enum=["Compute", "Memory"]),
    "onCapacityLoss": string("When capacity falls below the guarantees: Keep lets running guaranteed pods "
                             "run on; Evict evicts the pods above each reduced grant. Default Keep.",
                             default="Keep", enum=["Keep", "Evict"]),
    "expiry": obj("What happens when a TenantQuota's expiresAt passes.", {
        "action": string("What happens to the quota's running pods: Keep lets them run on; Evict "
                         "evicts them once gracePeriod has passed. Default Keep.",
                         default="Keep", enum=["Keep", "Evict"]),
        "gracePeriod": duration("How long after expiresAt Evict waits, a Go duration from 0s to 24h. "
                                "Default 10m.", default="10m"),
    }, default={}),
    "deviceClasses": string_map("DRA DeviceClass name to the resource name (a GPU resource name or "
                                "gpupool.io/gpu) pods claiming a device of that class are charged as, "
                                "one unit per device; at most 64.",
                                string("A resource name (nvidia.com/gpu, nvidia.com/mig-<profile>, "
                                       "amd.com/gpu, gpupool.io/gpu).", minLength=1, maxLength=317),
                                maxProperties=64),
})
QUOTA_RULES["properties"]["fairShare"]["properties"]["weights"]["x-kubernetes-validations"] = [
    rule("self.all(k, size(k) <= 63 && k.matches(r'" + DNS_LABEL_PATTERN + "'))",
         "every weights key must be a namespace name (a DNS-1123 label)"),
]
QUOTA_RULES["properties"]["deviceClasses"]["x-kubernetes-validations"] = [
    rule("self.all(k, size(k) <= 253 && k.matches(r'" + DNS_SUBDOMAIN_PATTERN + "'))",
         "every deviceClasses key must be a DeviceClass name (a DNS-1123 subdomain)"),
]

XID_RULE = obj("What to do when the driver reports certain Xid errors.", {
    "codes": array("Xid codes (1-1023) the rule covers; a code may appear in one rule only.",
                   integer("An Xid error code.", minimum=1, maximum=1023), minItems=1, maxItems=1023),
    "action": string("None marks the GPU Degraded and records an event; Taint marks it Unhealthy and "
                     "taints the node (gpupool.io/gpu-unhealthy, NoSchedule); Cordon marks it Unhealthy "
                     "and cordons the node (both within maxUnhealthyNodes).", enum=["None", "Taint", "Cordon"]),
}, required=["codes", "action"])


def max_unhealthy_nodes():
    return {
        "description": "Most nodes of a pool taken out (tainted or cordoned) for GPU health at once: an "
                       "integer >= 0 or a percentage of the pool's nodes from \"0%\" to \"100%\" (rounded "
                       "down, at least one node when above 0%). Unhealthy nodes beyond it are reported, not "
                       "taken out, so a bad rule or a fleet-wide event cannot empty a pool; 0 only reports. "
                       "Default \"10%\".",
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "x-kubernetes-int-or-string": True,
        "default": "10%",
        "maxLength": 4,
        "x-kubernetes-validations": [
            rule("type(self) == int ? self >= 0 : self.matches('^(100|[1-9]?[0-9])%$')",
                 "maxUnhealthyNodes must be an integer >= 0 or a percentage from \"0%\" to \"100%\""),
        ],
    }


HEALTH_RULES = obj("How GPU faults are handled on nodes of pools using this policy.", {
    "xids": array("Rules for Xid errors, at most 64.", XID_RULE, maxItems=64),
    "temperature": obj("Temperature thresholds.", {
        "warningCelsius": integer("Temperature (°C, 30-120) that marks a GPU Degraded.",
                                  minimum=30, maximum=120),
        "criticalCelsius": integer("Temperature (°C, 30-120, above warningCelsius) at which the action "
                                   "is taken.", minimum=30, maximum=120),
        "action": string("What happens at criticalCelsius. Default Taint.", default="Taint",
                         enum=["None", "Taint", "Cordon"]),
    }, required=["warningCelsius", "criticalCelsius"], rules=[
        rule("self.criticalCelsius > self.warningCelsius",
             "criticalCelsius must be greater than warningCelsius", ".criticalCelsius"),
    ]),
    "ecc": obj("ECC error thresholds.", {
        "correctableErrorsPerDay": integer("Correctable ECC errors per GPU per day above which the "
                                           "action is taken. Default 1000.", default=1000, minimum=0),
        "uncorrectableErrors": integer("Uncorrectable ECC errors per GPU (since the last reset) at which "
                                       "the action is taken; 0 turns this check off. Default 1.", default=1,
                                       minimum=0),
        "action": string("What happens when a threshold is reached. Default Cordon.", default="Cordon",
                         enum=["None", "Taint", "Cordon"]),
    }),
    "recoveryPeriod": duration("How long every cause must have been gone before a GPU is Healthy again "
                               "and its node's taint or cordon is removed: an Xid this long after its "
                               "last occurrence, a temperature or ECC count this long below its "
                               "threshold. A Go duration from 1m to 24h. Default 10m.", default="10m"),
    "maxUnhealthyNodes": max_unhealthy_nodes(),
})

GPUPOLICY_SPEC = obj("Quota, health and default upgrade rules shared by the pools that reference "
                     "the policy.", {
                         "quota": QUOTA_RULES,
                         "health": HEALTH_RULES,
                         "upgrade": upgrade_strategy("Default driver upgrade rules for pools that reference "
                                                     "this policy and set no upgradeStrategy."),
                     })

GPUPOLICY_STATUS = obj("Observed state of the policy, written by the controller.", {
    "observedGeneration": integer("The .metadata.generation the status reflects.", fmt="int64", minimum=0),
    "conditions": conditions("Conditions of the policy: Ready (its rules are valid and in use)."),
    "pools": array("Names of the GPUPools that reference this policy.",
                   string("A GPUPool name.", maxLength=253), **{"x-kubernetes-list-type": "set"}),
})

# --- TenantQuota --------------------------------------------------------------

TENANTQUOTA_SPEC = obj("The capacity a tenant asks to be guaranteed in a pool.", {
    "poolRef": local_object_reference("The GPUPool the quota is requested from; cannot be changed "
                                      "after creation.", "Name of the GPUPool."),
    "resources": quantity_map("Guaranteed amounts by resource name (nvidia.com/gpu, "
                              "nvidia.com/gpu.shared, nvidia.com/mig-<profile>, amd.com/gpu), "
                              "whole numbers, 1 to 32 entries.", minProperties=1, maxProperties=32),
    "borrowingLimit": quantity_map("Most the tenant may borrow beyond its guarantee, by resource name; "
                                   "every key must also be in resources.", maxProperties=32),
    "priority": integer("Order in which guarantees are granted when capacity is short, higher first "
                        "(0-1000). Default 0.", default=0, minimum=0, maximum=1000),
    "namespaces": array("Namespaces whose pods use this quota, at most 64; empty means the quota's "
                        "own namespace.",
                        string("A namespace name.", maxLength=63, pattern=DNS_LABEL_PATTERN), maxItems=64),
    "expiresAt": string("When the guarantee ends (RFC 3339); unset means never.", format="date-time"),
}, required=["poolRef", "resources"], rules=[
    rule("!has(self.borrowingLimit) || self.borrowingLimit.all(k, k in self.resources)",
         "every borrowingLimit key must also be in resources", ".borrowingLimit"),
])
TENANTQUOTA_SPEC["properties"]["poolRef"]["x-kubernetes-validations"] = [
    rule("self == oldSelf", "poolRef is immutable"),
]

TENANTQUOTA_STATUS = obj("Observed state of the quota, written by the controller.", {
    "observedGeneration": integer("The .metadata.generation the status reflects.", fmt="int64", minimum=0),
    "phase": string("Pending (not decided), Granted, PartiallyGranted, Rejected or Expired.",
                    enum=["Pending", "Granted", "PartiallyGranted", "Rejected", "Expired"]),
    "granted": status_map("Guaranteed amounts granted, by resource name."),
    "used": status_map("Amounts requested by running pods of the covered namespaces, by resource name."),
    "borrowed": status_map("Amounts in use beyond the guarantee, by resource name."),
    "waiting": status_map("Amounts requested by pods held at the admission gate, by resource name."),
    "approved": obj("What an administrator approved when the policy's approval is Manual. Written "
                    "through the status subresource by gpupoolctl approve only.", {
        "resources": quantity_map("Approved guaranteed amounts, by resource name.", maxProperties=32),
        "borrowingLimit": quantity_map("Approved borrowing limits, by resource name; every key must "
                                       "also be in resources.", maxProperties=32),
        "generation": integer("The TenantQuota .metadata.generation that was approved.", fmt="int64",
                              minimum=1),
        "approvedAt": string("When it was approved (RFC 3339).", format="date-time"),
    }, required=["resources", "generation", "approvedAt"], rules=[
        rule("!has(self.borrowingLimit) || self.borrowingLimit.all(k, k in self.resources)",
             "every borrowingLimit key must also be in resources", ".borrowingLimit"),
    ]),
    "conditions": conditions("Conditions of the quota: Granted, with a reason a tenant can act on (e.g. PoolCapacityExceeded)."),
})

# --- GPUNode ------------------------------------------------------------------

MIG_INSTANCE = obj("A MIG GPU instance to create.", {
    "profile": string("MIG profile name, e.g. \"1g.10gb\".", maxLength=32, minLength=1),
    "placement": integer("Start memory slice (0-7 on 8-slice GPUs, up to 11 on RTX PRO 6000); unset means any.",
                         minimum=0, maximum=15),
}, required=["profile"])

GPU_MIG_LAYOUT = obj("The exact MIG layout of one GPU.", {
    "index": integer("The GPU index on the node (0-15).", minimum=0, maximum=15),
    "enabled": boolean("Whether MIG mode is wanted on this GPU."),
    "instances": array("GPU instances to create, at most 7; empty with enabled=true means MIG on "
                       "with no instances.", MIG_INSTANCE, maxItems=7),
}, required=["index", "enabled"])

NODE_PARTITIONING = obj("The exact partitioning of this node's GPUs.", {
    "strategy": string("How MIG devices are advertised, as the NVIDIA device plugin's MIG strategy: "
                       "single (every MIG device as nvidia.com/gpu; one profile per GPU) or mixed "
                       "(nvidia.com/mig-<profile>). Unset means mixed. Copied from the pool.",
                       enum=["single", "mixed"]),
    "mig": array("Per-GPU MIG layout, one entry per GPU index.", GPU_MIG_LAYOUT, maxItems=16,
                 **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["index"]}),
    "amd": AMD_PARTITIONING,
})

GPUNODE_SPEC = obj("What the GPUs of this node should look like; written by the controller from the "
                   "owning pool.", {
                       "nodeName": string("The Node this object describes; equal to metadata.name and "
                                          "immutable.", maxLength=253, minLength=1, pattern=DNS_SUBDOMAIN_PATTERN,
                                          **{"x-kubernetes-validations": [
                                              rule("self == oldSelf", "nodeName is immutable")]}),
                       "pool": string("The GPUPool that owns the node; empty when none selects it.",
                                      maxLength=253),
                       "driver": driver_spec("The driver the node should run; unset leaves it alone.", False),
                       "partitioning": NODE_PARTITIONING,
                       "sharing": sharing("How workloads share this node's GPUs."),
                       "monitoring": monitoring("GPU metrics collection on this node."),
                       "disruptionAllowed": boolean("Set by the controller when the agent may drain, "
                                                    "reboot or reconfigure the node now. Default false.",
                                                    default=False),
                       "drain": with_desc(DRAIN_OPTIONS, "How the agent drains the node before a disruptive "
                                                         "change; copied from the pool's upgrade strategy."),
                       "cordonOnFailure": boolean("Leave the node cordoned when a change fails (true), or "
                                                  "uncordon it (false); copied from the pool's upgrade "
                                                  "strategy. Default true.", default=True),
                       "health": with_desc(HEALTH_RULES, "The health rules the agent judges this node's GPUs "
                                                         "by; copied from the pool's GPUPolicy "
                                                         "(maxUnhealthyNodes is not used here). Unset: "
                                                         "no rules."),
                   }, required=["nodeName"])

MIG_INSTANCE_STATUS = obj("A MIG GPU instance that exists.", {
    "profile": string("MIG profile name.", maxLength=32),
    "placement": integer("Start memory slice.", minimum=0, maximum=15),
    "gpuInstanceID": integer("The GPU instance id NVML assigned.", minimum=0),
    "uuid": string("The MIG device UUID (MIG-...).", maxLength=128),
    "memoryMiB": integer("The instance's memory as the GPU and driver report it (profile sizes move a "
                         "little between driver branches; the catalog's are nominal).", minimum=0),
})

GPU_STATUS = obj("One GPU as the agent sees it.", {
    "index": integer("The GPU index on the node.", minimum=0),
    "uuid": string("The GPU UUID (GPU-...).", maxLength=128),
    "model": string("Product name as reported (\"NVIDIA A100-SXM4-80GB\").", maxLength=256),
    "catalogID": string("The catalog model id (\"a100-sxm4-80gb\"); empty when the model is unknown.",
                        maxLength=64),
    "vendor": string("GPU vendor.", enum=["nvidia", "amd"]),
    "memoryMiB": integer("Total memory in MiB.", fmt="int64", minimum=0),
    "pciBusID": string("PCI bus id (\"00000000:07:00.0\").", maxLength=32),
    "partition": obj("Partitioning state of the GPU.", {
        "capable": boolean("Whether the GPU supports MIG (NVIDIA) or compute partitioning (AMD)."),
        "migMode": string("Current MIG mode; Pending means a change waits for a GPU reset.",
                          enum=["Enabled", "Disabled", "Pending", "NotSupported"]),
        "instances": array("MIG instances on the GPU.", MIG_INSTANCE_STATUS, maxItems=7),
        "computePartition": string("Current AMD compute partition mode.", maxLength=8),
        "memoryPartition": string("Current AMD memory partition mode.", maxLength=8),
    }),
    "health": string("Overall health of the GPU.", enum=["Healthy", "Degraded", "Unhealthy", "Unknown"]),
    "healthReasons": array("Why the GPU is not Healthy (\"XID 79\", \"temperature 91C\").",
                           string("A reason.", maxLength=256), maxItems=32),
}, required=["index"])

OPERATION_STATUS = obj("State of one kind of change on the node.", {
    "type": string("What is changing.", enum=["Driver", "Partition", "Sharing", "Monitoring", "Drain"]),
    "phase": string("Where the change stands.", enum=["Pending", "InProgress", "Succeeded", "Failed"]),
    "observedGeneration": integer("The spec generation (metadata.generation) this operation carries out.",
                                  fmt="int64", minimum=0),
    "reason": string("The step or cause in one CamelCase word (Draining, PodDisruptionBudget, "
                     "ResetRequired, InstallFailed, ...).", maxLength=128,
                     pattern="^([A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?)?$"),
    "message": string("Details, e.g. the error of a failed step.", maxLength=32768),
    "lastTransitionTime": string("When phase last changed (RFC 3339).", format="date-time"),
}, required=["type", "phase"])

GPU_LINK = obj("How two GPUs of the node reach each other.", {
    "from": integer("GPU index.", minimum=0, maximum=15),
    "to": integer("GPU index, greater than from.", minimum=0, maximum=15),
    "type": string("The path, in nvidia-smi topo -m's words: NVLink, XGMI (AMD Infinity Fabric), "
                   "PIX (one PCIe switch), PXB (several PCIe switches), PHB (a PCIe host bridge), "
                   "NODE (host bridges within one NUMA node), SYS (across NUMA nodes).",
                   enum=["NVLink", "XGMI", "PIX", "PXB", "PHB", "NODE", "SYS"]),
    "links": integer("NVLink or xGMI links between the two; 0 for PCIe paths.", minimum=0, maximum=64),
}, required=["from", "to", "type"], rules=[rule("self.to > self.from", "to must be greater than from",
                                                 field_path=".to")])

GPUNODE_STATUS = obj("Observed state of the node's GPUs, written by the node agent.", {
    "observedGeneration": integer("The .metadata.generation the status reflects.", fmt="int64", minimum=0),
    "conditions": conditions("Conditions of the node: Ready, DriverReady, PartitionReady and Healthy."),
    "gpuCount": integer("Number of GPUs found.", minimum=0),
    "gpus": array("The GPUs, one entry per index.", GPU_STATUS, maxItems=16,
                  **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["index"]}),
    "driverVersion": string("Driver version loaded.", maxLength=64),
    "cudaVersion": string("CUDA version the driver supports (NVIDIA).", maxLength=32),
    "operations": array("Changes in progress or last finished, one per type.", OPERATION_STATUS, maxItems=8,
                        **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]}),
    "interconnect": array("How each pair of GPUs is connected (NVLink or the PCIe path), for placing "
                          "multi-GPU jobs.", GPU_LINK, maxItems=120, **{"x-kubernetes-list-type": "atomic"}),
    "lastHeartbeatTime": string("When the agent last reported (RFC 3339).", format="date-time"),
})

# --- CRDs -----------------------------------------------------------------------


def column(name, path, typ="string", desc=None, priority=None):
    out = {"name": name, "type": typ, "jsonPath": path}
    if desc:
        out["description"] = desc
    if priority is not None:
        out["priority"] = priority
    return out


AGE = column("Age", ".metadata.creationTimestamp", "date", "Time since the object was created.")


def crd(kind, plural, singular, short, scope, desc, spec, status, columns, root_rules=None, spec_required=True):
    root = {
        "description": desc,
        "type": "object",
        "required": ["spec"] if spec_required else [],
        "properties": {
            "apiVersion": string("APIVersion defines the versioned schema of this representation of an "
                                 "object: gpupool.io/v1alpha1."),
            "kind": string(f"Kind is the REST resource this object represents: {kind}."),
            "metadata": {"type": "object"},
            "spec": spec,
            "status": status,
        },
    }
    if not root["required"]:
        del root["required"]
    if root_rules:
        root["x-kubernetes-validations"] = root_rules
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": f"{plural}.{GROUP}",
            "labels": {"app.kubernetes.io/name": "gpupool-operator",
                       "app.kubernetes.io/part-of": "gpupool-operator"},
        },
        "spec": {
            "group": GROUP,
            "names": {
                "kind": kind,
                "listKind": kind + "List",
                "plural": plural,
                "singular": singular,
                "shortNames": [short],
                "categories": [CATEGORY],
            },
            "scope": scope,
            "versions": [{
                "name": VERSION,
                "served": True,
                "storage": True,
                "subresources": {"status": {}},
                "additionalPrinterColumns": columns + [AGE],
                "schema": {"openAPIV3Schema": root},
            }],
        },
    }


CRDS = {
    "gpupool.io_gpupools.yaml": crd(
        "GPUPool", "gpupools", "gpupool", "gpool", "Cluster",
        "GPUPool is a set of GPU nodes, chosen by a label selector, whose drivers, partitioning "
        "(MIG or AMD partitions), sharing and monitoring the operator keeps as specified.",
        GPUPOOL_SPEC, GPUPOOL_STATUS,
        [column("Vendor", ".spec.vendor", desc="GPU vendor of the member nodes."),
         column("Nodes", ".status.nodes.total", "integer", "Member nodes."),
         column("Ready", ".status.nodes.ready", "integer", "Member nodes that match the spec."),
         column("Updating", ".status.nodes.updating", "integer", "Member nodes being changed now."),
         column("Failed", ".status.nodes.failed", "integer", "Member nodes whose last change failed."),
         column("Driver", ".spec.driver.version", desc="Driver version wanted."),
         column("Progressing", '.status.conditions[?(@.type=="Progressing")].status',
                desc="Whether a rollout is under way."),
         column("Degraded", '.status.conditions[?(@.type=="Degraded")].status',
                desc="Whether more nodes failed than the failure budget allows (no new node starts)."),
         column("Conflict", '.status.conditions[?(@.type=="Conflict")].status',
                desc="Whether a pool of equal priority selects some of the same nodes.", priority=1),
         column("Sharing", ".spec.sharing.mode", desc="GPU sharing mode.", priority=1),
         column("Status", '.status.conditions[?(@.type=="Ready")].reason', desc="Reason of the Ready condition.")]),
    "gpupool.io_gpupolicies.yaml": crd(
        "GPUPolicy", "gpupolicies", "gpupolicy", "gpol", "Cluster",
        "GPUPolicy holds quota, health and default upgrade rules that GPUPools reference by name.",
        GPUPOLICY_SPEC, GPUPOLICY_STATUS,
        [column("Approval", ".spec.quota.approval", desc="How TenantQuotas are approved."),
         column("Borrowing", ".spec.quota.borrowing.enabled", "boolean", "Whether tenants may borrow idle capacity."),
         column("Pools", ".status.pools", desc="GPUPools referencing the policy.")]),
    "gpupool.io_tenantquotas.yaml": crd(
        "TenantQuota", "tenantquotas", "tenantquota", "tq", "Namespaced",
        "TenantQuota is a tenant's request for guaranteed (and borrowable) GPU capacity in a GPUPool.",
        TENANTQUOTA_SPEC, TENANTQUOTA_STATUS,
        [column("Pool", ".spec.poolRef.name", desc="The GPUPool the quota is requested from."),
         column("Phase", ".status.phase", desc="Whether the quota is granted."),
         column("Priority", ".spec.priority", "integer", "Grant order when capacity is short."),
         column("Expires", ".spec.expiresAt", desc="When the guarantee ends.")]),
    "gpupool.io_gpunodes.yaml": crd(
        "GPUNode", "gpunodes", "gpunode", "gnode", "Cluster",
        "GPUNode describes the GPUs of one Node (named after it): the controller writes the wanted "
        "state in spec, the node agent reports the actual state in status.",
        GPUNODE_SPEC, GPUNODE_STATUS,
        [column("Pool", ".spec.pool", desc="The owning GPUPool."),
         column("GPUs", ".status.gpuCount", "integer", "GPUs found on the node."),
         column("Driver", ".status.driverVersion", desc="Driver version loaded."),
         column("Disrupt", ".spec.disruptionAllowed", "boolean", "Whether the agent may disrupt the node now."),
         column("Heartbeat", ".status.lastHeartbeatTime", "date", "Time since the agent last reported.")],
        root_rules=[rule("self.spec.nodeName == self.metadata.name",
                         "spec.nodeName must equal metadata.name", ".spec.nodeName")]),
}

HEADER = ("# Generated by crds/generate.py from docs/api.md; edit the generator, not this file.\n"
          "---\n")


class Dumper(yaml.SafeDumper):
    pass


def _str(dumper, data):
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


Dumper.add_representer(str, _str)
Dumper.ignore_aliases = lambda self, data: True


def render(doc):
    return HEADER + yaml.dump(doc, Dumper=Dumper, sort_keys=False, width=110, allow_unicode=True,
                              default_flow_style=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when a file differs")
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    stale = []
    # The same files in config/crd/bases: kustomize loads nothing from outside
    # a kustomization's folder, so `kubectl kustomize config/default` needs copies.
    bases = os.path.join(os.path.dirname(here), "config", "crd", "bases")
    for name, doc in CRDS.items():
        text = render(doc)
        for path in (os.path.join(here, name), os.path.join(bases, name)):
            old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if old == text:
                continue
            if args.check:
                stale.append(os.path.relpath(path, os.path.dirname(here)))
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                print("wrote", path)
    if stale:
        print("out of date (run crds/generate.py):", ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
