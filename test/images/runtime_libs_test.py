#!/usr/bin/env python3
"""Checks the runtime stage of images/<name>.Dockerfile against the binary it ships.

    test/images/runtime_libs_test.py [--images-dir DIR] NAME=BINARY [NAME=BINARY ...]

For each NAME (controller, agent) the runtime stage (the last FROM) of
DIR/NAME.Dockerfile (DIR defaults to the repository's images/) is parsed for
its `apt-get install` packages, COPY/ADD lines, USER and ENTRYPOINT, and
BINARY (the gpupool-NAME the build made) is examined here, without Docker
(no daemon and no registry are needed):

  * every library the binary loads belongs (dpkg -S, /lib and /usr/lib being
    the same directory under merged /usr) to a package the runtime stage
    installs, to one of their dependencies (Depends and Pre-Depends, followed
    through this machine's dpkg database), or to the base image's libc6,
    libgcc-s1 or libstdc++6;
  * the package of every library the binary links directly is named in the
    runtime stage itself, so the image does not rely on another library's
    dependencies for it;
  * every package the runtime stage installs holds a library the binary
    loads, but for the extras each image declares below (ca-certificates,
    tzdata, util-linux): nothing else large comes in, and `apt-get install`
    has --no-install-recommends;
  * the runtime stage copies the binary from the build stage and nothing
    else, runs it as its ENTRYPOINT, and runs as the user each image declares
    (the controller non-root, the agent root);
  * the build stage and the runtime stage are the same Debian release.

"The libraries the binary loads" are those the release build's binary loads,
found from any build of it. The test build is an ASan/UBSan build, and there
two things differ: ldd shows the sanitizer runtimes (libasan, libubsan),
which a release image does not have, so they are left out; and Debian's GCC
links with --as-needed except under -fsanitize (its specs say
%{!fsanitize=*:--as-needed}), so the test build's binaries name (readelf -d
NEEDED) every library of their link line, the release build's only those
they use. So the directly linked libraries are the NEEDED entries that define
a symbol the binary imports (nm -D), what --as-needed keeps (for a release
binary: all of them), and the loaded ones are those plus what `ldd` shows
for each. On the release binaries this gives exactly their `ldd`.

This machine must be Debian with the libraries' packages installed (they are:
the build links them). Without ldd, readelf or dpkg the test exits 77, which
CTest reports as skipped.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys

# Per image: extras that hold no library but are wanted, and must be there;
# whether the runtime stage runs as root.
IMAGES = {
    "controller": {
        "binary": "gpupool-controller",
        # TLS roots; /usr/share/zoneinfo for date-tz (maintenance windows in IANA zones).
        "extras": {"ca-certificates", "tzdata"},
        "root": False,
    },
    "agent": {
        "binary": "gpupool-agent",
        # TLS roots; nsenter, the default --host-command-prefix.
        "extras": {"ca-certificates", "util-linux"},
        "root": True,
    },
}

# In debian:bookworm-slim already (priority required, and what apt itself links).
BASE_PACKAGES = {"libc6", "libgcc-s1", "libstdc++6"}

# Sanitizer runtimes of the ASan/UBSan test build; not linked by the release build.
SANITIZER_LIB = re.compile(r"^lib(asan|ubsan|lsan|tsan|hwasan)\.so")

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def run(args):
    return subprocess.run(args, check=False, capture_output=True, text=True)


# --- Dockerfile -------------------------------------------------------------

def instructions(path):
    """(keyword, arguments) of each instruction, continuation lines joined."""
    result, current = [], ""
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            stripped = line.strip()
            if stripped.startswith("#") or (not current and not stripped):
                continue  # comments (also inside continuations) and blank lines
            if line.endswith("\\"):
                current += line[:-1] + " "
                continue
            current += line
            if current.strip():
                keyword, _, rest = current.strip().partition(" ")
                result.append((keyword.upper(), rest.strip()))
            current = ""
    if current.strip():
        keyword, _, rest = current.strip().partition(" ")
        result.append((keyword.upper(), rest.strip()))
    return result


def stages(path):
    """[{'from': image, 'name': alias or None, 'body': [(keyword, args)]}]"""
    result = []
    for keyword, rest in instructions(path):
        if keyword == "FROM":
            words = [w for w in rest.split() if not w.startswith("--")]
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else None
            result.append({"from": words[0], "name": name, "body": []})
        elif result:
            result[-1]["body"].append((keyword, rest))
    return result


def apt_installs(run_args):
    """[(packages, options)] of each `apt-get install` in one RUN (shell form)."""
    result = []
    # Split the shell command into simple commands at &&, ||, ; and |.
    for command in re.split(r"&&|\|\||;|\|", run_args):
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
            words = words[1:]  # VAR=value prefixes
        if len(words) >= 2 and words[0] in ("apt-get", "apt") and "install" in words[1:]:
            rest = words[words.index("install") + 1:]
            result.append(([w for w in rest if not w.startswith("-")], [w for w in rest if w.startswith("-")]))
    return result


def debian_release(image):
    """'bookworm' for debian:bookworm, debian:bookworm-slim, debian:12-slim@sha256:..."""
    m = re.match(r"^(?:docker\.io/)?(?:library/)?debian:([A-Za-z0-9.]+?)(?:-slim)?(?:@.*)?$", image)
    return m.group(1) if m else None


# --- the binary -------------------------------------------------------------

def ldd_libraries(binary):
    """{soname: resolved path} of everything the dynamic loader loads."""
    out = run(["ldd", binary])
    if out.returncode != 0:
        fail(f"ldd {binary}: {out.stderr.strip() or out.stdout.strip()}")
        return {}
    libs = {}
    for line in out.stdout.splitlines():
        line = line.strip()
        m = re.match(r"^(\S+) => (\S+) \(0x[0-9a-f]+\)$", line)
        if m:
            libs[m.group(1)] = m.group(2)
            continue
        m = re.match(r"^(\S+) => not found$", line)
        if m:
            fail(f"{binary}: ldd finds no {m.group(1)} on this machine")
            continue
        m = re.match(r"^(/\S+) \(0x[0-9a-f]+\)$", line)
        if m:  # the dynamic loader itself
            libs[os.path.basename(m.group(1))] = m.group(1)
        # linux-vdso.so.1 (0x...) is the kernel's, no file
    return libs


def needed(binary):
    out = run(["readelf", "-d", "-W", binary])
    if out.returncode != 0:
        fail(f"readelf -d {binary}: {out.stderr.strip()}")
        return []
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out.stdout)


def dynamic_symbols(path, which):
    """{name: nm type} of the dynamic symbols (version suffixes dropped); which: --undefined-only/--defined-only."""
    out = run(["nm", "-D", which, path])
    symbols = {}
    for line in out.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 2:
            symbols[fields[-1].split("@")[0]] = fields[-2]
    return symbols


def used_libraries(binary, sonames, paths):
    """The NEEDED libraries a link with --as-needed keeps: those defining a symbol the binary imports.

    Debian's GCC links with --as-needed, but not with -fsanitize=... (its specs
    say %{!fsanitize=*:--as-needed}): the test build's binaries name every
    library of their link line (the controller gRPC's, the agent date-tz),
    the release build only those they use. Applied to a release binary this
    keeps every NEEDED entry."""
    imported = {name for name, kind in dynamic_symbols(binary, "--undefined-only").items() if kind == "U"}
    used = []
    for soname in sonames:
        if soname in paths and imported & set(dynamic_symbols(paths[soname], "--defined-only")):
            used.append(soname)
    return used


def loaded_by(libraries, paths):
    """{soname: path}: the libraries and everything the loader loads for them (ldd of each)."""
    loaded = {s: paths[s] for s in libraries if s in paths}
    for soname in libraries:
        if soname in paths:
            loaded.update(ldd_libraries(paths[soname]))
    return loaded


# --- dpkg -------------------------------------------------------------------

def path_aliases(path):
    """The path, its target, each with and without /usr (merged /usr: /lib is /usr/lib)."""
    candidates = []
    for p in (path, os.path.realpath(path)):
        candidates.append(p)
        for top in ("/lib", "/lib64", "/bin", "/sbin"):
            if p.startswith(top + "/"):
                candidates.append("/usr" + p)
            if p.startswith("/usr" + top + "/"):
                candidates.append(p[len("/usr"):])
    return list(dict.fromkeys(candidates))


def owners(paths):
    """{path: package} for the paths dpkg knows, one dpkg -S for all."""
    result = {}
    if not paths:
        return result
    out = run(["dpkg", "-S"] + sorted(set(paths)))  # exits 1 when some path is unknown: fine
    for line in out.stdout.splitlines():
        if line.startswith("diversion "):
            continue
        m = re.match(r"^(.+?): (/.*)$", line)
        if m:
            package = m.group(1).split(",")[0].strip().split(":")[0]
            result[m.group(2)] = package
    return result


def library_packages(libs):
    """{soname: package or None}"""
    all_paths = {soname: path_aliases(path) for soname, path in libs.items()}
    known = owners([p for paths in all_paths.values() for p in paths])
    return {soname: next((known[p] for p in paths if p in known), None) for soname, paths in all_paths.items()}


def installed_packages():
    """{package: {'depends': [[alternatives]], 'provides': [...], 'size': KiB, 'essential': bool}}"""
    out = run(["dpkg-query", "-W", "-f",
               "${db:Status-Abbrev}\t${Package}\t${Depends}\t${Pre-Depends}\t${Provides}\t${Installed-Size}\t${Essential}\n"])
    db = {}
    for line in out.stdout.splitlines():
        fields = line.split("\t")
        if len(fields) != 7 or not fields[0].startswith("ii"):
            continue
        _, name, depends, pre_depends, provides, size, essential = fields
        groups = []
        for relation in ", ".join(x for x in (depends, pre_depends) if x).split(","):
            alternatives = [re.sub(r"\s*\(.*?\)|:\w+|\s*\[.*?\]", "", a).strip() for a in relation.split("|")]
            alternatives = [a for a in alternatives if a]
            if alternatives:
                groups.append(alternatives)
        db[name] = {
            "depends": groups,
            "provides": [re.sub(r"\s*\(.*?\)", "", p).strip() for p in provides.split(",") if p.strip()],
            "size": int(size) if size.isdigit() else 0,
            "essential": essential == "yes",
        }
    return db


def closure(roots, db):
    """The packages apt installs for roots, as far as this machine's dpkg database says."""
    providers = {}
    for name, info in db.items():
        for p in info["provides"]:
            providers.setdefault(p, []).append(name)
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for alternatives in db.get(name, {}).get("depends", []):
            # apt takes the first alternative; prefer one installed here.
            chosen = None
            for a in alternatives:
                if a in db:
                    chosen = a
                    break
                if a in providers:
                    chosen = providers[a][0]
                    break
            todo.append(chosen or alternatives[0])
    return seen


# --- one image --------------------------------------------------------------

def check_image(name, dockerfile, binary, db):
    spec = IMAGES[name]
    print(f"=== {name}: {dockerfile} against {binary}")
    failures_before = len(failures)
    all_stages = stages(dockerfile)
    if len(all_stages) < 2:
        fail(f"{dockerfile}: expected a build stage and a runtime stage, found {len(all_stages)} FROM")
        return
    build, runtime = all_stages[0], all_stages[-1]
    releases = {debian_release(build["from"]), debian_release(runtime["from"])}
    if None in releases or len(releases) != 1:
        fail(f"{dockerfile}: build stage {build['from']} and runtime stage {runtime['from']} must be the same "
             "Debian release (library sonames differ between releases)")
    if not runtime["from"].endswith("-slim") and "-slim@" not in runtime["from"]:
        fail(f"{dockerfile}: runtime stage is {runtime['from']}, expected a -slim Debian image")

    # Packages of the runtime stage.
    listed = []
    for keyword, rest in runtime["body"]:
        if keyword == "RUN":
            for packages, options in apt_installs(rest):
                if "--no-install-recommends" not in options:
                    fail(f"{dockerfile}: runtime `apt-get install` without --no-install-recommends "
                         "(Recommends would pull in more than the libraries)")
                listed += packages
    listed_set = set(listed)
    print(f"runtime packages: {' '.join(listed)}")
    for p in sorted(listed_set - set(db)):
        fail(f"{dockerfile}: runtime package {p} is not installed on this machine; its libraries cannot be "
             "checked (and no binary built here links it)")

    # COPY/ADD: the binary from the build stage, nothing else.
    build_refs = {"0"} | ({build["name"]} if build["name"] else set())
    copied_to = None
    for keyword, rest in runtime["body"]:
        if keyword not in ("COPY", "ADD"):
            continue
        words = shlex.split(rest)
        flags = [w for w in words if w.startswith("--")]
        paths = [w for w in words if not w.startswith("--")]
        sources, dest = paths[:-1], paths[-1] if paths else ""
        from_stage = next((f.split("=", 1)[1] for f in flags if f.startswith("--from=")), None)
        if keyword == "COPY" and from_stage in build_refs and len(sources) == 1 \
                and os.path.basename(sources[0]) == spec["binary"] and copied_to is None:
            copied_to = dest if not dest.endswith("/") else dest + spec["binary"]
        else:
            fail(f"{dockerfile}: runtime stage has `{keyword} {rest}`: only the {spec['binary']} binary "
                 "from the build stage belongs there")
    if copied_to is None:
        fail(f"{dockerfile}: the runtime stage does not COPY --from={build['name'] or 0} the {spec['binary']} binary")

    entry = [rest for keyword, rest in runtime["body"] if keyword == "ENTRYPOINT"]
    if not entry or copied_to is None or not entry[-1].startswith(f'["{copied_to}"'):
        fail(f"{dockerfile}: ENTRYPOINT should be [\"{copied_to}\", ...], found {entry[-1] if entry else 'none'}")

    users = [rest.split(":")[0].strip() for keyword, rest in runtime["body"] if keyword == "USER"]
    user = users[-1] if users else "root"
    is_root = user in ("root", "0")
    if spec["root"] and not is_root:
        fail(f"{dockerfile}: the {name} must run as root (USER {user})")
    if not spec["root"] and is_root:
        fail(f"{dockerfile}: the {name} must not run as root: add a USER line (65532:65532)")
    print(f"runs as: {'root' if is_root else users[-1]}")

    # The binary's libraries.
    resolved = ldd_libraries(binary)
    linked = [s for s in needed(binary) if not SANITIZER_LIB.match(s)]
    direct = used_libraries(binary, linked, resolved)
    libs = {s: p for s, p in loaded_by(direct, resolved).items() if not SANITIZER_LIB.match(s)}
    packages = library_packages(libs)
    for soname, package in sorted(packages.items()):
        if package is None:
            fail(f"{binary}: {soname} ({libs[soname]}) belongs to no Debian package on this machine")

    provided = closure(listed_set | BASE_PACKAGES, db)
    by_package = {}
    for soname, package in packages.items():
        if package:
            by_package.setdefault(package, []).append(soname)

    for soname in direct:
        package = packages.get(soname)
        if package and package not in listed_set and package not in BASE_PACKAGES:
            fail(f"{name}: {spec['binary']} links {soname} (package {package}); add {package} to the "
                 "runtime stage's apt-get install")
    for package, sonames in sorted(by_package.items()):
        if package not in provided:
            fail(f"{name}: {spec['binary']} loads {', '.join(sorted(sonames))} from package {package}, which "
                 "neither the runtime stage nor its packages' dependencies install")

    for package in sorted(listed_set):
        if package in spec["extras"]:
            continue
        if package not in by_package:
            fail(f"{name}: the runtime stage installs {package}, which holds none of the libraries "
                 f"{spec['binary']} loads (an extra must be declared in {os.path.basename(__file__)})")
    for package in sorted(spec["extras"] - listed_set):
        fail(f"{name}: the runtime stage must install {package}")

    verdict = "all provided" if len(failures) == failures_before else "see the problems above"
    print(f"libraries: {len(linked)} linked, {len(direct)} of them used (kept by --as-needed): "
          f"{' '.join(direct)}; {len(libs)} loaded with what they load, from {len(by_package)} packages: {verdict}")
    # For information: what the runtime packages add to an approximation of
    # debian:bookworm-slim (the Essential packages and apt, with their dependencies).
    base = closure({p for p, info in db.items() if info["essential"]} | {"apt"}, db)
    added = sorted(p for p in provided if p in db and p not in base)
    kib = sum(db[p]["size"] for p in added)
    print(f"added to the slim base (approximately): {len(added)} packages, {kib / 1024:.1f} MiB installed "
          f"(dpkg's sizes on this machine): {' '.join(added)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                             "..", "..", "images"))
    parser.add_argument("images", nargs="+", metavar="NAME=BINARY")
    args = parser.parse_args()

    for tool in ("ldd", "readelf", "nm", "dpkg", "dpkg-query"):
        if shutil.which(tool) is None:
            print(f"SKIPPED: {tool} is not available (the check needs a Debian machine with binutils)")
            return 77

    db = installed_packages()
    for item in args.images:
        name, _, binary = item.partition("=")
        if name not in IMAGES or not binary:
            print(f"usage: NAME=BINARY with NAME one of {', '.join(IMAGES)}; got {item!r}")
            return 2
        if not os.access(binary, os.X_OK):
            fail(f"{binary} is not an executable (build {IMAGES[name]['binary']} first)")
            continue
        check_image(name, os.path.join(args.images_dir, f"{name}.Dockerfile"), binary, db)

    if failures:
        print(f"{len(failures)} problem(s)")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
