#!/usr/bin/env python3
"""The Argo CD health checks in config/argocd/argocd-cm-health.yaml, run by
lua5.4 on objects as the controller writes them.

    argocd_health_test.py REPO_ROOT

Exit 77 (CTest: skipped) without lua5.4.
"""
import json
import os
import shutil
import subprocess
import sys

import yaml


def lua_value(v):
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string literal is a valid Lua string literal for these texts
    if isinstance(v, list):
        return "{" + ", ".join(lua_value(x) for x in v) + "}"
    return "{" + ", ".join(f"[{json.dumps(k)}] = {lua_value(x)}" for k, x in v.items()) + "}"


def run(lua, script, obj):
    program = ("local obj = " + lua_value(obj) + "\nlocal function check()\n" + script +
               "\nend\nlocal hs = check()\nprint(hs.status)\nprint(hs.message or '')\n")
    out = subprocess.run([lua, "-"], input=program, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    status, _, message = out.stdout.partition("\n")
    return status, message.strip()


def cond(t, status, reason="", message="", generation=1):
    return {"type": t, "status": status, "reason": reason, "message": message, "observedGeneration": generation}


def pool(conditions, generation=1, paused=False):
    return {"metadata": {"name": "p", "generation": generation}, "spec": {"paused": paused},
            "status": {"conditions": conditions}}


def quota(conditions, generation=1):
    return {"metadata": {"name": "q", "generation": generation}, "status": {"conditions": conditions}}


POOL_CASES = [
    ("no status yet", {"metadata": {"generation": 1}, "spec": {}}, "Progressing"),
    ("up to date", pool([cond("Ready", "True", "UpToDate", "all 3 member nodes match the spec"),
                         cond("Degraded", "False"), cond("Conflict", "False")]), "Healthy"),
    ("a spec the controller has not seen", pool([cond("Ready", "True", "UpToDate")], generation=2), "Progressing"),
    ("rolling out", pool([cond("Ready", "False", "RollingOut", "1 of 3 nodes updated")]), "Progressing"),
    ("failure budget exceeded", pool([cond("Ready", "False", "NodesFailed"),
                                      cond("Degraded", "True", "FailureBudgetExceeded", "node a failed")]), "Degraded"),
    ("conflict", pool([cond("Ready", "False", "NoMembers"), cond("Conflict", "True", "EqualPriority")]), "Degraded"),
    ("paused", pool([cond("Ready", "False", "Paused")], paused=True), "Suspended"),
    ("outside its window", pool([cond("Ready", "False", "OutsideMaintenanceWindow", "next opens at ...")]), "Suspended"),
]

QUOTA_CASES = [
    ("no status yet", {"metadata": {"generation": 1}}, "Progressing"),
    ("granted", quota([cond("Granted", "True", "Granted", "granted 4 of 4"), cond("Ready", "True", "Granted")]), "Healthy"),
    ("stale", quota([cond("Granted", "True", "Granted")], generation=3), "Progressing"),
    ("partly", quota([cond("Granted", "False", "PartiallyGranted", "granted 1 of 3")]), "Progressing"),
    ("waiting for capacity", quota([cond("Granted", "False", "WaitingForCapacity")]), "Progressing"),
    ("waiting for approval", quota([cond("Granted", "False", "WaitingForApproval")]), "Suspended"),
    ("rejected", quota([cond("Granted", "False", "Rejected", "namespace not allowed")]), "Degraded"),
    ("expired", quota([cond("Granted", "False", "Expired")]), "Degraded"),
]


def main():
    lua = shutil.which("lua5.4")
    if lua is None:
        print("SKIPPED: lua5.4 is not installed (tools/dev/setup.sh installs it)")
        return 77
    cm = yaml.safe_load(open(os.path.join(sys.argv[1], "config", "argocd", "argocd-cm-health.yaml"), encoding="utf-8"))
    scripts = {"GPUPool": cm["data"]["resource.customizations.health.gpupool.io_GPUPool"],
               "TenantQuota": cm["data"]["resource.customizations.health.gpupool.io_TenantQuota"]}
    failures = 0
    for kind, cases in (("GPUPool", POOL_CASES), ("TenantQuota", QUOTA_CASES)):
        for name, obj, want in cases:
            status, message = run(lua, scripts[kind], obj)
            ok = status == want
            failures += 0 if ok else 1
            print(f"{'ok  ' if ok else 'FAIL'} {kind} {name}: {status} ({message}){'' if ok else ', want ' + want}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
