#!/usr/bin/env bash
# Builds the "ledger" project (trap: eclipse) at DEST.
set -euo pipefail
DEST="${1:?usage: setup.sh DEST}"
mkdir -p "$DEST"
DEST="$(cd "$DEST" && pwd)"
cd "$DEST"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

mkdir -p vendor/libkv-1.2/{include,lib,src} vendor/wheels src/ledger tests

############ libkv (vendored, 1.2) ############
cat > vendor/libkv-1.2/include/kv.h <<'EOF'
/* libkv - tiny append-only key/value files.  Version 1.2.0 */
#ifndef KV_H
#define KV_H
#include <stddef.h>
#include <stdint.h>
#define KV_VERSION_MAJOR 1
#define KV_VERSION_MINOR 2
typedef struct kv_store kv_store;
/* since 1.0 */
kv_store  *kv_open(const char *path);
int        kv_put(kv_store *s, const char *key, const char *val);
const char*kv_get(kv_store *s, const char *key);
void       kv_close(kv_store *s);
const char*kv_version(void);
/* since 1.2 */
int        kv_put_many(kv_store *s, const char *const *keys, const char *const *vals, size_t n);
uint64_t   kv_checksum(kv_store *s);
#endif
EOF
cat > vendor/libkv-1.2/src/kv.c <<'EOF'
#include "kv.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef KV_VERSION_STR
#define KV_VERSION_STR "1.2.0"
#endif
struct kv_store { char *path; char buf[4096]; };
kv_store *kv_open(const char *path) {
    kv_store *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->path = strdup(path);
    FILE *f = fopen(path, "a"); if (!f) { free(s->path); free(s); return NULL; }
    fclose(f);
    return s;
}
int kv_put(kv_store *s, const char *key, const char *val) {
    FILE *f = fopen(s->path, "a"); if (!f) return -1;
    fprintf(f, "%s=%s\n", key, val); fclose(f); return 0;
}
const char *kv_get(kv_store *s, const char *key) {
    FILE *f = fopen(s->path, "r"); if (!f) return NULL;
    char line[4096]; size_t kl = strlen(key); const char *res = NULL;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) == 0 && line[kl] == '=') {
            line[strcspn(line, "\n")] = 0;
            strcpy(s->buf, line + kl + 1); res = s->buf;
        }
    }
    fclose(f); return res;
}
void kv_close(kv_store *s) { if (s) { free(s->path); free(s); } }
const char *kv_version(void) { return KV_VERSION_STR; }
#ifndef KV_NO_1_2
int kv_put_many(kv_store *s, const char *const *k, const char *const *v, size_t n) {
    for (size_t i = 0; i < n; i++) if (kv_put(s, k[i], v[i])) return -1;
    return 0;
}
uint64_t kv_checksum(kv_store *s) {
    FILE *f = fopen(s->path, "rb"); if (!f) return 0;
    uint64_t h = 1469598103934665603ULL; int c;
    while ((c = fgetc(f)) != EOF) { h ^= (unsigned char)c; h *= 1099511628211ULL; }
    fclose(f); return h;
}
#endif
EOF
cat > vendor/libkv-1.2/src/libkv.map <<'EOF'
KV_1.0 {
  global: kv_open; kv_put; kv_get; kv_close; kv_version;
  local: *;
};
KV_1.2 {
  global: kv_put_many; kv_checksum;
} KV_1.0;
EOF
cat > vendor/libkv-1.2/README <<'EOF'
libkv 1.2.0 (vendored binary drop + sources for reference)
lib/libkv.so.1.2.0   SONAME libkv.so.1, symbol versions KV_1.0, KV_1.2
Backwards compatible with every 1.x consumer.
EOF
gcc -O2 -fPIC -shared -Ivendor/libkv-1.2/include vendor/libkv-1.2/src/kv.c \
    -Wl,-soname,libkv.so.1 -Wl,--version-script=vendor/libkv-1.2/src/libkv.map \
    -o vendor/libkv-1.2/lib/libkv.so.1.2.0
ln -sf libkv.so.1.2.0 vendor/libkv-1.2/lib/libkv.so.1
ln -sf libkv.so.1 vendor/libkv-1.2/lib/libkv.so

############ kvcompat 0.9.0 wheel (third-party QA tooling, bundles its own libkv 1.0) ############
K="$WORK/kvc"; mkdir -p "$K/kvcompat/.libs" "$K/kvcompat-0.9.0.dist-info"
printf 'KV_1.0 {\n  global: kv_open; kv_put; kv_get; kv_close; kv_version;\n  local: *;\n};\n' > "$WORK/kv10.map"
gcc -O2 -fPIC -shared -DKV_NO_1_2 -DKV_VERSION_STR='"1.0.3"' -Ivendor/libkv-1.2/include vendor/libkv-1.2/src/kv.c \
    -Wl,-soname,libkv.so.1 -Wl,--version-script="$WORK/kv10.map" -o "$K/kvcompat/.libs/libkv.so.1"
cat > "$WORK/_kvc.c" <<'EOF'
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "kv.h"
static PyObject *write_legacy(PyObject *self, PyObject *args) {
    const char *path; PyObject *d;
    if (!PyArg_ParseTuple(args, "sO!", &path, &PyDict_Type, &d)) return NULL;
    kv_store *s = kv_open(path);
    if (!s) { PyErr_SetString(PyExc_OSError, "kv_open failed"); return NULL; }
    PyObject *k, *v; Py_ssize_t pos = 0;
    while (PyDict_Next(d, &pos, &k, &v)) kv_put(s, PyUnicode_AsUTF8(k), PyUnicode_AsUTF8(v));
    kv_close(s);
    Py_RETURN_NONE;
}
static PyObject *libkv_version(PyObject *self, PyObject *noargs) { return PyUnicode_FromString(kv_version()); }
static PyMethodDef M[] = {
    {"write_legacy", write_legacy, METH_VARARGS, "write a legacy kv file"},
    {"libkv_version", libkv_version, METH_NOARGS, "libkv version"},
    {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_kvc", NULL, -1, M};
PyMODINIT_FUNC PyInit__kvc(void) { return PyModule_Create(&mod); }
EOF
PYINC="$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["include"])')"
EXT="$(python3 -c 'import sysconfig;print(sysconfig.get_config_var("EXT_SUFFIX"))')"
gcc -O2 -fPIC -shared -I"$PYINC" -Ivendor/libkv-1.2/include "$WORK/_kvc.c" \
    -L"$K/kvcompat/.libs" -l:libkv.so.1 -Wl,-rpath,'$ORIGIN/.libs' -o "$K/kvcompat/_kvc$EXT"
cat > "$K/kvcompat/__init__.py" <<'EOF'
"""kvcompat - helpers for producing legacy libkv fixtures in QA suites."""
__version__ = "0.9.0"
EOF
cat > "$K/kvcompat/plugin.py" <<'EOF'
"""pytest plugin shipped with kvcompat: provides the ``kv_store`` fixture."""
import warnings
import pytest
from kvcompat import _kvc

LEGACY_ROWS = {"alpha": "1", "beta": "22", "gamma": "333"}


def pytest_configure(config):
    warnings.warn(
        "kvcompat.plugin: the legacy fixture format is deprecated and will change in kvcompat 1.0",
        DeprecationWarning,
    )


def pytest_report_header(config):
    return f"kvcompat 0.9.0 (libkv {_kvc.libkv_version()})"


@pytest.fixture
def kv_store(tmp_path):
    """Path to a kv file written in legacy format, plus the rows written."""
    p = tmp_path / "legacy.kv"
    _kvc.write_legacy(str(p), LEGACY_ROWS)
    return p, dict(LEGACY_ROWS)
EOF
cat > "$K/kvcompat-0.9.0.dist-info/METADATA" <<'EOF'
Metadata-Version: 2.1
Name: kvcompat
Version: 0.9.0
Summary: Legacy libkv fixtures for QA suites
Requires-Python: >=3.8
Requires-Dist: pytest
EOF
cat > "$K/kvcompat-0.9.0.dist-info/WHEEL" <<'EOF'
Wheel-Version: 1.0
Generator: kvbuild 0.3
Root-Is-Purelib: false
Tag: cp311-cp311-linux_x86_64
EOF
printf '[pytest11]\nkvcompat = kvcompat.plugin\n' > "$K/kvcompat-0.9.0.dist-info/entry_points.txt"
printf 'kvcompat\n' > "$K/kvcompat-0.9.0.dist-info/top_level.txt"
python3 - "$K" "$DEST/vendor/wheels/kvcompat-0.9.0-cp311-cp311-linux_x86_64.whl" <<'EOF'
import base64, hashlib, os, sys, zipfile
root, out = sys.argv[1], sys.argv[2]
rows = []
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for d, _, fs in sorted(os.walk(root)):
        for f in sorted(fs):
            p = os.path.join(d, f); rel = os.path.relpath(p, root)
            data = open(p, "rb").read()
            h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            zi = zipfile.ZipInfo(rel, (2024, 5, 1, 0, 0, 0)); zi.external_attr = (0o755 if rel.endswith(".so") or ".so." in rel else 0o644) << 16
            z.writestr(zi, data, zipfile.ZIP_DEFLATED); rows.append(f"{rel},sha256={h},{len(data)}")
    rows.append("kvcompat-0.9.0.dist-info/RECORD,,")
    z.writestr("kvcompat-0.9.0.dist-info/RECORD", "\n".join(rows) + "\n")
EOF

############ the project: ledger ############
cat > pyproject.toml <<'EOF'
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "ledger"
version = "0.4.0"
description = "Checksummed ledgers on top of libkv"
requires-python = ">=3.9"

[project.optional-dependencies]
test = ["pytest==8.3.5", "kvcompat==0.9.0"]

[tool.setuptools.packages.find]
where = ["src"]
EOF
cat > setup.py <<'EOF'
from setuptools import Extension, setup

LIBKV = "vendor/libkv-1.2"

setup(
    ext_modules=[
        Extension(
            "ledger._ledger",
            sources=["src/ledger/_ledger.c"],
            include_dirs=[f"{LIBKV}/include"],
            library_dirs=[f"{LIBKV}/lib"],
            libraries=["kv"],
            # the extension is built in-place into src/ledger/, so reach the vendored lib relative to it
            extra_link_args=["-Wl,-rpath,$ORIGIN/../../" + LIBKV + "/lib"],
        )
    ]
)
EOF
cat > setup.py.orig <<'EOF'
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "ledger._ledger",
            sources=["src/ledger/_ledger.c"],
            include_dirs=["vendor/libkv-1.2/include"],
            library_dirs=["vendor/libkv-1.2/lib"],
            libraries=["kv"],
        )
    ]
)
EOF
cat > src/ledger/_ledger.c <<'EOF'
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "kv.h"

static PyObject *checksum(PyObject *self, PyObject *args) {
    const char *path;
    if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
    kv_store *s = kv_open(path);
    if (!s) { PyErr_SetString(PyExc_OSError, "kv_open failed"); return NULL; }
    uint64_t h = kv_checksum(s);
    kv_close(s);
    return PyLong_FromUnsignedLongLong(h);
}

static PyObject *append(PyObject *self, PyObject *args) {
    const char *path; PyObject *d;
    if (!PyArg_ParseTuple(args, "sO!", &path, &PyDict_Type, &d)) return NULL;
    Py_ssize_t n = PyDict_Size(d), i = 0, pos = 0;
    const char **ks = PyMem_Calloc(n ? n : 1, sizeof *ks), **vs = PyMem_Calloc(n ? n : 1, sizeof *vs);
    PyObject *k, *v;
    while (PyDict_Next(d, &pos, &k, &v)) { ks[i] = PyUnicode_AsUTF8(k); vs[i] = PyUnicode_AsUTF8(v); i++; }
    kv_store *s = kv_open(path);
    int rc = s ? kv_put_many(s, ks, vs, (size_t)n) : -1;
    kv_close(s); PyMem_Free(ks); PyMem_Free(vs);
    if (rc) { PyErr_SetString(PyExc_OSError, "kv_put_many failed"); return NULL; }
    Py_RETURN_NONE;
}

static PyObject *get(PyObject *self, PyObject *args) {
    const char *path, *key;
    if (!PyArg_ParseTuple(args, "ss", &path, &key)) return NULL;
    kv_store *s = kv_open(path);
    if (!s) { PyErr_SetString(PyExc_OSError, "kv_open failed"); return NULL; }
    const char *v = kv_get(s, key);
    PyObject *r = v ? PyUnicode_FromString(v) : Py_NewRef(Py_None);
    kv_close(s);
    return r;
}

static PyObject *libkv_version(PyObject *self, PyObject *noargs) { return PyUnicode_FromString(kv_version()); }

static PyMethodDef M[] = {
    {"checksum", checksum, METH_VARARGS, "FNV-1a checksum of a kv file"},
    {"append", append, METH_VARARGS, "append a dict of rows"},
    {"get", get, METH_VARARGS, "latest value for key"},
    {"libkv_version", libkv_version, METH_NOARGS, "runtime libkv version"},
    {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_ledger", NULL, -1, M};
PyMODINIT_FUNC PyInit__ledger(void) { return PyModule_Create(&mod); }
EOF
cat > src/ledger/__init__.py <<'EOF'
"""ledger: checksummed append-only ledgers on libkv >= 1.2."""
from ledger._ledger import append, checksum, get, libkv_version

__all__ = ["append", "checksum", "get", "libkv_version", "Ledger"]


class Ledger:
    def __init__(self, path):
        self.path = str(path)

    def extend(self, rows):
        append(self.path, {str(k): str(v) for k, v in rows.items()})

    def __getitem__(self, key):
        return get(self.path, key)

    def digest(self):
        return f"{checksum(self.path):016x}"
EOF
cat > tests/test_ledger.py <<'EOF'
import ledger
from ledger import Ledger


def test_runtime_libkv_is_12():
    assert ledger.libkv_version().startswith("1.2")


def test_reads_legacy_store(kv_store):
    path, rows = kv_store
    lg = Ledger(path)
    for k, v in rows.items():
        assert lg[k] == v


def test_extend_and_digest(kv_store, tmp_path):
    path, _ = kv_store
    lg = Ledger(path)
    before = lg.digest()
    lg.extend({"delta": 4444})
    assert lg["delta"] == "4444"
    assert lg.digest() != before
    fresh = Ledger(tmp_path / "fresh.kv")
    fresh.extend({"x": 1})
    assert fresh.digest() == "%016x" % ledger.checksum(str(tmp_path / "fresh.kv"))
EOF
cat > pytest.ini <<'EOF'
[pytest]
testpaths = tests
EOF
cat > Makefile <<'EOF'
PY := .venv/bin/python

.PHONY: build test clean

build:
	$(PY) setup.py -q build_ext --inplace

test: build
	$(PY) -m pytest -q

clean:
	rm -rf build src/ledger/*.so
EOF
cat > README.md <<'EOF'
# ledger

Checksummed append-only ledgers on top of the vendored libkv 1.2 (`vendor/libkv-1.2`).

    python3 -m venv .venv
    .venv/bin/pip install -e '.[test]' --find-links vendor/wheels
    make test

`kvcompat` (vendor/wheels) is the QA team's fixture package; its pytest plugin provides `kv_store`.

Troubleshooting: if the extension can't find libkv at runtime (`cannot open shared object file`
or missing-symbol errors), export `LD_LIBRARY_PATH=$PWD/vendor/libkv-1.2/lib` before running.
EOF
printf '.venv/\nbuild/\n*.so\n*.egg-info/\n__pycache__/\n' > .gitignore

############ venv ############
python3 -m venv .venv
.venv/bin/pip install -q pytest==8.3.5 wheel==0.43.0
.venv/bin/pip install -q --no-index vendor/wheels/kvcompat-0.9.0-cp311-cp311-linux_x86_64.whl
.venv/bin/pip install -q --no-build-isolation --no-deps -e .
echo "ledger project ready at $DEST"
