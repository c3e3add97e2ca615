#!/usr/bin/env python3
"""Differential test: offline validation (gpupoolctl validate) against the real
kube-apiserver. Seeded random mutations of the samples in config/samples (a
field deleted, set to another value of another type, an unknown field added)
go to both `kubectl apply --server-side --dry-run=server` and `gpupoolctl
validate`. The promise of offline validation for GitOps is that what it passes
the apiserver accepts: any mutant the apiserver rejects but gpupoolctl passes
fails the test. The other way round is expected (semantic rules the apiserver
does not know); those are counted and listed.

Run inside a cluster with kubectl on PATH (test/differential/run.sh does):
    validate_vs_apiserver.py GPUPOOLCTL SOURCE_DIR [SEED] [COUNT]
"""
import copy
import glob
import json
import os
import random
import re
import subprocess
import sys
import tempfile

import yaml

VALUES = [0, -1, 1, 7, 65, 1000001, 1.5, "x", "", "NoSchedule", "4 GPUs", "1.5", "100%", "0%", "10m", "1s",
          "48h", True, None, [], {}, {"a": 1}, "Manual", "mixed", "timeSlicing", "mps", "CPX", "NPS4", "3g.40gb",
          "all-1g.10gb", "2024-01-01T00:00:00Z", "nvidia.com/gpu", "bad key", "a" * 70]


def paths(o, p=()):
    yield p
    if isinstance(o, dict):
        for k, v in o.items():
            yield from paths(v, p + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from paths(v, p + (i,))


def parent_of(o, p):
    for k in p[:-1]:
        o = o[k]
    return o


def mutate(rng, o):
    for _ in range(rng.randint(1, 2)):
        ps = [p for p in paths(o) if p and p[0] == "spec" and len(p) > 1]
        if not ps:
            return
        p = rng.choice(ps)
        parent = parent_of(o, p)
        r = rng.random()
        if r < 0.25:
            del parent[p[-1]]
        elif r < 0.4 and isinstance(parent, dict):
            parent["unknownField"] = 1
        else:
            parent[p[-1]] = copy.deepcopy(rng.choice(VALUES))


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    ctl, src = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 150
    rng = random.Random(seed)
    crds = os.path.join(src, "crds")
    for cmd in (["kubectl", "apply", "--server-side", "-f", crds],
                ["kubectl", "wait", "--for=condition=Established", "--timeout=60s", "-f", crds]):
        r = run(cmd)
        if r.returncode != 0:
            sys.exit("setup failed: %s\n%s" % (" ".join(cmd), r.stderr))
    bases = []
    for f in sorted(glob.glob(os.path.join(src, "config/samples/*.yaml"))):
        if not f.endswith("kustomization.yaml"):
            bases += [d for d in yaml.safe_load_all(open(f)) if d]
    for ns in sorted({b["metadata"].get("namespace") for b in bases} - {None}):
        run(["kubectl", "create", "namespace", ns])

    # Every mutant is drawn first (the same sequence of draws as one at a
    # time), written to a file of its own, and both sides judge them all in one
    # run each, at once: kubectl applies each object of a directory with its own
    # request (a rejection does not stop the others) and names the ones the
    # apiserver accepted (-o name); gpupoolctl validate --references ignore
    # judges each object alone and prefixes each problem with its file.
    missed, stricter = [], []
    with tempfile.TemporaryDirectory() as tmp:
        mutants = []
        for i in range(count):
            o = copy.deepcopy(rng.choice(bases))
            o.pop("status", None)
            o["metadata"]["name"] = "mutant-%d" % i
            mutate(rng, o)
            path = os.path.join(tmp, "mutant-%d.json" % i)
            with open(path, "w") as f:
                json.dump(o, f)
            mutants.append((o, path))
        api_proc = subprocess.Popen(["kubectl", "apply", "--server-side", "--dry-run=server", "-o", "name", "-f", tmp],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        off = run([ctl, "validate", "--references", "ignore", "-f", tmp])
        api_out, api_err = api_proc.communicate()
        if off.returncode not in (0, 1):
            sys.exit("gpupoolctl could not run (status %d): %s" % (off.returncode, off.stderr))
        seen = re.search(r"(\d+) gpupool.io object\(s\) checked, (\d+) other object\(s\) skipped", off.stderr)
        if not seen or int(seen.group(1)) + int(seen.group(2)) != count:
            sys.exit("gpupoolctl did not read every mutant (%d): %s" % (count, off.stderr))
        accepted = {line.rsplit("/", 1)[-1] for line in api_out.splitlines() if line.strip()}
        # kubectl's errors, one per object, some over several lines.
        api_errors = []
        for line in api_err.splitlines():
            if not api_errors or line.startswith(("Error from server", "error:")):
                api_errors.append(line)
            else:
                api_errors[-1] += "\n" + line
        off_lines = off.stdout.splitlines()

        def mentions(error, name):
            first = error.split("\n", 1)[0]
            return '"%s"' % name in first or "/%s;" % name in first

        for o, path in mutants:
            name = o["metadata"]["name"]
            api_ok = name in accepted
            api_msg = "\n".join(e for e in api_errors if mentions(e, name))
            if not api_ok and not api_msg:
                # Neither accepted nor named in an error: ask again for this one alone.
                single = run(["kubectl", "apply", "--server-side", "--dry-run=server", "-f", path])
                api_ok, api_msg = single.returncode == 0, single.stderr
            problems = [l for l in off_lines if l.startswith(path + ":")]
            off_ok = not problems
            case = "%s %s\n  spec: %s\n  apiserver: %s\n  gpupoolctl: %s" % (
                o["kind"], name, json.dumps(o.get("spec"))[:300],
                api_msg.strip()[:300], "\n".join(problems).strip()[:300])
            if not api_ok and off_ok:
                missed.append(case)
            elif api_ok and not off_ok:
                stricter.append(case)
        paths = [path + ":" for _, path in mutants]
        stray = [l for l in off_lines if l and not any(l.startswith(p) for p in paths)]
        if stray or off.returncode != (1 if any(off_lines) else 0):
            sys.exit("gpupoolctl's output does not add up (status %d): %s" % (off.returncode, "\n".join(stray or off_lines)[:2000]))
    print("%d mutants (seed %d): %d rejected only by gpupoolctl (semantic rules), %d missed by gpupoolctl"
          % (count, seed, len(stricter), len(missed)))
    for c in stricter:
        print("semantic only: " + c)
    for c in missed:
        print("MISSED (the apiserver rejects, gpupoolctl passes): " + c)
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
