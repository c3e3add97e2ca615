#!/usr/bin/env python3
"""The controller's and the agent's RBAC against what they did.

    rbac_usage_check.py REPO_ROOT AUDIT_DIR

Reads the roles in config/rbac/{controller,agent}_role.yaml and the API
server audit logs the integration tests left in AUDIT_DIR (testenv writes one
per control plane when $GPUPOOL_AUDIT_DIR is set; tools/dev/test.sh sets it).
The requests of each component are those whose user agent is
gpupool-controller/... or gpupool-agent/... (in most tests the components use
an admin token, so nothing was refused: this check is what proves their roles
would have been enough). Fails when
  - a rule has a wildcard, or the verbs escalate, bind or impersonate;
  - a request of a component is not allowed by its roles (the ClusterRole
    anywhere, the Role in any namespace: tests give components test
    namespaces as their own; deploy_test checks the real bindings);
  - a rule allows a verb on a resource that no request of the component used
    (with resourceNames: on one of those names), unless the rule is listed in
    NOT_REACHED below with the reason no integration test reaches it. An
    informer's streaming list (a watch with sendInitialEvents=true) counts as
    its list too: the informer lists in pages where a server refuses it.
Exit 77 (CTest: skipped) when AUDIT_DIR holds no audit log (tests run alone).
"""
import glob
import json
import os
import sys

import yaml

COMPONENTS = {"gpupool-controller/": "gpupool-controller", "gpupool-agent/": "gpupool-agent"}
FORBIDDEN_VERBS = {"escalate", "bind", "impersonate", "*"}

# (role, apiGroup, resource, verb): allowed, used by the code, not reached by a test.
NOT_REACHED = {
}

# Names a test gives an object whose name a flag sets, -> the default the roles name.
NAME_ALIASES = {
    "external-webhook-tls": "gpupool-webhook-tls",  # webhook_rotation_test: --webhook-secret (cert-manager's)
    "fault-webhook-tls": "gpupool-webhook-tls",  # fault_suite_test: --webhook-secret (cert-manager's)
}


def load_roles(root):
    roles = {}  # name -> {"cluster": [rules], "namespaced": [rules]}
    for f in ("controller_role.yaml", "agent_role.yaml"):
        for doc in yaml.safe_load_all(open(os.path.join(root, "config", "rbac", f), encoding="utf-8")):
            if not doc or doc.get("kind") not in ("ClusterRole", "Role"):
                continue
            entry = roles.setdefault(doc["metadata"]["name"], {"cluster": [], "namespaced": []})
            entry["cluster" if doc["kind"] == "ClusterRole" else "namespaced"].extend(doc.get("rules", []))
    return roles


def wildcard_problems(roles):
    out = []
    for name, r in roles.items():
        for scope in ("cluster", "namespaced"):
            for rule in r[scope]:
                for key in ("apiGroups", "resources", "verbs", "resourceNames"):
                    if "*" in rule.get(key, []):
                        out.append(f"{name} ({scope}): wildcard in {key}: {rule}")
                if FORBIDDEN_VERBS & set(rule.get("verbs", [])):
                    out.append(f"{name} ({scope}): forbidden verb in {rule}")
                if "nonResourceURLs" in rule:
                    out.append(f"{name} ({scope}): nonResourceURLs: {rule}")
    return out


def read_requests(audit_dir):
    """{component: set of (verb, group, resource, namespace, name)}; resource is "pods/eviction" etc."""
    out = {c: set() for c in COMPONENTS.values()}
    files = sorted(glob.glob(os.path.join(audit_dir, "*.jsonl")))
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue  # a line cut by a killed apiserver
                agent = e.get("userAgent", "")
                component = next((c for p, c in COMPONENTS.items() if agent.startswith(p)), None)
                ref = e.get("objectRef")
                if component is None or ref is None:
                    continue  # not ours, or discovery (allowed to every authenticated user)
                resource = ref.get("resource", "")
                if ref.get("subresource"):
                    resource += "/" + ref["subresource"]
                name = NAME_ALIASES.get(ref.get("name", ""), ref.get("name", ""))
                key = (ref.get("apiGroup", ""), resource, ref.get("namespace", ""), name)
                out[component].add((e.get("verb", ""),) + key)
                # A streaming list (an informer's watch with sendInitialEvents) is
                # authorized as watch; the same informer lists in pages where a
                # server refuses it (WatchList off), so it stands for its list too.
                if e.get("verb") == "watch" and "sendInitialEvents=true" in e.get("requestURI", ""):
                    out[component].add(("list",) + key)
                # A server-side apply that created the object was authorized as create too.
                if e.get("verb") == "patch" and e.get("responseStatus", {}).get("code") == 201:
                    out[component].add(("create",) + key)
    return files, out


def allows(rule, verb, group, resource, name):
    if group not in rule.get("apiGroups", []) or resource not in rule.get("resources", []):
        return False
    if verb not in rule.get("verbs", []):
        return False
    names = rule.get("resourceNames")
    return not names or (name in names and verb not in ("create", "list", "watch", "deletecollection"))


def main():
    root, audit_dir = sys.argv[1], sys.argv[2]
    roles = load_roles(root)
    problems = wildcard_problems(roles)
    files, requests = read_requests(audit_dir)
    if not files:
        print(f"SKIPPED: no audit logs in {audit_dir} (run the integration tests with $GPUPOOL_AUDIT_DIR set first, "
              "as tools/dev/test.sh does)")
        return 77
    used = set()  # (role, scope, rule index, verb, group, resource)
    for component, reqs in requests.items():
        r = roles.get(component)
        if r is None:
            problems.append(f"no roles for {component} in config/rbac")
            continue
        if not reqs:
            problems.append(f"no request of {component} in the audit logs: did the integration tests run?")
        for verb, group, resource, ns, name in sorted(reqs):
            ok = False
            # The Role is the operator namespace's; tests run a component with its namespace
            # flags (--leader-election-namespace, --namespace) set to a test namespace, so it
            # counts in any namespace here. deploy_test checks the real bindings in gpupool-system.
            scopes = ["cluster"] + (["namespaced"] if ns else [])
            for scope in scopes:
                for i, rule in enumerate(r[scope]):
                    if allows(rule, verb, group, resource, name):
                        used.add((component, scope, i, verb, group, resource))
                        ok = True
            if not ok:
                where = f" in namespace {ns}" if ns else ""
                problems.append(f"{component} made a request its roles do not allow: {verb} {group or 'core'}/{resource}"
                                f"{' ' + name if name else ''}{where}")
    for component, r in roles.items():
        for scope in ("cluster", "namespaced"):
            for i, rule in enumerate(r[scope]):
                for group in rule.get("apiGroups", []):
                    for resource in rule.get("resources", []):
                        for verb in rule.get("verbs", []):
                            if (component, scope, i, verb, group, resource) in used:
                                continue
                            if (component, group, resource, verb) in NOT_REACHED:
                                continue
                            problems.append(f"{component} ({'ClusterRole' if scope == 'cluster' else 'Role'}) allows "
                                            f"{verb} {group or 'core'}/{resource}"
                                            f"{' ' + str(rule['resourceNames']) if rule.get('resourceNames') else ''}"
                                            " but no request used it")
    counts = ", ".join(f"{c}: {len(r)} distinct requests" for c, r in requests.items())
    print(f"read {len(files)} audit logs; {counts}")
    if problems:
        print("\n".join("FAIL: " + p for p in problems))
        return 1
    print("PASS: every rule used, every request allowed, no wildcard")
    return 0


if __name__ == "__main__":
    sys.exit(main())
