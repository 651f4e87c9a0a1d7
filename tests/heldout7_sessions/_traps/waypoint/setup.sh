#!/usr/bin/env bash
# setup.sh DEST -- creates the "waypoint" project (C, vendored binary libgeo drop).
set -euo pipefail
DEST=${1:?usage: setup.sh DEST}
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# ---------------------------------------------------------------------------
# 1. The supplier's libgeo, built here from sources that are NOT shipped to DEST.
#    2.4.0: geo_ctx layout starts with an ABI tag, ellipsoidal radius,
#           built the supplier's way (-fno-pic, as on their old build farm).
#    1.9.2: old layout (radius first), spherical, built -fPIC (libgeo_pic.a).
# ---------------------------------------------------------------------------
mkdir -p "$WORK/v24" "$WORK/v19"
cat > "$WORK/v24/distance.c" <<'EOF'
#include <math.h>
typedef struct { double lat, lon; } geo_pt;
typedef struct geo_ctx { unsigned abi; int units; double radius; double flattening; } geo_ctx;
static const double unit_scale[3] = { 1.0, 0.621371192237334, 0.539956803455724 };
static const char ident[] = "@(#)libgeo 2.4.0 (Meridian Systems) build 7731";
const char *geo_version(void) { return ident + 11; }
static double rad(double d) { return d * 0.017453292519943295; }
void geo_ctx_init(geo_ctx *c, int units) {
    c->abi = 0x0204u; c->units = units; c->radius = 0.0; c->flattening = 0.0;
}
void geo_set_units(geo_ctx *c, int units) { c->units = units; }
double geo_distance(const geo_ctx *c, geo_pt a, geo_pt b) {
    double f = c->flattening != 0.0 ? c->flattening : 1.0 / 298.257223563;
    double R = c->radius != 0.0 ? c->radius : 6378.137;
    double p1 = rad(a.lat), p2 = rad(b.lat), dp = p2 - p1, dl = rad(b.lon - a.lon);
    double h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2);
    double ang = 2 * atan2(sqrt(h), sqrt(1 - h));
    double sm = sin((p1 + p2) / 2);
    double Rm = R * (1.0 - f * sm * sm);
    return ang * Rm * unit_scale[c->units];
}
EOF
cat > "$WORK/v19/distance.c" <<'EOF'
#include <math.h>
typedef struct { double lat, lon; } geo_pt;
typedef struct geo_ctx { double radius; int units; } geo_ctx;
static const double radius_by_unit[3] = { 6371.0088, 3958.7613, 3440.0695 };
static const char ident[] = "@(#)libgeo 1.9.2 (Meridian Systems) build 6120 PIC";
const char *geo_version(void) { return ident + 11; }
static double rad(double d) { return d * 0.017453292519943295; }
void geo_ctx_init(geo_ctx *c, int units) { c->radius = radius_by_unit[units]; c->units = units; }
void geo_set_units(geo_ctx *c, int units) { c->radius = radius_by_unit[units]; c->units = units; }
double geo_distance(const geo_ctx *c, geo_pt a, geo_pt b) {
    double p1 = rad(a.lat), p2 = rad(b.lat), dp = p2 - p1, dl = rad(b.lon - a.lon);
    double h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2);
    return 2 * atan2(sqrt(h), sqrt(1 - h)) * c->radius;
}
EOF
printf 'GCC: (GNU) 4.8.5 20150623 (Red Hat 4.8.5-44)\0' > "$WORK/comment"
build_lib() { # src out picflag
    (cd "$WORK/$1" && gcc -O2 "$3" -fno-ident -c distance.c -o "$WORK/distance.o")
    objcopy --add-section .comment="$WORK/comment" --set-section-flags .comment=readonly \
        "$WORK/distance.o"
    rm -f "$2"; ar rcs "$2" "$WORK/distance.o"
}
mkdir -p "$DEST/vendor/libgeo/include" "$DEST/vendor/libgeo/lib"
build_lib v24 "$DEST/vendor/libgeo/lib/libgeo.a" -fno-pic
build_lib v19 "$DEST/vendor/libgeo/lib/libgeo_pic.a" -fPIC
touch -d '2023-03-02 10:14' "$DEST/vendor/libgeo/lib/libgeo_pic.a"
touch -d '2024-11-18 16:40' "$DEST/vendor/libgeo/lib/libgeo.a"

cat > "$DEST/vendor/libgeo/include/geo.h" <<'EOF'
/* geo.h -- libgeo public API.  (c) Meridian Systems.  Binary distribution:
 * redistribution of this header with the libraries in ../lib is permitted. */
#ifndef GEO_H
#define GEO_H

#define GEO_VERSION_STRING "2.4.0"
#define GEO_ABI 0x0204u

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { double lat, lon; } geo_pt;           /* degrees */

typedef enum { GEO_KM = 0, GEO_MI = 1, GEO_NM = 2 } geo_units;

typedef struct geo_ctx {
    unsigned  abi;          /* GEO_ABI; checked by the library (since 2.0)   */
    geo_units units;
    double    radius;       /* 0 = WGS84 equatorial radius                   */
    double    flattening;   /* 0 = WGS84 flattening                          */
} geo_ctx;

/* Static initialiser: equivalent to geo_ctx_init(). */
#define GEO_CTX_INIT(u) { GEO_ABI, (u), 0.0, 0.0 }

void        geo_ctx_init(geo_ctx *ctx, geo_units units);
double      geo_distance(const geo_ctx *ctx, geo_pt a, geo_pt b);
const char *geo_version(void);

/* Kept for 1.x source compatibility. */
__attribute__((deprecated("use GEO_CTX_INIT or geo_ctx_init()")))
void        geo_set_units(geo_ctx *ctx, geo_units units);

#ifdef __cplusplus
}
#endif
#endif
EOF
cat > "$DEST/vendor/libgeo/VERSION" <<'EOF'
2.4.0
EOF
cat > "$DEST/vendor/libgeo/CHANGES" <<'EOF'
libgeo -- supplier release notes (binary distribution)

2.4.0  (2024-11)
  * Ellipsoidal (WGS84) mean-radius correction in geo_distance().
  * Build farm unchanged (EL7 toolchain).

2.0.0  (2024-02)
  * geo_ctx now starts with an ABI tag; GEO_CTX_INIT() added.
    Binary incompatible with 1.x: rebuild everything that includes geo.h.
  * geo_set_units() deprecated.

1.9.2  (2023-03)
  * Additional PIC build (libgeo_pic.a) provided on request for the
    Python binding project.
EOF
cat > "$DEST/vendor/README.vendor" <<'EOF'
vendor/libgeo is the binary drop from Meridian Systems, unpacked as delivered.
Do not modify it; updates come only from the supplier (ticket MS-2210).
EOF

# ---------------------------------------------------------------------------
# 2. Our project.
# ---------------------------------------------------------------------------
mkdir -p "$DEST/src" "$DEST/include" "$DEST/tests" "$DEST/scripts"
cat > "$DEST/include/route.h" <<'EOF'
#ifndef ROUTE_H
#define ROUTE_H
#include <stddef.h>
#include "geo.h"

typedef struct { const char *name; geo_pt pos; } waypoint;

/* Total length of the polyline through pts[0..n-1], in the given units. */
double route_length(const waypoint *pts, size_t n, geo_units units);
const char *route_libgeo_version(void);
#endif
EOF
cat > "$DEST/src/route.c" <<'EOF'
#include "route.h"

double route_length(const waypoint *pts, size_t n, geo_units units)
{
    geo_ctx ctx = GEO_CTX_INIT(GEO_KM);
    double total = 0.0;
    geo_set_units(&ctx, units);        /* TODO: drop once we require 2.x only */
    for (size_t i = 1; i < n; i++)
        total += geo_distance(&ctx, pts[i - 1].pos, pts[i].pos);
    return total;
}

const char *route_libgeo_version(void)
{
    return GEO_VERSION_STRING;
}
EOF
cat > "$DEST/src/main.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "route.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("waypoint 0.7.1 (libgeo %s)\n", route_libgeo_version());
        return 0;
    }
    if (argc < 5 || (argc - 1) % 2) {
        fprintf(stderr, "usage: %s LAT LON LAT LON [LAT LON ...]\n", argv[0]);
        return 2;
    }
    size_t n = (size_t)(argc - 1) / 2;
    waypoint *pts = calloc(n, sizeof *pts);
    if (!pts) return 1;
    for (size_t i = 0; i < n; i++) {
        pts[i].pos.lat = atof(argv[1 + 2 * i]);
        pts[i].pos.lon = atof(argv[2 + 2 * i]);
    }
    printf("%.2f km\n", route_length(pts, n, GEO_KM));
    free(pts);
    return 0;
}
EOF
cat > "$DEST/tests/test_route.c" <<'EOF'
/* Reference values: Meridian libgeo 2.4 certification sheet, table 3. */
#include <math.h>
#include <stdio.h>
#include "route.h"

static int failures;

static void check(const char *what, double got, double want, double tol)
{
    if (fabs(got - want) > tol) {
        printf("FAIL %s: expected %.3f, got %.3f\n", what, want, got);
        failures++;
    } else {
        printf("ok   %s (%.3f)\n", what, got);
    }
}

int main(void)
{
    const waypoint osl = { "OSL", { 59.9139, 10.7522 } };
    const waypoint bgo = { "BGO", { 60.3913,  5.3221 } };
    const waypoint trd = { "TRD", { 63.4305, 10.3951 } };
    const waypoint eq1 = { "EQ1", {  0.0000,  0.0000 } };
    const waypoint eq2 = { "EQ2", {  0.0000,  1.0000 } };

    waypoint leg[]   = { osl, bgo };
    waypoint tour[]  = { osl, bgo, trd, osl };
    waypoint equat[] = { eq1, eq2 };

    check("OSL-BGO km",            route_length(leg, 2, GEO_KM),   304.638, 0.01);
    check("OSL-BGO nmi",           route_length(leg, 2, GEO_NM),   164.491, 0.01);
    check("OSL-BGO-TRD-OSL km",    route_length(tour, 4, GEO_KM), 1124.458, 0.01);
    check("1 deg on equator km",   route_length(equat, 2, GEO_KM), 111.319, 0.01);
    check("single point",          route_length(leg, 1, GEO_KM),     0.000, 0.0);

    if (failures) { printf("%d test(s) failed\n", failures); return 1; }
    printf("all tests passed\n");
    return 0;
}
EOF
cat > "$DEST/scripts/check-hardening.sh" <<'EOF'
#!/bin/sh
# Release gate: every shipped binary must be PIE with full RELRO and canaries.
rc=0
for f in "$@"; do
    if readelf -h "$f" | grep -q 'Type:.*DYN'; then echo "$f: PIE ok"; else echo "$f: NOT PIE"; rc=1; fi
    if readelf -lW "$f" | grep -q GNU_RELRO && readelf -d "$f" | grep -q 'BIND_NOW\|FLAGS.*NOW'; then
        echo "$f: full RELRO ok"; else echo "$f: no full RELRO"; rc=1; fi
    if nm -D "$f" 2>/dev/null | grep -q __stack_chk_fail; then echo "$f: stack protector ok"; else echo "$f: no stack protector"; rc=1; fi
done
exit $rc
EOF
chmod +x "$DEST/scripts/check-hardening.sh"

cat > "$DEST/Makefile" <<'EOF'
# waypoint -- route length tool
CC      ?= gcc
CFLAGS  ?= -O2 -g -Wall -Wextra
LDLIBS  += -lm

# Release hardening (security baseline SB-4; checked by `make hardening`).
HARDEN_CFLAGS  = -fPIE -fstack-protector-strong -D_FORTIFY_SOURCE=2
HARDEN_LDFLAGS = -pie -Wl,-z,relro,-z,now

CPPFLAGS += -Iinclude -Ivendor/libgeo/include
GEO_LIB   = vendor/libgeo/lib/libgeo_pic.a

OBJ = build/route.o

all: bin/waypoint

build/%.o: src/%.c include/route.h | build
	$(CC) $(CPPFLAGS) $(CFLAGS) $(HARDEN_CFLAGS) -c $< -o $@

build/test_route.o: tests/test_route.c include/route.h | build
	$(CC) $(CPPFLAGS) $(CFLAGS) $(HARDEN_CFLAGS) -c $< -o $@

bin/waypoint: build/main.o $(OBJ) $(GEO_LIB) | bin
	$(CC) $(HARDEN_LDFLAGS) $(LDFLAGS) -o $@ build/main.o $(OBJ) $(GEO_LIB) $(LDLIBS)

build/test_route: build/test_route.o $(OBJ) $(GEO_LIB)
	$(CC) $(HARDEN_LDFLAGS) $(LDFLAGS) -o $@ build/test_route.o $(OBJ) $(GEO_LIB) $(LDLIBS)

test: bin/waypoint build/test_route
	./build/test_route
	./bin/waypoint 59.9139 10.7522 60.3913 5.3221

hardening: bin/waypoint build/test_route
	./scripts/check-hardening.sh bin/waypoint build/test_route

build bin:
	mkdir -p $@

clean:
	rm -rf build bin

.PHONY: all test hardening clean
EOF
# Pre-hardening Makefile someone left behind.
cat > "$DEST/Makefile.orig" <<'EOF'
# waypoint -- route length tool (pre-SB-4)
CC      ?= gcc
CFLAGS  ?= -O2 -g -Wall
LDFLAGS += -no-pie
LDLIBS  += -lm
CPPFLAGS += -Iinclude -Ivendor/libgeo/include

all: bin/waypoint

bin/waypoint: src/main.c src/route.c
	mkdir -p bin
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ vendor/libgeo/lib/libgeo.a $(LDLIBS)

test: bin/waypoint
	./bin/waypoint 59.9139 10.7522 60.3913 5.3221
EOF
cat > "$DEST/README.md" <<'EOF'
# waypoint

Computes the length of a route through a list of waypoints using the
supplier's geodesy library (libgeo, vendored as a binary drop in vendor/libgeo).

    make            # builds bin/waypoint
    make test       # unit tests against the libgeo certification values
    make hardening  # release gate (PIE, full RELRO, stack protector)

Notes
- We link `libgeo_pic.a`, the supplier's position-independent build of the
  same release, because our binaries are built as PIE (security baseline SB-4).
- The deprecation warning about geo_set_units() is known and harmless; it goes
  away when we drop 1.x support.
EOF
echo "waypoint project created in $DEST"
